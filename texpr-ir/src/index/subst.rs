//! Substituting an index term for an index variable throughout an expression.
//!
//! Reads (`v[t]`), index maps and a `reduce`'s dependent steps get the
//! term substituted; a use of the
//! variable as a value (`IndexVar`) becomes the term written as `i32`
//! arithmetic (`build::term_value`).

use super::simplify::simplify_term;
use crate::build::term_value;
use crate::term;
use crate::{Expr, ExprKind, MapKind, Program, Term, VarId};

/// `e` with `v := by` (simplifying the terms it touches).
pub fn subst_expr(p: &Program, e: &Expr, v: VarId, by: &Term) -> Expr {
    match &e.kind {
        ExprKind::Index { index, .. } if index.mentions(v) => {
            let mut out = e.clone();
            if let ExprKind::Index { index, .. } = &mut out.kind {
                *index = simplify_term(p, &term::subst(index, v, by));
            }
            out
        }
        ExprKind::IndexVar(x) if *x == v => term_value(by, e.span),
        _ => {
            let mut out = e.map_children(|c| subst_expr(p, c, v, by));
            match &mut out.kind {
                ExprKind::Compute { map: Some(m), .. } => {
                    if let MapKind::Term(t) = &mut m.kind
                        && t.mentions(v)
                    {
                        *t = simplify_term(p, &term::subst(t, v, by));
                    }
                }
                ExprKind::Reduce { steps: Some(t), .. }
                | ExprKind::Iterate { steps: Some(t), .. }
                    if t.mentions(v) =>
                {
                    *t = simplify_term(p, &term::subst(t, v, by));
                }
                _ => {}
            }
            out
        }
    }
}
