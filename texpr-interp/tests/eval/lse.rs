//! `reduce lse`: values against an f64 reference, `-inf` rows, a single
//! element, magnitudes whose naive `exp` overflows, and its error bound.

use texpr_interp::{Data, Value, accuracy, eval};

/// `reduce lse C |j| x[r * C + j]` per row of `rows` rows of `cols`.
fn lse_rows(x: Vec<f32>, cols: usize) -> (Vec<f32>, Vec<accuracy::Bound>) {
    let rows = x.len() / cols;
    let src = format!(
        "input x: f32[{}]\noutput y = compute {rows} |r| reduce lse {cols} |j| x[r * {cols} + j]",
        x.len()
    );
    let p = texpr_syntax::frontend(&src, &[]).expect("checks");
    let inputs = [Value::f32(x)];
    let out = eval(&p, &inputs).expect("runs").remove(0);
    let mut r = accuracy::reference(&p, &inputs).expect("runs");
    assert_eq!(r[0].value, out, "the reference computes what eval does");
    match out.data {
        Data::F32(v) => (v, r.remove(0).bounds),
        d => panic!("{d:?}"),
    }
}

fn exact(xs: &[f32]) -> f64 {
    let m = xs.iter().fold(f64::NEG_INFINITY, |a, &x| a.max(x as f64));
    m + xs.iter().map(|&x| (x as f64 - m).exp()).sum::<f64>().ln()
}

#[test]
fn lse_folds_match_an_f64_reference_within_their_bound() {
    let cols = 37;
    let x: Vec<f32> = (0..cols * 4)
        .map(|k| ((k * 7919 % 1000) as f32 / 100.0 - 5.0) * (1 + k / cols) as f32)
        .collect();
    let (y, bounds) = lse_rows(x.clone(), cols);
    for (r, (&v, b)) in y.iter().zip(&bounds).enumerate() {
        let want = exact(&x[r * cols..(r + 1) * cols]);
        let diff = (v as f64 - want).abs();
        assert!(b.specified);
        assert!(
            diff <= b.err,
            "row {r}: {v} vs {want}: {diff:e} > {:e}",
            b.err
        );
        assert!(diff <= 1e-5 * want.abs().max(1.0), "row {r}: {v} vs {want}");
    }
}

#[test]
fn large_magnitudes_do_not_overflow() {
    // exp(1000) is inf in f32; lse is 1000 + log(3).
    let (y, bounds) = lse_rows(vec![1000.0, 1000.0, 1000.0, -1000.0, -1000.5, -999.0], 3);
    let want = [1000.0 + 3f64.ln(), exact(&[-1000.0, -1000.5, -999.0])];
    for ((&v, w), b) in y.iter().zip(want).zip(&bounds) {
        assert!((v as f64 - w).abs() <= 1e-4, "{v} vs {w}");
        assert!(b.specified && (v as f64 - w).abs() <= b.err);
    }
}

#[test]
fn a_single_element_is_itself_and_neg_inf_rows_stay_neg_inf() {
    let ninf = f32::NEG_INFINITY;
    let (y, _) = lse_rows(vec![2.5, -7.0], 1);
    assert_eq!(y, vec![2.5, -7.0], "lse(-inf, x) = x exactly");
    let (y, bounds) = lse_rows(vec![ninf, ninf, ninf, ninf, 0.0, ninf], 3);
    assert_eq!(y[0], ninf, "a row of -inf is -inf, not NaN");
    assert_eq!(y[1], 0.0, "-inf terms add nothing");
    assert!(
        !bounds[0].specified,
        "non-finite terms: unspecified, as for max"
    );
}
