//! Pass `explicit_broadcast`: every implicit broadcast of an elementwise operand becomes a `broadcast` op.
//!
//! Expects: a verified program. Guarantees: every operand of every binary
//! op (`add`, `maximum`, `lt`, ...) and of every `select` has the op's type
//! (a column and a row of an outer broadcast both become `broadcast` ops).

use super::env::{BROADCASTS_INSERTED, Env};
use super::rewrite::Rewriter;
use crate::air::{Inst, Op, Program, Reg};

pub fn explicit_broadcast(p: &Program, env: &mut Env) -> Program {
    let mut rw = Rewriter::new(p);
    let mut inserted = 0;
    for r in p.regs() {
        let inst = p.inst(r);
        if !matches!(inst.op, Op::Binary(..) | Op::Select(..)) {
            rw.copy(p, r);
            continue;
        }
        let mut widen = |x: Reg, rw: &mut Rewriter| {
            let nx = rw.get(x);
            if rw.ty(nx) == inst.ty {
                return nx;
            }
            inserted += 1;
            let name = rw.fresh_name();
            rw.emit(Inst {
                name,
                op: Op::Broadcast(nx),
                ty: inst.ty,
                span: inst.span,
            })
        };
        // Each operand widened once, in order (`add %a, %a` reads one broadcast).
        let mut done: Vec<(Reg, Reg)> = Vec::new();
        let mut op = inst.op.clone();
        for x in inst.op.args() {
            if done.iter().all(|(old, _)| *old != x) {
                let nx = widen(x, &mut rw);
                done.push((x, nx));
            }
        }
        op.map_args(|x| done.iter().find(|(old, _)| *old == x).expect("widened").1);
        let new = rw.emit(Inst { op, ..inst.clone() });
        rw.set(r, new);
    }
    env.add(BROADCASTS_INSERTED, inserted);
    rw.finish(p.ret)
}
