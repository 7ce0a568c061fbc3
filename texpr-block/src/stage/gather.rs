//! Block bodies of gathers (`concat_*`, `filter_*`, `diag`, a slice off
//! tile boundaries): each output tile reads, for each band of the gather
//! that crosses it (`air::gather`), the rectangle of tiles of the band's
//! operand that holds its elements, at a fixed offset.
//!
//! A band whose elements straddle tiles of its operand reads a panel of
//! those tiles (a concatenation the graph reifies like a matmul's panel);
//! a tile crossed by several bands picks each element's band by `select`
//! on the band variable, each band's read guarded (`else 0.0`).

use super::body::{BlockBody, BlockContext, Panel};
use super::build::{Body, offset, tv};
use super::expr::{Band, bands};
use super::kernel::{input, panel, tile_body};
use crate::air::gather::Gather;
use crate::air::{Axis, Program, Reg};
use texpr_ir::{Expr, VarId};

/// The body of block `ctx` of gather `reg`, whose bands are `g`.
pub fn body(p: &Program, reg: Reg, g: &Gather, ctx: &BlockContext) -> BlockBody {
    let mut s = Body::default();
    let ij = s.tile_vars(ctx.dims);
    let (panels, expr) = reads(p, reg, g, ctx, ij);
    tile_body(s, panels, ctx.dims, ij, expr)
}

/// The panels and the element expression (over `i`, `j`) of block `ctx`.
fn reads(
    p: &Program,
    reg: Reg,
    g: &Gather,
    ctx: &BlockContext,
    (i, j): (VarId, VarId),
) -> (Vec<Panel>, Expr) {
    let t = p.ty(reg).tile;
    let (r0, c0) = (ctx.i * t.rows, ctx.j * t.cols);
    let (rows, cols) = (r0..r0 + ctx.dims.rows, c0..c0 + ctx.dims.cols);
    let (var, band) = match g.axis {
        Axis::Rows => (i, rows.clone()),
        Axis::Cols => (j, cols.clone()),
    };
    let mut panels = Vec::new();
    let mut reads = Vec::new();
    for pc in &g.pieces {
        let (lo, hi) = (pc.lo.max(band.start), pc.hi.min(band.end));
        if lo >= hi {
            continue;
        }
        // The output rows and columns this band writes in the tile.
        let (out_rows, out_cols) = match g.axis {
            Axis::Rows => (lo..hi, cols.clone()),
            Axis::Cols => (rows.clone(), lo..hi),
        };
        let src_rows = shift(&out_rows, pc.dr);
        let src_cols = if pc.col_from_row {
            shift(&out_rows, pc.dc)
        } else {
            shift(&out_cols, pc.dc)
        };
        let pt = p.ty(pc.part).tile;
        let tiles = |r: &std::ops::Range<u64>, tile: u64| (r.start / tile, r.end.div_ceil(tile));
        let (trows, tcols) = (tiles(&src_rows, pt.rows), tiles(&src_cols, pt.cols));
        let pn = panel(p, &format!("x{}", panels.len()), pc.part, trows, tcols);
        // Local (i, j) of the tile to the row and column of the panel (as
        // the operand sees it: `at` maps through a view's index map).
        let (pr0, pc0) = ((trows.0 * pt.rows) as i64, (tcols.0 * pt.cols) as i64);
        let row = offset(tv(i), r0 as i64 + pc.dr - pr0);
        let col = if pc.col_from_row {
            offset(tv(i), r0 as i64 + pc.dc - pc0)
        } else {
            offset(tv(j), c0 as i64 + pc.dc - pc0)
        };
        reads.push(Band {
            hi: hi - band.start,
            vec: input(panels.len()),
            index: pn.map.term(pn.seen(), row, col),
        });
        panels.push(pn);
    }
    (panels, bands(var, &reads))
}

fn shift(r: &std::ops::Range<u64>, d: i64) -> std::ops::Range<u64> {
    (r.start as i64 + d) as u64..(r.end as i64 + d) as u64
}
