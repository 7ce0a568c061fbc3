//! Trying strategies on one item at a time without copying the program: a
//! [`Trial`] is the program with every item root replaced by a stub of its
//! type (what applying a strategy to one item reads besides that item is
//! names, types and variables), so a try costs the item, not the program.

use super::apply::{Verdict, apply_strategy};
use super::data::Strategy;
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::ElemTy;
use texpr_syntax::ir::{Expr, ExprKind, Global, Item, Output, Program, Scalar};
use texpr_target::Target;

/// `p` with stubbed item roots, each item put back while it is tried.
#[derive(Debug)]
pub struct Trial<'p> {
    p: &'p Program,
    q: Program,
}

impl<'p> Trial<'p> {
    pub fn new(p: &'p Program) -> Trial<'p> {
        let q = Program {
            params: p.params.clone(),
            inputs: p.inputs.clone(),
            globals: (p.globals.iter())
                .map(|g| Global {
                    name: g.name.clone(),
                    level: g.level,
                    value: stub(&g.value),
                    span: g.span,
                })
                .collect(),
            outputs: (p.outputs.iter())
                .map(|o| Output {
                    name: o.name.clone(),
                    value: stub(&o.value),
                    span: o.span,
                })
                .collect(),
            vars: p.vars.clone(),
            names: Default::default(),
        };
        Trial { p, q }
    }

    /// The program tried on (its items whole).
    pub fn program(&self) -> &'p Program {
        self.p
    }

    /// Whether `s` schedules `item` of the program: the strategy applies
    /// and code generation accepts the kernels it makes (see
    /// [`super::apply::fits`]).
    pub fn fits(
        &mut self,
        item: Item,
        s: &Strategy,
        target: &Target,
        verdict: Verdict<'_>,
    ) -> Result<(), Vec<Diagnostic>> {
        let globals = self.q.globals.len();
        let stub = std::mem::replace(item.root_mut(&mut self.q), item.root(self.p).clone());
        let verdict = apply_strategy(&mut self.q, item, s, target)
            .and_then(|written| verdict(&self.q, &written));
        if self.q.globals.len() != globals {
            // A global was added (items renumbered): start afresh.
            *self = Trial::new(self.p);
        } else {
            // The variables the try made stay (unused): dropping them would
            // make the next fresh name rebuild the name index.
            *item.root_mut(&mut self.q) = stub;
        }
        verdict
    }
}

/// A stand-in for an item root: a constant vector of its type.
fn stub(e: &Expr) -> Expr {
    let zero = match e.ty.elem {
        ElemTy::F32 => Scalar::F32(0.0),
        ElemTy::U32 => Scalar::U32(0),
        ElemTy::I32 | ElemTy::Bool => Scalar::I32(0),
    };
    Expr {
        kind: ExprKind::Fill(zero),
        ty: e.ty,
        span: e.span,
    }
}
