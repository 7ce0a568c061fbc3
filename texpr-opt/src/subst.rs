//! Substituting an index term for an index variable throughout an expression.
//!
//! Reads (`v[t]`) and index maps get the term substituted; a use of the
//! variable as a value (`IndexVar`) becomes the term written as `i32`
//! arithmetic (the term's operands are non-negative wherever `/` and `%`
//! occur, so truncating and floor division agree).

use crate::simplify::simplify;
use crate::term;
use texpr_syntax::ast::{BinOp, ElemTy, TermOp};
use texpr_syntax::ir::{
    Expr, ExprKind, IndexMap, Program, Scalar, Term, TermKind, Ty, VarId, VecRef,
};

/// `e` with `v := by` (simplifying the terms it touches).
pub fn subst_expr(p: &Program, e: &Expr, v: VarId, by: &Term) -> Expr {
    let kind = match &e.kind {
        ExprKind::Index { vec, index, guard } if term::mentions(index, v) => ExprKind::Index {
            vec: *vec,
            index: simplify(p, &term::subst(index, v, by)),
            guard: *guard,
        },
        ExprKind::IndexVar(x) if *x == v => return term_expr(by, e),
        _ => map_children(e, |c| subst_expr(p, c, v, by)),
    };
    let kind = match kind {
        ExprKind::Compute {
            level,
            n,
            var,
            map: Some(m),
            body,
        } if term::mentions(&m.term, v) => {
            let map = Some(IndexMap {
                term: simplify(p, &term::subst(&m.term, v, by)),
                ..m
            });
            ExprKind::Compute {
                level,
                n,
                var,
                map,
                body,
            }
        }
        k => k,
    };
    Expr {
        kind,
        ty: e.ty,
        span: e.span,
    }
}

/// Rebuilds `e`'s node with `f` applied to each child expression.
pub fn map_children(e: &Expr, mut f: impl FnMut(&Expr) -> Expr) -> ExprKind {
    let mut bx = |c: &Expr| Box::new(f(c));
    match &e.kind {
        ExprKind::Compute {
            level,
            n,
            var,
            map,
            body,
        } => ExprKind::Compute {
            level: *level,
            n: *n,
            var: *var,
            map: map.clone(),
            body: bx(body),
        },
        ExprKind::Reduce {
            level,
            op,
            n,
            var,
            body,
        } => ExprKind::Reduce {
            level: *level,
            op: *op,
            n: *n,
            var: *var,
            body: bx(body),
        },
        ExprKind::Let {
            level,
            var,
            value,
            body,
        } => ExprKind::Let {
            level: *level,
            var: *var,
            value: bx(value),
            body: bx(body),
        },
        ExprKind::Broadcast(x) => ExprKind::Broadcast(bx(x)),
        ExprKind::Cast(x) => ExprKind::Cast(bx(x)),
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, bx(x)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, bx(a), bx(b)),
        ExprKind::Call(func, args) => ExprKind::Call(*func, args.iter().map(|a| *bx(a)).collect()),
        other => other.clone(),
    }
}

/// A term as an `i32` scalar expression, spanned like `at`.
pub fn term_expr(t: &Term, at: &Expr) -> Expr {
    let ty = Ty::scalar(ElemTy::I32);
    let kind = match &t.kind {
        TermKind::Const(c) => ExprKind::Const(Scalar::I32(*c as i32)),
        TermKind::Var(v) => ExprKind::IndexVar(*v),
        TermKind::Binary(op, a, b) => {
            let op = match op {
                TermOp::Add => BinOp::Add,
                TermOp::Sub => BinOp::Sub,
                TermOp::Mul => BinOp::Mul,
                TermOp::Div => BinOp::Div,
                TermOp::Rem => BinOp::Rem,
            };
            ExprKind::Binary(op, Box::new(term_expr(a, at)), Box::new(term_expr(b, at)))
        }
    };
    Expr {
        kind,
        ty,
        span: at.span,
    }
}

/// Rewrites every vector reference (`v[t]` and whole reads) in every item of
/// `p` with `f`: renumbering globals when one is added or removed.
pub fn map_vec_refs(p: &mut Program, f: &dyn Fn(VecRef) -> VecRef) {
    fn walk(e: &Expr, f: &dyn Fn(VecRef) -> VecRef) -> Expr {
        let kind = match &e.kind {
            ExprKind::Index { vec, index, guard } => ExprKind::Index {
                vec: f(*vec),
                index: index.clone(),
                guard: *guard,
            },
            ExprKind::Whole(v) => ExprKind::Whole(f(*v)),
            _ => map_children(e, |c| walk(c, f)),
        };
        Expr {
            kind,
            ty: e.ty,
            span: e.span,
        }
    }
    for g in &mut p.globals {
        g.value = walk(&g.value, f);
    }
    for o in &mut p.outputs {
        o.value = walk(&o.value, f);
    }
}
