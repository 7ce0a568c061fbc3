//! Views read in place: a rectangle of tiles of a view register (`transpose`,
//! `slice`, `reverse`, and chains of them) as a rectangle of tiles of the
//! matrix it views, read through an index map.
//!
//! A slice only shifts tile indices (it is on tile boundaries); a transpose
//! and a reversal (of whole tiles) map a rectangle of tiles to a rectangle of
//! tiles of the viewed matrix, whose elements are read through a
//! [`TileMap`]. Block bodies read views this way, so no view is ever copied
//! to be read: the kernel's index expression does the work.

use super::build::{cm, tc, tsub};
use crate::air::{Dims, Op, Program, Reg};
use std::fmt;
use texpr_ir::Term;

/// How element `(i, j)` of a view's rectangle (`r x c` as the view sees it)
/// is found in the viewed rectangle, column-major: reversed first (in the
/// view's coordinates), then transposed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileMap {
    pub transpose: bool,
    pub rev_rows: bool,
    pub rev_cols: bool,
}

impl TileMap {
    pub fn is_identity(&self) -> bool {
        *self == TileMap::default()
    }

    /// The map of a transpose of a view read with `self`.
    fn transposed(self) -> TileMap {
        TileMap {
            transpose: !self.transpose,
            rev_rows: self.rev_cols,
            rev_cols: self.rev_rows,
        }
    }

    /// The map of a reversal of a view read with `self`.
    fn reversed(self, rows: bool, cols: bool) -> TileMap {
        TileMap {
            rev_rows: self.rev_rows ^ rows,
            rev_cols: self.rev_cols ^ cols,
            ..self
        }
    }

    /// The column-major offset, in the viewed rectangle, of element
    /// `(i, j)` of a view rectangle of `dims` (as the view sees it).
    pub fn offset(&self, dims: Dims, i: u64, j: u64) -> u64 {
        let i = if self.rev_rows { dims.rows - 1 - i } else { i };
        let j = if self.rev_cols { dims.cols - 1 - j } else { j };
        if self.transpose {
            j + i * dims.cols
        } else {
            i + j * dims.rows
        }
    }

    /// The same offset as an index term over `i` and `j` (a view
    /// rectangle of `dims`).
    pub fn term(&self, dims: Dims, i: Term, j: Term) -> Term {
        let flip = |on: bool, v: Term, n: u64| {
            if on && n > 1 {
                tsub(tc(n as i64 - 1), v)
            } else if on {
                tc(0)
            } else {
                v
            }
        };
        let (a, b) = (
            flip(self.rev_rows, i, dims.rows),
            flip(self.rev_cols, j, dims.cols),
        );
        if self.transpose {
            cm(b, a, dims.cols)
        } else {
            cm(a, b, dims.rows)
        }
    }

    /// The view's rectangle (`dims` as the view sees it), column-major, from
    /// the viewed rectangle's data.
    pub fn apply(&self, dims: Dims, data: &[f32]) -> Vec<f32> {
        let mut out = Vec::with_capacity(data.len());
        for j in 0..dims.cols {
            for i in 0..dims.rows {
                out.push(data[self.offset(dims, i, j) as usize]);
            }
        }
        out
    }
}

impl fmt::Display for TileMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<&str> = [
            (self.transpose, "transposed"),
            (self.rev_rows, "rows reversed"),
            (self.rev_cols, "columns reversed"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
        write!(f, "{}", parts.join(", "))
    }
}

/// Tile rows `rows` and tile columns `cols` of `reg`, found in the matrix
/// it views: the viewed register (never a view), its tile rows and
/// columns, and the map to read them with.
pub fn resolve(
    p: &Program,
    reg: Reg,
    rows: (u64, u64),
    cols: (u64, u64),
) -> (Reg, (u64, u64), (u64, u64), TileMap) {
    match &p.inst(reg).op {
        Op::Transpose(src) => {
            let (b, r, c, m) = resolve(p, *src, cols, rows);
            (b, r, c, m.transposed())
        }
        Op::Slice {
            src,
            rows: er,
            cols: ec,
        } if is_view(p, reg) => {
            let t = p.ty(*src).tile;
            let (dr, dc) = (er.start / t.rows, ec.start / t.cols);
            resolve(
                p,
                *src,
                (rows.0 + dr, rows.1 + dr),
                (cols.0 + dc, cols.1 + dc),
            )
        }
        Op::Reverse(flip, src) => {
            let n = p.ty(*src).n_tiles();
            let back = |(a, b): (u64, u64), total: u64, on: bool| {
                if on { (total - b, total - a) } else { (a, b) }
            };
            let (b, r, c, m) = resolve(
                p,
                *src,
                back(rows, n.rows, flip.rows()),
                back(cols, n.cols, flip.cols()),
            );
            (b, r, c, m.reversed(flip.rows(), flip.cols()))
        }
        _ => (reg, rows, cols, TileMap::default()),
    }
}

/// Whether `reg` is a view (computes nothing; read in place): a transpose,
/// a reverse, or a slice on tile boundaries (one off them is a gather).
pub fn is_view(p: &Program, reg: Reg) -> bool {
    match p.inst(reg).op {
        Op::Transpose(_) | Op::Reverse(..) => true,
        Op::Slice { src, rows, cols } => crate::air::gather::slice_on_tiles(p, src, rows, cols),
        _ => false,
    }
}

/// The views between `reg` and the matrix it views, outermost first.
pub fn chain(p: &Program, mut reg: Reg) -> Vec<Reg> {
    let mut out = Vec::new();
    while is_view(p, reg) {
        out.push(reg);
        reg = p.inst(reg).op.args()[0];
    }
    out
}
