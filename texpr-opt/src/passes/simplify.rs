//! The `simplify` pass: every index term and index map of the program
//! simplified ([`simplify_term`]), and expression identities that
//! are exact in WGSL's arithmetic folded away.
//!
//! Expects: a checked program (scheduled or not: levels are kept). Guarantees:
//! the interpreter gives bit-identical results; nothing is reassociated.
//!
//! The identities (`1`, `0` and `-0.0` meaning a constant, a `fill` or a
//! broadcast constant of that value):
//! - `x * 1`, `1 * x`, `x / 1` -> `x` for every type (for `f32` these are
//!   exact for every `x`, `-0.0` and infinities included);
//! - `x + 0`, `0 + x`, `x - 0` -> `x` for `i32`/`u32` (wrapping arithmetic);
//! - `x + -0.0`, `-0.0 + x`, `x - 0.0` -> `x` for `f32`; `x + 0.0` is *not*
//!   folded: `-0.0 + 0.0` is `+0.0`;
//! - `-(-x)` -> `x`; a cast to the type `x` already has -> `x`; a broadcast
//!   to the length `x` already has -> `x`.

use texpr_ir::BinOp;
use texpr_ir::Diagnostic;
use texpr_ir::index::simplify::simplify_term;
use texpr_ir::{Expr, ExprKind, IndexMap, MapKind, Program, Scalar, UnaryOp};

/// The `simplify` pass over every item.
pub fn simplify(p: &mut Program) -> Result<(), Vec<Diagnostic>> {
    for k in 0..p.globals.len() {
        let e = simplify_expr(p, &p.globals[k].value);
        p.globals[k].value = e;
    }
    for k in 0..p.outputs.len() {
        let e = simplify_expr(p, &p.outputs[k].value);
        p.outputs[k].value = e;
    }
    Ok(())
}

/// `e` with its terms simplified and exact identities folded, bottom-up.
pub fn simplify_expr(p: &Program, e: &Expr) -> Expr {
    let kind = match e.map_children(|c| simplify_expr(p, c)).kind {
        ExprKind::Index { vec, index, guard } => ExprKind::Index {
            vec,
            index: simplify_term(p, &index),
            guard,
        },
        ExprKind::Compute {
            level,
            n,
            var,
            map:
                Some(IndexMap {
                    var: k,
                    len,
                    kind: MapKind::Term(t),
                }),
            body,
        } => ExprKind::Compute {
            level,
            n,
            var,
            map: Some(IndexMap {
                var: k,
                len,
                kind: MapKind::Term(simplify_term(p, &t)),
            }),
            body,
        },
        k => k,
    };
    if let Some(x) = identity(&kind, e) {
        return x;
    }
    Expr {
        kind,
        ty: e.ty,
        span: e.span,
    }
}

/// The operand an exact identity reduces `kind` (of type `at.ty`) to.
fn identity(kind: &ExprKind, at: &Expr) -> Option<Expr> {
    let same = |x: &Expr| (x.ty == at.ty).then(|| x.clone());
    match kind {
        ExprKind::Binary(op, a, b) => {
            let (ca, cb) = (splat(a), splat(b));
            let int = !matches!(at.ty.elem, texpr_ir::ElemTy::F32);
            match op {
                BinOp::Mul if ca.is_some_and(is_one) => same(b),
                BinOp::Mul | BinOp::Div if cb.is_some_and(is_one) => same(a),
                BinOp::Add if int && ca.is_some_and(is_pos_zero) => same(b),
                BinOp::Add | BinOp::Sub if int && cb.is_some_and(is_pos_zero) => same(a),
                BinOp::Add if ca.is_some_and(is_neg_zero) => same(b),
                BinOp::Add if cb.is_some_and(is_neg_zero) => same(a),
                BinOp::Sub if !int && cb.is_some_and(is_pos_zero) => same(a),
                _ => None,
            }
        }
        ExprKind::Unary(UnaryOp::Neg, x) => match &x.kind {
            ExprKind::Unary(UnaryOp::Neg, y) => same(y),
            _ => None,
        },
        ExprKind::Cast(x) | ExprKind::Broadcast(x) => same(x),
        _ => None,
    }
}

/// The constant every element of `e` equals, when `e` is a constant, a
/// `fill` or a broadcast constant.
fn splat(e: &Expr) -> Option<Scalar> {
    match &e.kind {
        ExprKind::Const(c) | ExprKind::Fill(c) => Some(*c),
        ExprKind::Broadcast(x) => splat(x),
        _ => None,
    }
}

fn is_one(c: Scalar) -> bool {
    match c {
        Scalar::F32(x) => x == 1.0,
        Scalar::F16(x) => x.to_f32() == 1.0,
        Scalar::I32(x) => x == 1,
        Scalar::U32(x) => x == 1,
    }
}

/// `0` for integers, `+0.0` (not `-0.0`) for floats.
fn is_pos_zero(c: Scalar) -> bool {
    match c {
        Scalar::F32(x) => x.to_bits() == 0,
        Scalar::F16(x) => x.to_bits() == 0,
        Scalar::I32(x) => x == 0,
        Scalar::U32(x) => x == 0,
    }
}

fn is_neg_zero(c: Scalar) -> bool {
    match c {
        Scalar::F32(x) => x.to_bits() == (-0.0f32).to_bits(),
        Scalar::F16(x) => x.to_bits() == 0x8000,
        _ => false,
    }
}
