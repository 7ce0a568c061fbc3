//! Pass `fuse_epilogue`: an elementwise op reading a matmul becomes that matmul's epilogue.
//!
//! An elementwise op whose whole operand is a matmul without epilogue, read
//! only by it, of the same type, becomes `matmul %a, %b epilogue ... { ... }`
//! with `$acc` for the product; its other operands (whole or broadcast) are
//! the epilogue's operands. Expects: a verified program (best after
//! `fuse_elementwise`). Guarantees: no single-use plain matmul feeds an
//! elementwise op of its type; the absorbed matmul is removed.

use super::dce::dce;
use super::env::{Env, FUSED_EPILOGUES};
use super::fuse_elementwise::{as_fused, operand_index};
use super::rewrite::Rewriter;
use crate::air::{Bcast, EExpr, Fused, Inst, Op, Program, Reg};

/// The matmul operand `r` can absorb, with `r`'s body.
fn candidate(p: &Program, uses: &[usize], r: Reg) -> Option<(Reg, Fused)> {
    let f = as_fused(p, r)?;
    let mm = f.operands.iter().map(|o| o.reg).find(|&x| {
        matches!(p.inst(x).op, Op::Matmul { epilogue: None, .. })
            && uses[x.index()] == 1
            && p.ty(x) == p.ty(r)
    })?;
    let whole = f
        .operands
        .iter()
        .all(|o| o.reg != mm || o.bcast == Bcast::Full);
    whole.then_some((mm, f))
}

/// `r`'s body with the matmul operand as `$acc` and the rest renumbered.
fn epilogue(f: &Fused, mm: Reg) -> Fused {
    let mut operands = Vec::new();
    let leaves: Vec<EExpr> = f
        .operands
        .iter()
        .map(|o| {
            if o.reg == mm {
                EExpr::Acc
            } else {
                EExpr::Arg(operand_index(&mut operands, *o))
            }
        })
        .collect();
    let body = f.body.subst(&|e| match e {
        EExpr::Arg(i) => leaves[*i as usize].clone(),
        other => other.clone(),
    });
    Fused { operands, body }
}

pub fn fuse_epilogue(p: &Program, env: &mut Env) -> Program {
    let uses = p.use_counts();
    let mut rw = Rewriter::new(p);
    let mut fused = 0;
    for r in p.regs() {
        let Some((mm, f)) = candidate(p, &uses, r) else {
            rw.copy(p, r);
            continue;
        };
        let Op::Matmul { a, b, .. } = p.inst(mm).op else {
            unreachable!("candidate is a matmul")
        };
        let mut op = Op::Matmul {
            a,
            b,
            epilogue: Some(epilogue(&f, mm)),
        };
        op.map_args(|x| rw.get(x));
        let new = rw.emit(Inst {
            op,
            ..p.inst(r).clone()
        });
        rw.set(r, new);
        fused += 1;
    }
    env.add(FUSED_EPILOGUES, fused);
    dce(&rw.finish(p.ret), env)
}
