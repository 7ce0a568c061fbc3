//! Where each chunk lives on its rank: one allocation per matrix and rank.
//!
//! A rank holds the tiles it owns of a matrix (the chunks of one register:
//! an input's, a random matrix's, an op's output) in one allocation, placed
//! by DLA-Future's tile layout with every tile's slot padded to
//! [`SLOT_ALIGN_BYTES`] ([`LayoutInfo::padded_tile_layout`]): each tile
//! contiguous and column-major, the rank's tiles one after another in local
//! column-major tile order, so a block body reads a tile as one column-major
//! vector at a slot's offset. A tile of the last tile row (fewer rows than
//! the block) is stored compact in its slot, its leading dimension its own
//! row count, as the block bodies read it; every other tile's is the
//! layout's `ld_tile`. The allocation covers the rank's whole local matrix,
//! whichever of its chunks the graph keeps.

use super::node::{Graph, NodeId, NodeKind};
use crate::air::{BlockTy, Reg};
use crate::dist::{
    Distribution, GlobalElementSize, GlobalTileIndex, LayoutInfo, LocalElementSize, LocalTileIndex,
    TileElementSize,
};
use std::collections::BTreeMap;

/// Every slot starts at a multiple of this many bytes: the largest
/// `min_storage_buffer_offset_alignment` WebGPU and Vulkan allow, so every
/// device can bind any tile as a range of its matrix's buffer, and the plan's
/// bytes are the same whatever device runs it.
pub const SLOT_ALIGN_BYTES: u64 = 256;

/// One matrix's allocation on one rank.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixAlloc {
    pub reg: Reg,
    pub rank: usize,
    pub layout: LayoutInfo,
}

impl MatrixAlloc {
    /// Elements the allocation holds (`f32`s).
    pub fn len(&self) -> usize {
        self.layout.min_mem_size()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A chunk's place: allocation `alloc` of [`Slots::allocs`], `len` elements from `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub alloc: usize,
    pub offset: usize,
    pub len: usize,
}

/// The allocations of a graph's chunks, and each chunk's slot.
#[derive(Clone, Debug, Default)]
pub struct Slots {
    /// By (register, rank).
    pub allocs: Vec<MatrixAlloc>,
    chunks: BTreeMap<NodeId, Slot>,
}

impl Slots {
    /// Places every TensorChunk of `g`. Without `g.placement` (a graph made
    /// by hand) each chunk is an allocation of its own.
    pub fn new(g: &Graph) -> Slots {
        let align = (SLOT_ALIGN_BYTES / 4) as usize;
        let types: BTreeMap<Reg, BlockTy> = g
            .nodes
            .iter()
            .filter_map(|n| match &n.kind {
                NodeKind::Tensor { reg, ty, .. } => Some((*reg, *ty)),
                _ => None,
            })
            .collect();
        let mut by_key: BTreeMap<(Reg, usize), usize> = BTreeMap::new();
        let mut out = Slots::default();
        for n in g.ids() {
            let NodeKind::TensorChunk {
                tensor, tile, rank, ..
            } = *g.kind(n)
            else {
                continue;
            };
            let ty = types[&tensor];
            let dims = ty.tile_dims(tile.0, tile.1);
            let block = TileElementSize::new(ty.tile.rows as usize, ty.tile.cols as usize);
            let placed = g.placement.and_then(|(grid, source)| {
                let size = GlobalElementSize::new(ty.shape.rows as usize, ty.shape.cols as usize);
                let d = Distribution::new(size, block, grid, source).ok()?;
                let at = grid.index_of(rank);
                let local =
                    d.local_tile_index(GlobalTileIndex::new(tile.0 as usize, tile.1 as usize), at)?;
                let layout = LayoutInfo::padded_tile_layout(d.local_size(at), block, align);
                Some((layout, local))
            });
            let (layout, local, key) = match placed {
                Some((layout, local)) => (layout, local, Some((tensor, rank.0))),
                None => {
                    let size = LocalElementSize::new(dims.rows as usize, dims.cols as usize);
                    let own = TileElementSize::new(dims.rows as usize, dims.cols as usize);
                    let layout = LayoutInfo::padded_tile_layout(size, own, align);
                    (layout, LocalTileIndex::new(0, 0), None)
                }
            };
            let alloc = match key.and_then(|k| by_key.get(&k)) {
                Some(&a) => a,
                None => {
                    out.allocs.push(MatrixAlloc {
                        reg: tensor,
                        rank: rank.0,
                        layout,
                    });
                    if let Some(k) = key {
                        by_key.insert(k, out.allocs.len() - 1);
                    }
                    out.allocs.len() - 1
                }
            };
            let slot = Slot {
                alloc,
                offset: layout.tile_offset(local),
                len: dims.len() as usize,
            };
            out.chunks.insert(n, slot);
        }
        out
    }

    /// The slot of a TensorChunk.
    pub fn of(&self, chunk: NodeId) -> Option<Slot> {
        self.chunks.get(&chunk).copied()
    }
}
