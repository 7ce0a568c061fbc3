//! Pass `explicit_broadcast`: every implicit broadcast of an elementwise operand becomes a `broadcast` op.
//!
//! Expects: a verified program. Guarantees: both operands of every `add`,
//! `sub`, `mul` and `div` have the op's type.

use super::env::{BROADCASTS_INSERTED, Env};
use super::rewrite::Rewriter;
use crate::air::{Inst, Op, Program, Reg};

pub fn explicit_broadcast(p: &Program, env: &mut Env) -> Program {
    let mut rw = Rewriter::new(p);
    let mut inserted = 0;
    for r in p.regs() {
        let inst = p.inst(r);
        let Op::Binary(op, a, b) = inst.op else {
            rw.copy(p, r);
            continue;
        };
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
        let (na, nb) = (widen(a, &mut rw), widen(b, &mut rw));
        let new = rw.emit(Inst {
            op: Op::Binary(op, na, nb),
            ..inst.clone()
        });
        rw.set(r, new);
    }
    env.add(BROADCASTS_INSERTED, inserted);
    rw.finish(p.ret)
}
