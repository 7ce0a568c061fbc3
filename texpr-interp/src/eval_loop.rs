//! `iterate` inside an expression: a loop over scalar states, evaluated
//! step by step with the states bound as scalar locals.

use crate::error::{EvalError, malformed};
use crate::eval::{Interp, Slot};
use crate::shadow::{El, Shadow};
use texpr_ir::{Expr, VarId};

impl<'a, S: Shadow> Interp<'a, S> {
    /// `iterate` in an expression: the states from their initial values,
    /// then `n` steps each computing every next value before any state
    /// takes its own; the first state's final value.
    pub(crate) fn iterate(
        &mut self,
        n: u64,
        var: VarId,
        states: &[VarId],
        parts: &'a [Expr],
    ) -> Result<El<S>, EvalError> {
        let (inits, nexts) = parts.split_at(states.len());
        let mut vals = Vec::with_capacity(states.len());
        for x in inits {
            vals.push(self.scalar(x)?);
        }
        let saved: Vec<Slot<'a, S>> = (states.iter())
            .map(|s| self.bind_value(*s, Slot::Empty))
            .collect::<Result<_, _>>()?;
        let mut next = Vec::with_capacity(states.len());
        for t in 0..n {
            self.set_idx(var, t)?;
            for (s, v) in states.iter().zip(&vals) {
                self.bind_value(*s, Slot::Scalar(*v))?;
            }
            next.clear();
            for x in nexts {
                next.push(self.scalar(x)?);
            }
            std::mem::swap(&mut vals, &mut next);
        }
        for (s, old) in states.iter().zip(saved) {
            self.bind_value(*s, old)?;
        }
        match vals.first() {
            Some(v) => Ok(*v),
            None => malformed("an `iterate` without states"),
        }
    }

    /// Puts `slot` in `var`'s place; returns what it held.
    pub(crate) fn bind_value(
        &mut self,
        var: VarId,
        slot: Slot<'a, S>,
    ) -> Result<Slot<'a, S>, EvalError> {
        match self.locals.get_mut(var.0 as usize) {
            Some(s) => Ok(std::mem::replace(s, slot)),
            None => malformed(format!("variable {} does not exist", var.0)),
        }
    }
}
