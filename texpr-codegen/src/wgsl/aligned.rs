//! Aligned runs: the entry of `d` elements (a `vec4`, or eight in a
//! `vec4<u64>`) holding an element of a unit-stride read, found by dividing
//! the index symbolically (`vec4.rs`, `lanes.rs`, `wide.rs`).

use super::ctx::{Ctx, Ix};
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::TermOp;
use texpr_syntax::ir::term;
use texpr_syntax::ir::{Term, TermKind, VarId};

impl Ctx<'_> {
    /// The entry of `d` elements (a `vec4`, or eight in a `vec4<u64>`)
    /// holding element `index` at `t = t0` (a multiple of `d`) of a
    /// unit-stride read: `X/d + t0/d` with `X/d` the other summands each
    /// divided by `d` symbolically (no division left for the device), else
    /// `(index) / d`.
    pub(super) fn part_index(
        &mut self,
        index: &Term,
        t: VarId,
        t0: i64,
        d: i64,
    ) -> Result<String, Diagnostic> {
        self.idx.insert(t, Ix::Const(t0));
        let parts = term::summands(index);
        let others = parts.iter().filter(|x| x.kind != TermKind::Var(t));
        let divided: Option<Vec<Term>> = others.map(|x| divide(x, d)).collect();
        let Some(divided) = divided else {
            let at = crate::wgsl::index::term(self, index)?;
            return Ok(format!("({at}) / {}", crate::wgsl::lit::i32_lit(d as i32)));
        };
        let sum =
            divided
                .into_iter()
                .reduce(term::add)
                .map_or(term::constant(t0 / d), |x| match t0 {
                    0 => x,
                    _ => term::add(x, term::constant(t0 / d)),
                });
        Ok(crate::wgsl::index::term(self, &sum)?.to_string())
    }
}

/// `x / d` as a term, when `x` is visibly a multiple of `d`.
fn divide(x: &Term, d: i64) -> Option<Term> {
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
pub(super) fn unit_stride(index: &Term, t: VarId, d: i64) -> bool {
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
