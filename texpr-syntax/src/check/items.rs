//! Top-level items: params (with `-D` overrides), inputs, global `let`s and outputs.

use super::levels::LevelCtx;
use super::scope::{LocalKind, TopKind};
use super::{CResult, Checker, codes};
use crate::ast::{self, File, Ident, Item, ItemKind, Loads, MemLevel, TyAnn};
use texpr_ir::Diagnostic;
use texpr_ir::Span;
use texpr_ir::{self as ir, Ty};

impl Checker {
    /// Reports `-D` overrides of names that are not params.
    pub(crate) fn check_overrides(&mut self, file: &File, overrides: &[(String, i64)]) {
        let params: Vec<&str> = file
            .items
            .iter()
            .filter_map(|i| match &i.kind {
                ItemKind::Param { name, .. } => Some(name.name.as_str()),
                _ => None,
            })
            .collect();
        for (name, _) in overrides
            .iter()
            .filter(|(n, _)| !params.contains(&n.as_str()))
        {
            let note = match params.is_empty() {
                true => "the program declares no params".to_string(),
                false => format!("declared params: {}", params.join(", ")),
            };
            let d = Diagnostic::error(
                codes::UNKNOWN_OVERRIDE,
                format!("`-D {name}` overrides no param"),
            )
            .with_note(format!("`{name}` is not declared with `param`"))
            .with_note(note);
            self.diags.push(d);
        }
    }

    /// Reports a program without outputs.
    pub(crate) fn require_outputs(&mut self, file: &File) {
        if file.items.iter().any(|i| {
            matches!(
                i.kind,
                ItemKind::Output { .. } | ItemKind::Iterate { output: true, .. }
            )
        }) {
            return;
        }
        let mut d = Diagnostic::error(codes::NO_OUTPUTS, "the program has no outputs")
            .with_note("declare at least one: `output y = ...`");
        if let Some(last) = file.items.last() {
            d = d.with_primary(last.span, "the last item; no `output` anywhere");
        }
        self.diags.push(d);
    }

    pub(crate) fn item(&mut self, item: &Item, overrides: &[(String, i64)]) {
        self.levels = LevelCtx::default();
        self.depth = 0;
        match &item.kind {
            ItemKind::Param { name, value } => self.param(name, value, overrides),
            ItemKind::Input { name, ty } => self.input(name, ty),
            ItemKind::Let {
                name,
                level,
                loads,
                ty,
                value,
            } => self.global(item.span, name, (*level, *loads), ty.as_ref(), value),
            ItemKind::Output {
                name,
                loads,
                ty,
                value,
            } => self.output(item.span, name, *loads, ty.as_ref(), value),
            ItemKind::Iterate {
                output,
                names,
                ty,
                iter,
            } => self.iterate_item(item.span, *output, names, ty.as_ref(), iter),
        }
    }

    fn param(&mut self, name: &Ident, value: &ast::Term, overrides: &[(String, i64)]) {
        let given = overrides.iter().rev().find(|(n, _)| *n == name.name);
        let v = match given {
            Some(&(_, v)) if i32::try_from(v).is_err() => Err(self.err(
                Diagnostic::error(
                    codes::INT_OVERFLOW,
                    format!("`-D {}={v}` does not fit in an i32", name.name),
                )
                .with_primary(name.span, "this param")
                .with_note("params are 32-bit integers"),
            )),
            Some(&(_, v)) => Ok(v),
            None => self.term_root(|c| c.const_term(value)),
        };
        if let Ok(v) = v {
            self.params.push((name.name.clone(), v));
        }
        self.bind_top(name, v.map_or(TopKind::Poisoned, TopKind::Param));
    }

