//! A running error analysis: beside every element the interpreter computes,
//! a bound on how far any evaluation WGSL allows may be from the exact
//! result ([`Bound::err`]), and whether the language specifies the element
//! at all ([`Bound::specified`], docs/language.md, "Non-finite values").
//!
//! The bound of an operation comes from the formulas of `bound_ops`, applied
//! to the operands' actual values (point ranges) and bounds, so it is as
//! tight as the values allow: a division by 0.3 has a small bound even when
//! other elements divide by numbers near 0. Comparisons and float-to-int
//! conversions count as exact unless the operands' bounds reach across the
//! comparison or an integer boundary. A fold of `n` terms adds, for any
//! summation order, `n * EPS * |term|` per term.
//!
//! An element is unspecified when an `f32` operation on the way to it (not
//! a move: reads, `let`, `select`'s chosen operand, conversions) has a
//! non-finite operand or result; a `select` whose condition is unspecified
//! is too. A float-to-int conversion of a specified NaN or infinity is
//! specified (0, or saturated). A subnormal value, given or computed, may be
//! flushed to 0 by a GPU: every computed `f32` may be off by 2^-126 besides
//! its rounding. Since a device may reassociate a chain of `+ - * /`, an
//! element is also unspecified when some order of its chain could overflow
//! ([`Bound::reach`]: `x * 1e30 * 1e30` may be computed as `x * inf`).

use super::bound_ops::{binary, call, cast, unary};
use super::est::{EPS, Est};
use crate::scalar::Sc;
use crate::shadow::{El, Shadow};
use texpr_syntax::ast::{ElemTy, ReduceOp};
use texpr_syntax::ir::{BinOp, Func, UnaryOp};

/// An element's error bound and whether the language specifies it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// How far any allowed evaluation may be from the exact result (`inf`:
    /// no bound, the element is ill-conditioned).
    pub err: f64,
    pub specified: bool,
    /// The largest magnitude an intermediate of the chain of `+ - * /` that
    /// ends here may reach in any order a device may evaluate it (WGSL lets
    /// it reassociate): the element is unspecified beyond `f32::MAX`.
    pub reach: f64,
}

impl Default for Bound {
    fn default() -> Bound {
        Bound {
            err: 0.0,
            specified: true,
            reach: 0.0,
        }
    }
}

/// The absolute error a GPU that flushes subnormals may add to any `f32`
/// result (2^-126), beside the relative rounding error.
const TINY: f64 = 1.0 / (1u128 << 126) as f64;

fn num(x: Sc) -> f64 {
    match x {
        Sc::F(f) => f as f64,
        Sc::I(i) => i as f64,
        Sc::U(u) => u as f64,
        Sc::B(b) => b as u8 as f64,
    }
}

fn finite(x: Sc) -> bool {
    !matches!(x, Sc::F(f) if !f.is_finite())
}

fn point((x, b): El<Bound>) -> Est {
    Est {
        err: b.err,
        ..Est::point(num(x))
    }
}

/// What flushing `x` to 0 may cost: a GPU may flush subnormal `f32`s
/// (below 2^-126 in magnitude) wherever they arise.
fn flush(x: Sc) -> f64 {
    match x {
        Sc::F(f) if f.is_subnormal() => f.abs() as f64,
        _ => 0.0,
    }
}

/// The bound of an operation's result `r`: `err` (`NaN`: none), plus what
/// flushing may cost when it `computes` an `f32` (a pick, such as `select`
/// or `max`, computes nothing); specified when its operands are
/// (`inputs_ok`), every value stays finite and the chain's `reach` in range.
fn result(err: f64, r: Sc, inputs_ok: bool, reach: f64, computes: bool) -> Bound {
    let float = r.elem() == ElemTy::F32;
    let err = if float && computes { err + TINY } else { err };
    Bound {
        err: if err.is_nan() { f64::INFINITY } else { err },
        specified: inputs_ok && (!float || !computes || reach <= f32::MAX as f64),
        reach,
    }
}

/// A value's reach as a factor of a product: at least 1.
fn factor(reach: f64) -> f64 {
    reach.max(1.0)
}

/// Whether an `f32` operation on `args` giving `r` keeps every value finite.
fn stays_finite(args: &[El<Bound>], r: Sc) -> bool {
    finite(r) && args.iter().all(|a| finite(a.0))
}

