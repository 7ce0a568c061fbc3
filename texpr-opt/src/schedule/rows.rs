//! `rows group=W` on `compute R |r| BODY`: one invocation per row (all of
//! `BODY`, its reductions and their epilogue in one invocation), `W` rows a
//! workgroup:
//! `compute@grid G {k < L -> k} |g| compute@group W |l| BODY[r := (g*W+l) % R]`
//! at thread level (the map and `% R` only when `G*W != R`).

use super::fail::Fail;
use super::grid::{compute_at, grid_over, index, lane, wrapped};
use super::shape;
use texpr_ir::Level;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::{Expr, Program};

pub fn rows(p: &mut Program, root: &Expr, w: u64) -> Result<Expr, Fail> {
    let shape::Rows {
        r: r_n,
        var: r,
        body,
    } = shape::rows(root).ok_or_else(|| not_rows("rows"))?;
    let w = w.min(r_n);
    let g_n = r_n.div_ceil(w);
    let raw_rows = g_n * w;
    if raw_rows * body.ty.len > i32::MAX as u64 {
        return Err(Fail::sizes("padded rows overflow i32 indices"));
    }
    let span = root.span;
    let g = index(p, "g", g_n, span);
    let l = index(p, "l", w, span);
    let idx = wrapped(lane(g, w, l), r_n, raw_rows);
    let row = subst_expr(p, body, r, &idx).with_thread_levels();
    let group = compute_at(Level::Group, w, l, row);
    Ok(grid_over(
        p,
        g,
        g_n,
        root.ty.len,
        raw_rows * body.ty.len,
        group,
    ))
}

/// E0211 for a row strategy on an item that is not `compute R |r| BODY`.
pub fn not_rows(strategy: &str) -> Fail {
    Fail::shape(format!(
        "`{strategy}` needs an item `compute R |r| BODY` without an index map"
    ))
}
