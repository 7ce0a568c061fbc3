//! Shared staging of a tile's operands (`shared=KB`): the reduction runs as
//! `K/KB` blocks (`kb`) of `KB` steps (`kk`); for each block, each operand's
//! `TI*RI x KB` (or `KB x TJ*RJ`) block for the whole workgroup is a
//! `let@shared` filled by all invocations together between barriers, laid
//! out with consecutive elements along the operand's unit-stride index (so
//! neighbouring invocations fill neighbouring addresses), and the register
//! tiles read it. E0212 when `KB` does not divide the reduction, E0216 when
//! the blocks need more workgroup memory than the device has.

use super::super::fail::Fail;
use super::super::grid::{compute_at, fits_shared};
use super::blocks::Blocks;
use crate::index::subst::subst_expr;
use texpr_syntax::ast::Level;
use texpr_syntax::ir::build::read_local;
use texpr_syntax::ir::term::{add, div, linear, mul, rem, var};
use texpr_syntax::ir::{Expr, Program, Term, VarId, VarKind};
use texpr_target::Target;

/// The reduction split into blocks of `kb` steps: `kb_var` counts the
/// blocks, `kk` the steps within one.
#[derive(Debug)]
pub struct Staged {
    pub kb: u64,
    pub kb_var: VarId,
    pub kk: VarId,
}

/// The blocks of `KB` steps of a `K`-step reduction over `loads` (the
/// operand reads along `i` and along `j`).
pub fn blocks(
    p: &mut Program,
    b: &Blocks,
    (k_n, kb): (u64, u64),
    [loads_i, loads_j]: [&Vec<Expr>; 2],
    target: &Target,
) -> Result<Staged, Fail> {
    if !k_n.is_multiple_of(kb) {
        return Err(Fail::sizes(format!(
            "{k_n} reduction steps do not divide into blocks of {kb}"
        )));
    }
    let bytes = (loads_i.len() as u64 * b.ti * b.ri + loads_j.len() as u64 * b.tj * b.rj) * kb * 4;
    fits_shared(bytes, target)?;
    let kb_var = b.fresh(p, "kb", k_n / kb);
    let kk = b.fresh(p, "kk", kb);
    Ok(Staged { kb, kb_var, kk })
}

impl Staged {
    /// `kb*KB + kk`: the reduction step.
    pub fn step(&self) -> Term {
        self.at(var(self.kk))
    }

    /// `kb*KB + step`.
    fn at(&self, step: Term) -> Term {
        linear(var(self.kb_var), self.kb, step)
    }

    /// Stages operand read `ld` (of `dim` and `k`, along `i` or `j`) for the
    /// workgroup's block of `KB` steps: the `let@shared` holding the block,
    /// and the read of element `rr` of an invocation's register tile from
    /// it at step `kk`.
    pub fn stage(
        &self,
        p: &mut Program,
        b: &Blocks,
        ld: &Expr,
        (along_i, [dim, k]): (bool, [VarId; 2]),
        rr: VarId,
    ) -> ((VarId, Expr), Expr) {
        let kb = self.kb;
        let (block, width) = match along_i {
            true => (b.ti * b.ri, b.ri),
            false => (b.tj * b.rj, b.rj),
        };
        let span = ld.span;
        let len = block * kb;
        let x = p.fresh_var("x", VarKind::Index { extent: len }, span);
        // Along i the workgroup's rows and an invocation's lane are `/`,
        // along j `%` (see `Blocks`).
        let pick = |t: Term, c: u64| match along_i {
            true => div(t, c),
            false => rem(t, c),
        };
        let lane = add(mul(pick(var(b.l), b.tj), width), var(rr));
        let (dim_t, k_t, read_ix) = match along_i {
            // [row][step]: row = x / KB, step = x % KB.
            true => (
                b.block_at(true, div(var(x), kb)),
                self.at(rem(var(x), kb)),
                add(mul(lane, kb), var(self.kk)),
            ),
            // [step][column]: step = x / block, column = x % block.
            false => (
                b.block_at(false, rem(var(x), block)),
                self.at(div(var(x), block)),
                add(mul(var(self.kk), block), lane),
            ),
        };
        let e = subst_expr(p, ld, dim, &dim_t);
        let e = subst_expr(p, &e, k, &k_t);
        let value = compute_at(Level::Thread, len, x, e.with_thread_levels());
        let v = p.fresh_var("stage", VarKind::Vector(value.ty), span);
        let read = read_local(v, read_ix, ld.ty.elem).at(span);
        ((v, value), read)
    }
}
