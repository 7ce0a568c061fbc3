//! Loops: `iterate T from INITS |STATES[, t]| BODY` and the `let`s of its block.
//!
//! A loop becomes an [`ir::Loop`], one [`ir::State`] per name, and globals
//! `within` it (the block's `let`s, plus one per result that is not already
//! such a `let`). A state's initial value is an input or a global read
//! directly, else a global computed before the loop; its next value is a
//! global of the loop, the one the block names in `yield` when that is a
//! `let` of the block that no other state takes, else one computing the
//! result. Names the checker makes up (`u_init`, `u_next`, a second block's
//! `b`) get their final spelling in [`Checker::name_made_globals`], once
//! every name of the program is known.

use super::items::show_ty;
use super::scope::{LocalKind, TopKind};
use super::{CResult, Checker, codes};
use crate::ast::{self, ElemTy, Ident, IterBody, Iterate, TyAnn};
use std::collections::BTreeSet;
use texpr_ir::Span;
use texpr_ir::diag::{Diagnostic, count};
use texpr_ir::{self as ir, Ty, VarKind, VecRef};

/// What a loop's names stand for after it.
enum After {
    Top,
    Block,
    Output,
}

/// E0138: `found` of `what` (initial values, binders or results, at `at`)
/// for an `iterate` of `n` states, which `states` (a span and a label) shows.
pub(super) fn arity_diag(
    n: usize,
    (what, found, at): (&str, usize, Span),
    states: (Span, String),
) -> Diagnostic {
    let want = match what {
        "binder" => format!("{n} or {} binders (the states, then the step)", n + 1),
        _ => count(n as u64, what),
    };
    Diagnostic::error(
        codes::ITER_ARITY,
        format!(
            "{} for {}",
            count(found as u64, what),
            count(n as u64, "state")
        ),
    )
    .with_primary(at, format!("{} here", count(found as u64, what)))
    .with_secondary(states.0, states.1)
    .with_note(format!(
        "an `iterate` of {} takes {want}",
        count(n as u64, "state")
    ))
}

impl Checker {
    /// An `iterate` item, at the top level (`output` or `let`) or in a block.
    pub(crate) fn iterate_item(
        &mut self,
        span: Span,
        output: bool,
        names: &[Ident],
        ty: Option<&TyAnn>,
        it: &Iterate,
    ) {
        let after = match (output, self.within) {
            (true, _) => After::Output,
            (false, None) => After::Top,
            (false, Some(_)) => After::Block,
        };
        let states = self.iterate(names, ty, it, output);
        for (k, name) in names.iter().enumerate() {
            let state = states.as_ref().ok().map(|s| s[k]);
            match (&after, state) {
                (After::Output, Some(s)) => {
                    self.outputs.push(ir::Output {
                        name: name.name.clone(),
                        value: whole(VecRef::State(s), self.states[s as usize].ty, name.span),
                        span,
                        loads: Default::default(),
                    });
                    self.bind_top(name, TopKind::Output);
                }
                (After::Output, None) => self.bind_top(name, TopKind::Output),
                (After::Top, s) => self.bind_top(name, s.map_or(TopKind::Poisoned, TopKind::State)),
                (After::Block, s) => {
                    let kind = s.map_or(LocalKind::Poisoned, LocalKind::State);
                    self.push_block_name(name, kind);
                    self.block_names += 1;
                }
            }
        }
    }

    /// Checks a loop; its states, in `names` order.
    fn iterate(
        &mut self,
        names: &[Ident],
        ty: Option<&TyAnn>,
        it: &Iterate,
        output: bool,
    ) -> CResult<Vec<u32>> {
        let count = self.iter_count(&it.count);
        let arity = self.iter_arity(names, it);
        let want = ty.map(|a| self.ty_ann(a));
        let hint = ty.map(|a| a.elem);
        let inits: Vec<CResult<(VecRef, Ty)>> = (it.inits.iter().zip(names))
            .map(|(e, name)| self.init(e, name, hint))
            .collect();
        let (count, ()) = (count?, arity?);
        let inits: Vec<(VecRef, Ty)> = inits.into_iter().collect::<CResult<_>>()?;
        if let (Some(want), Some(a)) = (want, ty) {
            let want = want?;
            if inits[0].1 != want {
                return Err(self.err(
                    Diagnostic::error(
                        codes::STATE_TYPE,
                        "the initial value's type differs from the written type",
                    )
                    .with_primary(it.inits[0].span, format!("this is {}", show_ty(inits[0].1)))
                    .with_secondary(a.span, format!("expected {}", show_ty(want))),
                ));
            }
        }
        let l = self.loops.len() as ir::LoopId;
        let step = self.step_var(it, names.len(), count);
        self.loops.push(ir::Loop {
            count,
            var: step,
            within: self.within,
            span: it.span,
            group: None,
        });
        let first = self.states.len() as u32;
        for (name, &(init, ty)) in names.iter().zip(&inits) {
            let made = output || self.within.is_some();
            let state_name = match output {
                true => format!("{}_state", name.name),
                false => name.name.clone(),
            };
            self.states.push(ir::State {
                name: state_name,
                ty,
                of: l,
                init,
                next: init,
                at: None,
                span: name.span,
            });
            if made {
                self.made_states.push(self.states.len() - 1);
            }
        }
        let states: Vec<u32> = (first..first + names.len() as u32).collect();
        self.loop_body(l, (it, names), &states, step)?;
        Ok(states)
    }

