//! The verifier's rules for loops and their states (the module doc of
//! [`super::verify`] lists them): what an item may read of a loop's globals
//! and states, and each loop's and state's own invariants [E0154].

use super::codes;
use super::verify::Verifier;
use crate::span::Span;
use crate::{Ty, VarKind, VecRef};

impl Verifier<'_> {
    /// The loop of the item being verified.
    pub(super) fn reader_loop(&self) -> Option<crate::LoopId> {
        self.global.and_then(|g| self.p.globals[g].within)
    }

    /// Whether the item being verified may read global `j` (one within a
    /// loop only from within that loop).
    pub(super) fn global_in_scope(&self, j: usize) -> bool {
        match self.p.globals[j].within {
            None => true,
            Some(l) => self.valid_loop(l) && self.p.loop_within(self.reader_loop(), l),
        }
    }

    /// Whether the item being verified may read state `s`: within its loop,
    /// or after it.
    pub(super) fn state_in_scope(&self, s: usize) -> bool {
        let Some(state) = self.p.states.get(s) else {
            return false;
        };
        if !self.valid_loop(state.of) {
            return false;
        }
        if self.p.loop_within(self.reader_loop(), state.of) {
            return true;
        }
        let body = self.p.loop_body(state.of);
        self.global.is_none_or(|g| g >= body.end)
    }

    pub(super) fn valid_loop(&self, l: crate::LoopId) -> bool {
        (l as usize) < self.p.loops.len()
    }

    /// The loops' and states' invariants (module doc).
    pub(super) fn loops(&mut self) {
        let p = self.p;
        for (l, lp) in p.loops.iter().enumerate() {
            let span = lp.span;
            if lp.within.is_some_and(|w| w as usize >= l) {
                self.fail(
                    codes::IR_LOOP,
                    span,
                    format!("loop {l} within a later loop"),
                );
            }
            let extent = lp.count.max(1);
            let ok =
                p.vars.get(lp.var.0 as usize).map(|v| v.kind) == Some(VarKind::Index { extent });
            if !ok || lp.count > i32::MAX as u64 {
                self.fail(
                    codes::IR_LOOP,
                    span,
                    format!("loop {l}'s step is not an index over 0..{extent}"),
                );
            }
            let body = p.loop_body(l as u32);
            let inside = p
                .globals
                .iter()
                .filter(|g| p.loop_within(g.within, l as u32))
                .count();
            if body.is_empty() || body.len() != inside {
                self.fail(
                    codes::IR_LOOP,
                    span,
                    format!("loop {l}'s globals are not one run"),
                );
            }
        }
        if p.globals
            .iter()
            .any(|g| g.within.is_some_and(|l| !self.valid_loop(l)))
        {
            self.fail(
                codes::IR_LOOP,
                Span::DUMMY,
                "a global within no loop".into(),
            );
        }
        let mut nexts = std::collections::BTreeSet::new();
        for (k, st) in p.states.iter().enumerate() {
            let span = st.span;
            if !self.valid_loop(st.of) {
                self.fail(
                    codes::IR_LOOP,
                    span,
                    format!("state `{}` of no loop", st.name),
                );
                continue;
            }
            let body = p.loop_body(st.of);
            let init_ok = match st.init {
                VecRef::Input(i) => (i as usize) < p.inputs.len(),
                VecRef::Global(g) => {
                    (g as usize) < body.start && !p.loop_within(p.globals[g as usize].within, st.of)
                }
                _ => false,
            };
            let next_ok = match st.next {
                VecRef::Global(g) => {
                    (g as usize) < p.globals.len()
                        && p.globals[g as usize].within == Some(st.of)
                        && nexts.insert(g)
                }
                _ => false,
            };
            let next_ty = self.vec_ty(st.next);
            let tys_ok = self.vec_ty(st.init) == Some(st.ty)
                && match &st.at {
                    None => next_ty == Some(st.ty),
                    Some(at) => {
                        let var = p.loops.get(st.of as usize).map(|l| l.var);
                        let inside = |t: Ty| {
                            crate::term::range(p, at).is_some_and(|(lo, hi)| {
                                lo >= 0 && hi as i128 + t.len as i128 <= st.ty.len as i128
                            })
                        };
                        next_ty.is_some_and(|t| t.elem == st.ty.elem && inside(t))
                            && at.vars().iter().all(|v| Some(*v) == var)
                    }
                };
            if !(init_ok && next_ok && tys_ok) {
                self.fail(
                    codes::IR_LOOP,
                    span,
                    format!(
                        "state {k} `{}`: init {:?} or next {:?} out of place",
                        st.name, st.init, st.next
                    ),
                );
            }
        }
    }
}
