//! Block-matrix types: element type, shape in elements and tile size.

use std::fmt;
pub use texpr_ir::ElemTy;

/// `rows x cols` (of elements, or of a tile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dims {
    pub rows: u64,
    pub cols: u64,
}

impl Dims {
    pub const fn new(rows: u64, cols: u64) -> Dims {
        Dims { rows, cols }
    }
    pub fn transposed(self) -> Dims {
        Dims::new(self.cols, self.rows)
    }
    pub fn len(self) -> u64 {
        self.rows * self.cols
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

/// The type of a block matrix: `f32[512x384, 128x128]` is a 512 by 384
/// matrix of `f32` cut into 128 by 128 tiles (smaller at the edges).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockTy {
    pub elem: ElemTy,
    pub shape: Dims,
    pub tile: Dims,
}

impl BlockTy {
    pub fn new(elem: ElemTy, shape: Dims, tile: Dims) -> BlockTy {
        BlockTy { elem, shape, tile }
    }

    pub fn f32(rows: u64, cols: u64, tile_rows: u64, tile_cols: u64) -> BlockTy {
        BlockTy::new(
            ElemTy::F32,
            Dims::new(rows, cols),
            Dims::new(tile_rows, tile_cols),
        )
    }

    /// Size in tiles (ragged edge tiles count).
    pub fn n_tiles(&self) -> Dims {
        Dims::new(
            self.shape.rows.div_ceil(self.tile.rows),
            self.shape.cols.div_ceil(self.tile.cols),
        )
    }

    /// The size of tile `(i, j)`: the tile size, or less at the edges.
    pub fn tile_dims(&self, i: u64, j: u64) -> Dims {
        Dims::new(
            self.tile.rows.min(self.shape.rows - i * self.tile.rows),
            self.tile.cols.min(self.shape.cols - j * self.tile.cols),
        )
    }

    pub fn transposed(&self) -> BlockTy {
        BlockTy::new(self.elem, self.shape.transposed(), self.tile.transposed())
    }

    /// Bytes of the whole matrix (4 per element).
    pub fn bytes(&self) -> u64 {
        self.shape.len() * 4
    }
}

impl fmt::Display for BlockTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}, {}]", self.elem.name(), self.shape, self.tile)
    }
}
