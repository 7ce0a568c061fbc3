//! Operands of elementwise operations: one element type for all, lengths equal or 1 (broadcast).

use super::lits::{is_flexible, is_float_literal, is_plain_float_literal, is_typed_literal};
use super::{CResult, Checker, Reported, codes};
use crate::ast::{self, ElemTy};
use texpr_ir::diag::{Diagnostic, count};
use texpr_ir::{self as ir, Ty};

impl Checker {
    /// Checks the operands of one elementwise operation: typed operands
    /// first, then flexible ones (unsuffixed integer literals) with their
    /// element type; then unifies element types and lengths.
    #[inline(never)]
    pub(crate) fn operands(
        &mut self,
        args: &[&ast::Expr],
        hint: Option<ElemTy>,
    ) -> CResult<Vec<ir::Expr>> {
        let flex: Vec<bool> = args.iter().map(|a| is_flexible(a)).collect();
        let mut out: Vec<CResult<ir::Expr>> = vec![Err(Reported); args.len()];
        for (i, a) in args.iter().enumerate().filter(|(i, _)| !flex[*i]) {
            out[i] = self.value(a, None);
        }
        let source = pick_source(args, &out);
        let elem = source.map(|i| out[i].as_ref().map_or(ElemTy::I32, |x| x.ty.elem));
        let elem = elem.or(hint).unwrap_or(ElemTy::I32);
        for (i, a) in args.iter().enumerate().filter(|(i, _)| flex[*i]) {
            out[i] = self.value(a, Some(elem));
        }
        // A float literal beside an `f16` operand is an `f16`.
        if elem == ElemTy::F16 {
            for (i, a) in args
                .iter()
                .enumerate()
                .filter(|(i, a)| !flex[*i] && is_plain_float_literal(a))
            {
                out[i] = self.value(a, Some(elem));
            }
        }
        let out: Vec<ir::Expr> = out.into_iter().collect::<CResult<_>>()?;
        self.unify_elems(args, &out, source)?;
        self.broadcast_all(out)
    }

    /// Reports operands whose element type differs from the source operand's.
    fn unify_elems(
        &mut self,
        args: &[&ast::Expr],
        out: &[ir::Expr],
        source: Option<usize>,
    ) -> CResult<()> {
        let Some(s) = source else { return Ok(()) };
        let elem = out[s].ty.elem;
        let mut failed = false;
        for (i, x) in out.iter().enumerate().filter(|(_, x)| x.ty.elem != elem) {
            failed = true;
            let d = if is_float_literal(args[i]) && elem.is_int() {
                Diagnostic::error(
                    codes::FLOAT_IN_INT,
                    format!("float literal where {} is expected", elem.name()),
                )
                .with_primary(x.span, format!("expected {}", elem.name()))
                .with_secondary(out[s].span, format!("this is {}", elem.name()))
                .with_note("write an integer literal, or convert the other operand with `f32(...)`")
            } else {
                mismatch(x, &out[s])
            };
            self.diags.push(d);
        }
        if failed { Err(Reported) } else { Ok(()) }
    }

    /// Broadcasts length-1 operands to the common length; reports other mismatches.
    pub(crate) fn broadcast_all(&mut self, out: Vec<ir::Expr>) -> CResult<Vec<ir::Expr>> {
        let Some(longest) = out.iter().max_by_key(|x| x.ty.len) else {
            return Ok(out);
        };
        let (len, long_span) = (longest.ty.len, longest.span);
        let mut failed = false;
        for x in out.iter().filter(|x| x.ty.len != 1 && x.ty.len != len) {
            failed = true;
            let d = Diagnostic::error(
                codes::LEN_MISMATCH,
                format!("length mismatch: {} and {len}", x.ty.len),
            )
            .with_primary(x.span, format!("this has {}", count(x.ty.len, "element")))
            .with_secondary(long_span, format!("this has {}", count(len, "element")))
            .with_note(
                "elementwise operands have equal lengths, or one has length 1 and is broadcast",
            );
            self.diags.push(d);
        }
        if failed {
            return Err(Reported);
        }
        Ok(out.into_iter().map(|x| broadcast(x, len)).collect())
    }
}

/// The operand whose element type the others must match: the first that is
/// not a literal, else the first typed one; `None` when all are flexible.
fn pick_source(args: &[&ast::Expr], out: &[CResult<ir::Expr>]) -> Option<usize> {
    let typed = |i: &usize| out[*i].is_ok() && !is_flexible(args[*i]);
    let all: Vec<usize> = (0..args.len()).filter(typed).collect();
    let non_lit = all.iter().copied().find(|&i| !is_typed_literal(args[i]));
    non_lit.or(all.first().copied())
}

/// `x` repeated to `len` elements when it has one and `len > 1`.
pub(crate) fn broadcast(x: ir::Expr, len: u64) -> ir::Expr {
    if x.ty.len == len {
        return x;
    }
    let (ty, span) = (Ty::new(x.ty.elem, len), x.span);
    ir::Expr {
        kind: ir::ExprKind::Broadcast(Box::new(x)),
        ty,
        span,
    }
}

fn mismatch(x: &ir::Expr, source: &ir::Expr) -> Diagnostic {
    let (found, want) = (x.ty.elem.name(), source.ty.elem.name());
    Diagnostic::error(
        codes::ELEM_MISMATCH,
        format!("element types differ: {want} and {found}"),
    )
    .with_primary(x.span, format!("this is {found}"))
    .with_secondary(source.span, format!("this is {want}"))
    .with_note(format!("convert one side, e.g. `{want}(...)`"))
}
