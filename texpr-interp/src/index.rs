//! Index terms: `i64` arithmetic over the current index variables, floor `/` and `%`.

use crate::error::{EvalError, malformed};
use texpr_ir::TermOp;
use texpr_ir::{Term, TermKind};

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
