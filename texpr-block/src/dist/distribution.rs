//! The 2D block-cyclic distribution of a matrix's tiles over a `P x Q` grid of ranks.

use super::index::*;
use super::util;

/// A matrix of `size` elements cut into `block_size` tiles (smaller at the
/// bottom and right edges), dealt cyclically over a `grid` of ranks starting
/// with `source_rank` (the rank that holds the top-left tile).
///
/// Unlike a per-process distribution object, this one describes every rank:
/// methods that depend on the rank take it as an argument, so ranks that run
/// side by side on one device share one `Distribution`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Distribution {
    size: GlobalElementSize,
    block_size: TileElementSize,
    grid: GridSize,
    source_rank: RankIndex2D,
}

/// Why a distribution cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DistributionError {
    #[error("block size {0} has a zero extent")]
    EmptyBlock(TileElementSize),
    #[error("grid {0} has a zero extent")]
    EmptyGrid(GridSize),
    #[error("source rank {0} is outside the grid {1}")]
    SourceOutsideGrid(RankIndex2D, GridSize),
}

impl Distribution {
    pub fn new(
        size: GlobalElementSize,
        block_size: TileElementSize,
        grid: GridSize,
        source_rank: RankIndex2D,
    ) -> Result<Distribution, DistributionError> {
        if block_size.is_empty() {
            return Err(DistributionError::EmptyBlock(block_size));
        }
        if grid.is_empty() {
            return Err(DistributionError::EmptyGrid(grid));
        }
        if source_rank.row() >= grid.rows() || source_rank.col() >= grid.cols() {
            return Err(DistributionError::SourceOutsideGrid(source_rank, grid));
        }
        Ok(Distribution {
            size,
            block_size,
            grid,
            source_rank,
        })
    }

    pub fn size(&self) -> GlobalElementSize {
        self.size
    }
    pub fn block_size(&self) -> TileElementSize {
        self.block_size
    }
    pub fn grid_size(&self) -> GridSize {
        self.grid
    }
    pub fn source_rank_index(&self) -> RankIndex2D {
        self.source_rank
    }

    /// Size of the global matrix in tiles (ragged edge tiles count).
    pub fn n_tiles(&self) -> GlobalTileSize {
        GlobalTileSize::new(
            self.size.rows().div_ceil(self.block_size.rows()),
            self.size.cols().div_ceil(self.block_size.cols()),
        )
    }

    /// Every global tile, column by column (column-major order).
    pub fn tiles(&self) -> impl Iterator<Item = GlobalTileIndex> {
        let n = self.n_tiles();
        (0..n.cols()).flat_map(move |j| (0..n.rows()).map(move |i| GlobalTileIndex::new(i, j)))
    }

    /// The size of a global tile: the block size, or less at the edges.
    pub fn tile_size_of(&self, tile: GlobalTileIndex) -> TileElementSize {
        let extent = |axis: Axis| {
            let b = self.block_size.get(axis);
            b.min(self.size.get(axis) - tile.get(axis) * b)
        };
        TileElementSize::new(extent(Axis::Row), extent(Axis::Col))
    }

    /// The rank that stores a global tile.
    pub fn rank_global_tile(&self, tile: GlobalTileIndex) -> RankIndex2D {
        RankIndex2D::new(
            util::rank_global_tile(tile.row(), self.grid.rows(), self.source_rank.row()),
            util::rank_global_tile(tile.col(), self.grid.cols(), self.source_rank.col()),
        )
    }

    /// The global tile holding a global element.
    pub fn global_tile_index(&self, e: GlobalElementIndex) -> GlobalTileIndex {
        GlobalTileIndex::new(
            util::tile_from_element(e.row(), self.block_size.rows()),
            util::tile_from_element(e.col(), self.block_size.cols()),
        )
    }

    /// The position of a global element inside its tile.
    pub fn tile_element_index(&self, e: GlobalElementIndex) -> TileElementIndex {
        TileElementIndex::new(
            util::tile_element_from_element(e.row(), self.block_size.rows()),
            util::tile_element_from_element(e.col(), self.block_size.cols()),
        )
    }

