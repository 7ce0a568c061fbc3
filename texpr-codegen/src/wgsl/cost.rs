//! Estimates of how many WGSL statements the writer emits for an expression,
//! which decide whether a body is unrolled within the kernel's budget of
//! unrolled statements ([`texpr_opt::DeviceLimits::max_unrolled_statements`]).
//!
//! The estimates follow the writer's rules (one `let` per operation and per
//! index-term operation, three more for a guarded read, a loop per `reduce`
//! unrolled by [`unroll_factor`], a register vector per short `let@reg`) and
//! lean high: an estimate that is too high keeps a body in a loop, one too
//! low could make the kernel exceed its budget (then refused, E0319).

use super::elem::{UNROLL, expr_size, unroll_factor};
use texpr_syntax::ir::{Expr, ExprKind, Term, TermKind};

/// Statements for one element of `e` (what [`super::ctx::Ctx::elem`] writes).
pub fn elem_cost(e: &Expr) -> u64 {
    let cost = match &e.kind {
        ExprKind::Compute { map, body, .. } => {
            let map = map.as_ref().map_or(0, |m| 1 + term_cost(&m.term));
            2 + map + elem_cost(body)
        }
        ExprKind::Reduce { n, body, .. } => {
            let u = unroll_factor(*n, expr_size(body) as u64);
            3 + u.saturating_mul(elem_cost(body) + 2)
        }
        ExprKind::Let { value, body, .. } => value_cost(value).saturating_add(elem_cost(body)),
        ExprKind::Index { index, guard, .. } => {
            1 + term_cost(index) + if guard.is_some() { 3 } else { 0 }
        }
        ExprKind::Whole(_) | ExprKind::VecLit(_) => 2,
        ExprKind::IndexVar(_) | ExprKind::Const(_) | ExprKind::Fill(_) => 0,
        ExprKind::Broadcast(x) => elem_cost(x),
        ExprKind::Cast(x) | ExprKind::Unary(_, x) => 2 + elem_cost(x),
        ExprKind::Binary(_, a, b) => 3 + elem_cost(a).saturating_add(elem_cost(b)),
        ExprKind::Call(_, args) => args
            .iter()
            .map(elem_cost)
            .fold(2u64, |s, c| s.saturating_add(c + 1)),
    };
    cost.min(u64::MAX / 4)
}

/// Statements for every element of `e` at once (what
/// [`super::ctx::Ctx::vector`] writes for a register vector).
pub fn vector_cost(e: &Expr) -> u64 {
    let len = e.ty.len;
    let cost = match &e.kind {
        ExprKind::Let { value, body, .. } => value_cost(value).saturating_add(vector_cost(body)),
        ExprKind::Reduce { n, body, .. } => {
            let u = unroll_factor(*n, expr_size(body) as u64);
            let step = vector_cost(body).saturating_add(len);
            (len + 2).saturating_add(u.saturating_mul(step))
        }
        ExprKind::Compute {
            n, map: None, body, ..
        } => n.saturating_mul(vector_cost(body)),
        _ => len.saturating_mul(elem_cost(e)),
    };
    cost.min(u64::MAX / 4)
}

/// Statements for a `let` value: a scalar, a register vector, or an array
/// filled by a loop.
fn value_cost(value: &Expr) -> u64 {
    match value.ty.len {
        1 => elem_cost(value),
        n if n <= UNROLL => vector_cost(value),
        _ => 3 + elem_cost(value),
    }
}

/// `let`s for an index term (one per operation).
pub fn term_cost(t: &Term) -> u64 {
    match &t.kind {
        TermKind::Binary(_, a, b) => 1 + term_cost(a) + term_cost(b),
        _ => 0,
    }
}
