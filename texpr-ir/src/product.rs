//! The fold of products a tensor-core block computes: `reduce + K |k| x *
//! y`, each operand as stored (an `f16` widened by a cast taken off). The
//! optimizer's `mma` strategy and code generation's `let@mma` lowering read
//! the same match.

use super::{BinOp, ElemTy, Expr, ExprKind, ReduceOp, VarId};

/// `reduce + K |k| x * y` as a block of tensor-core products sees it.
#[derive(Clone, Copy, Debug)]
pub struct Products<'e> {
    pub k: u64,
    pub var: VarId,
    /// The operands as stored: `x` of `f32(x)` where `x` is an `f16`.
    pub x: &'e Expr,
    pub y: &'e Expr,
    /// The operands' element type (both the same) and the products'.
    pub ab: ElemTy,
    pub cr: ElemTy,
}

/// An operand as stored: a widening of an `f16` taken off.
fn stored(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Cast(inner) if inner.ty.elem == ElemTy::F16 => inner,
        _ => e,
    }
}

impl Expr {
    /// This expression as a scalar fold of products whose operands are
    /// stored in one element type, or `None`.
    pub fn products(&self) -> Option<Products<'_>> {
        let ExprKind::Reduce {
            op: ReduceOp::Add,
            n,
            var,
            body,
            steps: None,
            ..
        } = &self.kind
        else {
            return None;
        };
        let ExprKind::Binary(BinOp::Mul, x, y) = &body.kind else {
            return None;
        };
        let (x, y) = (stored(x), stored(y));
        (x.ty.elem == y.ty.elem && body.ty.len == 1).then_some(Products {
            k: *n,
            var: *var,
            x,
            y,
            ab: x.ty.elem,
            cr: body.ty.elem,
        })
    }
}
