//! The error analysis of single operations: unary functions, binary operators, calls and casts.

use texpr_ir::{BinOp, ElemTy};
use texpr_ir::{Func, UnaryOp};

use super::est::{EPS, Est, Precision};

fn corners(f: impl Fn(f64, f64) -> f64, x: Est, y: Est) -> (f64, f64) {
    let c = [f(x.lo, y.lo), f(x.lo, y.hi), f(x.hi, y.lo), f(x.hi, y.hi)];
    (
        c.iter().copied().fold(f64::INFINITY, f64::min),
        c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// The smallest magnitude in `x`, widened by its error (0 when 0 may be reached).
fn min_mag(x: Est) -> f64 {
    let (lo, hi) = (x.lo - x.err, x.hi + x.err);
    if lo > 0.0 {
        lo
    } else if hi < 0.0 {
        -hi
    } else {
        0.0
    }
}

pub(super) fn unary(op: UnaryOp, a: Est, elem: ElemTy) -> Est {
    let m = a.mag();
    let p = Precision::of(elem);
    match op {
        // A condition flips where its operand may.
        UnaryOp::Not => a,
        UnaryOp::Neg => Est {
            lo: -a.hi,
            hi: -a.lo,
            ..a
        }
        .wrap(elem),
        UnaryOp::Abs => Est {
            lo: min_mag(Est { err: 0.0, ..a }),
            hi: m,
            ..a
        }
        .wrap(elem),
        UnaryOp::Exp => {
            let hi = a.hi.exp();
            let err = hi * (a.err.exp() - 1.0) + (3.0 + 2.0 * m) * p.eps * hi;
            Est {
                lo: a.lo.exp(),
                hi,
                err,
            }
        }
        UnaryOp::Log => match min_mag(a) {
            low if low > 0.0 && a.lo > 0.0 => {
                let (lo, hi) = (a.lo.ln(), a.hi.ln());
                let err = a.err / low + p.log_abs + 3.0 * p.eps * lo.abs().max(hi.abs());
                Est { lo, hi, err }
            }
            _ => Est::unknown(),
        },
        UnaryOp::Sqrt if a.hi >= 0.0 => {
            let (lo, hi) = (a.lo.max(0.0).sqrt(), a.hi.sqrt());
            let low = a.lo - a.err;
            let prop = if low > 0.0 {
                a.err / (2.0 * low.sqrt())
            } else {
                a.err.sqrt()
            };
            Est {
                lo,
                hi,
                err: prop + 3.0 * p.eps * hi,
            }
        }
        UnaryOp::Rsqrt if a.lo - a.err > 0.0 => {
            let (lo, hi) = (1.0 / a.hi.sqrt(), 1.0 / a.lo.sqrt());
            let err = a.err * 0.5 * (a.lo - a.err).powf(-1.5) + 3.0 * p.eps * hi;
            Est { lo, hi, err }
        }
        UnaryOp::Sqrt | UnaryOp::Rsqrt => Est::unknown(),
        UnaryOp::Tanh => Est {
            lo: a.lo.tanh(),
            hi: a.hi.tanh(),
            err: a.err + (8.0 + 4.0 * m) * p.eps,
        },
        UnaryOp::Sin | UnaryOp::Cos => {
            let slack = p.trig_abs * (m / std::f64::consts::PI).max(1.0);
            Est {
                lo: -1.0,
                hi: 1.0,
                err: a.err + slack,
            }
        }
    }
}

fn power_of_two(x: Est) -> bool {
    let m = x.lo.abs();
    x.lo == x.hi && m > 0.0 && m.log2().fract() == 0.0 && (1e-30..1e30).contains(&m)
}

pub(super) fn binary(op: BinOp, x: Est, y: Est, elem: ElemTy) -> Est {
    let float = elem.is_float();
    match op {
        // `%`'s bound below counts `f32` roundings.
        BinOp::Rem if elem == ElemTy::F16 => Est::unknown(),
        BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::Eq
        | BinOp::Ne
        | BinOp::And
        | BinOp::Or => {
            let flips = x.err > 0.0 || y.err > 0.0;
            Est {
                lo: 0.0,
                hi: 1.0,
                err: if flips { 1.0 } else { 0.0 },
            }
        }
        BinOp::Add => Est {
            lo: x.lo + y.lo,
            hi: x.hi + y.hi,
            err: x.err + y.err,
        }
        .rounded(elem, 1.0)
        .wrap(elem),
        BinOp::Sub => Est {
            lo: x.lo - y.hi,
            hi: x.hi - y.lo,
            err: x.err + y.err,
        }
        .rounded(elem, 1.0)
        .wrap(elem),
        BinOp::Mul => {
            let (lo, hi) = corners(|a, b| a * b, x, y);
            let err = x.err * y.mag() + y.err * x.mag() + x.err * y.err;
            // Scaling an exact value by a power of two rounds nothing.
            let exact = x.err == 0.0 && y.err == 0.0 && (power_of_two(x) || power_of_two(y));
            let ulps = if exact { 0.0 } else { 1.0 };
            Est { lo, hi, err }.rounded(elem, ulps).wrap(elem)
        }
        BinOp::Div if float => match min_mag(y) {
            m if m > 0.0 => {
                let (lo, hi) = corners(|a, b| a / b, x, y);
                let err = x.err / m + x.mag() * y.err / (m * m);
                Est { lo, hi, err }.rounded(elem, 3.5)
            }
            _ => Est::unknown(),
        },
        BinOp::Div => {
            let inexact = x.err > 0.0 || y.err > 0.0;
            Est {
                lo: -x.mag(),
                hi: x.mag(),
                err: if inexact { x.mag() } else { 0.0 },
            }
            .wrap(elem)
        }
        BinOp::Rem if float => float_rem(x, y),
        BinOp::Rem => {
            let (lo, hi) = (x.lo.min(0.0).max(-y.mag()), x.hi.max(0.0).min(y.mag()));
            let inexact = x.err > 0.0 || y.err > 0.0;
            Est {
                lo,
                hi,
                err: if inexact {
                    x.err + y.err + y.mag()
                } else {
                    0.0
                },
            }
        }
    }
}

/// `x - y * trunc(x / y)`: the division may be off by 2.5 ULP, so where the
/// quotient may cross a non-zero integer the remainder may jump by `y`.
fn float_rem(x: Est, y: Est) -> Est {
    let (lo, hi) = (x.lo.min(0.0).max(-y.mag()), x.hi.max(0.0).min(y.mag()));
    let m = min_mag(y);
    if m == 0.0 {
        return Est::unknown();
    }
    let q = (x.mag() + x.err) / m * (1.0 + 8.0 * EPS);
    if q < 1.0 {
        // trunc(x / y) is 0 throughout: the result is x itself.
        return x;
    }
    let point = x.lo == x.hi && y.lo == y.hi && x.err == 0.0 && y.err == 0.0;
    let quotient = x.lo / y.lo;
    if point && (quotient - quotient.round()).abs() > 16.0 * EPS * quotient.abs() {
        let r = x.lo - y.lo * quotient.trunc();
        return Est {
            lo: r,
            hi: r,
            err: 4.0 * EPS * q * m,
        };
    }
    Est {
        lo,
        hi,
        err: x.err + y.err * q + y.mag(),
    }
}

/// The error of `max(a, b)` (`larger`) or `min(a, b)`: where the
/// operands' values within their errors cannot cross, every evaluation
/// picks the same one and the result has its error alone (a clamp of a
/// value far past its limit is exact); else `either`.
fn pick_err(a: Est, b: Est, larger: bool, either: f64) -> f64 {
    let a_above = a.lo - a.err > b.hi + b.err;
    let b_above = b.lo - b.err > a.hi + a.err;
    match (a_above, b_above) {
        (true, _) => {
            if larger {
                a.err
            } else {
                b.err
            }
        }
        (_, true) => {
            if larger {
                b.err
            } else {
                a.err
            }
        }
        _ => either,
    }
}

pub(super) fn call(f: Func, args: &[Est], elem: ElemTy) -> Est {
    let err = args.iter().map(|a| a.err).fold(0.0, f64::max);
    match (f, args) {
        (Func::Max, [a, b]) => Est {
            lo: a.lo.max(b.lo),
            hi: a.hi.max(b.hi),
            err: pick_err(*a, *b, true, err),
        },
        (Func::Min, [a, b]) => Est {
            lo: a.lo.min(b.lo),
            hi: a.hi.min(b.hi),
            err: pick_err(*a, *b, false, err),
        },
        (Func::Pow, [a, b]) => pow(*a, *b, elem),
        (Func::Fma, [a, b, c]) => {
            let prod = binary(BinOp::Mul, *a, *b, elem);
            binary(BinOp::Add, prod, *c, elem)
        }
        (Func::Select, [c, a, b]) => {
            let u = a.union(*b);
            let jump = if c.err > 0.0 { u.hi - u.lo } else { 0.0 };
            Est {
                err: a.err.max(b.err) + jump,
                ..u
            }
        }
        _ => Est::unknown(),
    }
}

/// `pow(a, b)` as WGSL allows it: `exp2(b * log2(a))`, for `a > 0`.
fn pow(a: Est, b: Est, elem: ElemTy) -> Est {
    let p = Precision::of(elem);
    if a.lo - a.err <= 0.0 {
        return Est::unknown();
    }
    let ln = Est {
        lo: a.lo.ln(),
        hi: a.hi.ln(),
        err: 0.0,
    };
    let (tlo, thi) = corners(|x, y| x * y, ln, b);
    let (lo, hi) = (tlo.exp(), thi.exp());
    let t_mag = tlo.abs().max(thi.abs());
    let log2_mag = ln.mag() / std::f64::consts::LN_2;
    let rel = b.mag() * a.err / (a.lo - a.err)
        + ln.mag() * b.err
        + b.mag() * (p.log_abs + 3.0 * p.eps * log2_mag)
        + (3.0 + 2.0 * t_mag) * p.eps;
    Est {
        lo,
        hi,
        err: 2.0 * hi * rel,
    }
}

pub(super) fn cast(a: Est, from: ElemTy, to: ElemTy) -> Est {
    match (from, to) {
        (f, t) if f == t => a,
        // Integers up to 2^24 convert exactly.
        (_, ElemTy::F32) if a.err == 0.0 && a.mag() <= (1u64 << 24) as f64 => a,
        (_, ElemTy::F32) => a.rounded(ElemTy::F32, 1.0),
        (ElemTy::F32, int) => {
            let (min, max) = if int == ElemTy::I32 {
                (i32::MIN as f64, i32::MAX as f64)
            } else {
                (0.0, u32::MAX as f64)
            };
            // Two truncations of values within `a.err` differ by at most 2 * a.err + 1.
            let err = if a.err == 0.0 { 0.0 } else { a.err + 0.5 };
            Est {
                lo: a.lo.trunc().clamp(min, max),
                hi: a.hi.trunc().clamp(min, max),
                err,
            }
        }
        // i32 <-> u32 reinterpret the bits.
        (_, int) => Est {
            lo: a.lo,
            hi: a.hi,
            err: a.err,
        }
        .wrap(int),
    }
}
