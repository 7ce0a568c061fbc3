//! Index terms: `i64` arithmetic over the current index variables, floor `/` and `%`.

use crate::error::{EvalError, malformed};
use texpr_ir::{Term, TermKind, TermOp, VarId};

/// Evaluates `t` with index variable `v` bound to `vars[v]`. Arithmetic wraps
/// rather than panics (the checker keeps every value within `i32`).
pub fn eval_term(t: &Term, vars: &[i64]) -> Result<i64, EvalError> {
    match &t.kind {
        TermKind::Const(c) => Ok(*c),
        TermKind::Var(v) => match vars.get(v.0 as usize) {
            Some(&x) => Ok(x),
            None => malformed(format!("index variable {} does not exist", v.0)),
        },
        TermKind::Binary(op, a, b) => {
            let (a, b) = (eval_term(a, vars)?, eval_term(b, vars)?);
            apply(*op, a, b)
        }
    }
}

/// An index term's value in each of a set of lanes (`eval_lanes.rs`).
pub(crate) enum TermLanes {
    /// The same in every lane: the term does not read the lane variable.
    Same(i64),
    /// One per lane, in the lanes' order.
    Each(Vec<i64>),
}

/// Evaluates `t` as [`eval_term`] does, with variable `var` at each value
/// in `ls`.
pub(crate) fn eval_term_lanes(
    t: &Term,
    vars: &[i64],
    var: VarId,
    ls: &[u64],
) -> Result<TermLanes, EvalError> {
    use TermLanes::{Each, Same};
    match &t.kind {
        TermKind::Var(v) if *v == var => Ok(Each(ls.iter().map(|&l| l as i64).collect())),
        TermKind::Const(_) | TermKind::Var(_) => Ok(Same(eval_term(t, vars)?)),
        TermKind::Binary(op, a, b) => {
            let a = eval_term_lanes(a, vars, var, ls)?;
            let b = eval_term_lanes(b, vars, var, ls)?;
            Ok(match (a, b) {
                (Same(x), Same(y)) => Same(apply(*op, x, y)?),
                (Each(mut xs), Same(y)) => {
                    for x in &mut xs {
                        *x = apply(*op, *x, y)?;
                    }
                    Each(xs)
                }
                (Same(x), Each(mut ys)) => {
                    for y in &mut ys {
                        *y = apply(*op, x, *y)?;
                    }
                    Each(ys)
                }
                (Each(mut xs), Each(ys)) => {
                    for (x, &y) in xs.iter_mut().zip(&ys) {
                        *x = apply(*op, *x, y)?;
                    }
                    Each(xs)
                }
            })
        }
    }
}

fn apply(op: TermOp, a: i64, b: i64) -> Result<i64, EvalError> {
    Ok(match op {
        TermOp::Add => a.wrapping_add(b),
        TermOp::Sub => a.wrapping_sub(b),
        TermOp::Mul => a.wrapping_mul(b),
        TermOp::Div | TermOp::Rem if b == 0 => return malformed("index term divides by zero"),
        TermOp::Div => floor_div(a, b),
        TermOp::Rem => a.wrapping_sub(floor_div(a, b).wrapping_mul(b)),
    })
}

/// Floor division (rounds toward negative infinity).
fn floor_div(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}