    /// The step count: a constant of at least 0.
    pub(super) fn iter_count(&mut self, t: &ast::Term) -> CResult<u64> {
        let v = self.term_root(|c| c.const_term(t))?;
        if v < 0 {
            return Err(self.err(
                Diagnostic::error(codes::ITER_COUNT, format!("an `iterate` of {v} steps"))
                    .with_primary(t.span, format!("this count is {v}"))
                    .with_note("a loop runs 0 or more steps"),
            ));
        }
        Ok(v as u64)
    }

    /// E0138 unless there is one initial value and one result per name, and
    /// a binder per name (then optionally the step's).
    fn iter_arity(&mut self, names: &[Ident], it: &Iterate) -> CResult<()> {
        let n = names.len();
        let names_span = names[0].span.to(names[n - 1].span);
        let check = |c: &mut Checker, what: &str, found: usize, ok: bool, at: Span| {
            if ok {
                return Ok(());
            }
            let named = (
                names_span,
                format!("{} named here", count(n as u64, "state")),
            );
            Err(c.err(arity_diag(n, (what, found, at), named)))
        };
        let inits_span = it.inits[0].span.to(it.inits[it.inits.len() - 1].span);
        let binders = it.binders.len();
        let binders_span = it.binders[0].span.to(it.binders[binders - 1].span);
        let results = match &it.body {
            IterBody::Results(es) => (es.len(), es[0].span.to(es[es.len() - 1].span)),
            IterBody::Block {
                results,
                yield_span,
                ..
            } => (results.len(), *yield_span),
        };
        let a = check(
            self,
            "initial value",
            it.inits.len(),
            it.inits.len() == n,
            inits_span,
        );
        let b = check(
            self,
            "binder",
            binders,
            binders == n || binders == n + 1,
            binders_span,
        );
        let c = check(self, "result", results.0, results.0 == n, results.1);
        a.and(b).and(c)
    }

    /// A state's initial value: an input or a global read whole as it is,
    /// anything else computed into a global of its own before the loop.
    fn init(&mut self, e: &ast::Expr, name: &Ident, hint: Option<ElemTy>) -> CResult<(VecRef, Ty)> {
        let x = self.value(e, hint)?;
        let ty = x.ty;
        match x.kind {
            ir::ExprKind::Whole(v @ (VecRef::Input(_) | VecRef::Global(_))) => Ok((v, ty)),
            _ => Ok((self.made_global(&name.name, "init", x), ty)),
        }
    }

    /// The step's variable: the binder after the states', else an unnamed one.
    fn step_var(&mut self, it: &Iterate, states: usize, count: u64) -> ir::VarId {
        let extent = count.max(1);
        let id = ir::VarId(self.vars.len() as u32);
        let (name, span) = match it.binders.get(states) {
            Some(b) => (b.name.clone(), b.span),
            None => ("_".to_string(), it.span),
        };
        self.vars.push(ir::VarInfo {
            name,
            kind: VarKind::Index { extent },
            span,
        });
        id
    }

    /// The block (or expression) of loop `l`, each result made a state's next value.
    fn loop_body(
        &mut self,
        l: ir::LoopId,
        (it, names): (&Iterate, &[Ident]),
        states: &[u32],
        step: ir::VarId,
    ) -> CResult<()> {
        let outer = self.within.replace(l);
        let outer_names = std::mem::take(&mut self.block_names);
        let mut pushed = 0;
        for (k, b) in it.binders.iter().enumerate() {
            match states.get(k) {
                // A state may be called inside as its result is outside.
                Some(&s) if names.get(k).is_some_and(|n| n.name == b.name) => {
                    self.push_local_unchecked(b, LocalKind::State(s))
                }
                Some(&s) => self.push_block_name(b, LocalKind::State(s)),
                None => self.push_step(b, step),
            }
            pushed += 1;
        }
        let results: Vec<&ast::Expr> = match &it.body {
            IterBody::Results(es) => es.iter().collect(),
            IterBody::Block { items, results, .. } => {
                for item in items {
                    self.item_in_block(item);
                }
                results.iter().collect()
            }
        };
        let mut taken = BTreeSet::new();
        let mut ok = Ok(());
        for ((&s, e), binder) in states.iter().zip(results).zip(&it.binders) {
            match self.next_value(l, (s, binder), e, &mut taken) {
                Ok((next, at)) => {
                    self.states[s as usize].next = next;
                    self.states[s as usize].at = at;
                }
                Err(r) => ok = Err(r),
            }
        }
        for _ in 0..pushed + self.block_names {
            self.pop_local();
        }
        self.block_names = outer_names;
        self.within = outer;
        ok
    }

