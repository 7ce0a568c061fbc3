//! Strong 2D index and size types, so a tile index is never mistaken for an element index.
//!
//! Naming follows the distribution seed: `Global*` refers to the whole matrix,
//! `Local*` to the part one rank stores, `Tile*` to one tile; `*Index` is a
//! position, `*Size` an extent. 1D components are all [`SizeType`].

use std::fmt;

/// The type of one component of every index and size.
pub type SizeType = usize;

macro_rules! coord2d {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name {
            row: SizeType,
            col: SizeType,
        }

        impl $name {
            pub const fn new(row: SizeType, col: SizeType) -> Self {
                Self { row, col }
            }
            pub const fn row(self) -> SizeType {
                self.row
            }
            pub const fn col(self) -> SizeType {
                self.col
            }
            /// The component along `axis`.
            pub const fn get(self, axis: Axis) -> SizeType {
                match axis {
                    Axis::Row => self.row,
                    Axis::Col => self.col,
                }
            }
            /// Rows and columns swapped.
            pub const fn transposed(self) -> Self {
                Self { row: self.col, col: self.row }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "({}, {})", self.row, self.col)
            }
        }
    };
}

macro_rules! size2d {
    ($(#[$doc:meta])* $name:ident) => {
        coord2d!($(#[$doc])* $name);

        impl $name {
            /// Number of elements (or tiles) covered: `rows * cols`.
            pub const fn linear_size(self) -> SizeType {
                self.row * self.col
            }
            pub const fn is_empty(self) -> bool {
                self.row == 0 || self.col == 0
            }
            /// `rows` (same as [`Self::row`], reads better on sizes).
            pub const fn rows(self) -> SizeType {
                self.row
            }
            pub const fn cols(self) -> SizeType {
                self.col
            }
        }
    };
}

/// One of the two matrix dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    Row,
    Col,
}

coord2d!(
    /// Index of an element in the global matrix.
    GlobalElementIndex
);
coord2d!(
    /// Index of an element in the local matrix of one rank.
    LocalElementIndex
);
coord2d!(
    /// Index of a tile in the global matrix.
    GlobalTileIndex
);
coord2d!(
    /// Index of a tile in the local matrix of one rank.
    LocalTileIndex
);
coord2d!(
    /// Index of an element inside one tile.
    TileElementIndex
);
coord2d!(
    /// Position of a rank in the `P x Q` grid.
    RankIndex2D
);
size2d!(
    /// Size of the global matrix in elements.
    GlobalElementSize
);
size2d!(
    /// Size of a rank's local matrix in elements.
    LocalElementSize
);
size2d!(
    /// Size of the global matrix in tiles.
    GlobalTileSize
);
size2d!(
    /// Size of a rank's local matrix in tiles.
    LocalTileSize
);
size2d!(
    /// Size of one tile (or of the distribution's block) in elements.
    TileElementSize
);
size2d!(
    /// Size of the rank grid: `P` rows by `Q` columns.
    GridSize
);

/// A rank's number in the communicator (row-major over the grid).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommunicatorRank(pub SizeType);

impl fmt::Display for CommunicatorRank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

impl GridSize {
    /// The communicator rank of a grid position (row-major ordering).
    pub fn rank_of(self, idx: RankIndex2D) -> CommunicatorRank {
        CommunicatorRank(idx.row() * self.cols() + idx.col())
    }

    /// The grid position of a communicator rank (row-major ordering).
    pub fn index_of(self, rank: CommunicatorRank) -> RankIndex2D {
        RankIndex2D::new(rank.0 / self.cols(), rank.0 % self.cols())
    }

    /// Every rank position, row-major.
    pub fn ranks(self) -> impl Iterator<Item = RankIndex2D> {
        let cols = self.cols();
        (0..self.linear_size()).map(move |r| RankIndex2D::new(r / cols, r % cols))
    }
}
