//! Layouts: digit permutations, padded corners and strided rows read back through their terms and inverses.

use super::*;
use crate::TermKind;

fn eval(t: &Term, k: i64) -> i64 {
    match &t.kind {
        TermKind::Const(c) => *c,
        TermKind::Var(_) => k,
        TermKind::Binary(op, a, b) => {
            let (a, b) = (eval(a, k), eval(b, k));
            match op {
                TermOp::Add => a + b,
                TermOp::Sub => a - b,
                TermOp::Mul => a * b,
                TermOp::Div => a.div_euclid(b),
                TermOp::Rem => a.rem_euclid(b),
            }
        }
    }
}

/// A 2D tile order over an 8 x 12 row-major matrix: 2 x 3 blocks, 2 x 2
/// threads per block, 2 x 2 registers per thread.
fn tile() -> DigitPerm {
    // Layout digits (least significant first): rj, tj, bj over columns
    // (2, 2, 3), then ri, ti, bi over rows (2, 2, 2).
    // Raw order (most significant first): bi bj ti tj ri rj.
    DigitPerm::new(&[
        (2, 1, 1),   // rj
        (2, 2, 4),   // tj
        (3, 4, 16),  // bj
        (2, 12, 2),  // ri
        (2, 24, 8),  // ti
        (2, 48, 48), // bi
    ])
    .expect("a permutation")
}

#[test]
fn term_and_inverse_are_inverse_bijections() {
    let p = tile();
    assert_eq!(p.len, 96);
    let k = VarId(0);
    let f = p.term(k);
    let g = p.inverse_term(var(k));
    let mut seen = [false; 96];
    for x in 0..96 {
        let y = eval(&f, x);
        assert_eq!(y as u64, p.apply(x as u64));
        assert!(!seen[y as usize], "not injective at {x}");
        seen[y as usize] = true;
        assert_eq!(eval(&g, y), x);
    }
}

/// A 5 x 7 matrix computed as a padded 8 x 12 tile order: every element
/// of the layout comes from a distinct raw position, padding lands past
/// the end, and the map reads back.
#[test]
fn padded_layouts_keep_the_corner_and_read_back() {
    let p = Padded::new(5, 7, 12, tile()).expect("a padded layout");
    let k = VarId(0);
    let f = p.term(k);
    let g = p.inverse_term(var(k));
    let mut hit = [false; 96];
    for x in 0..35 {
        let raw = eval(&f, x);
        assert!((0..96).contains(&raw));
        assert!(!hit[raw as usize], "not injective at {x}");
        hit[raw as usize] = true;
        assert_eq!(eval(&g, raw), x, "inverse at {x}");
        // The padded position is row-major in the padded matrix.
        let (i, j) = (x / 7, x % 7);
        assert_eq!(raw as u64, p.perm.apply((i * 12 + j) as u64));
    }
    for raw in (0..96).filter(|r| !hit[*r as usize]) {
        assert!(eval(&g, raw) >= 35, "padding {raw} lands inside");
    }
    let l = Layout::Padded(p.clone());
    assert!((0..35).all(|x| l.apply(x) == eval(&f, x as i64) as u64));
    assert_eq!(l.misfit(35, 96), None);
    assert!(l.misfit(35, 100).is_some() && l.misfit(36, 96).is_some());
    // Rows wider than the padded rows, or digits straddling a row, are refused.
    assert_eq!(Padded::new(5, 13, 12, tile()), None);
    assert_eq!(Padded::new(5, 7, 8, tile()), None);
}

/// Rows of 3 laid out 5 apart: the padding repeats a row's first elements,
/// every raw element lands where the inverse says, and misfits say why.
#[test]
fn strided_layouts_spread_rows_and_read_back() {
    let s = Strided { cols: 3, stride: 5 };
    let l = Layout::Strided(s);
    let k = VarId(0);
    let (f, g) = (l.term(k), l.inverse_term(var(k)));
    for x in 0..20 {
        let raw = eval(&f, x);
        assert_eq!(raw as u64, l.apply(x as u64));
        assert_eq!(raw, x / 5 * 3 + (x % 5) % 3);
        if x % 5 < 3 {
            assert_eq!(eval(&g, raw), x, "inverse at {x}");
        }
    }
    assert_eq!(l.misfit(20, 12), None);
    assert!(l.misfit(21, 12).unwrap().contains("20 laid out"));
    assert!(l.misfit(20, 13).is_some());
    assert!(
        Layout::Strided(Strided { cols: 4, stride: 3 })
            .misfit(9, 12)
            .is_some()
    );
    assert_eq!(l.perm(), None);
}

#[test]
fn layouts_evaluate_as_their_terms_and_say_why_they_do_not_fit() {
    let d = Layout::Digits(tile());
    let k = VarId(0);
    let t = d.term(k);
    assert!((0..96).all(|x| d.apply(x) == eval(&t, x as i64) as u64));
    assert_eq!(d.misfit(96, 96), None);
    assert!(d.misfit(95, 96).unwrap().contains("covers 96"));
    assert_eq!(Layout::Truncate.misfit(10, 12), None);
    assert!(Layout::Truncate.misfit(13, 12).is_some());
    assert_eq!(Layout::Truncate.apply(7), 7);
    // Hand-made digits that overlap are not a permutation.
    let mut bad = tile();
    bad.digits[1].raw_stride = 1;
    assert!(
        Layout::Digits(bad)
            .misfit(96, 96)
            .unwrap()
            .contains("permutation")
    );
}

#[test]
fn overlapping_digits_are_refused() {
    assert_eq!(DigitPerm::new(&[(4, 1, 1), (4, 2, 4)]), None);
    assert_eq!(DigitPerm::new(&[(4, 1, 1), (4, 4, 2)]), None);
}
