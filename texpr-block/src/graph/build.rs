//! Builds the block graph of a program over a grid of ranks.
//!
//! Every matrix is distributed 2D block-cyclically with its own tile size over
//! the same grid and source rank. Inputs come from Source as chunks; each
//! other op is a BlockOp whose BlockShards (one per output tile, on the rank
//! that owns the tile) write TensorChunks. `transpose`, `slice` and `reverse`
//! compute nothing: a shard reads the chunks they view in place, through
//! TensorView nodes (the kernel's index map does the work). A shard reading
//! several tiles (a matmul panel) reads a concatenation view, reified on its
//! rank by a TensorCopy (one per panel and rank, shared by the shards
//! there); a shard reading one tile of another rank reads a TensorCopy of it
//! too, so shards only ever read their own rank's chunks and copies, and
//! every chunk that crosses ranks crosses in a TensorCopy.
//!
//! A reduction (`sum`, `max`, `min`, `mean`, of rows, columns or all) is
//! computed where its operand lives: each rank reduces its own tiles of each
//! output tile's row (column, or the whole matrix), one step per tile, into
//! a Partial; a TensorReduce then combines the partials of a grid row (or
//! column) on the rank that owns the output tile, so only partials cross
//! ranks. A whole-matrix reduction combines along each grid row, then along
//! the source rank's grid column. The returned tensor flows to Sink (a
//! returned view through its views, a returned input's chunks directly).

use super::node::{Graph, NodeId, NodeKind, PanelRef, ViewKind, Work};
use crate::air::{Op, Program, Reg};
use crate::codes;
use crate::dist::{
    CommunicatorRank, Distribution, GlobalElementSize, GlobalTileIndex, GridSize, RankIndex2D,
    TileElementSize,
};
use crate::stage::view::{chain, is_view, resolve};
use crate::stage::{BlockBody, BlockMatrixStage, Kernel, Panel};
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;

mod linalg;
mod reduce;

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
    /// The view node reading a node through a view register.
    views: BTreeMap<(NodeId, Reg), NodeId>,
    concats: BTreeMap<ConcatKey, NodeId>,
    copies: BTreeMap<(NodeId, CommunicatorRank), NodeId>,
    /// Each distinct kernel once: the shards running one share it.
    kernels: Vec<Kernel>,
}

/// `k` as a graph holds it: the kernel of `kernels` that is the same
/// program, else `k`, added to them (so a graph holds each distinct kernel
/// once).
fn intern(kernels: &mut Vec<Kernel>, k: &Kernel) -> Kernel {
    if let Some(same) = kernels.iter().find(|&made| made == k) {
        return same.clone();
    }
    kernels.push(k.clone());
    k.clone()
}

