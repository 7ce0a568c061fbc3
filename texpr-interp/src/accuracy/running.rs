//! A running error analysis: beside every element the interpreter computes,
//! a bound on how far any evaluation WGSL allows may be from the exact
//! result ([`Bound::err`]), and whether the language specifies the element
//! at all ([`Bound::specified`], docs/language.md, "Non-finite values").
//!
//! The bound of an operation comes from the formulas of `bound_ops`, applied
//! to the operands' actual values (point ranges) and bounds, so it is as
//! tight as the values allow: a division by 0.3 has a small bound even when
//! other elements divide by numbers near 0. Bounds are absolute and add up
//! along the way (an operation's operands' bounds, scaled by how much it
//! amplifies them, plus its own rounding): a chain of well-conditioned steps
//! grows them by a few ulps of its values per step, never by a factor.
//! Comparisons and float-to-int conversions count as exact unless the
//! operands' bounds reach across the comparison or an integer boundary.
//!
//! Since a device may reassociate a chain of `+ -` or of `* /`, each
//! element also carries the chain that ends at it (`chain`): a sum of `n`
//! terms is bounded for any order by its terms' bounds plus `n - 1`
//! roundings of the sum of their magnitudes (so a `reduce +` of `n` terms
//! adds about `n * EPS * |term|` per term, and a fold whose terms are sums
//! counts their terms too); a product's bound needs no order. A chain ends
//! where the other kind of operation, a builtin, a conversion or a `select`
//! reads it, and enters that as one value: reassociation never crosses from
//! a sum into the product around it. An element is unspecified when some
//! order of its chain could overflow (`x * 1e30 * 1e30` may be computed as
//! `x * inf`).
//!
//! Sums, products, negation, `fma` and `select`'s move follow their
//! operands' errors with signs (`linear`, `form`): a stored value read
//! several times (a stencil's centre, `+ a[i]` and `- 2 * a[i]`) carries
//! one error, whose weights add before their magnitude counts. Every other
//! operation takes its operands' whole bounds (`bound_ops`).
//!
//! An element is unspecified when an `f32` operation on the way to it (not
//! a move: reads, `let`, `select`'s chosen operand, conversions) has a
//! non-finite operand or result, but for the infinity a `max` or `min`
//! absorbs (`pickable`); a `select` whose condition is unspecified
//! is too, and a `select` takes its bound from the operand it picks (the
//! other one's only where the condition may flip). A float-to-int
//! conversion of a specified NaN or infinity is specified (0, or
//! saturated). A subnormal value, given or computed, may be flushed to 0 by
//! a GPU: every computed `f32` may be off by 2^-126 besides its rounding.

use super::bound::{
    Bound, collapsed, finite, flush, inputs_ok, leaf, num, point, stays_finite, tiny,
};
use super::bound_ops::{binary, cast, unary};
use super::chain::Chain;
use super::est::{EPS, EPS16, TINY, TINY16};
use super::linear;
use crate::scalar::Sc;
use crate::shadow::{El, Shadow};
use texpr_ir::{BinOp, Func, UnaryOp, VecRef};
use texpr_ir::{ElemTy, ReduceOp};

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

/// An `f16` product fold: no error bound yet (a fold's order is the
/// device's, and the product chain counts `f32` roundings), so it is never
/// compared (counted as without a bound). Every other `f16` operation is
/// bounded in binary16 terms: `+ - * /`, conversions and `fma` in ulps
/// (`Est::rounded`), builtins and `pow` with WGSL's f16 accuracies
/// (`Precision`), a sum fold by its chain for any order, and moves and
/// picks keep their operands' bounds.
fn half(r: Sc) -> Option<Bound> {
    (r.elem() == ElemTy::F16).then(|| leaf(f64::INFINITY, true))
}

/// `a && b`, `a || b` of conditions (a bound of 1: may flip, 0: cannot).
/// An operand that is specified, cannot flip and alone decides the result
/// (a `false` for `&&`, a `true` for `||`) makes the result specified and
/// certain whatever the other: every device computes the other to some
/// boolean, and `false && c` is `false`.
fn logical(op: BinOp, a: El<Bound>, b: El<Bound>) -> Bound {
    let decides = |x: El<Bound>| x.1.specified && x.1.err == 0.0 && x.0 == Sc::B(op == BinOp::Or);
    if decides(a) || decides(b) {
        return Bound::default();
    }
    let err = if a.1.err > 0.0 || b.1.err > 0.0 {
        1.0
    } else {
        0.0
    };
    leaf(err, a.1.specified && b.1.specified)
}

