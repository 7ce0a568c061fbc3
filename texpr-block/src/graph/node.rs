//! Nodes and edges of the block graph.

use crate::air::{Agg, BlockTy, Reg, SumAxis};
use crate::dist::{CommunicatorRank, GridSize, RankIndex2D};

/// Index into [`Graph::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// A stride-only view, or a concatenation of tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// Tiles `rows x cols` (in tiles) laid side by side into one panel.
    Concat {
        rows: u64,
        cols: u64,
    },
    Transpose,
    /// Rows and/or columns in reverse order.
    Reverse {
        rows: bool,
        cols: bool,
    },
    /// A tile-aligned window: element offset `(row, col)`.
    Slice {
        row: u64,
        col: u64,
    },
}

/// A rectangle of tiles of a register (which may be a view): tile rows
/// `rows.0..rows.1` and tile columns `cols.0..cols.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PanelRef {
    pub reg: Reg,
    pub rows: (u64, u64),
    pub cols: (u64, u64),
}

impl PanelRef {
    /// The one tile `(i, j)` of `reg`.
    pub fn tile(reg: Reg, (i, j): (u64, u64)) -> PanelRef {
        PanelRef {
            reg,
            rows: (i, i + 1),
            cols: (j, j + 1),
        }
    }
}

/// What a reduction step reads: tile `src_tile` of the reduction's operand,
/// added to the rank's partial so far when `accumulate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub src_tile: (u64, u64),
    pub accumulate: bool,
}

/// What a BlockShard computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// The op's block body for its tile (the stage's `to_ir`).
    Block,
    /// A step of a reduction.
    Reduce(Part),
    /// A step of a factorization or solve over tiles (`stage::linalg`).
    Linalg(crate::stage::linalg::TileStep),
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// The notional source of all external data.
    Source,
    /// The notional observer of the execution.
    Sink,
    /// A whole block matrix.
    Tensor { reg: Reg, name: String, ty: BlockTy },
    /// A block operation; `operation_id` is the op's register index.
    BlockOp { operation_id: u32, op: &'static str },
    /// One block of an op, run on one rank: computes one tile. A step of
    /// a reduction ([`Work::Reduce`]) instead reduces one tile of the
    /// operand into a [`NodeKind::Partial`] of output tile `tile`; a step of
    /// a factorization or solve ([`Work::Linalg`]) makes the tile's next
    /// version (a Partial) or the tile itself.
    BlockShard {
        op: Reg,
        tile: (u64, u64),
        rank: CommunicatorRank,
        kernel: crate::stage::Kernel,
        flops: u64,
        work: Work,
    },
    /// A rank's partial result of an output tile: what its own tiles of a
    /// reduction's operand reduce to (`stage` 0), or a grid row's partials
    /// combined (`stage` 1, on the way to a whole-matrix reduction's
    /// result); or a factorization's tile between two of its steps
    /// (`stage` 0), on the rank that owns the tile. Never sent whole to
    /// another rank.
    Partial {
        tensor: Reg,
        tile: (u64, u64),
        rank: CommunicatorRank,
        stage: u8,
        bytes: u64,
    },
    /// Combines the partials of ranks (its predecessors) into one on `rank`:
    /// an MPI reduce along a grid row or column (or sends to `rank`), which
    /// makes the reduction's output chunk, or a stage-1 partial.
    TensorReduce {
        tensor: Reg,
        tile: (u64, u64),
        rank: CommunicatorRank,
        agg: Agg,
        /// The axis the partials are combined along: `Rows` a grid row's, `Cols` a grid column's.
        along: SumAxis,
        bytes: u64,
    },
    /// One tile of a tensor, stored on one rank.
    TensorChunk {
        tensor: Reg,
        tile: (u64, u64),
        rank: CommunicatorRank,
        bytes: u64,
    },
    /// A view of chunks (no data moves).
    TensorView { view: ViewKind },
    /// Builds a new tensor on `rank` from a view (or moves one chunk there):
    /// the tiles `panel` of a register, laid side by side.
    TensorCopy {
        rank: CommunicatorRank,
        bytes: u64,
        panel: PanelRef,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
}

impl NodeKind {
    /// Whether the scheduler runs this node (shards and copies).
    pub fn is_task(&self) -> bool {
        matches!(
            self,
            NodeKind::BlockShard { .. }
                | NodeKind::TensorCopy { .. }
                | NodeKind::TensorReduce { .. }
        )
    }
    /// The rank a task or chunk lives on.
    pub fn rank(&self) -> Option<CommunicatorRank> {
        match self {
            NodeKind::BlockShard { rank, .. }
            | NodeKind::TensorChunk { rank, .. }
            | NodeKind::TensorCopy { rank, .. }
            | NodeKind::Partial { rank, .. }
            | NodeKind::TensorReduce { rank, .. } => Some(*rank),
            _ => None,
        }
    }
    /// Bytes a chunk, copy or partial holds (a reduce: its partials' size).
    pub fn bytes(&self) -> u64 {
        match self {
            NodeKind::TensorChunk { bytes, .. }
            | NodeKind::TensorCopy { bytes, .. }
            | NodeKind::Partial { bytes, .. }
            | NodeKind::TensorReduce { bytes, .. } => *bytes,
            _ => 0,
        }
    }
    /// Whether the node is data on a rank: a chunk, or a partial.
    pub fn is_data(&self) -> bool {
        matches!(
            self,
            NodeKind::TensorChunk { .. } | NodeKind::Partial { .. }
        )
    }
}

/// A DAG: nodes, and edges in the direction data flows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    pub nodes: Vec<Node>,
    /// Sorted and free of duplicates.
    pub edges: Vec<(NodeId, NodeId)>,
    /// The grid the chunks are distributed over and its source rank (what
    /// each rank's local layouts follow, `graph/slots.rs`); `None` for a
    /// graph made by hand, whose chunks are then each their own allocation.
    pub placement: Option<(GridSize, RankIndex2D)>,
}

