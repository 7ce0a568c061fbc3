//! Builds the block graph of a program over a grid of ranks.
//!
//! Every matrix is distributed 2D block-cyclically with its own tile size over
//! the same grid and source rank. Inputs come from Source as chunks; each
//! other op is a BlockOp whose BlockShards (one per output tile, on the rank
//! that owns the tile) write TensorChunks. `transpose` and `slice` compute
//! nothing: reads through them are stride-only TensorViews of the source
//! chunks. A shard reading several tiles (a matmul panel, a sum) reads a
//! concatenation view, reified on its rank by a TensorCopy (one per panel and
//! rank, shared by the shards there); a shard reading one tile of another
//! rank reads a TensorCopy of it too, so shards only ever read their own
//! rank's chunks and copies, and every byte that crosses ranks crosses in a
//! TensorCopy. The returned tensor flows to Sink.

use super::node::{Graph, NodeId, NodeKind, PanelRef, ViewKind};
use crate::air::{Op, Program, Reg};
use crate::codes;
use crate::dist::{
    CommunicatorRank, Distribution, GlobalElementSize, GlobalTileIndex, GridSize, RankIndex2D,
    TileElementSize,
};
use crate::stage::{BlockBody, BlockMatrixStage, Panel};
use std::collections::BTreeMap;
use texpr_syntax::Diagnostic;

/// The grid the ranks form and the rank holding every matrix's top-left tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridConfig {
    pub grid: GridSize,
    pub source: RankIndex2D,
}

impl GridConfig {
    pub fn new(p: usize, q: usize) -> GridConfig {
        GridConfig {
            grid: GridSize::new(p, q),
            source: RankIndex2D::new(0, 0),
        }
    }
    pub fn n_ranks(&self) -> usize {
        self.grid.linear_size()
    }
    /// The distribution of a block matrix of type `ty`.
    pub fn distribution(&self, ty: crate::air::BlockTy) -> Result<Distribution, Diagnostic> {
        Distribution::new(
            GlobalElementSize::new(ty.shape.rows as usize, ty.shape.cols as usize),
            TileElementSize::new(ty.tile.rows as usize, ty.tile.cols as usize),
            self.grid,
            self.source,
        )
        .map_err(|e| Diagnostic::error(codes::BAD_DISTRIBUTION, e.to_string()))
    }
    /// The rank that owns tile `(i, j)` of a matrix of type `ty`.
    pub fn owner(&self, d: &Distribution, (i, j): (u64, u64)) -> CommunicatorRank {
        self.grid
            .rank_of(d.rank_global_tile(GlobalTileIndex::new(i as usize, j as usize)))
    }
}

/// A concatenation: the register, the block range of rows and of columns.
type ConcatKey = (Reg, (u64, u64), (u64, u64));

struct Builder<'a> {
    p: &'a Program,
    cfg: GridConfig,
    g: Graph,
    tensors: BTreeMap<Reg, NodeId>,
    chunks: BTreeMap<(Reg, (u64, u64)), NodeId>,
    views: BTreeMap<(Reg, (u64, u64)), NodeId>,
    concats: BTreeMap<ConcatKey, NodeId>,
    copies: BTreeMap<(NodeId, CommunicatorRank), NodeId>,
}

/// The block graph of `p` on `cfg` (before pruning).
pub fn build(p: &Program, cfg: GridConfig) -> Result<Graph, Diagnostic> {
    let mut b = Builder {
        p,
        cfg,
        g: Graph::default(),
        tensors: BTreeMap::new(),
        chunks: BTreeMap::new(),
        views: BTreeMap::new(),
        concats: BTreeMap::new(),
        copies: BTreeMap::new(),
    };
    let source = b.g.add(NodeKind::Source);
    for r in p.regs() {
        b.op(r, source)?;
    }
    if is_view(p, p.ret) {
        b.materialize_view(p.ret)?;
    }
    let sink = b.g.add(NodeKind::Sink);
    b.g.edge(b.tensors[&p.ret], sink);
    b.g.normalize();
    Ok(b.g)
}

fn is_view(p: &Program, r: Reg) -> bool {
    matches!(p.inst(r).op, Op::Transpose(_) | Op::Slice { .. })
}

