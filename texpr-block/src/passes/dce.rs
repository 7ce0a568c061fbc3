//! Pass `dce`: removes every op the returned value does not depend on (inputs stay: they are the interface).
//!
//! Expects: a verified program. Guarantees: every non-input op is reachable
//! backwards from `ret`.

use super::env::{DCE_REMOVED, Env};
use super::rewrite::Rewriter;
use crate::air::{Op, Program};

pub fn dce(p: &Program, env: &mut Env) -> Program {
    let mut live = vec![false; p.insts.len()];
    live[p.ret.index()] = true;
    for r in p.regs().rev() {
        if live[r.index()] {
            for a in p.inst(r).op.args() {
                live[a.index()] = true;
            }
        }
    }
    let mut rw = Rewriter::new(p);
    let mut removed = 0;
    for r in p.regs() {
        if live[r.index()] || matches!(p.inst(r).op, Op::Input) {
            rw.copy(p, r);
        } else {
            removed += 1;
        }
    }
    env.add(DCE_REMOVED, removed);
    rw.finish(p.ret)
}
