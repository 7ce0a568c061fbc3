//! `reduce@group W` as a tree in workgroup memory: each invocation stores
//! its own elements, a barrier, then halving strides `s`, invocation `l <
//! s` combining `l + s` into `l`, a barrier after each. Starts from the
//! invocations' own elements, never from an identity.

use super::{Ix, Lower, R};
use crate::kir::{BinOp as K, Builtin, Fun, Init, LoopStep, Mem, SgOp, Ty, V};
use texpr_ir::Expr;
use texpr_ir::ReduceOp;
use texpr_ir::Span;

impl Lower<'_> {
    /// The tree of `reduce@group W |l| body`: a workgroup array whose first
    /// `m` elements hold the result (the tree ends with a barrier).
    pub fn tree_into(&mut self, op: ReduceOp, body: &Expr, w: u64, span: Span) -> R<Mem> {
        let m = body.ty.len as i64;
        let red = self.shared_array("red", body.ty.elem, w * m as u64, span);
        let store: &super::spine::Sink<'_> = &|cx, at, v| {
            let at = cx.ix(at);
            cx.b.store(red, at, v);
            Ok(())
        };
        super::spine::own_elements(self, body, store, 1, None)?;
        self.b.barrier()?;
        let top = w.next_power_of_two() as i64 / 2;
        let (start, zero) = (self.b.i32(top as i32), self.b.i32(0));
        let trips = u64::from(top.max(1).ilog2()) + 1;
        let s = self
            .b
            .open_loop("s", (start, zero, LoopStep::Halve), true, trips);
        let l = self.local();
        let partner = self.b.binary(K::Add, l, s);
        let below = self.b.binary(K::Lt, l, s);
        let wv = self.b.i32(w as i32);
        let inside = self.b.binary(K::Lt, partner, wv);
        let both = self.b.binary(K::And, below, inside);
        self.b.open_if(both, false);
        let j = match m {
            1 => Ix::Const(0),
            _ => {
                let end = self.b.i32(m as i32);
                Ix::Val(
                    self.b
                        .open_loop("j", (zero, end, LoopStep::Up(1)), false, m as u64),
                )
            }
        };
        let slot = |cx: &mut Self, lane, j| match (m, j) {
            (1, Ix::Const(0)) => lane,
            _ => {
                let base = cx.arith(K::Mul, Ix::Val(lane), Ix::Const(m));
                let at = cx.arith(K::Add, base, j);
                cx.ix(at)
            }
        };
        let (a, b) = (slot(self, l, j), slot(self, partner, j));
        let x = self.b.load(red, a);
        let y = self.b.load(red, b);
        let c = self.combine(op, x, y);
        self.b.store(red, a, c);
        if m != 1 {
            self.b.close();
        }
        self.b.close();
        self.b.barrier()?;
        self.b.close();
        Ok(red)
    }
}

