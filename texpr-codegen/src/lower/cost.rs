//! Estimates of how many statements lowering builds for an expression,
//! which decide whether a body is unrolled within the kernel's budget of
//! unrolled statements ([`texpr_target::DeviceLimits::max_unrolled_statements`]).
//!
//! The estimates follow the writer's rules (one `let` per operation and per
//! index-term operation, three more for a guarded read, a loop per `reduce`
//! unrolled by [`unroll_factor`], a register vector per short `let@reg`) and
//! lean high: an estimate that is too high keeps a body in a loop, one too
//! low could make the kernel exceed its budget (then refused, E0319).

use texpr_ir::MemLevel;
use texpr_ir::{Expr, ExprKind, Term, TermKind};

/// The estimates for a kernel whose register vectors are at most
/// `register_vector` long (the target's `max_unrolled_elements`).
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    pub register_vector: u64,
    /// Whether folds are estimated unrolled by [`unroll_factor`] (else as
    /// loops of one copy of their body: [`Cost::looped`]).
    pub unrolls: bool,
}

impl Cost {
    /// The estimates with every fold a loop of one copy of its body: the
    /// least an expression costs however tight the budget.
    pub fn looped(self) -> Cost {
        Cost {
            unrolls: false,
            ..self
        }
    }

    /// Copies of a fold's body per trip, as estimated.
    fn unroll(self, n: u64, body: &Expr) -> u64 {
        match self.unrolls {
            true => unroll_factor(n, expr_size(body) as u64),
            false => 1,
        }
    }

    /// Statements for one element of `e` (what [`super::Lower::elem`] writes).
    pub fn elem(self, e: &Expr) -> u64 {
        let elem_cost = |x: &Expr| self.elem(x);
        let cost = match &e.kind {
            ExprKind::Compute { map, body, .. } => {
                let map = map.as_ref().map_or(0, |m| 1 + term_cost(&m.term()));
                2 + map + elem_cost(body)
            }
            ExprKind::Reduce { n, body, .. } => {
                let u = self.unroll(*n, body);
                3 + u.saturating_mul(elem_cost(body) + 2)
            }
            ExprKind::Let { value, body, .. } => self.value(value).saturating_add(elem_cost(body)),
            // A loop, never unrolled: a variable per state, its next values
            // and their assignments.
            ExprKind::Iterate { states, parts, .. } => (parts.iter())
                .map(elem_cost)
                .fold(4 + 2 * states.len() as u64, u64::saturating_add),
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
    /// [`super::Lower::vector`] writes for a register vector).
    pub fn vector(self, e: &Expr) -> u64 {
        let len = e.ty.len;
        let cost = match &e.kind {
            ExprKind::Let { value, body, .. } => {
                self.value(value).saturating_add(self.vector(body))
            }
            ExprKind::Reduce { n, body, .. } => {
                let u = self.unroll(*n, body);
                let step = self.vector(body).saturating_add(len);
                (len + 2).saturating_add(u.saturating_mul(step))
            }
            ExprKind::Compute {
                n, map: None, body, ..
            } => n.saturating_mul(self.vector(body)),
            _ => len.saturating_mul(self.elem(e)),
        };
        cost.min(u64::MAX / 4)
    }

    /// Statements for a `let` value: a scalar, a register vector, or an array
    /// filled by a loop.
    fn value(self, value: &Expr) -> u64 {
        match value.ty.len {
            1 => self.elem(value),
            n if n <= self.register_vector => self.vector(value),
            _ => 3 + self.elem(value),
        }
    }
}

/// `let`s for an index term (one per operation).
pub fn term_cost(t: &Term) -> u64 {
    match &t.kind {
        TermKind::Binary(_, a, b) => 1 + term_cost(a) + term_cost(b),
        _ => 0,
    }
}

/// How many copies of a reduction's body one loop iteration runs: up to 8
/// for loop-free bodies of modest size when the trip count divides (the
/// fold order is unchanged; per-iteration loop overhead is what it saves, and
/// on llvmpipe that overhead dominates short bodies).
pub fn unroll_factor(n: u64, body_size: u64) -> u64 {
    [8u64, 4, 2]
        .into_iter()
        .find(|u| n.is_multiple_of(*u) && n > *u && body_size * u <= 512)
        .unwrap_or(1)
}

/// Nodes in `e`, or a large number when it holds a loop (not unrolled).
pub fn expr_size(e: &Expr) -> usize {
    let inner: usize = match &e.kind {
        ExprKind::Reduce { .. } => return 1 << 20,
        ExprKind::Compute { n, body, .. } => (*n as usize).saturating_mul(expr_size(body)),
        // A shared fill in an unrolled copy would be a second array.
        ExprKind::Let {
            level: Some(MemLevel::Shared),
            ..
        } => return 1 << 20,
        _ => e.children().map(expr_size).fold(0, usize::saturating_add),
    };
    inner.saturating_add(1)
}
