//! Pass `cse`: merges an op with an equal earlier one; operands of commutative ops compare unordered.
//!
//! Uses the per-op metadata: `add %a, %b` and `add %b, %a` are one op because
//! `add` is commutative, `sub` operands keep their order. Expects: a verified
//! program. Guarantees: no two non-input ops compute the same value in the
//! same way; uses of a merged op read the earlier one.

use super::env::{CSE_MERGED, Env};
use super::rewrite::Rewriter;
use crate::air::{Op, Program};
use std::collections::BTreeMap;

pub fn cse(p: &Program, env: &mut Env) -> Program {
    let mut rw = Rewriter::new(p);
    let mut seen: BTreeMap<String, crate::air::Reg> = BTreeMap::new();
    let mut merged = 0;
    for r in p.regs() {
        let inst = p.inst(r);
        if matches!(inst.op, Op::Input) {
            rw.copy(p, r);
            continue;
        }
        let mut op = inst.op.clone();
        op.map_args(|a| rw.get(a));
        if let Op::Binary(b, x, y) = &mut op
            && b.meta().commutative
            && y < x
        {
            std::mem::swap(x, y);
        }
        let key = format!("{op:?} {}", inst.ty);
        if let Some(&earlier) = seen.get(&key) {
            rw.set(r, earlier);
            merged += 1;
            continue;
        }
        let new = rw.copy(p, r);
        seen.insert(key, new);
    }
    env.add(CSE_MERGED, merged);
    rw.finish(p.ret)
}
