//! Reads: `v[t]` (bounds-checked or guarded) and names used as values.

use super::expr::node;
use super::scope::{LocalKind, Resolved, TopKind};
use super::terms::underscore_read;
use super::{CResult, Checker, Reported, codes};
use crate::ast::{self, ElemTy, Ident, Literal};
use texpr_ir::Span;
use texpr_ir::diag::{Diagnostic, count};
use texpr_ir::show_range;
use texpr_ir::{self as ir, Ty, VecRef};

impl Checker {
    #[inline(never)]
    pub(crate) fn index(
        &mut self,
        span: Span,
        vec: &Ident,
        index: &ast::Term,
        guard: Option<&Literal>,
    ) -> CResult<ir::Expr> {
        let target = self.vector(vec);
        let term = self.term_root(|c| c.index_term(index));
        let ((vref, ty), term) = (target?, term?);
        let (lo, hi) = self.term_range(&term)?;
        let guard = match guard {
            Some(g) => Some(self.scalar(g, ty.elem)?),
            None if lo < 0 || hi as u64 >= ty.len => {
                return Err(self.out_of_bounds(vec, &term, (lo, hi), ty.len));
            }
            None => None,
        };
        let kind = ir::ExprKind::Index {
            vec: vref,
            index: term,
            guard,
        };
        Ok(node(kind, Ty::scalar(ty.elem), span))
    }

    fn out_of_bounds(
        &mut self,
        vec: &Ident,
        term: &ir::Term,
        (lo, hi): (i64, i64),
        len: u64,
    ) -> Reported {
        let range = show_range((lo as i128, hi as i128));
        self.err(
            Diagnostic::error(
                codes::INDEX_OUT_OF_BOUNDS,
                format!("index may be out of bounds of `{}`", vec.name),
            )
            .with_primary(term.span, format!("this ranges over {range}"))
            .with_secondary(
                vec.span,
                format!("`{}` has {}", vec.name, count(len, "element")),
            )
            .with_note(format!(
                "index ranges over {range} but `{}` has {}",
                vec.name,
                count(len, "element")
            ))
            .with_note(format!(
                "to read a padding value out of bounds, write `{}[...] else 0`",
                vec.name
            )),
        )
    }

    /// Resolves a name that must be a vector.
    fn vector(&mut self, id: &Ident) -> CResult<(VecRef, Ty)> {
        if id.name == "_" {
            return Err(self.err(underscore_read(id.span)));
        }
        let not_vector = |what: &str, decl: Span| {
            Diagnostic::error(
                codes::NOT_A_VECTOR,
                format!("`{}` is {what}, not a vector", id.name),
            )
            .with_primary(id.span, "indexed here")
            .with_secondary(decl, "declared here")
            .with_note(format!(
                "{what} is an i32 scalar; use it as a value without `[...]`"
            ))
        };
        match self.lookup(&id.name) {
            Resolved::Local(LocalKind::Vector(v), _) => Ok((VecRef::Local(v), self.var_ty(v))),
            Resolved::Local(LocalKind::Global(i), _) => {
                Ok((VecRef::Global(i), self.globals[i as usize].value.ty))
            }
            Resolved::Local(LocalKind::State(i), _) | Resolved::Top(TopKind::State(i), _) => {
                Ok((VecRef::State(i), self.states[i as usize].ty))
            }
            Resolved::Local(LocalKind::Index(_), decl) => {
                Err(self.err(not_vector("an index variable", decl)))
            }
            Resolved::Top(TopKind::Param(_), decl) => Err(self.err(not_vector("a param", decl))),
            Resolved::Top(TopKind::Input(i), _) => {
                Ok((VecRef::Input(i), self.inputs[i as usize].ty))
            }
            Resolved::Top(TopKind::Global(i), _) => {
                Ok((VecRef::Global(i), self.globals[i as usize].value.ty))
            }
            Resolved::Top(TopKind::Output, decl) => Err(self.output_read(id, decl)),
            Resolved::Local(LocalKind::Poisoned, _) | Resolved::Top(TopKind::Poisoned, _) => {
                Err(Reported)
            }
            Resolved::Later(decl) => Err(self.unknown_name(id, Some(decl))),
            Resolved::Unknown => Err(self.unknown_name(id, None)),
        }
    }

    fn var_ty(&self, v: ir::VarId) -> Ty {
        match self.vars[v.0 as usize].kind {
            ir::VarKind::Vector(ty) => ty,
            ir::VarKind::Index { .. } => Ty::scalar(ElemTy::I32),
        }
    }

    fn output_read(&mut self, id: &Ident, decl: Span) -> Reported {
        self.err(
            Diagnostic::error(
                codes::OUTPUT_READ,
                format!("output `{}` cannot be read", id.name),
            )
            .with_primary(id.span, "read here")
            .with_secondary(decl, "declared as an output here")
            .with_note("compute the value in a top-level `let` and output that"),
        )
    }

    /// A name used as a value: a vector, an index variable or a param.
    #[inline(never)]
    pub(crate) fn name_value(&mut self, id: &Ident) -> CResult<ir::Expr> {
        let i32_1 = Ty::scalar(ElemTy::I32);
        if id.name == "_" {
            return Err(self.err(underscore_read(id.span)));
        }
        let kind = match self.lookup(&id.name) {
            Resolved::Local(LocalKind::Index(v), _) => ir::ExprKind::IndexVar(v),
            Resolved::Top(TopKind::Param(v), _) => ir::ExprKind::Const(ir::Scalar::I32(v as i32)),
            _ => {
                let (vref, ty) = self.vector(id)?;
                return Ok(node(ir::ExprKind::Whole(vref), ty, id.span));
            }
        };
        Ok(node(kind, i32_1, id.span))
    }
}
