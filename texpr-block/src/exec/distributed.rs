//! Execution of a scheduled block graph: shards run in plan order, each rank's chunks kept apart.
//!
//! Ranks run side by side in one process. A shard's panels are gathered from
//! the chunks of the ranks that own them (reads through transpose and slice
//! views are resolved on the fly); the bytes that crossed ranks are the
//! plan's. Each distinct kernel is compiled once by the runner.

use super::dense::{Matrix, check_inputs};
use super::runner::KernelRunner;
use super::tiled::{Tiles, gather};
use crate::air::{Op, Program, Reg};
use crate::graph::{Graph, NodeKind, Plan};
use crate::stage::BlockMatrixStage;
use std::borrow::Cow;
use std::collections::BTreeMap;
use texpr_syntax::Diagnostic;

/// What a distributed run did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    pub result: Matrix,
    /// Shards run.
    pub shards: usize,
    /// Distinct kernels compiled.
    pub kernels: usize,
}

struct Store<'a> {
    p: &'a Program,
    chunks: BTreeMap<(Reg, (u64, u64)), Vec<f32>>,
}

impl Store<'_> {
    /// Tile `(i, j)` of `r`, through views.
    fn tile(&self, r: Reg, (i, j): (u64, u64)) -> Cow<'_, [f32]> {
        match self.p.inst(r).op {
            Op::Transpose(src) => {
                let d = self.p.ty(src).tile_dims(j, i);
                let t = self.tile(src, (j, i));
                let (rows, cols) = (d.rows as usize, d.cols as usize);
                let mut out = vec![0.0; rows * cols];
                for a in 0..cols {
                    for b in 0..rows {
                        out[a + b * cols] = t[b + a * rows];
                    }
                }
                Cow::Owned(out)
            }
            Op::Slice { src, rows, cols } => {
                let t = self.p.ty(src).tile;
                self.tile(src, (i + rows.start / t.rows, j + cols.start / t.cols))
            }
            _ => Cow::Borrowed(&self.chunks[&(r, (i, j))]),
        }
    }
}

/// Runs the shards of `g` in the order of `plan` with `runner`; the returned matrix.
pub fn run_plan(
    p: &Program,
    g: &Graph,
    plan: &Plan,
    inputs: &[Matrix],
    runner: &mut dyn KernelRunner,
) -> Result<RunReport, Diagnostic> {
    check_inputs(p, inputs)?;
    let mut store = Store {
        p,
        chunks: BTreeMap::new(),
    };
    for (r, m) in p.inputs().into_iter().zip(inputs) {
        for (tile, data) in Tiles::from_dense(p.ty(r), m).tiles {
            store.chunks.insert((r, tile), data);
        }
    }
    let mut stages: BTreeMap<Reg, BlockMatrixStage> = BTreeMap::new();
    let mut shards = 0;
    for step in &plan.steps {
        let NodeKind::BlockShard { op, tile, .. } = g.kind(step.node) else {
            continue;
        };
        let stage = stages
            .entry(*op)
            .or_insert_with(|| BlockMatrixStage::new(p, *op));
        let body = stage.block_body(&stage.block_context(tile.0, tile.1));
        let data: Vec<Vec<f32>> = body
            .inputs
            .iter()
            .map(|pn| gather(p.ty(pn.src), pn, |t| store.tile(pn.src, t)))
            .collect();
        let refs: Vec<&[f32]> = data.iter().map(Vec::as_slice).collect();
        let out = runner.run(&body.kernel, &refs)?;
        store.chunks.insert((*op, *tile), out);
        shards += 1;
    }
    let ty = p.ty(p.ret);
    let n = ty.n_tiles();
    let mut tiles = BTreeMap::new();
    for j in 0..n.cols {
        for i in 0..n.rows {
            tiles.insert((i, j), store.tile(p.ret, (i, j)).into_owned());
        }
    }
    let result = Tiles { ty, tiles }.to_dense();
    Ok(RunReport {
        result,
        shards,
        kernels: runner.compiled(),
    })
}
