//! Local matrix layouts: where each element of a rank's local matrix lives in memory.
//!
//! Tiles are column-major. A layout is three numbers (the seed's Fig. 4):
//! the tile leading dimension (distance between elements `(i, j)` and
//! `(i, j+1)` of a tile), the tile row offset (first element of tile `(i, j)`
//! to first element of tile `(i+1, j)`) and the tile column offset (to tile
//! `(i, j+1)`).

use super::index::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayoutInfo {
    size: LocalElementSize,
    block_size: TileElementSize,
    ld_tile: SizeType,
    tile_offset_row: SizeType,
    tile_offset_col: SizeType,
}

impl LayoutInfo {
    /// A column-major local matrix with leading dimension `ld` (`ld >= rows`).
    pub fn col_major(
        size: LocalElementSize,
        block_size: TileElementSize,
        ld: SizeType,
    ) -> LayoutInfo {
        let ld = ld.max(size.rows()).max(1);
        LayoutInfo {
            size,
            block_size,
            ld_tile: ld,
            tile_offset_row: block_size.rows(),
            tile_offset_col: block_size.cols() * ld,
        }
    }

    /// Tiles stored one after the other, column of tiles by column of tiles,
    /// each tile column-major with leading dimension `block_size.rows()`.
    pub fn tile_layout(size: LocalElementSize, block_size: TileElementSize) -> LayoutInfo {
        let ld = block_size.rows().max(1);
        let tile_elems = ld * block_size.cols();
        let tiles_per_col = size.rows().div_ceil(block_size.rows().max(1));
        LayoutInfo {
            size,
            block_size,
            ld_tile: ld,
            tile_offset_row: tile_elems,
            tile_offset_col: tile_elems * tiles_per_col,
        }
    }

    /// [`LayoutInfo::tile_layout`] with every tile's slot padded to a
    /// multiple of `align` elements: tile `(i, j)` starts at a multiple of
    /// `align` (what a device needs to bind a tile as a range of one
    /// buffer). Still DLA-Future's layout: the padding is in the tile
    /// offsets, its parameters.
    pub fn padded_tile_layout(
        size: LocalElementSize,
        block_size: TileElementSize,
        align: SizeType,
    ) -> LayoutInfo {
        let ld = block_size.rows().max(1);
        let slot = (ld * block_size.cols())
            .max(1)
            .next_multiple_of(align.max(1));
        let tiles_per_col = size.rows().div_ceil(block_size.rows().max(1));
        LayoutInfo {
            size,
            block_size,
            ld_tile: ld,
            tile_offset_row: slot,
            tile_offset_col: slot * tiles_per_col,
        }
    }

    pub fn size(&self) -> LocalElementSize {
        self.size
    }
    pub fn block_size(&self) -> TileElementSize {
        self.block_size
    }
    pub fn ld_tile(&self) -> SizeType {
        self.ld_tile
    }
    pub fn tile_offset_row(&self) -> SizeType {
        self.tile_offset_row
    }
    pub fn tile_offset_col(&self) -> SizeType {
        self.tile_offset_col
    }

    /// The local matrix's size in tiles.
    pub fn nr_tiles(&self) -> LocalTileSize {
        LocalTileSize::new(
            self.size.rows().div_ceil(self.block_size.rows()),
            self.size.cols().div_ceil(self.block_size.cols()),
        )
    }

    /// The size of local tile `idx` (smaller at the edges).
    pub fn tile_size_of(&self, idx: LocalTileIndex) -> TileElementSize {
        let rows = self
            .block_size
            .rows()
            .min(self.size.rows() - idx.row() * self.block_size.rows());
        let cols = self
            .block_size
            .cols()
            .min(self.size.cols() - idx.col() * self.block_size.cols());
        TileElementSize::new(rows, cols)
    }

    /// Memory offset of the first element of a local tile.
    pub fn tile_offset(&self, idx: LocalTileIndex) -> SizeType {
        idx.row() * self.tile_offset_row + idx.col() * self.tile_offset_col
    }

    /// Memory offset of an element of a local tile.
    pub fn element_offset(&self, idx: LocalTileIndex, within: TileElementIndex) -> SizeType {
        self.tile_offset(idx) + within.row() + within.col() * self.ld_tile
    }

    /// The least memory a tile of `tile_size` needs with this leading dimension.
    pub fn min_tile_mem_size(&self, tile_size: TileElementSize) -> SizeType {
        if tile_size.is_empty() {
            return 0;
        }
        tile_size.rows() + (tile_size.cols() - 1) * self.ld_tile
    }

    /// The least memory the whole local matrix needs (0 when it is empty).
    pub fn min_mem_size(&self) -> SizeType {
        if self.size.is_empty() {
            return 0;
        }
        let n = self.nr_tiles();
        let last = LocalTileIndex::new(n.rows() - 1, n.cols() - 1);
        self.tile_offset(last) + self.min_tile_mem_size(self.tile_size_of(last))
    }
}