impl Lower<'_> {
    /// `reduce@subgroup W |l| body` (length `m`) into workgroup memory:
    /// each of an invocation's elements combined across its subgroup in uniform control flow, lane 0 writing
    /// the subgroup's partials to `part[s*m + j]`, a barrier, then
    /// invocation `l` folding elements `l, l+W, ...` over the partials in
    /// subgroup order into `part[j]`, and a barrier. The subgroup count is
    /// the larger of `num_subgroups` and `ceil(W / subgroup_size)`
    /// (lavapipe reports the first rounded down).
    /// With `out`, each folded element goes to `out` instead (no barrier).
    pub fn subgroup_into(
        &mut self,
        op: ReduceOp,
        body: &Expr,
        (w, span): (u64, Span),
        out: Option<&super::spine::Sink<'_>>,
    ) -> R<Mem> {
        let m = body.ty.len as i64;
        let part = self.shared_array("part", body.ty.elem, w * m as u64, span);
        let sgid = self.b.builtin(Builtin::SubgroupId);
        let sg = self.b.convert(Ty::I32, sgid);
        let combine: &super::spine::Sink<'_> = &|cx, at, v| {
            let r = match op {
                ReduceOp::Add => cx.b.subgroup(SgOp::Add, vec![v])?,
                ReduceOp::Mul => cx.b.subgroup(SgOp::Mul, vec![v])?,
                ReduceOp::Max => cx.b.subgroup(SgOp::Max, vec![v])?,
                ReduceOp::Min => cx.b.subgroup(SgOp::Min, vec![v])?,
                ReduceOp::Lse => cx.subgroup_lse(v)?,
            };
            // `at` is `l*m + j`: the slot is `sg*m + j`.
            let slot = match m {
                1 => sg,
                _ => {
                    let l = cx.local();
                    let d = cx.b.binary(K::Sub, sg, l);
                    let d = cx.arith(K::Mul, Ix::Val(d), Ix::Const(m));
                    let s = cx.arith(K::Add, at, d);
                    cx.ix(s)
                }
            };
            let lane = cx.b.builtin(Builtin::SubgroupInvocationId);
            let zero = cx.b.u32(0);
            let first = cx.b.binary(K::Eq, lane, zero);
            cx.b.open_if(first, false);
            cx.b.store(part, slot, r);
            cx.b.close();
            Ok(())
        };
        super::spine::own_elements(self, body, combine, 5, None)?;
        self.b.barrier()?;
        let nsg = self.b.builtin(Builtin::NumSubgroups);
        let sgs = self.b.builtin(Builtin::SubgroupSize);
        let wu = self.b.u32(w as u32);
        let one = self.b.u32(1);
        let up = self.b.binary(K::Add, wu, sgs);
        let up = self.b.binary(K::Sub, up, one);
        let ceil = self.b.binary(K::Div, up, sgs);
        let count = self.b.call(Fun::Max, vec![nsg, ceil]);
        let count = self.b.convert(Ty::I32, count);
        let (l, end) = (self.local(), self.b.i32(m as i32));
        let j = self.b.open_loop(
            "e",
            (l, end, LoopStep::Up(w as i32)),
            false,
            (m as u64).div_ceil(w),
        );
        let first = self.b.load(part, j);
        let acc = self
            .b
            .var("acc", super::ty(body.ty.elem), None, Init::Value(first));
        let start = self.b.i32(1);
        let s = self
            .b
            .open_loop("s", (start, count, LoopStep::Up(1)), false, w);
        let at = self.arith(K::Mul, Ix::Val(s), Ix::Const(m));
        let at = self.arith(K::Add, at, Ix::Val(j));
        let at = self.ix(at);
        let y = self.b.load(part, at);
        let cur = self.b.read_var(acc);
        let next = self.combine(op, cur, y);
        self.b.assign(acc, None, next);
        self.b.close();
        let total = self.b.read_var(acc);
        match out {
            Some(out) => out(self, Ix::Val(j), total)?,
            None => self.b.store(part, j, total),
        }
        self.b.close();
        if out.is_none() {
            self.b.barrier()?;
        }
        Ok(part)
    }

    /// The `lse` of `v` over a subgroup: its max `M`, then
    /// `M + log(subgroupAdd(exp(v - M)))`, 1 for the lanes holding `M`.
    fn subgroup_lse(&mut self, v: V) -> R<V> {
        let mx = self.b.subgroup(SgOp::Max, vec![v])?;
        let d = self.b.binary(K::Sub, v, mx);
        let e = self.b.call(Fun::Exp, vec![d]);
        let one = self.b.f32(1.0);
        let same = self.b.binary(K::Eq, v, mx);
        let t = self.b.select(same, one, e);
        let sum = self.b.subgroup(SgOp::Add, vec![t])?;
        let l = self.b.call(Fun::Log, vec![sum]);
        Ok(self.b.binary(K::Add, mx, l))
    }
}