    /// Binds the step's variable.
    fn push_step(&mut self, b: &Ident, step: ir::VarId) {
        self.push_block_name(b, LocalKind::Index(step));
    }

    /// An item of a block: a `let` (a global of the loop) or an inner loop.
    fn item_in_block(&mut self, item: &ast::Item) {
        self.levels = Default::default();
        self.depth = 0;
        match &item.kind {
            ast::ItemKind::Let {
                name,
                level,
                loads,
                ty,
                value,
            } => self.global(item.span, name, (*level, *loads), ty.as_ref(), value),
            ast::ItemKind::Iterate {
                output,
                names,
                ty,
                iter,
            } => self.iterate_item(item.span, *output, names, ty.as_ref(), iter),
            // The grammar puts nothing else in a block.
            ast::ItemKind::Param { .. }
            | ast::ItemKind::Input { .. }
            | ast::ItemKind::Output { .. } => {}
        }
    }

    /// State `s`'s next value: a `let` of this loop's block named by the
    /// result and taken by no other state, or a global made for it; with
    /// the first element it replaces when it is an update in place.
    fn next_value(
        &mut self,
        l: ir::LoopId,
        (s, binder): (u32, &Ident),
        e: &ast::Expr,
        taken: &mut BTreeSet<u32>,
    ) -> CResult<(VecRef, Option<ir::Term>)> {
        let want = self.states[s as usize].ty;
        let (x, at) = match &e.kind {
            ast::ExprKind::With { state, at, value } => {
                let (x, at) = self.update((s, binder), e, (state, at, value))?;
                (x, Some(at))
            }
            _ => (self.value(e, Some(want.elem))?, None),
        };
        if at.is_none() && x.ty != want {
            let name = self.states[s as usize].name.clone();
            let decl = self.states[s as usize].span;
            return Err(self.err(
                Diagnostic::error(
                    codes::STATE_TYPE,
                    format!("the next value of `{name}` differs from its type"),
                )
                .with_primary(e.span, format!("this is {}", show_ty(x.ty)))
                .with_secondary(decl, format!("`{name}` is {}", show_ty(want)))
                .with_note("a state keeps its initial value's type at every step"),
            ));
        }
        if let ir::ExprKind::Whole(VecRef::Global(g)) = x.kind
            && self.globals[g as usize].within == Some(l)
            && taken.insert(g)
        {
            return Ok((VecRef::Global(g), at));
        }
        let name = self.states[s as usize].name.clone();
        let v = self.made_global(&name, "next", x);
        if let VecRef::Global(g) = v {
            taken.insert(g);
        }
        Ok((v, at))
    }

    /// A global the checker makes (a state's initial or next value), in
    /// the current loop; named `{base}_{what}` for now.
    fn made_global(&mut self, base: &str, what: &str, value: ir::Expr) -> VecRef {
        let span = value.span;
        self.globals.push(ir::Global {
            name: format!("{base}_{what}"),
            level: None,
            value,
            span,
            within: self.within,
            loads: Default::default(),
        });
        let g = self.globals.len() - 1;
        self.made_globals.push(g);
        VecRef::Global(g as u32)
    }

    /// Gives the globals and states the checker named (and the block `let`s
    /// whose names another block already used) names no other name of the
    /// program has: `base`, else `base_1`, `base_2`, ...
    pub(crate) fn name_made_globals(&mut self) {
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let made_g: BTreeSet<usize> = self.made_globals.iter().copied().collect();
        let made_s: BTreeSet<usize> = self.made_states.iter().copied().collect();
        taken.extend(self.params.iter().map(|(n, _)| n.clone()));
        taken.extend(self.inputs.iter().map(|i| i.name.clone()));
        taken.extend(self.outputs.iter().map(|o| o.name.clone()));
        taken.extend(self.vars.iter().map(|v| v.name.clone()));
        taken.extend(self.scopes_top_names());
        let kept_g = self
            .globals
            .iter()
            .enumerate()
            .filter(|(g, _)| !made_g.contains(g));
        taken.extend(kept_g.map(|(_, g)| g.name.clone()));
        let kept_s = self
            .states
            .iter()
            .enumerate()
            .filter(|(s, _)| !made_s.contains(s));
        taken.extend(kept_s.map(|(_, s)| s.name.clone()));
        let mut fresh = |base: &str| {
            let mut name = base.to_string();
            let mut k = 1;
            while taken.contains(&name) {
                name = format!("{base}_{k}");
                k += 1;
            }
            taken.insert(name.clone());
            name
        };
        for &g in &self.made_globals {
            self.globals[g].name = fresh(&self.globals[g].name);
        }
        for &s in &self.made_states {
            self.states[s].name = fresh(&self.states[s].name);
        }
    }
}

fn whole(v: VecRef, ty: Ty, span: Span) -> ir::Expr {
    ir::Expr {
        kind: ir::ExprKind::Whole(v),
        ty,
        span,
    }
}