impl Shadow for Bound {
    fn given(x: Sc) -> Bound {
        Bound {
            err: flush(x),
            ..Bound::default()
        }
    }

    fn read((x, b): El<Bound>, vec: VecRef, i: u64) -> Bound {
        linear::read(b, x, vec, i)
    }

    /// Another evaluation may pick the other operand where the condition
    /// may flip within its bounds (`linear::select`); an unspecified
    /// condition leaves the `select` unspecified whatever it picks.
    fn needs_other(c: El<Bound>) -> bool {
        c.1.specified && c.1.err != 0.0
    }

    fn unary(op: UnaryOp, a: El<Bound>, r: Sc) -> Bound {
        match op {
            // A condition flips where its operand may.
            UnaryOp::Not => a.1,
            UnaryOp::Neg if r.elem() == ElemTy::F32 => linear::neg(a, r),
            // A builtin ends any chain.
            _ => leaf(
                unary(op, point(a), r.elem()).err + tiny(r),
                inputs_ok(&[a], r),
            ),
        }
    }

    fn binary(op: BinOp, a: El<Bound>, b: El<Bound>, r: Sc) -> Bound {
        let float = a.0.elem() == ElemTy::F32;
        match op {
            _ if op.is_logical() => logical(op, a, b),
            // Another evaluation sees each operand within twice its bound of ours.
            _ if is_comparison(op) => {
                let may_flip = (num(a.0) - num(b.0)).abs() <= 2.0 * (a.1.err + b.1.err);
                let err = if may_flip && a.1.err + b.1.err > 0.0 {
                    1.0
                } else {
                    0.0
                };
                leaf(err, inputs_ok(&[a, b], r))
            }
            BinOp::Add | BinOp::Sub if float => linear::sum(a, b, op == BinOp::Sub, r),
            BinOp::Mul | BinOp::Div if float => linear::product(op, a, b, r),
            _ => leaf(
                binary(op, point(a), point(b), a.0.elem()).err + tiny(r),
                inputs_ok(&[a, b], r),
            ),
        }
    }

    fn call(f: Func, args: &[El<Bound>], r: Sc) -> Bound {
        match (f, args) {
            (Func::Select, [c, a, b]) => linear::select(*c, *a, *b),
            (Func::Fma, [a, b, c]) if r.elem() == ElemTy::F32 => linear::fma(*a, *b, *c, r),
            // A pick computes nothing, and absorbs its identity's infinity.
            (Func::Max | Func::Min, _) => {
                let ok = args.iter().all(|&a| pickable(f == Func::Max, a));
                leaf(collapsed(f, args, r), ok)
            }
            _ => leaf(collapsed(f, args, r) + tiny(r), inputs_ok(args, r)),
        }
    }

    fn cast(a: El<Bound>, r: Sc) -> Bound {
        match (a.0, r) {
            // Exact: every f16 is an f32.
            (Sc::H(_), Sc::F(_) | Sc::H(_)) => return a.1,
            (Sc::H(_), _) => return leaf(f64::INFINITY, a.1.specified),
            // Exact where the value is an f16 (small integers, an f16 moved
            // through f32).
            (_, Sc::H(h)) if a.1.err == 0.0 && f64::from(h) == num(a.0) => {
                return leaf(0.0, a.1.specified);
            }
            // Rounded once to binary16 (an overflow is an infinity: unspecified).
            (_, Sc::H(_)) => {
                let err = point(a).rounded(ElemTy::F16, 1.0).err;
                return leaf(err, a.1.specified && finite(r));
            }
            _ => {}
        }
        let err = match (a.0, r) {
            (Sc::F(x), Sc::I(_) | Sc::U(_)) => truncation_step(x, a.1.err, r.elem()),
            _ => cast(point(a), a.0.elem(), r.elem()).err,
        };
        leaf(err, a.1.specified)
    }

    fn fold(op: ReduceOp, n: u64, acc: El<Bound>, x: El<Bound>, r: Sc, first: bool) -> Bound {
        // An `f16` sum: the chain of its terms, bounded for any order in
        // binary16 ulps.
        if op == ReduceOp::Add && !first && r.elem() == ElemTy::F16 {
            let mut b = linear::sum(acc, x, false, r);
            if let Chain::Sum(s) = b.chain {
                b.err += s.rounding_in(EPS16, TINY16) - s.rounding();
            }
            return b;
        }
        if op == ReduceOp::Mul
            && let Some(b) = half(r)
        {
            return b;
        }
        let float = r.elem() == ElemTy::F32;
        match op {
            ReduceOp::Lse => lse_step(n, acc, x, r, first),
            // The identity is not an operand: the first step moves its term.
            ReduceOp::Add | ReduceOp::Mul if first => {
                let ok = x.1.specified && (!float || stays_finite(&[x], r));
                Bound {
                    specified: ok,
                    ..x.1
                }
            }
            // Each further step joins the chain: any order of the fold.
            ReduceOp::Add => Self::binary(BinOp::Add, acc, x, r),
            ReduceOp::Mul => Self::binary(BinOp::Mul, acc, x, r),
            ReduceOp::Max | ReduceOp::Min => {
                let max = op == ReduceOp::Max;
                let ok = pickable(max, x) && (first || pickable(max, acc));
                let err = if first {
                    x.1.err
                } else {
                    acc.1.err.max(x.1.err)
                };
                leaf(err, ok)
            }
        }
    }
}

