//! Aligned runs: the entry of `d` elements (a `vec4`, or eight in a
//! `vec4<u64>`) holding an element of a unit-stride read, found by dividing
//! the index symbolically (`vec4.rs`, `lanes.rs`, `wide.rs`).

use texpr_syntax::ast::TermOp;
use texpr_syntax::ir::term;
use texpr_syntax::ir::{Term, TermKind, VarId};

/// `x / d` as a term, when `x` is visibly a multiple of `d`.
pub fn divide(x: &Term, d: i64) -> Option<Term> {
    match &x.kind {
        TermKind::Const(c) => (c % d == 0).then(|| term::constant(c / d)),
        TermKind::Binary(TermOp::Mul, a, b) => match (divide(a, d), divide(b, d)) {
            (_, Some(qb)) if term::as_const(&qb) == Some(1) => Some((**a).clone()),
            (Some(qa), _) if term::as_const(&qa) == Some(1) => Some((**b).clone()),
            (_, Some(qb)) => Some(term::bin(TermOp::Mul, (**a).clone(), qb)),
            (Some(qa), None) => Some(term::bin(TermOp::Mul, qa, (**b).clone())),
            (None, None) => None,
        },
        TermKind::Binary(op @ (TermOp::Add | TermOp::Sub), a, b) => {
            Some(term::bin(*op, divide(a, d)?, divide(b, d)?))
        }
        _ => None,
    }
}

/// Whether `index` is `t` plus terms that are multiples of `d` without `t`.
pub fn unit_stride(index: &Term, t: VarId, d: i64) -> bool {
    term::unit_stride(index, t).is_some_and(|rest| rest.iter().all(|x| multiple_of(x, d)))
}

/// Whether `x` is a multiple of `d` for every value of its variables.
fn multiple_of(x: &Term, d: i64) -> bool {
    match &x.kind {
        TermKind::Const(c) => c % d == 0,
        TermKind::Binary(TermOp::Mul, a, b) => multiple_of(a, d) || multiple_of(b, d),
        TermKind::Binary(TermOp::Add | TermOp::Sub, a, b) => multiple_of(a, d) && multiple_of(b, d),
        _ => false,
    }
}
