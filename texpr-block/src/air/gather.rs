//! Gathers: ops whose every element is one element of an operand, at a
//! place that does not follow the tiles (`concat_rows`, `concat_cols`,
//! `filter_rows`, `filter_cols`, `diag`, and a `slice` off tile
//! boundaries). Each is described the same way, as bands of the output
//! ([`Piece`]s) that each read one operand at a fixed offset, so the dense
//! evaluator, `--check`'s reference and the block bodies all read the same
//! element for every output element.

use super::ops::{Axis, Op, Range};
use super::program::Program;
use super::reg::Reg;

/// A band of a gather's output: the rows (or columns, along
/// [`Gather::axis`]) `lo..hi` read operand `part`, element `(i, j)` of the
/// output at row `i + dr` and column `j + dc` of the operand (`i + dc`
/// where `col_from_row`: a diagonal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub part: Reg,
    pub lo: u64,
    pub hi: u64,
    pub dr: i64,
    pub dc: i64,
    pub col_from_row: bool,
}

impl Piece {
    /// The operand's row and column read by output element `(i, j)`.
    pub fn source(&self, i: u64, j: u64) -> (u64, u64) {
        let col = if self.col_from_row { i } else { j };
        ((i as i64 + self.dr) as u64, (col as i64 + self.dc) as u64)
    }
}

/// A gather op as bands along one axis, in order, covering the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gather {
    pub axis: Axis,
    pub pieces: Vec<Piece>,
}

impl Gather {
    /// The band holding output element `(i, j)`.
    pub fn piece_at(&self, i: u64, j: u64) -> &Piece {
        let at = match self.axis {
            Axis::Rows => i,
            Axis::Cols => j,
        };
        self.pieces
            .iter()
            .find(|p| p.lo <= at && at < p.hi)
            .expect("the bands cover the output")
    }
}

/// Whether a slice's window falls on its operand's tile boundaries (a view
/// read in place), rather than cutting tiles (a gather).
pub fn slice_on_tiles(p: &Program, src: Reg, rows: Range, cols: Range) -> bool {
    let t = p.ty(src);
    let on = |r: Range, tile: u64, extent: u64| {
        r.start.is_multiple_of(tile) && (r.end.is_multiple_of(tile) || r.end == extent)
    };
    on(rows, t.tile.rows, t.shape.rows) && on(cols, t.tile.cols, t.shape.cols)
}

/// The bands of op `r` when it is a gather; `None` for every other op
/// (a slice on tile boundaries included: it is a view).
pub fn gather(p: &Program, r: Reg) -> Option<Gather> {
    let piece = |part, lo, hi, dr, dc| Piece {
        part,
        lo,
        hi,
        dr,
        dc,
        col_from_row: false,
    };
    let out = p.ty(r).shape;
    Some(match &p.inst(r).op {
        Op::Slice { src, rows, cols } if !slice_on_tiles(p, *src, *rows, *cols) => Gather {
            axis: Axis::Rows,
            pieces: vec![piece(
                *src,
                0,
                out.rows,
                rows.start as i64,
                cols.start as i64,
            )],
        },
        Op::Diag(src) => Gather {
            axis: Axis::Rows,
            pieces: vec![Piece {
                col_from_row: true,
                ..piece(*src, 0, out.rows, 0, 0)
            }],
        },
        Op::Concat { parts, axis } => {
            let mut at = 0u64;
            let pieces = parts
                .iter()
                .map(|&x| {
                    let s = p.ty(x).shape;
                    let n = match axis {
                        Axis::Rows => s.rows,
                        Axis::Cols => s.cols,
                    };
                    let off = -(at as i64);
                    let pc = match axis {
                        Axis::Rows => piece(x, at, at + n, off, 0),
                        Axis::Cols => piece(x, at, at + n, 0, off),
                    };
                    at += n;
                    pc
                })
                .collect();
            Gather {
                axis: *axis,
                pieces,
            }
        }
        Op::Filter { src, axis, keep } => {
            // One band per run of consecutive indices.
            let mut pieces: Vec<Piece> = Vec::new();
            for (t, &k) in keep.iter().enumerate() {
                let t = t as u64;
                let d = k as i64 - t as i64;
                let extends = pieces.last().is_some_and(|last| {
                    let last_d = match axis {
                        Axis::Rows => last.dr,
                        Axis::Cols => last.dc,
                    };
                    last.hi == t && last_d == d
                });
                if extends {
                    pieces.last_mut().expect("checked").hi = t + 1;
                } else {
                    pieces.push(match axis {
                        Axis::Rows => piece(*src, t, t + 1, d, 0),
                        Axis::Cols => piece(*src, t, t + 1, 0, d),
                    });
                }
            }
            Gather {
                axis: *axis,
                pieces,
            }
        }
        _ => return None,
    })
}
