//! How close another device's results must be to the interpreter's.
//!
//! [`reference`] evaluates a program with a running error analysis
//! (`running`): every output element gets the interpreter's value, a bound
//! on how far any evaluation WGSL allows may be from the exact result
//! (reassociated sums, contracted multiply-adds, WGSL's accuracy for each
//! builtin) and whether the language specifies it at all (docs/language.md,
//! "Non-finite values"). [`compare`] then holds each element to its own
//! tolerance: unspecified elements and elements without a finite bound are
//! counted and reported, never compared and never passed, unless the
//! statistical tier ([`add_spread`], `stochastic`) estimated their spread
//! under random rounding: then they are compared within it, and counted as
//! compared statistically. Used by `texprc run --check`, `texprc tune` and
//! every GPU test.

mod bound;
mod bound_ops;
mod chain;
mod compare;
mod est;
mod form;
mod linear;
mod running;
mod stochastic;

pub use bound::Bound;
pub use compare::{Checked, Mismatch, compare, statistical_tolerance, tolerance, useful};
pub use stochastic::{RUNS, SEED, f64_values, spread};

use crate::eval::{run, run_elements};
use crate::{EvalError, Value};
use texpr_ir::Program;

/// An output as the interpreter computes it, with every element's [`Bound`].
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub value: Value,
    pub bounds: Vec<Bound>,
    /// Each element's spread under random rounding ([`spread`]), where the
    /// statistical tier ran ([`add_spread`]); empty otherwise.
    pub spread: Vec<f64>,
}

impl Reference {
    /// The largest magnitude of the specified finite values: what a bound
    /// must be below to be useful ([`compare::useful`]).
    pub fn scale(&self) -> f64 {
        let v = &self.value;
        (0..v.len())
            .filter(|&i| self.bounds.get(i).is_some_and(|b| b.specified))
            .filter_map(|i| v.get(i).map(bound::num))
            .filter(|x| x.is_finite())
            .fold(0.0, |m, x| m.max(x.abs()))
    }

    /// Elements the language leaves unspecified.
    pub fn unspecified(&self) -> usize {
        self.bounds.iter().filter(|b| !b.specified).count()
    }
}

/// Every output of `p` on `inputs` with its bounds (what [`crate::eval`]
/// computes, plus the analysis).
pub fn reference(p: &Program, inputs: &[Value]) -> Result<Vec<Reference>, EvalError> {
    Ok(references(run::<Bound>(p, inputs)?))
}

/// [`reference`] by the interpreter's scalar path alone, one element at a
/// time: what its lane path must give, bit for bit. For tests.
#[doc(hidden)]
pub fn reference_by_element(p: &Program, inputs: &[Value]) -> Result<Vec<Reference>, EvalError> {
    Ok(references(crate::eval::run_by::<Bound>(p, inputs, false)?))
}

/// [`reference`] at the positions `picks[k]` of output `k` only (see
/// [`crate::eval_elements`]).
pub fn reference_elements(
    p: &Program,
    inputs: &[Value],
    picks: &[Vec<u64>],
) -> Result<Vec<Reference>, EvalError> {
    Ok(references(run_elements::<Bound>(p, inputs, picks)?))
}

/// Outputs evaluated with their bounds, as references (no spread yet).
fn references(outs: Vec<crate::shadow::Shadowed<Bound>>) -> Vec<Reference> {
    outs.into_iter()
        .map(|v| Reference {
            value: Value::new(v.data),
            bounds: v.shadow,
            spread: Vec::new(),
        })
        .collect()
}

/// The statistical tier: where an `f32` output of `want` (from
/// [`reference`] of `p` on `inputs`) has a specified element without a
/// [`compare::useful`] bound, every output's [`spread`] under random
/// rounding, which [`compare`] then holds such elements to. Does nothing
/// (and runs nothing) where every specified element has a useful bound.
pub fn add_spread(p: &Program, inputs: &[Value], want: &mut [Reference]) -> Result<(), EvalError> {
    let f32 = |r: &Reference| r.value.elem() == texpr_ir::ElemTy::F32;
    let unbounded = |r: &Reference| {
        let scale = r.scale();
        (r.bounds.iter().enumerate()).any(|(i, b)| {
            let v = r.value.get(i).map_or(f64::NAN, bound::num);
            b.specified && v.is_finite() && !compare::useful(b.err, v, scale)
        })
    };
    if !want.iter().any(|r| f32(r) && unbounded(r)) {
        return Ok(());
    }
    for (r, s) in want.iter_mut().zip(spread(p, inputs)?) {
        if f32(r) {
            r.spread = s;
        }
    }
    Ok(())
}

/// The reference of `original` for a device that runs `rewritten` instead:
/// a program equal to it in real arithmetic whose rounding differs (the
/// optimizer's `shift_lse`). The values are `original`'s; each element's
/// bound is the larger of the two programs' bounds, and it is specified
/// where both are. This is what the triangle inequality through the exact
/// value `X`, which the programs share, allows: the device's `g` is within
/// `b_r` of `X` (any evaluation of `rewritten`), the interpreter's `v`
/// within `b_o`, so `|g - v| <= b_o + b_r <= 2 max(b_o, b_r)`, the
/// tolerance [`compare`] holds an element to. No bound grows beyond what one
/// of the programs needs.
pub fn reference_rewritten(
    original: &Program,
    rewritten: &Program,
    inputs: &[Value],
) -> Result<Vec<Reference>, EvalError> {
    let mut want = reference(original, inputs)?;
    widen(&mut want, &reference(rewritten, inputs)?);
    Ok(want)
}

/// `want`'s bounds widened to `rewritten`'s where those are larger (see
/// [`reference_rewritten`]; for [`reference_elements`] alike).
pub fn widen(want: &mut [Reference], rewritten: &[Reference]) {
    for (w, r) in want.iter_mut().zip(rewritten) {
        for (a, b) in w.bounds.iter_mut().zip(&r.bounds) {
            a.err = a.err.max(b.err);
            a.specified &= b.specified;
        }
    }
}

/// Every output of `p` computed elsewhere (`got`) against the interpreter's
/// (`want`, from [`reference`]): what each comparison found, or its worst
/// element. A missing output is a mismatch.
pub fn check_report(
    p: &Program,
    got: &[Value],
    want: &[Reference],
) -> Vec<Result<Checked, Mismatch>> {
    p.outputs
        .iter()
        .enumerate()
        .map(|(k, out)| match (got.get(k), want.get(k)) {
            (Some(g), Some(w)) => compare(&out.name, g, w),
            _ => Err(Mismatch {
                output: out.name.clone(),
                index: 0,
                got: "nothing".into(),
                want: format!("{}[{}]", out.value.ty.elem.name(), out.value.ty.len),
                diff: f64::INFINITY,
                tolerance: 0.0,
                count: out.value.ty.len as usize,
                len: out.value.ty.len as usize,
            }),
        })
        .collect()
}

/// The outputs of [`check_report`] that differ (empty when all match).
pub fn check_outputs(p: &Program, got: &[Value], want: &[Reference]) -> Vec<Mismatch> {
    check_report(p, got, want)
        .into_iter()
        .filter_map(Result::err)
        .collect()
}
