//! A loop inside an expression: `iterate T from INITS |STATES[, t]| RESULTS`
//! standing anywhere but whole as an item's value. It runs in one invocation
//! over scalar states; its count may depend on enclosing index variables (as
//! a `reduce`'s may); its value is the first state's final value.

use super::expr::node;
use super::{CResult, Checker, Reported, codes};
use crate::ast::{self, ElemTy, IterBody, Iterate, Level};
use texpr_ir::Span;
use texpr_ir::diag::{Diagnostic, count};
use texpr_ir::{self as ir, Ty};

impl Checker {
    pub(crate) fn iterate_expr(
        &mut self,
        span: Span,
        it: &Iterate,
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let results = match &it.body {
            IterBody::Results(es) => es,
            IterBody::Block { yield_span, .. } => {
                return Err(self.err(
                    Diagnostic::error(
                        codes::ITER_EXPR_BLOCK,
                        "a block body in an `iterate` inside an expression",
                    )
                    .with_primary(
                        *yield_span,
                        "a loop inside an expression yields expressions",
                    )
                    .with_note(
                        "write the block's `let`s inside the results (`let x = ... in ...`), \
                         or make the loop an item of its own",
                    ),
                ));
            }
        };
        self.iter_expr_arity(it, results)?;
        let (n, steps) = self.iter_expr_count(&it.count)?;
        let k = it.inits.len();
        // The value is the first state's: the context's type is its hint.
        let inits: Vec<CResult<ir::Expr>> = (it.inits.iter().enumerate())
            .map(|(k, e)| self.scalar_state(e, hint.filter(|_| k == 0)))
            .collect();
        let inits = inits.into_iter().collect::<CResult<Vec<_>>>()?;
        // The steps run in order within one invocation: a sequential level.
        let (inner, err) = self.levels.enter(Some(Level::Thread), it.span, true);
        self.report(err);
        let step = self.iter_expr_step(it, k, n);
        if let Some(t) = &steps {
            let upper = ir::term::sub(t.clone(), ir::term::constant(1));
            self.uppers.insert(step, upper);
        }
        let states: Vec<Option<ir::VarId>> = (it.binders[..k].iter())
            .zip(&inits)
            .map(|(b, x)| self.push_named_vector(b, Some(x.ty), "a loop's state"))
            .collect();
        let saved = std::mem::replace(&mut self.levels, inner);
        let nexts: Vec<CResult<ir::Expr>> = (results.iter().zip(&inits))
            .map(|(e, x)| self.iter_expr_next(e, x))
            .collect();
        self.levels = saved;
        for _ in 0..k + usize::from(it.binders.len() > k) {
            self.pop_local();
        }
        self.uppers.remove(&step);
        let nexts = nexts.into_iter().collect::<CResult<Vec<_>>>()?;
        let states = states
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or(Reported)?;
        let ty = inits[0].ty;
        let mut parts = inits;
        parts.extend(nexts);
        let kind = ir::ExprKind::Iterate {
            n,
            var: step,
            steps,
            states,
            parts,
        };
        Ok(node(kind, ty, span))
    }

    /// E0138 unless there is one result per initial value, and a binder
    /// per state (then optionally the step's).
    fn iter_expr_arity(&mut self, it: &Iterate, results: &[ast::Expr]) -> CResult<()> {
        let k = it.inits.len();
        let span_of = |es: &[ast::Expr]| es[0].span.to(es[es.len() - 1].span);
        let b = it.binders.len();
        let (what, found, at) = if results.len() != k {
            ("result", results.len(), span_of(results))
        } else if b != k && b != k + 1 {
            let at = it.binders[0].span.to(it.binders[b - 1].span);
            ("binder", b, at)
        } else {
            return Ok(());
        };
        let states = (span_of(&it.inits), count(k as u64, "initial value"));
        Err(self.err(super::iterate::arity_diag(k, (what, found, at), states)))
    }

    /// The count: a size of at least 0, or a term over enclosing index
    /// variables running `max(count, 0)` steps (`Some`), with its largest value.
    fn iter_expr_count(&mut self, t: &ast::Term) -> CResult<(u64, Option<ir::Term>)> {
        if self.term_has_index_var(t) {
            let term = self.term_root(|c| c.index_term(t))?;
            let (_, hi) = self.term_range(&term)?;
            return Ok((hi.max(0) as u64, Some(term)));
        }
        Ok((self.iter_count(t)?, None))
    }

    /// A state's initial value: a scalar (E0145 otherwise).
    fn scalar_state(&mut self, e: &ast::Expr, hint: Option<ElemTy>) -> CResult<ir::Expr> {
        let x = self.value(e, hint)?;
        if x.ty.len != 1 {
            return Err(self.err(
                Diagnostic::error(
                    codes::ITER_EXPR_STATE,
                    "a state of an `iterate` inside an expression is not a scalar",
                )
                .with_primary(e.span, format!("this has {}", count(x.ty.len, "element")))
                .with_note(
                    "a loop inside an expression keeps scalars in one invocation; \
                     iterate per element inside a `compute`, or make the loop an item",
                ),
            ));
        }
        Ok(x)
    }

    /// The step's index variable: the binder after the states' (in scope
    /// for the results), else an unnamed one.
    fn iter_expr_step(&mut self, it: &Iterate, k: usize, n: u64) -> ir::VarId {
        match it.binders.get(k) {
            Some(b) => self.push_index(b, n.max(1)),
            None => {
                let id = ir::VarId(self.vars.len() as u32);
                self.vars.push(ir::VarInfo {
                    name: "_".to_string(),
                    kind: ir::VarKind::Index { extent: n.max(1) },
                    span: it.span,
                });
                id
            }
        }
    }

    /// A state's next value, of its initial value's type (E0139).
    fn iter_expr_next(&mut self, e: &ast::Expr, init: &ir::Expr) -> CResult<ir::Expr> {
        let x = self.value(e, Some(init.ty.elem))?;
        if x.ty != init.ty {
            let show = |t: Ty| match t.len {
                1 => t.elem.name().to_string(),
                n => format!("{}[{n}]", t.elem.name()),
            };
            return Err(self.err(
                Diagnostic::error(
                    codes::STATE_TYPE,
                    "a state's next value differs from its initial value's type",
                )
                .with_primary(e.span, format!("this is {}", show(x.ty)))
                .with_secondary(init.span, format!("the state starts as {}", show(init.ty))),
            ));
        }
        Ok(x)
    }
}
