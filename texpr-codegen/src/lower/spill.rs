//! Arrays past the per-invocation memory budget: a `let@reg` array that
//! would take function memory over the device's budget lives in a scratch
//! buffer instead, one slot per invocation, element `e` of invocation `inv`
//! at `e * invocations + inv` (neighbouring invocations' elements
//! adjacent).

use super::{Ix, Loc, Lower, R};
use crate::kir::{BinOp as K, LoopStep, V};
use texpr_ir::{Expr, VarId};

impl Lower<'_> {
    /// Whether the array `value` must leave function memory (and can).
    pub fn must_spill(&self, value: &Expr) -> bool {
        let total = value.ty.len.saturating_mul(self.spilling.invocations);
        self.accounts.live_private.saturating_add(value.ty.len) > self.unroll.budget.private
            && total <= i32::MAX as u64
    }

    /// Fills `let@reg var = value` into its scratch buffer.
    pub fn spilled(&mut self, var: VarId, value: &Expr) -> R<Loc> {
        let id = self.spill_buffer(var, value);
        let mem = self.buffer(id);
        let inv = self.invocation_id();
        let (zero, end) = (self.b.i32(0), self.b.i32(value.ty.len as i32));
        let e = self
            .b
            .open_loop("e", (zero, end, LoopStep::Up(1)), true, value.ty.len);
        let v = self.elem(value, Ix::Val(e))?;
        let at = self.arith(
            K::Mul,
            Ix::Val(e),
            Ix::Const(self.spilling.invocations as i64),
        );
        let at = self.arith(K::Add, at, Ix::Val(inv));
        let at = self.ix(at);
        self.b.store(mem, at, v);
        self.b.close();
        Ok(Loc::Spilled(mem))
    }

    /// The scratch buffer of `let@reg var = value`: one slot of
    /// `value`'s length per invocation.
    fn spill_buffer(&mut self, var: VarId, value: &Expr) -> crate::plan::BufferId {
        if let Some(id) = self.spilling.spill_of.get(&var) {
            return *id;
        }
        let plan = crate::plan::BufferPlan {
            name: format!("{}_{}_spill", self.item, self.p.var(var).name),
            role: crate::plan::BufferRole::Scratch,
            elem: value.ty.elem,
            len: value.ty.len * self.spilling.invocations,
            init: Vec::new(),
        };
        let id =
            crate::plan::BufferId(self.spilling.first_spill + self.spilling.spills.len() as u32);
        self.spilling.spills.push((plan, value.span));
        self.spilling.spill_of.insert(var, id);
        id
    }

    /// Element `ix` of a spilled array: `ix * invocations + inv`.
    pub fn spill_index(&mut self, ix: Ix) -> Ix {
        let inv = self.invocation_id();
        let at = self.arith(K::Mul, ix, Ix::Const(self.spilling.invocations as i64));
        self.arith(K::Add, at, Ix::Val(inv))
    }

    /// This invocation's linear id, defined after the local id on first use.
    fn invocation_id(&mut self) -> V {
        if let Some(v) = self.spilling.inv {
            return v;
        }
        let (g, l) = (self.spilling.g.expect("the group id"), self.local());
        let w = self
            .b
            .i32(self.group.group_size.min(i32::MAX as u64) as i32);
        let gw = crate::kir::Op::Binary(K::Mul, g, w);
        let at = self.spilling.inv_at.expect("the place after the local id");
        let gw = self.b.value_at(at, gw, crate::kir::Ty::I32, "t");
        let inv = self.b.value_at(
            at,
            crate::kir::Op::Binary(K::Add, gw, l),
            crate::kir::Ty::I32,
            "inv",
        );
        self.spilling.inv = Some(inv);
        inv
    }
}