/// Whether `x` is an operand a pick (`max`: `max`, else `min`) keeps
/// specified: a specified value that is finite, or the infinity the pick
/// absorbs (`-inf` for `max`, `+inf` for `min`: its identity, which every
/// other operand's value passes; `max(x, -inf)` is `x` on every device, and
/// the guard of a prefix max `x[i - j] else -inf` is never a result). A NaN
/// or the other infinity leaves the result unspecified.
fn pickable(max: bool, (x, b): El<Bound>) -> bool {
    let absorbed = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    b.specified && (finite(x) || num(x) == absorbed)
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
    leaf(err + TINY, ok)
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
                ..Bound::default()
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

    /// A pick whose operands cannot cross within their errors has the
    /// picked operand's error alone: a clamp far past its limit is exact.
    #[test]
    fn a_pick_that_cannot_change_keeps_only_its_operands_error() {
        let far = el(60.0, 1.0);
        let clamp = Bound::call(Func::Min, &[far, el(4.0, 0.0)], Sc::F(4.0));
        assert_eq!(clamp.err, 0.0);
        let up = Bound::call(Func::Max, &[far, el(4.0, 0.25)], Sc::F(60.0));
        assert_eq!(up.err, 1.0);
        // Within each other's errors either may be picked: the larger error.
        let near = Bound::call(Func::Min, &[el(4.5, 1.0), el(4.0, 0.0)], Sc::F(4.0));
        assert_eq!(near.err, 1.0);
    }

    #[test]
    fn a_select_takes_the_bound_of_the_operand_it_picks() {
        let nan = Bound::binary(BinOp::Mul, el(f32::NAN, 0.0), el(2.0, 0.0), Sc::F(f32::NAN));
        assert!(!nan.specified && nan.err.is_infinite());
        let sum = Bound::binary(BinOp::Add, el(1.5, 1e-7), el(1.0, 0.0), Sc::F(2.5));
        let (picked, other) = ((Sc::F(2.5), sum), (Sc::F(f32::NAN), nan));
        let exact = (Sc::B(true), Bound::default());
        let s = Bound::call(Func::Select, &[exact, picked, other], Sc::F(2.5));
        assert!(s.specified);
        assert_eq!((s.err, s.form), (sum.err, sum.form));
        // A condition that may flip: another evaluation may pick the other.
        let flips = (
            Sc::B(true),
            Bound {
                err: 1.0,
                ..Bound::default()
            },
        );
        let s = Bound::call(Func::Select, &[flips, picked, other], Sc::F(2.5));
        assert!(s.specified && s.err.is_infinite(), "ill-conditioned: {s:?}");
        let s = Bound::call(Func::Select, &[flips, picked, el(2.0, 1e-6)], Sc::F(2.5));
        assert_eq!(s.err, 1e-6 + 0.5, "both bounds and the jump");
    }

    #[test]
    fn a_chain_of_averages_keeps_its_reach() {
        // `(a + b + c) / 3`, its result read as the next step's terms:
        // the sum reaches 3, the quotient stays one factor of its value.
        let mut v = el(0.9, 0.0);
        for _ in 0..200 {
            let (x, b) = v;
            let s2 = Bound::binary(BinOp::Add, v, v, Sc::F(2.0 * num(x) as f32));
            let s3 = Bound::binary(BinOp::Add, (Sc::F(2.0 * num(x) as f32), s2), v, x);
            let q = Bound::binary(
                BinOp::Div,
                (Sc::F(3.0 * num(x) as f32), s3),
                el(3.0, 0.0),
                x,
            );
            assert!(q.specified, "{q:?}");
            assert!(q.chain.reach() <= 3.0 * (0.9 + 2.0 * q.err), "{q:?}");
            assert!(q.err >= b.err);
            v = (x, q);
        }
        assert!(v.1.err < 200.0 * 8.0 * EPS, "{:?}", v.1);
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
