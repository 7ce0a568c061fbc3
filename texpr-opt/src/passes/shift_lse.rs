//! The `shift_lse` pass: a numerically stable softmax written with a max
//! (`let m = reduce max N |j| e(j) in BODY`, dividing by a sum of
//! `exp(e(j) - m)`) becomes one that shifts by the log-sum-exp instead, so
//! that the sum is known to be 1 and disappears: two passes over the row
//! instead of three. Two rewrites:
//!
//! 1. *Shift invariance.* When `BODY` has degree 0 in `m`
//!    ([`super::degree`]: it is unchanged in real arithmetic when `m` is
//!    shifted by any `c`, the shift scaling every `exp(t - m)` by `e^-c`),
//!    any value will do for `m`, and `reduce max` becomes `reduce lse` over
//!    the same domain and element (`exp(e - lse) <= 1`: still stable).
//! 2. *Normalisation.* Within `BODY`, `reduce + N |k| exp(e(k) - m)` over the
//!    same domain and element (equal up to the bound variable; the element
//!    may be a read `p[k]` of a `let p = compute N |j| exp(e(j) - m)`) is then
//!    exactly 1 in real arithmetic: it becomes the constant `1.0`. A scalar
//!    `let` that is now `1.0` is substituted into its body, and `x / 1.0`
//!    folded ([`super::simplify`]).
//!
//! Rewrite 1 is made only where rewrite 2 then removes a sum: a `max` alone
//! would become a dearer `lse` (one `exp` per element) for nothing.
//!
//! Expects: a checked program, levels or none (`let`s whose value carries a
//! level are left alone). Guarantees: the same values in real arithmetic;
//! the rounding differs, so GPU results are compared with the original
//! program within the larger of the two programs' error bounds
//! (`texpr_interp::accuracy::reference_rewritten`).

use super::degree::{degree, reads_var, shifted_exp};
use super::simplify::simplify_expr;
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::{ElemTy, ReduceOp};
use texpr_ir::{Expr, ExprKind, Program, Scalar, Ty, VarId, VecRef, term};
use texpr_syntax::check::strip_expr_spans;

/// The `shift_lse` pass over every item.
pub fn shift_lse(p: &mut Program) -> Result<(), Vec<Diagnostic>> {
    for item in p.items() {
        let root = item.root(p);
        if !root.any(|e| is_max_let(e).is_some()) {
            continue;
        }
        let new = rewrite(p, root);
        if &new != item.root(p) {
            let new = simplify_expr(p, &new);
            *item.root_mut(p) = new;
        }
    }
    Ok(())
}

/// The max's variable, domain, bound variable and element of `let m =
/// reduce max N |j| e in ...` (scalar `f32`, no level on the fold).
fn is_max_let(e: &Expr) -> Option<(VarId, u64, VarId, &Expr)> {
    let ExprKind::Let { var, value, .. } = &e.kind else {
        return None;
    };
    match &value.kind {
        ExprKind::Reduce {
            level: None,
            op: ReduceOp::Max,
            n,
            var: j,
            body,
            steps: None,
        } if value.ty.len == 1 && value.ty.elem == ElemTy::F32 => Some((*var, *n, *j, body)),
        _ => None,
    }
}

/// `e` with every eligible max `let` rewritten, innermost first.
fn rewrite(p: &Program, e: &Expr) -> Expr {
    let e = e.map_children(|c| rewrite(p, c));
    let Some((m, n, j, elem)) = is_max_let(&e) else {
        return e;
    };
    let ExprKind::Let {
        level, value, body, ..
    } = &e.kind
    else {
        unreachable!("a let")
    };
    let (level, ty, span) = (*level, e.ty, e.span);
    if degree(body, m) != Some(0) {
        return e;
    }
    let fold = Fold { m, n, j, elem };
    let mut sums = 0;
    let new_body = normalise(p, &fold, body, &mut BTreeMap::new(), &mut sums);
    if sums == 0 {
        return e;
    }
    let mut lse = (**value).clone();
    if let ExprKind::Reduce { op, .. } = &mut lse.kind {
        *op = ReduceOp::Lse;
    }
    let kind = ExprKind::Let {
        level,
        var: m,
        value: Box::new(lse),
        body: Box::new(new_body),
    };
    Expr { kind, ty, span }
}

