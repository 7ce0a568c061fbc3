//! A value range and an absolute error bound ([`Est`]): what the error
//! formulas of single operations (`bound_ops`) take and give. The running
//! analysis (`running`) applies them to each element's actual value (a
//! point range) and its error so far.

use texpr_ir::ElemTy;

/// Unit roundoff of f32 (with a factor 2 of slack for flushed subnormals).
pub(super) const EPS: f64 = 1.0 / (1u64 << 23) as f64;

/// Unit roundoff of f16 (2^-11), with the same factor 2 of slack.
pub(super) const EPS16: f64 = 1.0 / (1u64 << 10) as f64;

/// The absolute error a GPU that flushes `f16` subnormals may add (2^-14,
/// the least normal `f16`).
pub(super) const TINY16: f64 = 1.0 / (1u64 << 14) as f64;

/// The absolute error a GPU that flushes subnormals may add to any `f32`
/// result (2^-126), beside the relative rounding error.
pub(super) const TINY: f64 = 1.0 / (1u128 << 126) as f64;

/// What one operation may cost in a float type, as WGSL allows it: the unit
/// roundoff (with the factor 2 of slack), the absolute error of `log` near
/// 1 (2^-21 in f32, 2^-7 in f16) and of `sin`/`cos` on [-pi, pi] (2^-11,
/// 2^-7), and what a flushed subnormal adds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Precision {
    pub(super) eps: f64,
    pub(super) log_abs: f64,
    pub(super) trig_abs: f64,
    pub(super) tiny: f64,
}

impl Precision {
    /// `elem`'s (an integer type has f32's: its builtins are exact or refused).
    pub(super) fn of(elem: ElemTy) -> Precision {
        match elem {
            ElemTy::F16 => Precision {
                eps: EPS16,
                log_abs: 1.0 / (1u64 << 7) as f64,
                trig_abs: 1.0 / (1u64 << 7) as f64,
                tiny: TINY16,
            },
            _ => Precision {
                eps: EPS,
                log_abs: 1.0 / (1u64 << 21) as f64,
                trig_abs: 1.0 / (1u64 << 11) as f64,
                tiny: TINY,
            },
        }
    }
}

/// A value range and an absolute error bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Est {
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    pub(crate) err: f64,
}

impl Est {
    pub(super) fn exact(lo: f64, hi: f64) -> Est {
        Est { lo, hi, err: 0.0 }
    }
    pub(super) fn point(x: f64) -> Est {
        Est::exact(x, x)
    }
    /// The largest magnitude.
    pub(crate) fn mag(self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }
    pub(super) fn union(self, o: Est) -> Est {
        Est {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            err: self.err.max(o.err),
        }
    }
    /// This value rounded once more (floats only).
    pub(super) fn rounded(self, elem: ElemTy, ulps: f64) -> Est {
        match elem {
            ElemTy::F32 => Est {
                err: self.err + ulps * EPS * self.mag(),
                ..self
            },
            ElemTy::F16 => Est {
                err: self.err + ulps * EPS16 * self.mag() + TINY16,
                ..self
            },
            _ => self,
        }
    }
    /// Unknown: anything may happen (no bound: such an element is not compared, and counted).
    pub(super) fn unknown() -> Est {
        Est {
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
            err: f64::INFINITY,
        }
    }

    /// Integer results that leave the type's range wrap: any value of the type.
    pub(super) fn wrap(self, elem: ElemTy) -> Est {
        let (min, max) = match elem {
            ElemTy::I32 => (i32::MIN as f64, i32::MAX as f64),
            ElemTy::U32 => (0.0, u32::MAX as f64),
            _ => return self,
        };
        if self.lo < min || self.hi > max {
            Est {
                lo: min,
                hi: max,
                err: self.err,
            }
        } else {
            self
        }
    }
}
