//! The statistical tier of the check: Monte Carlo arithmetic, as
//! Verificarlo and CADNA do it. Where an element has no finite rigorous
//! bound (ill-conditioned to the running analysis, `running`), the
//! interpreter runs the program a few more times with every `f32` result
//! rounded at random to one of its two neighbours (stochastic rounding:
//! up with probability the distance from the lower one over the gap), and
//! the spread of those runs around its own value estimates how many of
//! the element's digits are significant. [`spread`] gives, per element,
//! the largest distance of [`RUNS`] such runs from the interpreter's value.
//!
//! Each run carries its randomly rounded value beside the interpreter's
//! (the [`Mca`] shadow: their difference), so one evaluation gives both. A
//! run follows the interpreter's conditions (`select`, comparisons): it
//! estimates how rounding moves the values, not where a condition would
//! flip. `f16` values, integers and conversions are computed as the
//! interpreter computes them, from the run's operands. The runs' random
//! numbers come from a fixed seed: the spread, like every output, is the
//! same on every run of the check.
//!
//! This is an estimate, not a bound: a device's rounding is not random,
//! and a few runs see a few of the possible errors. The check names the
//! elements it compares this way (docs/language.md, "How close another
//! device must be").

use super::bound::num;
use crate::eval::run;
use crate::scalar::{self, Sc};
use crate::shadow::{El, Shadow};
use crate::{EvalError, Value};
use half::f16;
use std::cell::Cell;
use texpr_ir::{BinOp, ElemTy, Func, Program, ReduceOp, UnaryOp};

/// Runs of Monte Carlo arithmetic per check.
pub const RUNS: u64 = 4;

/// The seed of the first run (run `k` uses `SEED + k`).
pub const SEED: u64 = 0x41;

thread_local! {
    static RNG: Cell<u64> = const { Cell::new(0) };
    /// Whether runs round at random (else they keep `f64` results: [`f64_values`]).
    static RANDOM: Cell<bool> = const { Cell::new(true) };
}

/// A uniform number in `[0, 1)` (splitmix64).
fn uniform() -> f64 {
    RNG.with(|s| {
        let x = s.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
        s.set(x);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    })
}

/// `y` rounded to an `f32` neighbour at random: up with probability its
/// distance from the lower one over the gap (exact values stay exact).
fn rounded(y: f64) -> f32 {
    let f = y as f32;
    if !f.is_finite() || f as f64 == y || y.is_nan() {
        return f;
    }
    let (lo, hi) = if (f as f64) < y {
        (f, f.next_up())
    } else {
        (f.next_down(), f)
    };
    let up = (y - lo as f64) / (hi as f64 - lo as f64);
    if uniform() < up { hi } else { lo }
}

/// A run's value beside the interpreter's: how far it is from it (0 for
/// the exact values, indices and conditions the run shares).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Mca(f64);

/// The run's value of an element, as a number.
fn val((x, m): El<Mca>) -> f64 {
    if m.0 == 0.0 { num(x) } else { num(x) + m.0 }
}

/// The run's value of an element, of the element's type.
fn run_sc(e: El<Mca>) -> Sc {
    let v = val(e);
    match e.0 {
        Sc::F(_) => Sc::F(v as f32),
        Sc::H(_) => Sc::H(f16::from_f64(v)),
        Sc::I(_) => Sc::I(v as i32),
        Sc::U(_) => Sc::U(v as u32),
        b @ Sc::B(_) => b,
    }
}

/// The run's result `s` beside the interpreter's `r`.
fn beside(s: Sc, r: Sc) -> Mca {
    let (a, b) = (num(s), num(r));
    if a == b || (a.is_nan() && b.is_nan()) || r.elem() == ElemTy::Bool {
        Mca(0.0)
    } else {
        Mca(a - b)
    }
}