/// The fold `m = reduce N |j| elem` sums are matched against.
struct Fold<'a> {
    m: VarId,
    n: u64,
    j: VarId,
    elem: &'a Expr,
}

/// `e` with every sum that `fold` normalises replaced by `1.0` (counted in
/// `sums`), and every scalar `let` of `1.0` substituted. `defs` holds the
/// values of the `let`s in scope that compute `exp(_ - m)` elements.
fn normalise(
    p: &Program,
    fold: &Fold<'_>,
    e: &Expr,
    defs: &mut BTreeMap<VarId, Expr>,
    sums: &mut usize,
) -> Expr {
    if is_normalising(p, fold, e, defs) {
        *sums += 1;
        return one(e);
    }
    if let ExprKind::Let {
        level,
        var,
        value: given,
        body,
    } = &e.kind
    {
        let value = normalise(p, fold, given, defs, sums);
        if let ExprKind::Compute { body: v, .. } = &given.kind
            && shifted_exp(v, fold.m).is_some()
        {
            defs.insert(*var, (**given).clone());
        }
        let body = normalise(p, fold, body, defs, sums);
        defs.remove(var);
        if value.kind == ExprKind::Const(Scalar::F32(1.0)) {
            return substitute_one(&body, *var);
        }
        let kind = ExprKind::Let {
            level: *level,
            var: *var,
            value: Box::new(value),
            body: Box::new(body),
        };
        return Expr {
            kind,
            ty: e.ty,
            span: e.span,
        };
    }
    e.map_children(|c| normalise(p, fold, c, defs, sums))
}

/// Whether `e` is `reduce + N |k| exp(elem(k) - m)`, the element possibly
/// a read `q[k]` of `let q = compute N |j2| exp(elem(j2) - m)`.
fn is_normalising(p: &Program, fold: &Fold<'_>, e: &Expr, defs: &BTreeMap<VarId, Expr>) -> bool {
    let ExprKind::Reduce {
        op: ReduceOp::Add,
        n,
        var: k,
        body,
        ..
    } = &e.kind
    else {
        return false;
    };
    if *n != fold.n || e.ty.len != 1 {
        return false;
    }
    let defined;
    let term = match &body.kind {
        ExprKind::Index {
            vec: VecRef::Local(q),
            index,
            guard: None,
        } if index.kind == term::var(*k).kind => match defs.get(q).map(|d| &d.kind) {
            Some(ExprKind::Compute {
                n: nq,
                var: jq,
                map: None,
                body: v,
                ..
            }) if nq == n && v.ty.len == 1 => {
                defined = subst_expr(p, v, *jq, &term::var(*k));
                &defined
            }
            _ => return false,
        },
        _ => body,
    };
    let Some(t) = shifted_exp(term, fold.m) else {
        return false;
    };
    same(&subst_expr(p, t, *k, &term::var(fold.j)), fold.elem)
}

/// Equal up to spans.
fn same(a: &Expr, b: &Expr) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    strip_expr_spans(&mut a);
    strip_expr_spans(&mut b);
    a == b
}

/// The constant `1.0` in place of `e` (a scalar `f32`).
fn one(e: &Expr) -> Expr {
    Expr {
        kind: ExprKind::Const(Scalar::F32(1.0)),
        ty: e.ty,
        span: e.span,
    }
}

/// `body` with every read of the scalar `let` `v` (now `1.0`) replaced by
/// the constant.
fn substitute_one(body: &Expr, v: VarId) -> Expr {
    if reads_var(body, v) {
        let c = Expr {
            kind: ExprKind::Const(Scalar::F32(1.0)),
            ty: Ty::scalar(ElemTy::F32),
            span: body.span,
        };
        return match &body.kind {
            ExprKind::Broadcast(_) => Expr {
                kind: ExprKind::Broadcast(Box::new(c)),
                ..body.clone()
            },
            _ => c,
        };
    }
    body.map_children(|c| substitute_one(c, v))
}
