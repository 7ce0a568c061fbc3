//! The end of a tile: the epilogue and the layout.
//!
//! With a reduction, the rest of `S` is applied to every accumulator
//! (`compute@thread RI |ei| compute@thread RJ |ej| S[reduce := acc[ei*RJ+ej]]`
//! at the accumulator's row and column); without one, `S` is computed per
//! register element. The grid computes in block order
//! (`[batch][block row][block col][thread row][thread col][reg row][reg col]`)
//! while the result is row-major: the grid's map is the digit permutation
//! between the two, or its `M x N` corner when the blocks are padded
//! (padding is never written).

use super::super::grid::{compute_at, grid, let_at};
use super::blocks::Blocks;
use texpr_ir::build::read_local;
use texpr_ir::term::{linear, var};
use texpr_ir::{DigitPerm, Expr, IndexMap, Layout, MapKind, Padded, Program, Ty, VarKind};
use texpr_ir::{Level, MemLevel};

/// `let@reg acc = acc_val in` the epilogue of `reduce` on every accumulator.
pub fn accumulators(p: &mut Program, b: &Blocks, reduce: &Expr, acc_ty: Ty, acc_val: Expr) -> Expr {
    let acc = p.fresh_var("acc", VarKind::Vector(acc_ty), b.span);
    let (ei, ej) = (b.fresh(p, "ei", b.ri), b.fresh(p, "ej", b.rj));
    let index = linear(var(ei), b.rj, var(ej));
    let read = read_local(acc, index, reduce.ty.elem).at(reduce.span);
    let epi = replace(&b.s, reduce, &read);
    let epi = b.place(p, &epi, ei, ej);
    let_at(MemLevel::Reg, acc, acc_val, b.registers(ei, ej, &epi))
}

/// `S` at every register element: a tile without a reduction.
pub fn elementwise(p: &mut Program, b: &Blocks) -> Expr {
    let (ri, rj) = (b.fresh(p, "ri", b.ri), b.fresh(p, "rj", b.rj));
    let e = b.place(p, &b.s, ri, rj);
    b.registers(ri, rj, &e)
}

/// `e` with the node at address `target` replaced by `by`.
pub(crate) fn replace(e: &Expr, target: *const Expr, by: &Expr) -> Expr {
    if std::ptr::eq(e, target) {
        return by.clone();
    }
    e.map_children(|c| replace(c, target, by))
}

/// The grid root: `compute@grid B*GI*GJ {k -> LAYOUT} |g| compute@group W |l| body`.
pub fn grid_root(p: &mut Program, b: &Blocks, body: Expr, root: &Expr) -> Expr {
    let group_e = compute_at(Level::Group, b.w(), b.l, body);
    blocks_grid(p, b, group_e, root)
}

/// `compute@grid B*GI*GJ {k -> LAYOUT} |g| spine`, where `spine` computes
/// workgroup `g`'s block in block order (`compute@group W |l| body`, maybe
/// under `let@shared`s).
pub fn blocks_grid(p: &mut Program, b: &Blocks, spine: Expr, root: &Expr) -> Expr {
    let w = b.w();
    let (ri, rj, ti, tj, gi, gj, np) = (b.ri, b.rj, b.ti, b.tj, b.gi, b.gj, b.np);
    let perm = DigitPerm::new(&[
        (rj, 1, 1),
        (tj, rj, ri * rj),
        (gj, tj * rj, w * ri * rj),
        (ri, np, rj),
        (ti, np * ri, tj * ri * rj),
        (gi, np * ri * ti, gj * w * ri * rj),
        (b.batch, b.mp * np, gi * gj * w * ri * rj),
    ])
    .expect("a tile order is a digit permutation");
    let len = b.batch * b.m * b.n;
    let padded = (b.mp, np) != (b.m, b.n);
    let map = (padded || !perm.is_identity()).then(|| {
        let k = b.fresh(p, "k", len);
        let layout = match padded {
            true => Layout::Padded(Padded::new(b.m, b.n, np, perm).expect("a padded tile layout")),
            false => Layout::Digits(perm),
        };
        IndexMap {
            var: k,
            len,
            kind: MapKind::Layout(layout),
        }
    });
    grid(b.batch * gi * gj, b.g, map, spine, root.ty, b.span)
}