/// The block graph of `p` on `cfg` (before pruning).
pub fn build(p: &Program, cfg: GridConfig) -> Result<Graph, Diagnostic> {
    let mut b = Builder {
        p,
        cfg,
        g: Graph {
            placement: Some((cfg.grid, cfg.source)),
            ..Graph::default()
        },
        tensors: BTreeMap::new(),
        chunks: BTreeMap::new(),
        views: BTreeMap::new(),
        concats: BTreeMap::new(),
        copies: BTreeMap::new(),
        kernels: Vec::new(),
    };
    let source = b.g.add(NodeKind::Source);
    for r in p.regs() {
        b.op(r, source)?;
    }
    if is_view(p, p.ret) {
        b.returned_view(p.ret)?;
    }
    let sink = b.g.add(NodeKind::Sink);
    b.g.edge(b.tensors[&p.ret], sink);
    // A returned input (or random matrix) is its chunks, as they are made.
    if matches!(p.inst(p.ret).op, Op::Input | Op::Random(_)) {
        let chunks: Vec<NodeId> = b
            .chunks
            .range((p.ret, (0, 0))..=(p.ret, (u64::MAX, u64::MAX)))
            .map(|(_, &n)| n)
            .collect();
        for c in chunks {
            b.g.edge(c, sink);
        }
    }
    b.g.normalize();
    Ok(b.g)
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
        // Inputs and random matrices: tiles made on their owners, not computed.
        if matches!(inst.op, Op::Input | Op::Random(_)) {
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
        if matches!(inst.op, Op::Reduce(..)) {
            return self.reduction(r, op, tensor);
        }
        if matches!(inst.op, Op::Cholesky(_) | Op::Solve { .. }) {
            return self.linalg(r, op, tensor);
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
        // Each body's kernel shared as it is made, so that no more than
        // the distinct kernels are held at once.
        let kernels = &mut self.kernels;
        let tasks = stage.to_ir(
            |_, body| BlockBody {
                kernel: intern(kernels, &body.kernel),
                ..body
            },
            None,
        );
        for task in tasks {
            let tile = (task.ctx.i, task.ctx.j);
            let rank = self.cfg.owner(&d, tile);
            let flops = flops(self.p, r, &task.value);
            let kind = NodeKind::BlockShard {
                op: r,
                tile,
                rank,
                kernel: task.value.kernel.clone(),
                flops,
                work: Work::Block,
            };
            let shard = self.shard_reading(op, kind, &task.value.inputs, rank);
            let chunk = self.chunk(r, tile, &d);
            self.g.edge(shard, chunk);
            self.g.edge(chunk, tensor);
        }
        Ok(())
    }

    /// `k` as the graph holds it (see [`intern`]).
    fn kernel(&mut self, k: &Kernel) -> Kernel {
        intern(&mut self.kernels, k)
    }

    /// Adds shard `kind` of BlockOp `op`, reading `panels` on `rank` (the
    /// panels' nodes made first, so node ids follow the data flow).
    fn shard_reading(
        &mut self,
        op: NodeId,
        kind: NodeKind,
        panels: &[Panel],
        rank: CommunicatorRank,
    ) -> NodeId {
        let srcs: Vec<NodeId> = panels.iter().map(|pn| self.panel(pn, rank)).collect();
        let shard = self.g.add(kind);
        self.g.edge(op, shard);
        for src in srcs {
            self.g.edge(src, shard);
        }
        shard
    }

    /// The node a shard on `rank` reads panel `pn` from: a chunk of its own
    /// rank, or a copy (of a concatenation, or of another rank's chunk) made
    /// on `rank`; read through the views between the op and the chunks.
    fn panel(&mut self, pn: &Panel, rank: CommunicatorRank) -> NodeId {
        let single = pn.rows.1 - pn.rows.0 == 1 && pn.cols.1 - pn.cols.0 == 1;
        let data = if single {
            self.chunks[&(pn.src, (pn.rows.0, pn.cols.0))]
        } else {
            self.concat(pn)
        };
        let local = matches!(self.g.kind(data), NodeKind::TensorChunk { rank: owner, .. } if *owner == rank);
        let reader = if local {
            data
        } else {
            let panel = PanelRef {
                reg: pn.src,
                rows: pn.rows,
                cols: pn.cols,
            };
            self.copy(data, rank, pn.dims.len() * 4, panel)
        };
        self.through_views(reader, pn.via)
    }

    /// `node` read through the views of `via`, innermost first.
    fn through_views(&mut self, mut node: NodeId, via: Reg) -> NodeId {
        for v in chain(self.p, via).into_iter().rev() {
            if let Some(&n) = self.views.get(&(node, v)) {
                node = n;
                continue;
            }
            let view = match &self.p.inst(v).op {
                Op::Transpose(_) => ViewKind::Transpose,
                Op::Reverse(flip, _) => ViewKind::Reverse {
                    rows: flip.rows(),
                    cols: flip.cols(),
                },
                Op::Slice { rows, cols, .. } => ViewKind::Slice {
                    row: rows.start,
                    col: cols.start,
                },
                _ => unreachable!("chains hold views"),
            };
            let n = self.g.add(NodeKind::TensorView { view });
            self.g.edge(node, n);
            self.views.insert((node, v), n);
            node = n;
        }
        node
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
                let part = self.chunks[&(pn.src, (i, j))];
                self.g.edge(part, v);
            }
        }
        self.concats.insert(key, v);
        v
    }

    /// A returned view: each of its tiles is the chunk it views (a copy of
    /// it on the tile's owner when another rank holds it), read through the
    /// views when the result is read back. No view is copied.
    fn returned_view(&mut self, r: Reg) -> Result<(), Diagnostic> {
        let d = self.cfg.distribution(self.p.ty(r))?;
        for t in d.tiles() {
            let tile = (t.row() as u64, t.col() as u64);
            let (base, rows, cols, _) =
                resolve(self.p, r, (tile.0, tile.0 + 1), (tile.1, tile.1 + 1));
            let chunk = self.chunks[&(base, (rows.0, cols.0))];
            let rank = self.cfg.owner(&d, tile);
            let reader = if self.g.kind(chunk).rank() == Some(rank) {
                chunk
            } else {
                let bytes = self.g.kind(chunk).bytes();
                self.copy(chunk, rank, bytes, PanelRef::tile(base, (rows.0, cols.0)))
            };
            let v = self.through_views(reader, r);
            self.g.edge(v, self.tensors[&r]);
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
            let k = body.inputs[0].seen().cols;
            2 * out * k + out * epilogue.as_ref().map_or(0, |f| f.body.size() as u64)
        }
        Op::Fused(f) => out * f.body.size() as u64,
        Op::Reduce(..) => read,
        _ => out,
    }
}