    fn input(&mut self, name: &Ident, ty_ann: &TyAnn) {
        let kind = match self.ty_ann(ty_ann) {
            Ok(ty) => {
                let span = name.span;
                self.inputs.push(ir::Input {
                    name: name.name.clone(),
                    ty,
                    span,
                    scalar: ty_ann.scalar,
                });
                TopKind::Input(self.inputs.len() as u32 - 1)
            }
            Err(_) => TopKind::Poisoned,
        };
        self.bind_top(name, kind);
    }

    /// A `let` item: a global, at the top level or in a loop's block (a
    /// global of that loop, its name local to the block).
    pub(crate) fn global(
        &mut self,
        span: Span,
        name: &Ident,
        (level, loads): crate::parse::build::Placement,
        ty: Option<&TyAnn>,
        value: &ast::Expr,
    ) {
        if let Some((lvl, lspan)) = level.filter(|l| l.0 != MemLevel::Global) {
            self.diags.push(
                Diagnostic::error(
                    codes::TOP_LET_LEVEL,
                    format!("top-level `let@{}`", lvl.name()),
                )
                .with_primary(lspan, "a top-level `let` is a global buffer")
                .with_note("write `let@global` or no level"),
            );
        }
        let g = match self.annotated_value(ty, value) {
            Ok(value) => {
                let level = level.map(|_| MemLevel::Global);
                if self.within.is_some() && self.globals.iter().any(|g| g.name == name.name) {
                    // Another block's `let` of the same name: renamed at the end.
                    self.made_globals.push(self.globals.len());
                }
                self.globals.push(ir::Global {
                    name: name.name.clone(),
                    level,
                    value,
                    span,
                    within: self.within,
                    loads: loads.map_or(Loads::default(), |l| l.0),
                });
                Some(self.globals.len() as u32 - 1)
            }
            Err(_) => None,
        };
        match self.within {
            None => self.bind_top(name, g.map_or(TopKind::Poisoned, TopKind::Global)),
            Some(_) => {
                self.push_block_name(name, g.map_or(LocalKind::Poisoned, LocalKind::Global));
                self.block_names += 1;
            }
        }
    }

    fn output(
        &mut self,
        span: Span,
        name: &Ident,
        loads: Option<(Loads, Span)>,
        ty: Option<&TyAnn>,
        value: &ast::Expr,
    ) {
        if let Ok(value) = self.annotated_value(ty, value) {
            self.outputs.push(ir::Output {
                name: name.name.clone(),
                value,
                span,
                loads: loads.map_or(Loads::default(), |l| l.0),
            });
        }
        self.bind_top(name, TopKind::Output);
    }

    /// A value whose written type, if any, gives unsuffixed literals their
    /// type and must equal the value's type.
    fn annotated_value(&mut self, ann: Option<&TyAnn>, value: &ast::Expr) -> CResult<ir::Expr> {
        let want = ann.map(|a| self.ty_ann(a));
        let x = self.value(value, ann.map(|a| a.elem))?;
        let (Some(want), Some(ann)) = (want, ann) else {
            return Ok(x);
        };
        let want = want?;
        if x.ty != want {
            return Err(self.err(
                Diagnostic::error(
                    codes::ANNOTATION_MISMATCH,
                    "the value's type differs from the written type",
                )
                .with_primary(value.span, format!("this is {}", show_ty(x.ty)))
                .with_secondary(ann.span, format!("expected {}", show_ty(want))),
            ));
        }
        Ok(x)
    }

    pub(crate) fn ty_ann(&mut self, ty: &TyAnn) -> CResult<Ty> {
        let len = self.size(&ty.len)?;
        if ty.elem == ast::ElemTy::Bool {
            return Err(self.err(
                Diagnostic::error(codes::BOOL_VALUE, "`bool` cannot be stored")
                    .with_primary(ty.elem_span, "not storable"),
            ));
        }
        Ok(Ty::new(ty.elem, len))
    }
}

/// `f32[1024]`
pub(crate) fn show_ty(ty: Ty) -> String {
    format!("{}[{}]", ty.elem.name(), ty.len)
}
