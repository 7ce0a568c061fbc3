//! What the accuracy tests share: a program's reference (values and
//! bounds) and the check that bounds are sound (they cover the exact value,
//! computed in `f64`) and tight (no larger than the caller allows).

use texpr_interp::accuracy::{self, Bound};
use texpr_interp::{Value, random_inputs};
use texpr_ir::Program;

/// `f32`'s unit roundoff with the analysis' factor 2 of slack (2^-23).
pub const EPS: f64 = 1.0 / (1u64 << 23) as f64;

/// The checked program of `src` (with its params as written).
pub fn program(src: &str) -> Program {
    texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"))
}

/// Output `k` of `p` on `inputs`: its values and their bounds.
pub fn reference(p: &Program, inputs: &[Value], k: usize) -> (Vec<f32>, Vec<Bound>) {
    let mut r = accuracy::reference(p, inputs).expect("runs");
    let r = r.swap_remove(k);
    (r.value.as_f32().expect("f32").to_vec(), r.bounds)
}

/// `p`'s seed-1 random inputs (`f32` uniform in [-1, 1)).
pub fn inputs(p: &Program) -> Vec<Value> {
    random_inputs(p, 1)
}

/// Every element of `got` is specified, its bound finite, at most `most`,
/// and at least its distance from `exact`. Returns the largest bound.
#[track_caller]
pub fn assert_sound_and_tight(
    what: &str,
    got: &[f32],
    bounds: &[Bound],
    exact: &[f64],
    most: f64,
) -> f64 {
    assert_eq!(got.len(), exact.len(), "{what}");
    let mut largest: f64 = 0.0;
    for (i, ((&v, b), &x)) in got.iter().zip(bounds).zip(exact).enumerate() {
        assert!(b.specified, "{what}[{i}] = {v} is unspecified: {b:?}");
        assert!(
            b.err.is_finite(),
            "{what}[{i}] = {v} is ill-conditioned: {b:?}"
        );
        let diff = (v as f64 - x).abs();
        assert!(
            diff <= b.err,
            "{what}[{i}]: {v} vs exact {x}: {diff:e} > bound {:e}",
            b.err
        );
        assert!(
            b.err <= most,
            "{what}[{i}] = {v}: bound {:e} > {most:e}",
            b.err
        );
        largest = largest.max(b.err);
    }
    largest
}

/// The largest magnitude in `xs`.
pub fn scale(xs: &[f64]) -> f64 {
    xs.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// The largest magnitude in an input.
pub fn input_scale(xs: &[f32]) -> f64 {
    xs.iter().fold(0.0, |m, x| m.max(x.abs() as f64))
}