    /// The global element at a position inside a global tile.
    pub fn global_element_index(
        &self,
        tile: GlobalTileIndex,
        within: TileElementIndex,
    ) -> GlobalElementIndex {
        let along = |axis: Axis| {
            util::element_from_tile_and_tile_element(
                tile.get(axis),
                within.get(axis),
                self.block_size.get(axis),
            )
        };
        GlobalElementIndex::new(along(Axis::Row), along(Axis::Col))
    }

    fn grid_args(&self, axis: Axis, rank: RankIndex2D) -> (SizeType, SizeType, SizeType) {
        (
            self.grid.get(axis),
            rank.get(axis),
            self.source_rank.get(axis),
        )
    }

    /// The local tile index of a global tile on `rank`, if `rank` owns it.
    pub fn local_tile_index(
        &self,
        tile: GlobalTileIndex,
        rank: RankIndex2D,
    ) -> Option<LocalTileIndex> {
        let along = |axis| {
            let (g, r, s) = self.grid_args(axis, rank);
            util::local_tile_from_global_tile(tile.get(axis), g, r, s)
        };
        Some(LocalTileIndex::new(along(Axis::Row)?, along(Axis::Col)?))
    }

    /// The local tile index on `rank` of `tile`, or of the next tile `rank`
    /// owns in each dimension.
    pub fn next_local_tile_index(
        &self,
        tile: GlobalTileIndex,
        rank: RankIndex2D,
    ) -> LocalTileIndex {
        let along = |axis| {
            let (g, r, s) = self.grid_args(axis, rank);
            util::next_local_tile_from_global_tile(tile.get(axis), g, r, s)
        };
        LocalTileIndex::new(along(Axis::Row), along(Axis::Col))
    }

    /// The global tile at a local tile index of `rank`.
    pub fn global_tile_from_local(
        &self,
        local: LocalTileIndex,
        rank: RankIndex2D,
    ) -> GlobalTileIndex {
        let along = |axis| {
            let (g, r, s) = self.grid_args(axis, rank);
            util::global_tile_from_local_tile(local.get(axis), g, r, s)
        };
        GlobalTileIndex::new(along(Axis::Row), along(Axis::Col))
    }

    /// The local element index of a global element on `rank`, if `rank` owns it.
    pub fn local_element_index(
        &self,
        e: GlobalElementIndex,
        rank: RankIndex2D,
    ) -> Option<LocalElementIndex> {
        let along = |axis| {
            let (g, r, s) = self.grid_args(axis, rank);
            util::local_element_from_global_element(e.get(axis), self.block_size.get(axis), g, r, s)
        };
        Some(LocalElementIndex::new(along(Axis::Row)?, along(Axis::Col)?))
    }

    /// The local element index on `rank` of `e`, or of the first element of
    /// the next tile `rank` owns in each dimension.
    pub fn next_local_element_index(
        &self,
        e: GlobalElementIndex,
        rank: RankIndex2D,
    ) -> LocalElementIndex {
        let along = |axis| {
            let (g, r, s) = self.grid_args(axis, rank);
            util::next_local_element_from_global_element(
                e.get(axis),
                self.block_size.get(axis),
                g,
                r,
                s,
            )
        };
        LocalElementIndex::new(along(Axis::Row), along(Axis::Col))
    }

    /// The global element at a local element index of `rank`.
    pub fn global_element_from_local(
        &self,
        local: LocalElementIndex,
        rank: RankIndex2D,
    ) -> GlobalElementIndex {
        let along = |axis| {
            let (g, r, s) = self.grid_args(axis, rank);
            util::global_element_from_local_element(
                local.get(axis),
                self.block_size.get(axis),
                g,
                r,
                s,
            )
        };
        GlobalElementIndex::new(along(Axis::Row), along(Axis::Col))
    }

    /// How many tiles `rank` stores.
    pub fn local_nr_tiles(&self, rank: RankIndex2D) -> LocalTileSize {
        let n = self.n_tiles();
        let next = self.next_local_tile_index(GlobalTileIndex::new(n.rows(), n.cols()), rank);
        LocalTileSize::new(next.row(), next.col())
    }

    /// How many elements `rank` stores.
    pub fn local_size(&self, rank: RankIndex2D) -> LocalElementSize {
        let along = |axis| {
            let (g, r, s) = self.grid_args(axis, rank);
            util::local_size(self.size.get(axis), self.block_size.get(axis), g, r, s)
        };
        LocalElementSize::new(along(Axis::Row), along(Axis::Col))
    }
}