/// The run's result of an operation the interpreter computes as `f`, on
/// the run's operands: `f32` results rounded at random from `exact` (the
/// result in `f64`), any other as the interpreter computes it.
fn result(r: Sc, exact: impl FnOnce() -> Option<f64>, f: impl FnOnce() -> Option<Sc>) -> Mca {
    match (r, exact()) {
        (Sc::F(_), Some(y)) if RANDOM.with(Cell::get) => beside(Sc::F(rounded(y)), r),
        (Sc::F(_), Some(y)) if y == num(r) || (y.is_nan() && num(r).is_nan()) => Mca(0.0),
        (Sc::F(_), Some(y)) => Mca(y - num(r)),
        _ => f().map_or(Mca(0.0), |s| beside(s, r)),
    }
}

fn is_f32(args: &[El<Mca>]) -> bool {
    args.iter().all(|a| a.0.elem() == ElemTy::F32)
}

impl Shadow for Mca {
    fn unary(op: UnaryOp, a: El<Mca>, r: Sc) -> Mca {
        let x = val(a);
        let exact = || {
            is_f32(&[a]).then(|| match op {
                UnaryOp::Neg | UnaryOp::Not => -x,
                UnaryOp::Abs => x.abs(),
                UnaryOp::Exp => x.exp(),
                UnaryOp::Log => x.ln(),
                UnaryOp::Sqrt => x.sqrt(),
                UnaryOp::Rsqrt => 1.0 / x.sqrt(),
                UnaryOp::Tanh => x.tanh(),
                UnaryOp::Sin => x.sin(),
                UnaryOp::Cos => x.cos(),
            })
        };
        result(r, exact, || scalar::unary(op, run_sc(a)).ok())
    }

    fn binary(op: BinOp, a: El<Mca>, b: El<Mca>, r: Sc) -> Mca {
        let (x, y) = (val(a), val(b));
        let exact = || {
            is_f32(&[a, b]).then_some(())?;
            Some(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                BinOp::Rem => x - y * (x / y).trunc(),
                _ => return None,
            })
        };
        result(r, exact, || scalar::binary(op, run_sc(a), run_sc(b)).ok())
    }

    fn call(f: Func, args: &[El<Mca>], r: Sc) -> Mca {
        let exact = || match (f, args) {
            (Func::Pow, [a, b]) if is_f32(args) => Some(val(*a).powf(val(*b))),
            (Func::Fma, [a, b, c]) if is_f32(args) => Some(val(*a) * val(*b) + val(*c)),
            (Func::Max, [a, b]) if is_f32(args) => Some(val(*a).max(val(*b))),
            (Func::Min, [a, b]) if is_f32(args) => Some(val(*a).min(val(*b))),
            // A run follows the interpreter's condition.
            (Func::Select, [c, a, b]) if is_f32(&[*a, *b]) => {
                Some(val(if c.0 == Sc::B(true) { *a } else { *b }))
            }
            _ => None,
        };
        let run_args: Vec<Sc> = args.iter().map(|&a| run_sc(a)).collect();
        result(r, exact, || scalar::call(f, &run_args).ok())
    }

    fn cast(a: El<Mca>, r: Sc) -> Mca {
        let exact = || (r.elem() == ElemTy::F32 && a.0.elem() != ElemTy::F16).then(|| val(a));
        result(r, exact, || scalar::cast(r.elem(), run_sc(a)).ok())
    }

    fn fold(op: ReduceOp, _: u64, acc: El<Mca>, x: El<Mca>, r: Sc, first: bool) -> Mca {
        let (a, b) = (val(acc), val(x));
        let exact = || {
            is_f32(&[acc, x]).then_some(())?;
            Some(match op {
                // The identity is not an operand: the first step moves its term.
                ReduceOp::Add | ReduceOp::Mul if first => b,
                ReduceOp::Add => a + b,
                ReduceOp::Mul => a * b,
                ReduceOp::Lse => lse(a, b),
                ReduceOp::Max => a.max(b),
                ReduceOp::Min => a.min(b),
            })
        };
        if first && matches!(op, ReduceOp::Add | ReduceOp::Mul) && !is_f32(&[x]) {
            return beside(run_sc(x), r);
        }
        result(r, exact, || scalar::fold(op, run_sc(acc), run_sc(x)).ok())
    }
}

