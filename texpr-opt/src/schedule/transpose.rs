//! `transpose tile=T rows=R` on a 2D elementwise item read transposed
//! ([`shape::Transposed`]: element `(i, j)` of the `M x N` row-major result reads
//! some `x[j*S + i]`, unit stride along the result's rows):
//!
//! ```text
//! compute@grid GI*GJ {k -> LAYOUT} |g|
//!     let@shared tile = compute@thread T*(T+1) |x| x[READ at row (x % (T+1)) % T, column x / (T+1) of g's block] in
//!     compute@group R*T |l| compute@thread T/R |ri| compute@thread 1 |rj|
//!         S[READ := tile[(l % T)*(T+1) + (l / T)*(T/R) + ri]] at row (l / T)*(T/R) + ri, column l % T
//! ```
//!
//! A workgroup of `R x T` invocations per `T x T` block of the result
//! ([`Blocks`] with `group = RxT`, `reg = (T/R)x1`). Each transposed read's
//! block is a `let@shared` of `T` input rows of `T + 1` elements: the fill's
//! neighbouring elements are neighbouring input addresses (the read's unit
//! stride), the extra element of each row re-reads its first (`% T`) and
//! pads the rows so that the invocations reading one column of it (the
//! result's row) fall in different banks. After the barrier invocation `l`
//! computes column `l % T` of `T/R` rows of the block: neighbouring
//! invocations write neighbouring output addresses. Reads of `S` that are
//! not transposed are read where the element is computed. The grid's
//! layout is the tile's ([`epilogue::blocks_grid`]): blocks that overhang
//! `M` or `N` are padded (their reads wrap, padding is never written).
//! Bit for bit the source's result: every element is computed as `S` is.
//!
//! E0211 for another shape, E0212 when `R` does not divide `T` (or `T < 2`)
//! or the padded result overflows `i32` indices, E0216 when the staged
//! blocks exceed the device's workgroup memory.

use super::fail::Fail;
use super::grid::{compute_at, fits_shared, let_at, replace_equal};
use super::shape;
use super::tile::blocks::Blocks;
use super::tile::epilogue;
use texpr_ir::build::read_local;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{add, div, mul, rem, var};
use texpr_ir::{Expr, Program, Term, VarId, VarKind};
use texpr_ir::{Level, MemLevel};
use texpr_target::Target;

pub fn transpose(
    p: &mut Program,
    root: &Expr,
    tile: u64,
    rows: u64,
    target: &Target,
) -> Result<Expr, Fail> {
    let t = shape::transposed(root).ok_or_else(|| {
        Fail::shape(
            "`transpose` needs a 2D item `compute M |i| compute N |j| S` (or `compute N {k -> (k % N) * M + k / N} |j| compute M |i| S`) with an elementwise `S` that reads some vector with unit stride along `i` and another stride along `j`",
        )
    })?;
    if tile < 2 || !tile.is_multiple_of(rows) {
        return Err(Fail::sizes(format!(
            "a tile of {tile} x {tile} does not divide into {rows} rows of invocations (tile >= 2, rows dividing it)"
        )));
    }
    let stride = tile + 1;
    fits_shared(t.reads.len() as u64 * tile * stride * 4, target)?;
    let b = Blocks::new(p, root.span, &t.tiled, [rows, tile], [tile / rows, 1])?;
    let (ri, rj) = (b.fresh(p, "ri", b.ri), b.fresh(p, "rj", b.rj));
    // Invocation `l`'s register `ri` is row `(l / T)*(T/R) + ri` and column
    // `l % T` of the block: staged at column-of-result * (T+1) + row.
    let row = add(mul(div(var(b.l), tile), b.ri), var(ri));
    let at = add(mul(rem(var(b.l), tile), stride), row);
    let mut s = b.s.clone();
    let mut staged: Vec<(VarId, Expr)> = Vec::new();
    for read in &t.reads {
        let (v, value) = stage(p, &b, read, tile);
        s = replace_equal(
            &s,
            read,
            &read_local(v, at.clone(), read.ty.elem).at(read.span),
        );
        staged.push((v, value));
    }
    let e = b.place(p, &s, ri, rj);
    let mut spine = compute_at(Level::Group, b.w(), b.l, b.registers(ri, rj, &e));
    for (v, value) in staged.into_iter().rev() {
        spine = let_at(MemLevel::Shared, v, value, spine);
    }
    Ok(epilogue::blocks_grid(p, &b, spine, root))
}

/// The `let@shared` variable and value holding workgroup `g`'s block of
/// `read`: element `x` is the read at the block's row `(x % (T+1)) % T`
/// and column `x / (T+1)`.
fn stage(p: &mut Program, b: &Blocks, read: &Expr, tile: u64) -> (VarId, Expr) {
    let stride = tile + 1;
    let x = b.fresh(p, "x", tile * stride);
    let row: Term = b.block_at(true, rem(rem(var(x), stride), tile));
    let col: Term = b.block_at(false, div(var(x), stride));
    let e = subst_expr(p, read, b.i, &row);
    let e = subst_expr(p, &e, b.j, &col);
    let value = compute_at(Level::Thread, tile * stride, x, e.with_thread_levels());
    let v = p.fresh_var("tile", VarKind::Vector(value.ty), read.span);
    (v, value)
}
