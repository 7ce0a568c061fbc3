//! What one block computes: its context (tile index and size), the panels it
//! reads and its TExpr kernel.

use super::build::read;
use super::view::TileMap;
use crate::air::{Dims, Reg};
use texpr_ir::{self as ir, Expr, Term, VecRef};

/// A block's kernel: a TExpr program, shared by every node that runs it.
pub type Kernel = std::sync::Arc<ir::Program>;

/// A block's context: its tile index and size, nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockContext {
    pub i: u64,
    pub j: u64,
    pub dims: Dims,
}

/// A rectangle of tiles of a global matrix, read as one column-major vector.
/// A rectangle of a view is the rectangle of the matrix it views (`src`,
/// never a view), read through `map`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panel {
    /// The kernel input's name.
    pub name: String,
    /// The register the op reads (a view, or `src` itself).
    pub via: Reg,
    pub src: Reg,
    /// Tile rows `rows.0..rows.1` and tile columns `cols.0..cols.1` of `src`.
    pub rows: (u64, u64),
    pub cols: (u64, u64),
    /// The panel's size in elements (of `src`'s rectangle, as stored).
    pub dims: Dims,
    /// How the kernel reads it (identity unless read through a view).
    pub map: TileMap,
}

impl Panel {
    /// The rectangle's size as the kernel sees it (transposed by the map).
    pub fn seen(&self) -> Dims {
        if self.map.transpose {
            self.dims.transposed()
        } else {
            self.dims
        }
    }

    /// Element `(i, j)` (as the kernel sees the rectangle) of the panel,
    /// which is the kernel's input `v`.
    pub fn at(&self, v: VecRef, i: Term, j: Term) -> Expr {
        read(v, self.map.term(self.seen(), i, j))
    }
}

/// What one block computes: a TExpr kernel over panels.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockBody {
    /// Inputs named as the panels, in order, and `output out`.
    pub kernel: Kernel,
    pub inputs: Vec<Panel>,
    /// Output length (`dims.rows * dims.cols`).
    pub out_len: u64,
}