impl Builder<'_> {
    fn op(&mut self, r: Reg, source: NodeId) -> Result<(), Diagnostic> {
        let inst = self.p.inst(r);
        let tensor = self.g.add(NodeKind::Tensor {
            reg: r,
            name: inst.name.clone(),
            ty: inst.ty,
        });
        self.tensors.insert(r, tensor);
        if matches!(inst.op, Op::Input) {
            self.g.edge(source, tensor);
            return self.input_chunks(r, tensor);
        }
        let op = self.g.add(NodeKind::BlockOp {
            operation_id: r.0,
            op: inst.op.name(),
        });
        for a in inst.op.args() {
            self.g.edge(self.tensors[&a], op);
        }
        if is_view(self.p, r) {
            self.g.edge(op, tensor);
            return Ok(());
        }
        self.shards(r, op, tensor)
    }

    fn input_chunks(&mut self, r: Reg, tensor: NodeId) -> Result<(), Diagnostic> {
        let ty = self.p.ty(r);
        let d = self.cfg.distribution(ty)?;
        for t in d.tiles() {
            let tile = (t.row() as u64, t.col() as u64);
            let chunk = self.chunk(r, tile, &d);
            self.g.edge(tensor, chunk);
        }
        Ok(())
    }

    fn chunk(&mut self, r: Reg, tile: (u64, u64), d: &Distribution) -> NodeId {
        let bytes = self.p.ty(r).tile_dims(tile.0, tile.1).len() * 4;
        let rank = self.cfg.owner(d, tile);
        let n = self.g.add(NodeKind::TensorChunk {
            tensor: r,
            tile,
            rank,
            bytes,
        });
        self.chunks.insert((r, tile), n);
        n
    }

    fn shards(&mut self, r: Reg, op: NodeId, tensor: NodeId) -> Result<(), Diagnostic> {
        let d = self.cfg.distribution(self.p.ty(r))?;
        let stage = BlockMatrixStage::new(self.p, r);
        for task in stage.to_ir(|_, body| body, None) {
            let tile = (task.ctx.i, task.ctx.j);
            let rank = self.cfg.owner(&d, tile);
            let flops = flops(self.p, r, &task.value);
            // Inputs first, so node ids follow the data flow.
            let srcs: Vec<NodeId> = task
                .value
                .inputs
                .iter()
                .map(|pn| self.panel(pn, rank))
                .collect();
            let shard = self.g.add(NodeKind::BlockShard {
                op: r,
                tile,
                rank,
                kernel: task.value.kernel.clone(),
                flops,
            });
            self.g.edge(op, shard);
            for src in srcs {
                self.g.edge(src, shard);
            }
            let chunk = self.chunk(r, tile, &d);
            self.g.edge(shard, chunk);
            self.g.edge(chunk, tensor);
        }
        Ok(())
    }

    /// The node a shard on `rank` reads panel `pn` from: a chunk of its own
    /// rank, or a copy (of a view, or of another rank's chunk) made on `rank`.
    fn panel(&mut self, pn: &Panel, rank: CommunicatorRank) -> NodeId {
        let single = pn.rows.1 - pn.rows.0 == 1 && pn.cols.1 - pn.cols.0 == 1;
        let data = if single {
            self.resolve(pn.src, (pn.rows.0, pn.cols.0))
        } else {
            self.concat(pn)
        };
        if let NodeKind::TensorChunk { rank: owner, .. } = self.g.kind(data)
            && *owner == rank
        {
            return data;
        }
        let panel = PanelRef {
            reg: pn.src,
            rows: pn.rows,
            cols: pn.cols,
        };
        self.copy(data, rank, pn.dims.len() * 4, panel)
    }

    fn copy(
        &mut self,
        data: NodeId,
        rank: CommunicatorRank,
        bytes: u64,
        panel: PanelRef,
    ) -> NodeId {
        if let Some(&c) = self.copies.get(&(data, rank)) {
            return c;
        }
        let c = self.g.add(NodeKind::TensorCopy { rank, bytes, panel });
        self.g.edge(data, c);
        self.copies.insert((data, rank), c);
        c
    }

    fn concat(&mut self, pn: &Panel) -> NodeId {
        let key = (pn.src, pn.rows, pn.cols);
        if let Some(&v) = self.concats.get(&key) {
            return v;
        }
        let view = ViewKind::Concat {
            rows: pn.rows.1 - pn.rows.0,
            cols: pn.cols.1 - pn.cols.0,
        };
        let v = self.g.add(NodeKind::TensorView { view });
        for j in pn.cols.0..pn.cols.1 {
            for i in pn.rows.0..pn.rows.1 {
                let part = self.resolve(pn.src, (i, j));
                self.g.edge(part, v);
            }
        }
        self.concats.insert(key, v);
        v
    }

    /// The chunk holding tile `tile` of `r`, or a view of the chunk it comes from.
    fn resolve(&mut self, r: Reg, tile: (u64, u64)) -> NodeId {
        if let Some(&c) = self.chunks.get(&(r, tile)) {
            return c;
        }
        if let Some(&v) = self.views.get(&(r, tile)) {
            return v;
        }
        let (src, src_tile, view) = match self.p.inst(r).op {
            Op::Transpose(src) => (src, (tile.1, tile.0), ViewKind::Transpose),
            Op::Slice { src, rows, cols } => {
                let t = self.p.ty(src).tile;
                let shifted = (tile.0 + rows.start / t.rows, tile.1 + cols.start / t.cols);
                (
                    src,
                    shifted,
                    ViewKind::Slice {
                        row: rows.start,
                        col: cols.start,
                    },
                )
            }
            _ => unreachable!("every non-view op has chunks for all its tiles"),
        };
        let from = self.resolve(src, src_tile);
        let v = self.g.add(NodeKind::TensorView { view });
        self.g.edge(from, v);
        self.views.insert((r, tile), v);
        v
    }

    /// A returned view: copied into chunks of its own on the owning ranks.
    fn materialize_view(&mut self, r: Reg) -> Result<(), Diagnostic> {
        let d = self.cfg.distribution(self.p.ty(r))?;
        for t in d.tiles() {
            let tile = (t.row() as u64, t.col() as u64);
            let view = self.resolve(r, tile);
            let rank = self.cfg.owner(&d, tile);
            let bytes = self.p.ty(r).tile_dims(tile.0, tile.1).len() * 4;
            let copy = self.copy(view, rank, bytes, PanelRef::tile(r, tile));
            let chunk = self.chunk(r, tile, &d);
            self.g.edge(copy, chunk);
            self.g.edge(chunk, self.tensors[&r]);
        }
        Ok(())
    }
}

/// Floating-point operations of one block (multiply-add counts 2).
pub fn flops(p: &Program, r: Reg, body: &BlockBody) -> u64 {
    let out = body.out_len;
    let read: u64 = body.inputs.iter().map(|pn| pn.dims.len()).sum();
    match &p.inst(r).op {
        Op::Matmul { epilogue, .. } => {
            let k = body.inputs[0].dims.cols;
            2 * out * k + out * epilogue.as_ref().map_or(0, |f| f.body.size() as u64)
        }
        Op::Fused(f) => out * f.body.size() as u64,
        Op::Sum(..) => read,
        _ => out,
    }
}
