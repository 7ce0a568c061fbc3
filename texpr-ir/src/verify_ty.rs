//! The verifier's type rules: each node's type against its children's.

use super::codes;
use super::verify::Verifier;
use crate::{BinOp, Expr, ExprKind, Func, Ty, UnaryOp};
use crate::{ElemTy, ReduceOp};

fn show(t: Ty) -> String {
    format!("{}[{}]", t.elem.name(), t.len)
}

/// `Some(problem)` when the node's type disagrees with its children.
fn problem(e: &Expr, vec_ty: Option<Ty>) -> Option<String> {
    let ty = e.ty;
    let want = |t: Ty, what: &str| {
        (ty != t).then(|| format!("{what} gives {}, node says {}", show(t), show(ty)))
    };
    let no_bool = |x: &Expr| (x.ty.elem == ElemTy::Bool).then(|| "a bool operand".to_string());
    match &e.kind {
        ExprKind::Compute { n, map, body, .. } => {
            let len = map
                .as_ref()
                .map_or(n.saturating_mul(body.ty.len), |m| m.len);
            no_bool(body).or_else(|| want(Ty::new(body.ty.elem, len), "compute"))
        }
        ExprKind::Reduce {
            op: ReduceOp::Lse,
            body,
            ..
        } if body.ty.elem != ElemTy::F32 => Some(format!("reduce lse of {}", show(body.ty))),
        ExprKind::Reduce { body, .. } => no_bool(body).or_else(|| want(body.ty, "reduce")),
        ExprKind::Let { value, body, .. } => no_bool(value).or_else(|| want(body.ty, "let body")),
        ExprKind::Iterate { states, parts, .. } => iterate(states.len(), parts, ty),
        ExprKind::Index { guard, .. } => {
            let elem = vec_ty?.elem;
            let bad_guard = guard.is_some_and(|g| g.elem() != elem);
            if bad_guard {
                Some("guard of another element type".into())
            } else {
                want(Ty::scalar(elem), "index")
            }
        }
        ExprKind::Whole(_) => want(vec_ty?, "the vector"),
        ExprKind::IndexVar(_) => want(Ty::scalar(ElemTy::I32), "an index variable"),
        ExprKind::Const(s) => want(Ty::scalar(s.elem()), "the constant"),
        ExprKind::Fill(s) => want(Ty::new(s.elem(), ty.len), "the fill value"),
        ExprKind::VecLit(xs) => {
            let elem_ok = xs.iter().all(|s| s.elem() == ty.elem);
            if elem_ok {
                want(Ty::new(ty.elem, xs.len() as u64), "the literal")
            } else {
                Some("mixed literal types".into())
            }
        }
        ExprKind::Broadcast(a) if a.ty.len != 1 => Some(format!("broadcast of {}", show(a.ty))),
        ExprKind::Broadcast(a) => want(Ty::new(a.ty.elem, ty.len), "broadcast"),
        ExprKind::Cast(a) if ty.elem == ElemTy::Bool => no_bool(a).or(Some("cast to bool".into())),
        ExprKind::Cast(a) => no_bool(a).or_else(|| want(Ty::new(ty.elem, a.ty.len), "cast")),
        ExprKind::Unary(op, a) => unary(*op, a).or_else(|| want(a.ty, "the operand")),
        ExprKind::Binary(op, a, b) => binary(*op, a, b, ty),
        ExprKind::Call(f, xs) => call(*f, xs, ty),
    }
}

/// An `iterate` of `k` scalar states: `k` initial and `k` next values, each
/// next value of its initial value's type, the node of the first's.
fn iterate(k: usize, parts: &[Expr], ty: Ty) -> Option<String> {
    if k == 0 || parts.len() != 2 * k {
        return Some(format!("iterate of {k} states with {} parts", parts.len()));
    }
    let (inits, nexts) = parts.split_at(k);
    if let Some(x) = inits
        .iter()
        .find(|x| x.ty.len != 1 || x.ty.elem == ElemTy::Bool)
    {
        return Some(format!("iterate state of {}", show(x.ty)));
    }
    if let Some((a, b)) = inits.iter().zip(nexts).find(|(a, b)| a.ty != b.ty) {
        return Some(format!("iterate state {} given {}", show(a.ty), show(b.ty)));
    }
    (ty != inits[0].ty).then(|| {
        format!(
            "iterate gives {}, node says {}",
            show(inits[0].ty),
            show(ty)
        )
    })
}

fn unary(op: UnaryOp, a: &Expr) -> Option<String> {
    let ok = match op {
        UnaryOp::Neg => matches!(a.ty.elem, ElemTy::F32 | ElemTy::F16 | ElemTy::I32),
        UnaryOp::Not => a.ty.elem == ElemTy::Bool,
        UnaryOp::Abs => a.ty.elem != ElemTy::Bool,
        _ => a.ty.elem.is_float(),
    };
    (!ok).then(|| format!("`{}` of {}", op.name(), a.ty.elem.name()))
}

fn binary(op: BinOp, a: &Expr, b: &Expr, ty: Ty) -> Option<String> {
    if a.ty != b.ty {
        return Some(format!("operands {} and {}", show(a.ty), show(b.ty)));
    }
    if (a.ty.elem == ElemTy::Bool) != op.is_logical() {
        return Some(format!("`{}` of {}", op.symbol(), a.ty.elem.name()));
    }
    let want = if op.is_boolean() {
        Ty::new(ElemTy::Bool, a.ty.len)
    } else {
        a.ty
    };
    (ty != want).then(|| {
        format!(
            "`{}` gives {}, node says {}",
            op.symbol(),
            show(want),
            show(ty)
        )
    })
}

fn call(f: Func, xs: &[Expr], ty: Ty) -> Option<String> {
    if xs.len() != f.arity() {
        return Some(format!("`{}` with {} arguments", f.name(), xs.len()));
    }
    let values = if f == Func::Select { &xs[1..] } else { xs };
    if values
        .iter()
        .any(|x| x.ty != ty || x.ty.elem == ElemTy::Bool)
    {
        return Some(format!("`{}` arguments differ from {}", f.name(), show(ty)));
    }
    match f {
        Func::Select if xs[0].ty != Ty::new(ElemTy::Bool, ty.len) => {
            Some("select's condition is not bool".into())
        }
        Func::Pow | Func::Fma if !ty.elem.is_float() => {
            Some(format!("`{}` of {}", f.name(), ty.elem.name()))
        }
        _ => None,
    }
}

impl Verifier<'_> {
    /// Reports a node whose type disagrees with its children.
    pub(super) fn check_ty(&mut self, e: &Expr) {
        let vec_ty = match &e.kind {
            ExprKind::Index { vec, .. } | ExprKind::Whole(vec) => self.vec_ty(*vec),
            _ => None,
        };
        if let Some(msg) = problem(e, vec_ty) {
            self.fail(codes::IR_TYPE, e.span, format!("ill-typed node: {msg}"));
        }
    }
}