/// `scalar::lse` in `f64`.
fn lse(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if hi.is_infinite() {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// Each element of each output of `p` on `inputs` computed in `f64`: every
/// `f32` operation's result kept in `f64` instead of rounded (the same
/// conditions as the interpreter's; `f16` and integers as it computes
/// them). What `examples/accuracy_table.rs` measures the bounds against.
pub fn f64_values(p: &Program, inputs: &[Value]) -> Result<Vec<Vec<f64>>, EvalError> {
    RANDOM.with(|r| r.set(false));
    let outs = run::<Mca>(p, inputs);
    RANDOM.with(|r| r.set(true));
    Ok(outs?
        .iter()
        .map(|v| {
            (0..v.len())
                .map(|i| v.get(i).map_or(f64::NAN, val))
                .collect()
        })
        .collect())
}

/// Each element of each output of `p` on `inputs`: the largest distance
/// from the interpreter's value of [`RUNS`] runs under random rounding
/// (see the module doc); `inf` where a run's value is not finite.
pub fn spread(p: &Program, inputs: &[Value]) -> Result<Vec<Vec<f64>>, EvalError> {
    // The runs are independent: each on a thread of its own (with a main
    // thread's stack; where none can be made, on this one), its random
    // numbers from its own seed, so the spread is the same however the
    // threads interleave.
    let one = |k: u64| {
        RNG.with(|s| s.set(SEED.wrapping_add(k).wrapping_mul(0x2545_f491_4f6c_dd1d)));
        run::<Mca>(p, inputs)
    };
    let runs: Vec<Result<Vec<_>, EvalError>> = std::thread::scope(|scope| {
        let spawned: Vec<_> = (0..RUNS)
            .map(|k| {
                let thread = std::thread::Builder::new().stack_size(8 << 20);
                (k, thread.spawn_scoped(scope, move || one(k)))
            })
            .collect();
        (spawned.into_iter())
            .map(|(k, h)| match h {
                Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                Err(_) => one(k),
            })
            .collect()
    });
    let mut out: Vec<Vec<f64>> = Vec::new();
    for outs in runs {
        let outs = outs?;
        out.resize_with(outs.len(), Vec::new);
        for (o, v) in out.iter_mut().zip(&outs) {
            o.resize(v.shadow.len(), 0.0);
            for (d, m) in o.iter_mut().zip(&v.shadow) {
                let m = if m.0.is_finite() {
                    m.0.abs()
                } else {
                    f64::INFINITY
                };
                *d = d.max(m);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_rounding_picks_a_neighbour_in_proportion() {
        RNG.with(|s| s.set(7));
        let y = 1.0 + 0.25 * f32::EPSILON as f64;
        let ups = (0..4000).filter(|_| rounded(y) > 1.0).count();
        assert!((800..1200).contains(&ups), "{ups} of 4000 up");
        assert_eq!(rounded(1.5), 1.5, "exact values stay exact");
    }

    #[test]
    fn a_long_sum_spreads_and_an_exact_one_does_not() {
        let p = texpr_syntax::frontend(
            "input x: f32[4096]\noutput s = reduce 4096 |i| x[i] * 0.1\n\
             output e = reduce 4096 |i| 1.0",
            &[],
        )
        .unwrap();
        let x = crate::random_inputs(&p, 1);
        let s = spread(&p, &x).unwrap();
        assert!(s[0][0] > 0.0 && s[0][0] < 1e-3, "{:?}", s[0]);
        assert_eq!(s[1][0], 0.0, "4096 ones add exactly");
        assert_eq!(spread(&p, &x).unwrap(), s, "the same spread every time");
        // In f64, 4096 tenths of the inputs lose nothing an f32 sum rounds.
        let exact: f64 = x[0].to_f64().iter().map(|v| v * 0.1f32 as f64).sum();
        let f64s = f64_values(&p, &x).unwrap();
        assert!(
            (f64s[0][0] - exact).abs() < 1e-12,
            "{} vs {exact}",
            f64s[0][0]
        );
        assert_eq!(f64s[1][0], 4096.0);
    }
}
