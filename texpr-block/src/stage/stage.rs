//! BlockMatrixStage: global values, a minimal per-block context, and block bodies that are TExpr kernels.
//!
//! A stage stands for one op of a block program. Its block body is a TExpr
//! program whose inputs are *panels* (rectangles of tiles of earlier
//! matrices, copied into one column-major vector) and whose one output is the
//! block's tile, column-major. `to_ir` lowers a stage to its per-block tasks.

use super::body::{BlockBody, BlockContext};
use super::kernel;
use crate::air::{BlockTy, Program, Reg};
use std::fmt;

/// A value shared by every block of a stage.
#[derive(Clone, Debug, PartialEq)]
pub enum GlobalVal {
    /// A block matrix the blocks read tiles of (an input or an earlier stage's result).
    Matrix { reg: Reg, ty: BlockTy },
    /// A random matrix: its seed is the global, the heavy value it stands
    /// for is made tile by tile on the ranks that own the tiles.
    Random { reg: Reg, seed: u64, ty: BlockTy },
}

/// The type of a block's context: which fields it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtxType;

impl fmt::Display for CtxType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{ i: u64, j: u64, rows: u64, cols: u64 }}")
    }
}

/// One op of a block program, staged.
#[derive(Clone, Debug)]
pub struct BlockMatrixStage {
    pub reg: Reg,
    pub name: String,
    pub ty: BlockTy,
    pub global_vals: Vec<(String, GlobalVal)>,
    pub ctx_type: CtxType,
    program: Program,
}

/// A block's task: its context and what the body transform made of its body.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockTask<T> {
    pub ctx: BlockContext,
    pub value: T,
}

impl BlockMatrixStage {
    /// The stage of register `reg` (not an input) of `p`.
    pub fn new(p: &Program, reg: Reg) -> BlockMatrixStage {
        let inst = p.inst(reg);
        let mut global_vals: Vec<(String, GlobalVal)> = Vec::new();
        for a in inst.op.args() {
            let name = p.inst(a).name.clone();
            if global_vals.iter().all(|(n, _)| *n != name) {
                let value = match p.inst(a).op {
                    crate::air::Op::Random(seed) => GlobalVal::Random {
                        reg: a,
                        seed,
                        ty: p.ty(a),
                    },
                    _ => GlobalVal::Matrix {
                        reg: a,
                        ty: p.ty(a),
                    },
                };
                global_vals.push((name, value));
            }
        }
        BlockMatrixStage {
            reg,
            name: inst.name.clone(),
            ty: inst.ty,
            global_vals,
            ctx_type: CtxType,
            program: p.clone(),
        }
    }

    /// The minimal context of block `(i, j)`.
    pub fn block_context(&self, i: u64, j: u64) -> BlockContext {
        BlockContext {
            i,
            j,
            dims: self.ty.tile_dims(i, j),
        }
    }

    /// The block body for a context: a TExpr kernel and the panels it reads.
    pub fn block_body(&self, ctx: &BlockContext) -> BlockBody {
        // A factorization's or solve's block body is the task that finishes the tile.
        if super::linalg::is_linalg(&self.program, self.reg) {
            let tile = (ctx.i, ctx.j);
            let step = super::linalg::final_step(&self.program, self.reg, tile);
            return super::linalg::body(&self.program, self.reg, tile, step).body;
        }
        match crate::air::gather::gather(&self.program, self.reg) {
            Some(g) => super::gather::body(&self.program, self.reg, &g, ctx),
            None => kernel::body(&self.program, self.reg, ctx),
        }
    }

    /// Every block (column-major order, or `ordering` when given) with
    /// `body_transform` applied to its body.
    pub fn to_ir<T>(
        &self,
        mut body_transform: impl FnMut(&BlockContext, BlockBody) -> T,
        ordering: Option<&[(u64, u64)]>,
    ) -> Vec<BlockTask<T>> {
        let n = self.ty.n_tiles();
        let all: Vec<(u64, u64)> = (0..n.cols)
            .flat_map(|j| (0..n.rows).map(move |i| (i, j)))
            .collect();
        let order = ordering.unwrap_or(&all);
        order
            .iter()
            .filter(|(i, j)| *i < n.rows && *j < n.cols)
            .map(|&(i, j)| {
                let ctx = self.block_context(i, j);
                BlockTask {
                    ctx,
                    value: body_transform(&ctx, self.block_body(&ctx)),
                }
            })
            .collect()
    }
}

/// The stages of every non-input op of a program, in order.
pub fn lower(p: &Program) -> Vec<BlockMatrixStage> {
    p.regs()
        .filter(|&r| {
            !matches!(
                p.inst(r).op,
                crate::air::Op::Input | crate::air::Op::Random(_)
            )
        })
        .map(|r| BlockMatrixStage::new(p, r))
        .collect()
}
