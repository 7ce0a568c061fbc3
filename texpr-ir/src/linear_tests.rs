//! Unit tests of the interval analysis of index terms.

use super::basic::TermOp::{self, *};
use super::linear::{BoundsError, term_range};
use crate::span::Span;
use crate::{Term, TermKind, VarId};

fn c(v: i64) -> Term {
    Term {
        kind: TermKind::Const(v),
        span: Span::DUMMY,
    }
}
fn v(i: u32) -> Term {
    Term {
        kind: TermKind::Var(VarId(i)),
        span: Span::DUMMY,
    }
}
fn b(op: TermOp, x: Term, y: Term) -> Term {
    Term {
        kind: TermKind::Binary(op, Box::new(x), Box::new(y)),
        span: Span::DUMMY,
    }
}

/// Variables v0, v1, v2 with extents 4, 64, 256; others unbound.
fn range(t: &Term) -> Result<(i64, i64), BoundsError> {
    term_range(t, |x| [4, 64, 256].get(x.0 as usize).copied())
}

#[test]
fn tiled_index_is_exact() {
    // i*64 + k over i < 4, k < 64: exactly 0..=255
    assert_eq!(range(&b(Add, b(Mul, v(0), c(64)), v(1))), Ok((0, 255)));
}

#[test]
fn equal_atoms_cancel() {
    // (i + 1) - i == 1
    assert_eq!(range(&b(Sub, b(Add, v(0), c(1)), v(0))), Ok((1, 1)));
    // 2*k - k - k == 0
    let t = b(Sub, b(Sub, b(Mul, c(2), v(1)), v(1)), v(1));
    assert_eq!(range(&t), Ok((0, 0)));
}

#[test]
fn division_splits_off_multiples() {
    // (i*64 + k) / 64 == i, (i*64 + k) % 64 == k
    let flat = b(Add, b(Mul, v(0), c(64)), v(1));
    assert_eq!(range(&b(Div, flat.clone(), c(64))), Ok((0, 3)));
    assert_eq!(range(&b(Rem, flat.clone(), c(64))), Ok((0, 63)));
    // ((i*64 + k) / 64) * 64 + (i*64 + k) % 64 - (i*64 + k) == 0
    let back = b(
        Add,
        b(Mul, b(Div, flat.clone(), c(64)), c(64)),
        b(Rem, flat.clone(), c(64)),
    );
    assert_eq!(range(&b(Sub, back, flat)), Ok((0, 0)));
}

#[test]
fn plain_division_and_remainder() {
    // l / 3 over l < 256: 0..=85; l % 100: 0..=99; i % 8 (i < 4): 0..=3
    assert_eq!(range(&b(Div, v(2), c(3))), Ok((0, 85)));
    assert_eq!(range(&b(Rem, v(2), c(100))), Ok((0, 99)));
    assert_eq!(range(&b(Rem, v(0), c(8))), Ok((0, 3)));
    // (i + 5) % 8 over i < 4: 5..=8 wraps, so 0..=7
    assert_eq!(range(&b(Rem, b(Add, v(0), c(5)), c(8))), Ok((0, 7)));
    // (i + 2) % 8: 2..=5 does not wrap
    assert_eq!(range(&b(Rem, b(Add, v(0), c(2)), c(8))), Ok((2, 5)));
}

#[test]
fn products_of_variables_use_interval_products() {
    assert_eq!(range(&b(Mul, v(0), v(1))), Ok((0, 3 * 63)));
    assert_eq!(range(&b(Mul, b(Sub, v(0), c(2)), v(1))), Ok((-2 * 63, 63)));
}

#[test]
fn divisor_rules() {
    let span_of = |e: BoundsError| format!("{e:?}");
    assert!(matches!(
        range(&b(Div, v(1), v(0))),
        Err(BoundsError::DivisorNotConstant { .. })
    ));
    assert!(matches!(
        range(&b(Rem, v(1), c(0))),
        Err(BoundsError::DivisorNotPositive { value: 0, .. })
    ));
    let neg = range(&b(Div, b(Sub, v(1), c(1)), c(2))).unwrap_err();
    assert_eq!(
        neg,
        BoundsError::DividendMaybeNegative {
            span: Span::DUMMY,
            range: (-1, 62)
        },
        "{}",
        span_of(neg.clone())
    );
}

#[test]
fn overflow_is_reported_at_the_sub_term() {
    let big = b(Mul, v(2), c(1 << 24));
    match range(&b(Sub, big, c(1))) {
        Err(BoundsError::Overflow { range, .. }) => assert_eq!(range, (0, 255 * (1 << 24))),
        other => panic!("expected overflow, got {other:?}"),
    }
    // a constant outside i32
    assert!(matches!(
        range(&c(1 << 40)),
        Err(BoundsError::Overflow { .. })
    ));
}

#[test]
fn unbound_variables_are_reported() {
    assert_eq!(
        range(&b(Add, v(0), v(7))),
        Err(BoundsError::UnboundVar {
            var: VarId(7),
            span: Span::DUMMY
        })
    );
}

/// `k` of `reduce i |k|` inside `compute 8 |i|`: extent 7, upper `i - 1`.
fn dependent(t: &Term) -> Result<(i64, i64), BoundsError> {
    let extent = |x: VarId| [8, 7].get(x.0 as usize).copied();
    let upper = |x: VarId| (x == VarId(1)).then(|| b(Sub, v(0), c(1)));
    super::linear::term_range_within(t, &extent, &upper)
}

#[test]
fn a_dependent_variable_stays_below_its_count() {
    // i - 1 - k for k <= i - 1: at least 0 (k alone would allow -7).
    let t = b(Sub, b(Sub, v(0), c(1)), v(1));
    assert_eq!(dependent(&t), Ok((0, 6)));
    // i * 8 + k: at most 7 * 8 + 6 (k below i), not 7 * 8 + 6 from k's extent alone.
    let t = b(Add, b(Mul, v(0), c(8)), v(1));
    assert_eq!(dependent(&t), Ok((0, 62)));
    // k + 1 - i: at most 0 (k below i), at least 1 - 7 (k = 0, i = 7).
    let t = b(Sub, b(Add, v(1), c(1)), v(0));
    assert_eq!(dependent(&t), Ok((-6, 0)));
    // Inside a division k is no summand: the plain range holds (sound, wider).
    let t = b(Div, b(Sub, b(Add, v(0), c(8)), v(1)), c(2));
    assert_eq!(dependent(&t), Ok((1, 7)));
}
