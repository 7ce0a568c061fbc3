//! `tile group=TIxTJ reg=RIxRJ [shared=KB [pad=P] [vec4=on]]` on `compute M |i| compute N |j| S`
//! (or `compute B |p|` around it: the batch is the grid's top digit):
//! `compute@grid GI*GJ {k -> LAYOUT} |g| compute@group TI*TJ |l| TILE` where
//! each invocation computes an `RI x RJ` register tile.
//!
//! The parts, one file each:
//! - [`blocks`]: the block indexing — which rows and columns workgroup `g`
//!   and invocation `l` own, padding `M`, `N` to whole blocks (edge reads
//!   wrap with `% M`, `% N`);
//! - [`registers`]: when `S` holds one reduction, `TILE` accumulates the
//!   register tile over it, loading each operand read that depends on only
//!   one of `i`, `j` into a register tile per step;
//! - [`ksteps`]: with `kstep=KS`, the register tiles hold `KS` reduction
//!   steps per load, in `vec4`-readable runs along each operand's
//!   unit-stride index;
//! - [`staging`]: with `shared=KB`, the reduction runs in blocks of `KB`
//!   steps, each operand's block for the whole workgroup a `let@shared` the
//!   register tiles read (each operand element read from global memory once
//!   per workgroup), padded against bank conflicts (`pad=P`), filled with
//!   `vec4` loads (`vec4=on`);
//! - [`epilogue`]: the rest of `S` applied to every accumulator (or `S`
//!   itself per element, without a reduction), and the grid root with its
//!   layout: a digit permutation from the block order to row-major, padded
//!   when the blocks overhang.
//!
//! Every register loop is `@thread`; a staged tile folds in another order
//! than the source (blocks of `KB`), the others bit for bit.

pub(crate) mod blocks;
pub(crate) mod epilogue;
mod ksteps;
mod registers;
mod staging;

use super::data::Staging;
use super::fail::Fail;
use super::shape::{self, single_reduce};
use blocks::Blocks;
use texpr_ir::{Expr, Program};
use texpr_target::Target;

pub fn tile(
    p: &mut Program,
    root: &Expr,
    group: [u64; 2],
    reg: [u64; 2],
    shared_kstep: (Option<Staging>, Option<u64>, bool),
    target: &Target,
) -> Result<Expr, Fail> {
    let t = shape::tiled(root).ok_or_else(|| {
        Fail::shape("`tile` needs an item `compute M |i| compute N |j| S` (or `compute B |p|` around it) with a scalar `S` and no index maps")
    })?;
    let b = Blocks::new(p, root.span, &t, group, reg)?;
    let body = match (single_reduce(&b.s), shared_kstep) {
        (Some(_), (Some(_), Some(_), _)) => {
            return Err(Fail::shape(
                "`kstep` takes register tiles only (not with `shared`)",
            ));
        }
        (Some(reduce), (None, Some(ks), lanes)) => ksteps::accumulate(p, &b, reduce, ks, lanes)?,
        (Some(reduce), (shared, None, _)) => registers::accumulate(p, &b, reduce, shared, target)?,
        (None, _) => epilogue::elementwise(p, &b),
    };
    Ok(epilogue::grid_root(p, &b, body, root))
}
