//! [`Bound`], what the running analysis (`running`) carries beside every
//! element, and the small helpers every operation's analysis shares.

use super::bound_ops;
use super::chain::Chain;
use super::est::{Est, Precision};
use super::form::Form;
use crate::scalar::Sc;
use crate::shadow::El;
use texpr_ir::ElemTy;

/// An element's error bound and whether the language specifies it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// How far any allowed evaluation may be from the exact result (`inf`:
    /// no bound, the element is ill-conditioned).
    pub err: f64,
    pub specified: bool,
    /// The chain of `+ -` or `* /` that ends here, which a device may
    /// reassociate with what reads it (`chain`).
    pub(crate) chain: Chain,
    /// The signed parts of `err` due to the stored values read (`form`);
    /// `err` is at least the sum of their magnitudes, and the rest of it
    /// is unsigned.
    pub(crate) form: Form,
}

/// An exact, specified value that ends no chain.
impl Default for Bound {
    fn default() -> Bound {
        Bound {
            err: 0.0,
            specified: true,
            chain: Chain::Leaf,
            form: Form::default(),
        }
    }
}

pub(super) fn num(x: Sc) -> f64 {
    match x {
        Sc::F(f) => f as f64,
        Sc::H(h) => f64::from(h),
        Sc::I(i) => i as f64,
        Sc::U(u) => u as f64,
        Sc::B(b) => b as u8 as f64,
    }
}

pub(super) fn finite(x: Sc) -> bool {
    match x {
        Sc::F(f) => f.is_finite(),
        Sc::H(h) => h.is_finite(),
        _ => true,
    }
}

/// An element as `bound_ops` takes it: its value, and its whole bound.
pub(super) fn point((x, b): El<Bound>) -> Est {
    Est {
        err: b.err,
        ..Est::point(num(x))
    }
}

/// What flushing `x` to 0 may cost: a GPU may flush subnormal `f32`s
/// (below 2^-126 in magnitude) wherever they arise.
pub(super) fn flush(x: Sc) -> f64 {
    match x {
        Sc::F(f) if f.is_subnormal() => f.abs() as f64,
        _ => 0.0,
    }
}

/// The bound `err` (`NaN`: none) of a result that ends `chain` with the
/// signed parts `form`: specified when its operands are and every value
/// stays finite (`ok`), and the chain reaches no further than `f32::MAX` in
/// any order. Where `err` is not finite, the form is dropped.
pub(super) fn bound(err: f64, ok: bool, chain: Chain, form: Form) -> Bound {
    let err = if err.is_nan() { f64::INFINITY } else { err };
    Bound {
        err,
        specified: ok && chain.reach() <= f32::MAX as f64,
        chain,
        form: if err.is_finite() {
            form
        } else {
            Form::default()
        },
    }
}

/// The bound `err` of a result that ends no chain and whose error is all
/// unsigned (a builtin's, a conversion's, a comparison's).
pub(super) fn leaf(err: f64, ok: bool) -> Bound {
    bound(err, ok, Chain::Leaf, Form::default())
}

/// What flushing may add to a computed `r`: the least normal value of
/// its float type.
pub(super) fn tiny(r: Sc) -> f64 {
    match r.elem() {
        ElemTy::F32 | ElemTy::F16 => Precision::of(r.elem()).tiny,
        _ => 0.0,
    }
}

/// Whether an `f32` operation on `args` giving `r` keeps every value finite.
pub(super) fn stays_finite(args: &[El<Bound>], r: Sc) -> bool {
    finite(r) && args.iter().all(|a| finite(a.0))
}

/// Whether an operation on `args` giving `r` is specified so far: its
/// operands are, and every value stays finite.
pub(super) fn inputs_ok(args: &[El<Bound>], r: Sc) -> bool {
    args.iter().all(|a| a.1.specified) && stays_finite(args, r)
}

/// The error of a builtin on `args`, collapsed: `bound_ops`' formula on
/// their whole bounds.
pub(super) fn collapsed(f: texpr_ir::Func, args: &[El<Bound>], r: Sc) -> f64 {
    let ests: Vec<Est> = args.iter().map(|&a| point(a)).collect();
    bound_ops::call(f, &ests, r.elem()).err
}