impl Graph {
    pub fn add(&mut self, kind: NodeKind) -> NodeId {
        self.nodes.push(Node { kind });
        NodeId(self.nodes.len() as u32 - 1)
    }
    pub fn edge(&mut self, from: NodeId, to: NodeId) {
        self.edges.push((from, to));
    }
    pub fn kind(&self, n: NodeId) -> &NodeKind {
        &self.nodes[n.0 as usize].kind
    }
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }
    /// Sorts and deduplicates the edges.
    pub fn normalize(&mut self) {
        self.edges.sort();
        self.edges.dedup();
    }
    /// Predecessors of every node.
    pub fn preds(&self) -> Vec<Vec<NodeId>> {
        let mut p = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in &self.edges {
            p[b.0 as usize].push(a);
        }
        p
    }
    /// Successors of every node.
    pub fn succs(&self) -> Vec<Vec<NodeId>> {
        let mut s = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in &self.edges {
            s[a.0 as usize].push(b);
        }
        s
    }
    /// How many nodes of each kind, by kind name.
    pub fn count(&self, name: &str) -> usize {
        self.nodes
            .iter()
            .filter(|n| kind_name(&n.kind) == name)
            .count()
    }
}

/// The kind's name as in the seed (`BlockShard`, `TensorView`, ...).
pub fn kind_name(k: &NodeKind) -> &'static str {
    match k {
        NodeKind::Source => "Source",
        NodeKind::Sink => "Sink",
        NodeKind::Tensor { .. } => "Tensor",
        NodeKind::BlockOp { .. } => "BlockOp",
        NodeKind::BlockShard { .. } => "BlockShard",
        NodeKind::TensorChunk { .. } => "TensorChunk",
        NodeKind::TensorView { .. } => "TensorView",
        NodeKind::TensorCopy { .. } => "TensorCopy",
        NodeKind::Partial { .. } => "Partial",
        NodeKind::TensorReduce { .. } => "TensorReduce",
    }
}
