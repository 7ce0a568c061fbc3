//! Pass `fuse_elementwise`: chains of elementwise ops become one `fused` op with one block body.
//!
//! An elementwise op (a binary op, `select`, `scale`, `map`, `fused`)
//! absorbs each operand that is itself elementwise, of the same type and
//! read only by it, and each operand that is a `broadcast` (read through a
//! `.row`, `.col` or `.all` operand instead). An elementwise operand read
//! several times is absorbed too (recomputed in each reader) when every
//! reader is an elementwise op of its type, it is not returned, and its
//! body has at most [`RECOMPUTE_MAX_NODES`] nodes: then no reader needs it
//! stored, and a chain whose values branch and meet again (`%o` read by
//! `%lo` and by `%y`) is still one body per tile. Operands stay within
//! `fuse.max_operands`. Expects: a verified program. Guarantees: no
//! elementwise op reads a single-use elementwise op of its own type (unless
//! the operand limit prevented it); absorbed ops are removed.

use super::dce::dce;
use super::env::{Env, FUSE_MAX_OPERANDS, FUSED_ELEMENTWISE};
use super::rewrite::Rewriter;
use crate::air::typing::broadcast_mode;
use crate::air::{Bcast, EExpr, Fused, Op, Operand, Program, Reg};

/// The largest body (in nodes) an elementwise op read several times may
/// have to be recomputed in each of its readers (a small bound: bodies grow
/// at most by this much per absorbed read, never exponentially).
pub const RECOMPUTE_MAX_NODES: usize = 8;

/// An op's elementwise body over original registers, if it has one.
pub fn as_fused(p: &Program, r: Reg) -> Option<Fused> {
    let inst = p.inst(r);
    let operand = |x: Reg| Operand {
        reg: x,
        bcast: broadcast_mode(p.ty(x), inst.ty).unwrap_or(Bcast::Full),
    };
    let mut operands = Vec::new();
    let mut leaf = |x: Reg| EExpr::Arg(operand_index(&mut operands, operand(x)));
    let body = match &inst.op {
        Op::Binary(op, a, b) => {
            let (a, b) = (leaf(*a), leaf(*b));
            EExpr::bin(*op, a, b)
        }
        Op::Select(c, a, b) => {
            let (c, a, b) = (leaf(*c), leaf(*a), leaf(*b));
            EExpr::select(c, a, b)
        }
        Op::Scale(a, c) => EExpr::bin(crate::air::BinOp::Mul, leaf(*a), EExpr::Const(*c)),
        Op::Map(f, a) => EExpr::map(*f, leaf(*a)),
        Op::Fused(f) => return Some(f.clone()),
        _ => return None,
    };
    Some(Fused { operands, body })
}

/// Adds `o` to `ops` unless present; its index.
pub fn operand_index(ops: &mut Vec<Operand>, o: Operand) -> u32 {
    if let Some(i) = ops.iter().position(|x| *x == o) {
        return i as u32;
    }
    ops.push(o);
    ops.len() as u32 - 1
}

struct Fuser<'a> {
    p: &'a Program,
    uses: Vec<usize>,
    /// Whether every reader of the register is an elementwise op of its
    /// type (and it is not returned): it may be recomputed in each.
    only_elementwise_readers: Vec<bool>,
    /// The expanded body of every elementwise op, over original registers.
    expanded: Vec<Option<Fused>>,
    max_operands: usize,
}

impl Fuser<'_> {
    /// Whether `x`, read by `r`, can be inlined into `r`'s body.
    fn inlinable(&self, r: Reg, x: Reg) -> bool {
        let Some(body) = &self.expanded[x.index()] else {
            return false;
        };
        let recomputable =
            self.only_elementwise_readers[x.index()] && body.body.size() <= RECOMPUTE_MAX_NODES;
        self.p.ty(x) == self.p.ty(r) && (self.uses[x.index()] == 1 || recomputable)
    }

    /// `r`'s body with fusable operands inlined; `None` if nothing was.
    fn expand(&self, r: Reg) -> Option<Fused> {
        let base = as_fused(self.p, r)?;
        let mut operands = Vec::new();
        let mut changed = false;
        let mut leaves = Vec::new();
        for o in &base.operands {
            let (leaf, did) = self.absorb(r, *o, &mut operands);
            changed |= did;
            leaves.push(leaf);
        }
        let body = base.body.subst(&|e| match e {
            EExpr::Arg(i) => leaves[*i as usize].clone(),
            other => other.clone(),
        });
        (changed && operands.len() <= self.max_operands).then_some(Fused { operands, body })
    }

    /// The body leaf for operand `o` of `r`, and whether it absorbed an op.
    fn absorb(&self, r: Reg, o: Operand, operands: &mut Vec<Operand>) -> (EExpr, bool) {
        let x = o.reg;
        if o.bcast == Bcast::Full && self.inlinable(r, x) {
            let inner = self.expanded[x.index()].as_ref().expect("checked");
            let idx: Vec<u32> = inner
                .operands
                .iter()
                .map(|io| operand_index(operands, *io))
                .collect();
            let body = inner.body.subst(&|e| match e {
                EExpr::Arg(i) => EExpr::Arg(idx[*i as usize]),
                other => other.clone(),
            });
            return (body, true);
        }
        if let Op::Broadcast(src) = self.p.inst(x).op
            && let Ok(bcast) = broadcast_mode(self.p.ty(src), self.p.ty(r))
        {
            return (
                EExpr::Arg(operand_index(operands, Operand { reg: src, bcast })),
                true,
            );
        }
        (EExpr::Arg(operand_index(operands, o)), false)
    }
}

pub fn fuse_elementwise(p: &Program, env: &mut Env) -> Program {
    let mut only_elementwise_readers: Vec<bool> = p.regs().map(|x| x != p.ret).collect();
    for r in p.regs() {
        let elementwise = as_fused(p, r).is_some();
        for x in p.inst(r).op.args() {
            only_elementwise_readers[x.index()] &= elementwise && p.ty(r) == p.ty(x);
        }
    }
    let mut f = Fuser {
        p,
        uses: p.use_counts(),
        only_elementwise_readers,
        expanded: vec![None; p.insts.len()],
        max_operands: env.int_or(FUSE_MAX_OPERANDS, 7).max(1) as usize,
    };
    let mut rw = Rewriter::new(p);
    for r in p.regs() {
        let expanded = f.expand(r);
        if let Some(e) = &expanded {
            let mut op = Op::Fused(e.clone());
            op.map_args(|a| rw.get(a));
            let new = rw.emit(crate::air::Inst {
                op,
                ..p.inst(r).clone()
            });
            rw.set(r, new);
        } else {
            rw.copy(p, r);
        }
        f.expanded[r.index()] = expanded.or_else(|| as_fused(p, r));
    }
    let out = dce(&rw.finish(p.ret), env);
    env.add(FUSED_ELEMENTWISE, count_fused(&out) - count_fused(p));
    out
}

fn count_fused(p: &Program) -> i64 {
    p.insts
        .iter()
        .filter(|i| matches!(i.op, Op::Fused(_)))
        .count() as i64
}
