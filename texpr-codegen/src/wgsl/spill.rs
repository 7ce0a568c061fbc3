//! `let@reg` arrays past the per-invocation memory budget, kept in a global
//! scratch buffer instead of function memory.
//!
//! When an array would take a kernel's function memory past
//! [`texpr_target::DeviceLimits::max_private_elements`], its elements go to a
//! scratch buffer of the kernel (a [`BufferRole::Scratch`] buffer of the
//! plan, named `{kernel}_{let}_spill`): element `e` of invocation `inv` at
//! `e * I + inv`, where `I` is the kernel's number of invocations (its padded
//! dispatch times the workgroup size) and `inv = group * W + l` with the
//! unclamped group id, so every invocation has slots of its own and
//! neighbouring invocations touch neighbouring words. A `let` emitted again
//! (in a loop, or an unrolled copy) reuses its buffer: one invocation's uses
//! follow one another. A buffer whose indices would pass `i32` is not made:
//! the array stays in function memory (and meets E0318).

use super::ctx::{Ctx, Ix, Loc};
use super::lit;
use crate::plan::{BufferId, BufferPlan, BufferRole};
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Expr, VarId};

impl Ctx<'_> {
    /// Whether the array `value` must leave function memory (and can).
    pub(super) fn must_spill(&self, value: &Expr) -> bool {
        let total = value.ty.len.saturating_mul(self.invocations);
        self.live_private.saturating_add(value.ty.len) > self.budget.private
            && total <= i32::MAX as u64
    }

    /// Fills `let@reg var = value` into its scratch buffer (one slot per
    /// invocation, see the module docs).
    pub(super) fn spilled(&mut self, var: VarId, value: &Expr) -> Result<Loc, Diagnostic> {
        let id = match self.spill_of.get(&var) {
            Some(id) => *id,
            None => {
                let name = format!("{}_{}_spill", self.item, self.p.var(var).name);
                let plan = BufferPlan {
                    name,
                    role: BufferRole::Scratch,
                    elem: value.ty.elem,
                    len: value.ty.len * self.invocations,
                    init: Vec::new(),
                };
                let id = BufferId(self.first_spill + self.spills.len() as u32);
                self.spills.push((plan, value.span));
                self.spill_of.insert(var, id);
                id
            }
        };
        let buf = self.buffer(id);
        let inv = self.invocation_id();
        let stride = lit::i32_lit(self.invocations as i32);
        let e = self.open_loop("e", &Ix::Const(0), value.ty.len as i64, 1, true);
        let v = self.elem(value, &Ix::Name(e.clone()))?;
        self.w.line(format!("{buf}[{e} * {stride} + {inv}] = {v};"));
        self.w.close();
        Ok(Loc::Spilled(buf))
    }

    /// The name of this invocation's linear id, defined at the top of the
    /// entry point on first use.
    pub(super) fn invocation_id(&mut self) -> String {
        if !self.inv_written
            && let Some(at) = self.inv_at
        {
            let line = format!("let inv: i32 = {};", self.inv_expr);
            self.w.insert_at(at, line);
            self.inv_written = true;
        }
        "inv".into()
    }
}
