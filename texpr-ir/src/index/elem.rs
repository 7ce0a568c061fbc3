//! Element extraction: rewrites a vector expression into a scalar expression
//! computing one element of it, `ELEM(e, idx)`.
//!
//! Expects: a checked expression `e` and an index term `idx` whose [`range`]
//! lies within `0..e.ty.len` (so every read the checker proved in bounds for
//! `e` stays provably in bounds). Guarantees: the result has type
//! `e.ty.elem[1]`, its value is element `idx` of `e`, every `reduce` in it is
//! `@thread`, every `let` is `@reg` and every `compute` is `@thread` (computes
//! on the path to the element disappear into index arithmetic; those inside
//! a `let` value keep their vector form). Folds keep their order, so the
//! interpreter gives bit-identical results.
//!
//! [`range`]: crate::term::range

use super::simplify::simplify_term;
use super::subst::subst_expr;
use crate::Diagnostic;
use crate::term::{self, as_const, bin, constant};
use crate::{Expr, ExprKind, Program, Term, Ty, VarKind, VecRef};
use crate::{Level, MemLevel, TermOp};

/// Index terms larger than this are refused (E0207) rather than built:
/// nested index maps that mention their variable twice double the term per level.
pub const MAX_TERM_SIZE: usize = 20_000;

/// Element `idx` of `e`, as a scalar expression.
pub fn elem(p: &mut Program, e: &Expr, idx: &Term) -> Result<Expr, Diagnostic> {
    let idx = simplify_term(p, idx);
    let ty = Ty::scalar(e.ty.elem);
    let kind = match &e.kind {
        ExprKind::Compute {
            n, var, map, body, ..
        } => {
            let raw_idx = match map {
                Some(m) => simplify_term(p, &term::subst(&m.term(), m.var, &idx)),
                None => idx,
            };
            if term::size(&raw_idx) > MAX_TERM_SIZE {
                return Err(Diagnostic::error(
                    "E0207",
                    "the index arithmetic here grows too large to schedule",
                )
                .with_primary(e.span, "nested index maps repeat the element index")
                .with_note(format!(
                    "an index term of more than {MAX_TERM_SIZE} nodes; write levels by hand"
                )));
            }
            return compute_elem(p, *n, *var, body, &raw_idx);
        }
        ExprKind::Reduce {
            op,
            n,
            var,
            body,
            steps,
            ..
        } => ExprKind::Reduce {
            level: Some(Level::Thread),
            op: *op,
            n: *n,
            var: *var,
            body: Box::new(elem(p, body, &idx)?),
            steps: steps.clone(),
        },
        ExprKind::Let {
            var, value, body, ..
        } => ExprKind::Let {
            level: Some(MemLevel::Reg),
            var: *var,
            value: Box::new(value.with_thread_levels()),
            body: Box::new(elem(p, body, &idx)?),
        },
        ExprKind::Whole(v) => ExprKind::Index {
            vec: *v,
            index: idx,
            guard: None,
        },
        ExprKind::Fill(c) => ExprKind::Const(*c),
        ExprKind::VecLit(vals) => return Ok(veclit_elem(p, e, vals, idx)),
        ExprKind::Broadcast(x) => return elem(p, x, &constant(0)),
        ExprKind::Cast(x) => ExprKind::Cast(Box::new(elem(p, x, &idx)?)),
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(elem(p, x, &idx)?)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(
            *op,
            Box::new(elem(p, a, &idx)?),
            Box::new(elem(p, b, &idx)?),
        ),
        ExprKind::Call(f, args) => ExprKind::Call(
            *f,
            args.iter()
                .map(|a| elem(p, a, &idx))
                .collect::<Result<_, _>>()?,
        ),
        // A loop of one invocation is a scalar, run whole by the thread.
        ExprKind::Iterate { .. } => return Ok(e.with_thread_levels()),
        // Scalars already: Index, IndexVar, Const.
        _ => return Ok(e.clone()),
    };
    Ok(Expr {
        kind,
        ty,
        span: e.span,
    })
}

/// Element `idx` of `compute n |var| body` (no map): body `idx / m`, element `idx % m`.
fn compute_elem(
    p: &mut Program,
    n: u64,
    var: crate::VarId,
    body: &Expr,
    idx: &Term,
) -> Result<Expr, Diagnostic> {
    let m = body.ty.len as i64;
    let outer = simplify_term(p, &bin(TermOp::Div, idx.clone(), constant(m)));
    let inner = simplify_term(p, &bin(TermOp::Rem, idx.clone(), constant(m)));
    debug_assert!(n >= 1);
    let body = subst_expr(p, body, var, &outer);
    elem(p, &body, &inner)
}

/// Element `idx` of a vector literal: the constant when `idx` is known, else
/// a `let@reg` of the literal read at `idx`.
fn veclit_elem(p: &mut Program, e: &Expr, vals: &[crate::Scalar], idx: Term) -> Expr {
    let ty = Ty::scalar(e.ty.elem);
    if let Some(c) = as_const(&idx)
        .and_then(|k| usize::try_from(k).ok())
        .and_then(|k| vals.get(k))
    {
        return Expr {
            kind: ExprKind::Const(*c),
            ty,
            span: e.span,
        };
    }
    let v = p.fresh_var("lit", VarKind::Vector(e.ty), e.span);
    let read = Expr {
        kind: ExprKind::Index {
            vec: VecRef::Local(v),
            index: idx,
            guard: None,
        },
        ty,
        span: e.span,
    };
    Expr {
        kind: ExprKind::Let {
            level: Some(MemLevel::Reg),
            var: v,
            value: Box::new(e.clone()),
            body: Box::new(read),
        },
        ty,
        span: e.span,
    }
}
