//! Literals: their natural types, coercion of unsuffixed integers, and range checks.
//!
//! An unsuffixed integer literal has no type of its own: it takes the element
//! type of the other operand, of a written type, or `i32`. An expression is
//! *flexible* when its element type comes only from such literals (`2`,
//! `fill(0, N)`, `-(1 + 2)`); the checker types the other operands first and
//! hands their element type to the flexible ones.

use super::{CResult, Checker, codes};
use crate::ast::{self, ElemTy, ExprKind, LitValue, Literal};
use texpr_ir::Diagnostic;
use texpr_ir::Scalar;

/// The type a literal has by itself: `None` for an unsuffixed integer.
pub(crate) fn natural(lit: &Literal) -> Option<ElemTy> {
    match lit.value {
        LitValue::Int(_) => None,
        LitValue::I32(_) => Some(ElemTy::I32),
        LitValue::U32(_) => Some(ElemTy::U32),
        LitValue::Float(_) => Some(ElemTy::F32),
        LitValue::Half(_) => Some(ElemTy::F16),
    }
}

/// Whether `e`'s element type comes only from unsuffixed integer literals.
pub(crate) fn is_flexible(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(l) | ExprKind::Fill { value: l, .. } => natural(l).is_none(),
        ExprKind::VecLit(ls) => ls.iter().all(|l| natural(l).is_none()),
        ExprKind::Unary { arg, .. } | ExprKind::Broadcast { arg, .. } => is_flexible(arg),
        ExprKind::Binary { op, lhs, rhs } => {
            !op.is_comparison() && is_flexible(lhs) && is_flexible(rhs)
        }
        ExprKind::Call { func, args } => {
            matches!(func.name.as_str(), "max" | "min" | "abs") && args.iter().all(is_flexible)
        }
        _ => false,
    }
}

/// Whether `e` is a literal of its own type (a float or a suffixed integer).
pub(crate) fn is_typed_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(l) | ExprKind::Fill { value: l, .. } => natural(l).is_some(),
        ExprKind::VecLit(ls) => ls.iter().any(|l| natural(l).is_some()),
        ExprKind::Unary { arg, .. } => is_typed_literal(arg),
        _ => false,
    }
}

/// Whether `e` is an `f32` float literal without a fixed type: one that
/// takes `f16` beside an `f16` operand (or a `fill`/vector of them).
pub(crate) fn is_plain_float_literal(e: &ast::Expr) -> bool {
    let plain = |l: &Literal| matches!(l.value, LitValue::Float(_));
    match &e.kind {
        ExprKind::Lit(l) | ExprKind::Fill { value: l, .. } => plain(l),
        ExprKind::VecLit(ls) => ls.iter().all(plain),
        ExprKind::Unary { arg, .. } => is_plain_float_literal(arg),
        _ => false,
    }
}

/// Whether `e` is a float literal (or a `fill`/vector of them).
pub(crate) fn is_float_literal(e: &ast::Expr) -> bool {
    let float = |l: &Literal| matches!(l.value, LitValue::Float(_) | LitValue::Half(_));
    match &e.kind {
        ExprKind::Lit(l) | ExprKind::Fill { value: l, .. } => float(l),
        ExprKind::VecLit(ls) => ls.iter().any(float),
        ExprKind::Unary { arg, .. } => is_float_literal(arg),
        _ => false,
    }
}

/// The element type for a literal of natural type `natural` where `hint` is
/// expected: a float where an integer is expected stays the integer type (so
/// that [`Checker::scalar`] reports it).
pub(crate) fn literal_elem(natural: Option<ElemTy>, hint: Option<ElemTy>) -> ElemTy {
    match (natural, hint) {
        (Some(ElemTy::F32), Some(h)) if h.is_int() => h,
        (Some(ElemTy::F32), Some(ElemTy::F16)) => ElemTy::F16,
        (Some(t), _) => t,
        (None, h) => h.unwrap_or(ElemTy::I32),
    }
}

impl Checker {
    /// The literal as a constant of type `elem`.
    pub(crate) fn scalar(&mut self, lit: &Literal, elem: ElemTy) -> CResult<Scalar> {
        match (lit.value, elem) {
            (LitValue::Float(v), ElemTy::F32) => Ok(Scalar::F32(v as f32)),
            (LitValue::Float(v) | LitValue::Half(v), ElemTy::F16) => self.half_scalar(lit, v),
            (LitValue::Float(_), _) => Err(self.err(float_in_int(lit, elem))),
            (LitValue::Int(v), _) => self.int_scalar(lit, v, elem),
            (LitValue::I32(v), ElemTy::I32) | (LitValue::U32(v), ElemTy::U32) => {
                self.int_scalar(lit, v, elem)
            }
            (_, _) => {
                let found = natural(lit).map_or("?", ElemTy::name);
                Err(self.err(
                    Diagnostic::error(
                        codes::ELEM_MISMATCH,
                        format!("expected {}, found {found}", elem.name()),
                    )
                    .with_primary(lit.span, format!("this literal is {found}"))
                    .with_note(format!("write the literal as {}", elem.name())),
                ))
            }
        }
    }

    /// `v` rounded to `f16`: finite, and not rounded to zero unless zero.
    fn half_scalar(&mut self, lit: &Literal, v: f64) -> CResult<Scalar> {
        let h = half::f16::from_f64(v);
        if h.is_finite() && (h != half::f16::ZERO || v == 0.0) {
            return Ok(Scalar::F16(h));
        }
        Err(self.err(
            Diagnostic::error(codes::LITERAL_RANGE, "literal out of range for f16")
                .with_primary(lit.span, format!("{v} does not fit in f16"))
                .with_note("f16 holds finite values up to 65504 and down to about 6e-8"),
        ))
    }

    fn int_scalar(&mut self, lit: &Literal, v: i64, elem: ElemTy) -> CResult<Scalar> {
        if elem == ElemTy::F16 {
            return self.half_scalar(lit, v as f64);
        }
        let s = match elem {
            ElemTy::F32 => Some(Scalar::F32(v as f32)),
            ElemTy::F16 => None,
            ElemTy::I32 => i32::try_from(v).ok().map(Scalar::I32),
            ElemTy::U32 => u32::try_from(v).ok().map(Scalar::U32),
            ElemTy::Bool => None,
        };
        s.ok_or_else(|| {
            let (lo, hi) = match elem {
                ElemTy::U32 => (0, u32::MAX as i64),
                _ => (i32::MIN as i64, i32::MAX as i64),
            };
            self.err(
                Diagnostic::error(
                    codes::LITERAL_RANGE,
                    format!("integer literal out of range for {}", elem.name()),
                )
                .with_primary(lit.span, format!("{v} does not fit in {}", elem.name()))
                .with_note(format!("{} holds {lo}..={hi}", elem.name())),
            )
        })
    }
}

fn float_in_int(lit: &Literal, elem: ElemTy) -> Diagnostic {
    Diagnostic::error(
        codes::FLOAT_IN_INT,
        format!("float literal where {} is expected", elem.name()),
    )
    .with_primary(lit.span, format!("expected {}", elem.name()))
    .with_note("write an integer literal, or convert with `f32(...)` on the other side")
}
