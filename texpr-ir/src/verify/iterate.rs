//! The verifier's rule for a loop inside an expression (`ExprKind::Iterate`):
//! initial values outside the loop, then the next values with the step and
//! the scalar states in scope, sequential in one invocation.

use super::Verifier;
use crate::basic::Level;
use crate::span::Span;
use crate::{Expr, Term, VarId, VarKind};

impl Verifier<'_> {
    /// An `iterate` in an expression: its initial values outside the loop,
    /// then its next values with the step (ranging below `steps` where
    /// given) and the states in scope, all sequential in one invocation.
    pub(super) fn iterate(
        &mut self,
        (n, var, steps): (u64, VarId, Option<&Term>),
        states: &[VarId],
        parts: &[Expr],
        span: Span,
    ) {
        let (inits, nexts) = parts.split_at(states.len().min(parts.len()));
        inits.iter().for_each(|x| self.expr(x));
        self.enter_steps(var, steps);
        let (inner, err) = self.levels.enter(Some(Level::Thread), span, true);
        self.diags.extend(err);
        self.bind_index(var, n.max(1), span);
        for (s, init) in states.iter().zip(inits) {
            let ty = init.ty;
            self.bind(
                *s,
                span,
                |k| k == VarKind::Vector(ty),
                "a vector of the initial value's type",
            );
        }
        let saved = std::mem::replace(&mut self.levels, inner);
        nexts.iter().for_each(|x| self.expr(x));
        self.levels = saved;
        for _ in states.iter().zip(inits) {
            self.scope.pop();
        }
        self.scope.pop();
        self.uppers.remove(&var);
    }
}
