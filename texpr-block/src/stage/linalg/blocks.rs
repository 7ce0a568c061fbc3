//! How the tile kernels, and the dense reference after them, go through a
//! factor's columns (or a solve's rows): by blocks of at most [`BLOCK`],
//! each diagonal tile's own, so that every element is a sum of the same
//! terms in both.

use crate::stage::build::{add, at, int, mul, tadd, tc, tmul, tv};
use texpr_ir::{Expr, Term, VarId};

/// The widest block of columns (or rows) the tile kernels factor or
/// invert in one loop.
pub const BLOCK: u64 = 32;

/// Columns `first..first + cols` of a factor, found by blocks of `w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    pub first: u64,
    pub cols: u64,
    pub w: u64,
}

impl Columns {
    /// The first column of step `g`'s block, as an index term.
    pub(super) fn start(&self, g: VarId) -> Term {
        let gw = tmul(tv(g), tc(self.w as i64));
        if self.first == 0 {
            gw
        } else {
            tadd(tc(self.first as i64), gw)
        }
    }

    /// The first column of step `g`'s block, as a value.
    pub(super) fn start_value(&self, g: VarId) -> Expr {
        let gw = mul(at(g), int(self.w));
        if self.first == 0 {
            gw
        } else {
            add(int(self.first), gw)
        }
    }

    /// Whether some block has columns before it (to subtract).
    pub(super) fn has_before(&self) -> bool {
        self.first > 0 || self.cols > self.w
    }
}

/// The blocks of a diagonal tile of order `n`: of [`BLOCK`] columns, the
/// last one ragged (all of them when `n` is at most [`BLOCK`]).
pub fn tile_blocks(n: u64) -> Vec<Columns> {
    let full = n / BLOCK * BLOCK;
    let mut out = Vec::new();
    if full > 0 {
        out.push(Columns {
            first: 0,
            cols: full,
            w: BLOCK,
        });
    }
    if n > full {
        out.push(Columns {
            first: full,
            cols: n - full,
            w: n - full,
        });
    }
    out
}

/// The blocks of tiles of orders `tiles`, one after another (each tile's
/// [`tile_blocks`]), runs of blocks of one width as one.
fn blocks_of(tiles: impl Iterator<Item = u64>) -> Vec<Columns> {
    let mut out: Vec<Columns> = Vec::new();
    let mut first = 0;
    for n in tiles {
        for c in tile_blocks(n) {
            let c = Columns {
                first: first + c.first,
                ..c
            };
            match out.last_mut() {
                Some(last) if last.w == c.w => last.cols += c.cols,
                _ => out.push(c),
            }
        }
        first += n;
    }
    out
}

/// The order of each tile of a matrix of order `n` in tiles of `t`.
fn tile_orders(n: u64, t: u64) -> Vec<u64> {
    (0..n.div_ceil(t.max(1)))
        .map(|k| t.min(n - k * t))
        .collect()
}

/// How the dense reference finds the factor of order `n` in tiles of `t`:
/// by the blocks the tile tasks use ([`tile_blocks`] of each column tile).
pub fn factor_columns(n: u64, t: u64) -> Vec<Columns> {
    blocks_of(tile_orders(n, t).into_iter())
}

/// How the dense reference solves against a triangular matrix of order `n`
/// in tiles of `t`: by the blocks of rows the tile tasks use, in the order
/// they visit them (from the last row for an upper one, rows reversed).
pub fn solve_rows(n: u64, t: u64, upper: bool) -> Vec<Columns> {
    let mut tiles = tile_orders(n, t);
    if upper {
        tiles.reverse();
    }
    blocks_of(tiles.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(parts: &[(u64, u64, u64)]) -> Vec<Columns> {
        parts
            .iter()
            .map(|&(first, cols, w)| Columns { first, cols, w })
            .collect()
    }

    #[test]
    fn the_reference_goes_by_the_tile_kernels_blocks() {
        // Tiles of 256: one run of blocks of 32.
        assert_eq!(factor_columns(4096, 256), cols(&[(0, 4096, 32)]));
        // Tiles of 72 (blocks 32, 32, 8) and a last tile of 6.
        let tiles = cols(&[
            (0, 64, 32),
            (64, 8, 8),
            (72, 64, 32),
            (136, 8, 8),
            (144, 6, 6),
        ]);
        assert_eq!(factor_columns(150, 72), tiles);
        assert_eq!(solve_rows(150, 72, false), tiles);
        // An upper solve visits the tiles from the last, rows reversed.
        assert_eq!(
            solve_rows(150, 72, true),
            cols(&[
                (0, 6, 6),
                (6, 64, 32),
                (70, 8, 8),
                (78, 64, 32),
                (142, 8, 8)
            ])
        );
        // Tiles of at most 32: one block each.
        assert_eq!(factor_columns(24, 5), cols(&[(0, 20, 5), (20, 4, 4)]));
    }
}
