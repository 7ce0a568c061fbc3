//! Pass `expand_stats`: a variance or standard deviation becomes two passes over its data.
//!
//! `var_rows %x` (and `_cols`, and of all) is the population variance, the
//! mean of the squared deviations from the mean, as numpy's `var` computes
//! it (`ddof=0`): `%m = mean_rows %x`, `%d = sub %x, %m`, `%s = map square,
//! %d`, `%v = mean_rows %s`. `std` is `map sqrt` of that. Two passes (the
//! mean first) keep the deviations small, where one pass (`E[x^2] -
//! E[x]^2`) would cancel catastrophically. The last op keeps the
//! register's name, so readers and `ret` are unchanged.
//!
//! Expects: a verified program. Guarantees: no `var` or `std` reduction is
//! left; every other op is unchanged.

use super::env::{Env, STATS_EXPANDED};
use super::rewrite::Rewriter;
use crate::air::{Agg, Inst, Op, Program, UnaryFn};

pub fn expand_stats(p: &Program, env: &mut Env) -> Program {
    let (out, n) = expand(p);
    env.add(STATS_EXPANDED, n);
    out
}

/// The program with every `var` and `std` expanded, and how many there were.
pub fn expand(p: &Program) -> (Program, i64) {
    let mut rw = Rewriter::new(p);
    let mut n = 0;
    for r in p.regs() {
        let inst = p.inst(r);
        let Op::Reduce(agg @ (Agg::Var | Agg::Std), axis, x) = inst.op else {
            rw.copy(p, r);
            continue;
        };
        n += 1;
        let x = rw.get(x);
        let emit = |rw: &mut Rewriter, op: Op, ty, last: bool| {
            let name = if last {
                inst.name.clone()
            } else {
                rw.fresh_name()
            };
            rw.emit(Inst {
                name,
                op,
                ty,
                span: inst.span,
            })
        };
        let xt = rw.ty(x);
        let m = emit(&mut rw, Op::Reduce(Agg::Mean, axis, x), inst.ty, false);
        let d = emit(&mut rw, Op::Binary(crate::air::BinOp::Sub, x, m), xt, false);
        let s = emit(&mut rw, Op::Map(UnaryFn::Square, d), xt, false);
        let v = emit(
            &mut rw,
            Op::Reduce(Agg::Mean, axis, s),
            inst.ty,
            agg == Agg::Var,
        );
        let last = if agg == Agg::Std {
            emit(&mut rw, Op::Map(UnaryFn::Sqrt, v), inst.ty, true)
        } else {
            v
        };
        rw.set(r, last);
    }
    (rw.finish(p.ret), n)
}