fn specified(args: &[El<Bound>]) -> bool {
    args.iter().all(|a| a.1.specified)
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

/// `a && b`, `a || b` of conditions (a bound of 1: may flip, 0: cannot).
/// An operand that is specified, cannot flip and alone decides the result
/// (a `false` for `&&`, a `true` for `||`) makes the result specified and
/// certain whatever the other: every device computes the other to some
/// boolean, and `false && c` is `false`.
fn logical(op: BinOp, a: El<Bound>, b: El<Bound>) -> Bound {
    let decides = |x: El<Bound>| {
        x.1.specified && x.1.err == 0.0 && x.0 == Sc::B(op == BinOp::Or)
    };
    if decides(a) || decides(b) {
        return Bound::default();
    }
    Bound {
        err: if a.1.err > 0.0 || b.1.err > 0.0 { 1.0 } else { 0.0 },
        specified: a.1.specified && b.1.specified,
        reach: 0.0,
    }
}

impl Shadow for Bound {
    fn given(x: Sc) -> Bound {
        Bound {
            err: flush(x),
            specified: true,
            reach: num(x).abs(),
        }
    }

    fn unary(op: UnaryOp, a: El<Bound>, r: Sc) -> Bound {
        if op == UnaryOp::Not {
            return a.1;
        }
        let reach = match op {
            UnaryOp::Neg | UnaryOp::Abs => a.1.reach,
            _ => num(r).abs(),
        };
        let err = unary(op, point(a), r.elem()).err;
        result(err, r, a.1.specified && stays_finite(&[a], r), reach, true)
    }

    fn binary(op: BinOp, a: El<Bound>, b: El<Bound>, r: Sc) -> Bound {
        if op.is_logical() {
            return logical(op, a, b);
        }
        // Another evaluation sees each operand within twice its bound of ours.
        let err = if is_comparison(op) {
            let may_flip = (num(a.0) - num(b.0)).abs() <= 2.0 * (a.1.err + b.1.err);
            if may_flip && a.1.err + b.1.err > 0.0 {
                1.0
            } else {
                0.0
            }
        } else {
            binary(op, point(a), point(b), a.0.elem()).err
        };
        let reach = match op {
            BinOp::Add | BinOp::Sub => a.1.reach + b.1.reach,
            BinOp::Mul => factor(a.1.reach) * factor(b.1.reach),
            BinOp::Div => factor(a.1.reach) * factor(1.0 / num(b.0).abs()),
            _ => num(r).abs(),
        };
        let ok = specified(&[a, b]) && stays_finite(&[a, b], r);
        result(err, r, ok, reach, true)
    }

    fn call(f: Func, args: &[El<Bound>], r: Sc) -> Bound {
        let ests: Vec<Est> = args.iter().map(|&a| point(a)).collect();
        let err = call(f, &ests, r.elem()).err;
        match (f, args) {
            // A move of the chosen operand.
            (Func::Select, [c, a, b]) => {
                let chosen = if c.0 == Sc::B(true) { a } else { b };
                let ok = c.1.specified && chosen.1.specified;
                result(err, r, ok, chosen.1.reach, false)
            }
            (Func::Fma, [a, b, c]) => {
                let reach = factor(a.1.reach) * factor(b.1.reach) + c.1.reach;
                result(
                    err,
                    r,
                    specified(args) && stays_finite(args, r),
                    reach,
                    true,
                )
            }
            _ => {
                let ok = specified(args) && stays_finite(args, r);
                let picks = matches!(f, Func::Max | Func::Min);
                result(err, r, ok, num(r).abs(), !picks)
            }
        }
    }

    fn cast(a: El<Bound>, r: Sc) -> Bound {
        let err = match (a.0, r) {
            (Sc::F(x), Sc::I(_) | Sc::U(_)) => truncation_step(x, a.1.err, r.elem()),
            _ => cast(point(a), a.0.elem(), r.elem()).err,
        };
        Bound {
            err: if err.is_nan() { f64::INFINITY } else { err },
            specified: a.1.specified,
            reach: num(r).abs(),
        }
    }

    fn fold(op: ReduceOp, n: u64, acc: El<Bound>, x: El<Bound>, r: Sc, first: bool) -> Bound {
        if op == ReduceOp::Lse {
            return lse_step(n, acc, x, r, first);
        }
        let float = r.elem() == ElemTy::F32;
        let spec = x.1.specified && (!float || stays_finite(&[x], r));
        let ok = spec && (first || (acc.1.specified && finite(acc.0)));
        let (acc_err, acc_mag, acc_reach) = match first {
            true => (0.0, 0.0, None),
            false => (acc.1.err, num(acc.0).abs(), Some(acc.1.reach)),
        };
        let rounding = if float { n as f64 * EPS } else { 0.0 };
        let (err, reach) = match op {
            ReduceOp::Add => (
                acc_err + x.1.err + rounding * num(x.0).abs(),
                acc_reach.unwrap_or(0.0) + x.1.reach,
            ),
            ReduceOp::Mul => (
                acc_mag * x.1.err
                    + num(x.0).abs() * acc_err
                    + acc_err * x.1.err
                    + rounding * num(r).abs(),
                acc_reach.map_or(1.0, factor) * factor(x.1.reach),
            ),
            ReduceOp::Max | ReduceOp::Min | ReduceOp::Lse => (acc_err.max(x.1.err), num(r).abs()),
        };
        let picks = matches!(op, ReduceOp::Max | ReduceOp::Min);
        result(err, r, ok, reach, !picks)
    }
}

/// What one `lse` combine may cost, at most, in any evaluation of a fold of
/// `n` terms whose value is `v`: `2n` combines (the `n - 1` of any order,
/// plus a partial `m + log(s)` per invocation's online pair), each
/// `(LSE_STEP + |v|) * EPS` (see [`lse_step`]).
fn lse_rounding(n: u64, v: Sc) -> f64 {
    let v = num(v).abs();
    if v.is_finite() {
        2.0 * n as f64 * (LSE_STEP + v) * EPS
    } else {
        0.0
    }
}

/// One combine's error besides `|c| * EPS`, in ulps of 1: `exp(lo - hi)`
/// weighted by its own value, `(3 + 2d) e^-d <= 3.74`, the add `1 + t` (1),
/// `log` near 1 (`2^-21`: 4, WGSL's absolute bound, plus 3 ulps of
/// `log 2`), rounded up; an online step `(m, s)` costs the same relative
/// error in `s`, hence in `log s` (rescale and term: 2 x 3.74, two adds).
const LSE_STEP: f64 = 12.0;

/// One step of a `reduce lse` fold. `lse` is 1-Lipschitz in the max norm
/// and each combine `c = lse(a, b)` moves the result by a weighted mean of
/// its operands' errors, so an evaluation in any order is off by at most
/// the largest term's error plus every combine's own error, each weighted
/// by `e^(c - L) <= 1`: `w |c|` stays below `|L| + 1`, which
/// [`lse_rounding`] charges at the final value `L`. The fold's running
/// value `acc` grows monotonically to `L`, so the charge is carried along:
/// a step adds to the accumulator's bound the growth of that charge, and
/// to the term's the charge itself. A non-finite term or result is
/// unspecified, as for `max`.
fn lse_step(n: u64, acc: El<Bound>, x: El<Bound>, r: Sc, first: bool) -> Bound {
    let charge = lse_rounding(n, r);
    let ok = x.1.specified && stays_finite(&[x], r);
    let ok = ok && (first || (acc.1.specified && finite(acc.0)));
    let err = if first {
        x.1.err + charge
    } else {
        let growth = (charge - lse_rounding(n, acc.0)).max(0.0);
        (acc.1.err + growth).max(x.1.err + charge)
    };
    result(err, r, ok, num(r).abs(), true)
}

/// Half the largest step between `trunc(x)` and the truncation of any value
/// another evaluation may see (within `2 * err` of `x`), both saturated to
/// `to`'s range: 0 when no integer boundary lies that close.
fn truncation_step(x: f32, err: f64, to: ElemTy) -> f64 {
    if err == 0.0 || !x.is_finite() {
        return 0.0;
    }
    let (lo, hi) = match to {
        ElemTy::I32 => (i32::MIN as f64, i32::MAX as f64),
        _ => (0.0, u32::MAX as f64),
    };
    let t = |v: f64| v.trunc().clamp(lo, hi);
    let x = x as f64;
    let step = (t(x + 2.0 * err) - t(x))
        .abs()
        .max((t(x - 2.0 * err) - t(x)).abs());
    step / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(x: f32, err: f64) -> El<Bound> {
        (
            Sc::F(x),
            Bound {
                err,
                specified: true,
                reach: x.abs() as f64,
            },
        )
    }

    #[test]
    fn non_finite_results_and_operands_are_unspecified_but_moves_are_not() {
        let inf = el(f32::INFINITY, 0.0);
        let one = el(1.0, 0.0);
        assert!(!Bound::binary(BinOp::Div, one, el(0.0, 0.0), Sc::F(f32::INFINITY)).specified);
        assert!(!Bound::binary(BinOp::Mul, inf, el(0.0, 0.0), Sc::F(f32::NAN)).specified);
        assert!(!Bound::binary(BinOp::Lt, inf, one, Sc::B(false)).specified);
        let cond = (Sc::B(true), Bound::default());
        assert!(Bound::call(Func::Select, &[cond, inf, one], Sc::F(f32::INFINITY)).specified);
        assert!(Bound::cast(el(f32::NAN, 0.0), Sc::I(0)).specified);
        let bad = (
            Sc::F(2.0),
            Bound {
                specified: false,
                ..Bound::default()
            },
        );
        assert!(!Bound::cast(bad, Sc::I(2)).specified);
        // The identity of a max fold (-inf) is not an operand.
        let id = el(f32::NEG_INFINITY, 0.0);
        assert!(Bound::fold(ReduceOp::Max, 4, id, one, Sc::F(1.0), true).specified);
        assert!(!Bound::fold(ReduceOp::Max, 4, one, inf, Sc::F(f32::INFINITY), false).specified);
    }

    #[test]
    fn an_lse_fold_is_bounded_by_its_terms_and_its_combines() {
        use crate::scalar::lse;
        let f = |s: Sc| num(s) as f32;
        let xs = [1000.0f32, 999.0, 1001.5, 998.25];
        let n = xs.len() as u64;
        let mut acc = el(f32::NEG_INFINITY, 0.0);
        for (i, &x) in xs.iter().enumerate() {
            let r = lse(f(acc.0), x);
            acc = (
                Sc::F(r),
                Bound::fold(ReduceOp::Lse, n, acc, el(x, 1e-4), Sc::F(r), i == 0),
            );
        }
        let exact = xs
            .iter()
            .map(|&x| (x as f64 - 1001.5).exp())
            .sum::<f64>()
            .ln()
            + 1001.5;
        let got = f(acc.0) as f64;
        assert!(acc.1.specified);
        assert!(
            (got - exact).abs() <= acc.1.err,
            "{got} vs {exact}: {:?}",
            acc.1
        );
        // The terms' error (1e-4) plus 2n combines at |L| ~ 1002: no more.
        let most = 1e-4 + 2.0 * 4.0 * (LSE_STEP + 1002.0) * EPS + 4.0 * TINY;
        assert!(acc.1.err <= most, "{:?} > {most}", acc.1);
        let inf = el(f32::INFINITY, 0.0);
        let r = Sc::F(f32::INFINITY);
        assert!(!Bound::fold(ReduceOp::Lse, 2, acc, inf, r, false).specified);
    }

    #[test]
    fn a_chain_that_may_overflow_in_another_order_is_unspecified() {
        let tiny = el(1e-40, 0.0);
        let big = el(1e30, 0.0);
        let once = Bound::binary(BinOp::Mul, tiny, big, Sc::F(1e-10));
        assert!(once.specified);
        let twice = Bound::binary(BinOp::Mul, (Sc::F(1e-10), once), big, Sc::F(1e20));
        assert!(!twice.specified, "1e30 * 1e30 may come first");
        // A chain's reach is the sum of its terms' magnitudes: conservative.
        let big = el(1e38, 0.0);
        let sum = Bound::binary(BinOp::Add, big, el(-1e38, 0.0), Sc::F(0.0));
        assert!(sum.specified);
        let again = Bound::binary(BinOp::Add, (Sc::F(0.0), sum), el(3e38, 0.0), Sc::F(3e38));
        assert!(!again.specified, "1e38 + 3e38 may come first");
        let moved = Bound::call(Func::Max, &[el(1.0, 0.0), el(2.0, 0.0)], Sc::F(2.0));
        assert_eq!(moved.err, 0.0, "a pick computes nothing");
    }

    #[test]
    fn conversions_are_exact_away_from_integer_boundaries() {
        assert_eq!(truncation_step(3.5, 1e-6, ElemTy::I32), 0.0);
        assert_eq!(truncation_step(3.0, 1e-6, ElemTy::I32), 0.5);
        assert_eq!(truncation_step(-0.5, 0.0, ElemTy::U32), 0.0);
        assert_eq!(
            truncation_step(1e10, 1e3, ElemTy::I32),
            0.0,
            "saturated either way"
        );
    }

    #[test]
    fn comparisons_flip_only_within_the_bounds() {
        let far = Bound::binary(BinOp::Lt, el(1.0, 1e-7), el(2.0, 1e-7), Sc::B(true));
        assert_eq!(far.err, 0.0);
        let near = Bound::binary(BinOp::Lt, el(1.0, 1e-7), el(1.0000001, 1e-7), Sc::B(true));
        assert_eq!(near.err, 1.0);
    }

    #[test]
    fn a_division_bound_uses_the_actual_divisor() {
        let b = Bound::binary(BinOp::Div, el(1.0, 1e-7), el(0.25, 1e-7), Sc::F(4.0));
        assert!(b.err > 0.0 && b.err < 1e-5, "{b:?}");
        let near_zero = Bound::binary(BinOp::Div, el(1.0, 1e-7), el(1e-8, 1e-7), Sc::F(1e8));
        assert!(near_zero.err.is_infinite());
    }
}
