//! `multipass parts=P group=W [combine=C]` on `reduce N |i| E`: `P` partial
//! folds of `N/P` terms each, one per invocation, each reading a contiguous
//! run (measured on llvmpipe, 2x faster than interleaving neighbouring
//! invocations), written to a new global; the item folds the partials.
//! - `combine=serial`: `ITEM_partials = compute@grid P/W |g| compute@group W |l| reduce@thread N/P |t| E[i := (g*W+l)*(N/P)+t]`
//!   and the item is one invocation folding the `P` partials;
//! - `combine=tree` (resp. `subgroup`): each workgroup combines its
//!   invocations' folds, `ITEM_partials = compute@grid P/W |g| reduce@group W |l| ...`
//!   (resp. `reduce@subgroup`), and the item folds the `P/W` partials; when
//!   `P == W` there is no partials global: the item is
//!   `compute@grid 1 |g| reduce@group W |l| ...` itself.
//!
//! Under an epilogue (`F(reduce N |i| E)`, see [`shape::Fold`]) the item
//! always has a partials global, and its one invocation applies `F` to the
//! fold of the partials. A vector body (`E` of `m` elements) is folded
//! element by element: `m` partials per part, the item folding each
//! element's.
//!
//! E0215 for `combine=subgroup` on a device without subgroups.

use super::data::Combine;
use super::fail::Fail;
use super::grid::{compute_at, grid_over, index, lane, reduce_at};
use super::shape;
use texpr_ir::Span;
use texpr_ir::build::read_of;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{add, linear, mul, var};
use texpr_ir::{Expr, Program, Ty, VarId, VecRef};
use texpr_ir::{Level, ReduceOp};
use texpr_target::Target;

/// A multi-pass reduction's new root and, unless one workgroup combines
/// everything, the value of the partials global it reads as global `at`.
pub fn multipass(
    p: &mut Program,
    root: &Expr,
    (parts, w, combine): (u64, u64, Combine),
    target: &Target,
    at: u32,
) -> Result<(Expr, Option<Expr>), Fail> {
    subgroups_needed(combine, target)?;
    let fold = shape::fold(root).ok_or_else(|| {
        Fail::shape("`multipass` needs an item `reduce N |i| E` (or an epilogue of one)")
    })?;
    let shape::Fold {
        op,
        n,
        var: i,
        body,
        ..
    } = fold;
    if !n.is_multiple_of(parts) || !parts.is_multiple_of(w) {
        return Err(Fail::sizes(format!(
            "{n} terms do not split into {parts} parts in groups of {w}"
        )));
    }
    let per = n / parts;
    let m = body.ty.len;
    if parts * m > i32::MAX as u64 {
        return Err(Fail::sizes("too many partial results for i32 indices"));
    }
    // Partials the item folds: one per invocation, or one per workgroup.
    let folded = match combine {
        Combine::Serial => parts,
        Combine::Tree | Combine::Subgroup => parts / w,
    };
    let span = root.span;
    let g_n = parts / w;
    let g = index(p, "g", g_n, span);
    let l = index(p, "l", w, span);
    let t = index(p, "t", per, span);
    let idx = add(mul(lane(g, w, l), per), var(t));
    let term_e = subst_expr(p, body, i, &idx).with_thread_levels();
    let partial = reduce_at(Level::Thread, op, per, t, term_e).at(span);
    let group_e = combine_group(combine, op, w, l, partial);
    if combine != Combine::Serial && folded == 1 && !fold.has_epilogue(root) {
        // One workgroup combines everything: no partials global.
        return Ok((grid_over(p, g, 1, m, m, group_e), None));
    }
    let value = grid_over(p, g, g_n, folded * m, folded * m, group_e);
    // The fold of the partials: one invocation.
    let total = fold_partials(p, (op, folded, body.ty), at, span);
    // The epilogue, if any, around the fold of the partials.
    let last = replace_node(root, fold.reduce, &total).with_thread_levels();
    let g2 = index(p, "g", 1, span);
    let l2 = index(p, "l", 1, span);
    let new_root = grid_over(p, g2, 1, m, m, compute_at(Level::Group, 1, l2, last));
    Ok((new_root, Some(value)))
}

/// `e` with the node `old` (found by address) replaced by `new`.
pub fn replace_node(e: &Expr, old: &Expr, new: &Expr) -> Expr {
    match std::ptr::eq(e, old) {
        true => new.clone(),
        false => e.map_children(|c| replace_node(c, old, new)),
    }
}

/// `reduce@thread op P |q| G[q]` over the `P` partials (each of type `ty`)
/// of global `at`: what the second kernel of a multi-pass fold computes.
pub fn fold_partials(
    p: &mut Program,
    (op, folded, ty): (ReduceOp, u64, Ty),
    at: u32,
    span: Span,
) -> Expr {
    let m = ty.len;
    let q = index(p, "q", folded, span);
    let partials = VecRef::Global(at);
    let term_q = match m {
        1 => read_of(partials, var(q), ty.elem).at(span),
        _ => {
            let e = index(p, "e", m, span);
            let r = read_of(partials, linear(var(q), m, var(e)), ty.elem).at(span);
            compute_at(Level::Thread, m, e, r)
        }
    };
    reduce_at(Level::Thread, op, folded, q, term_q).at(span)
}

/// E0215 for `combine=subgroup` on a device without subgroups.
pub fn subgroups_needed(combine: Combine, target: &Target) -> Result<(), Fail> {
    match combine == Combine::Subgroup && !target.subgroups() {
        true => Err(Fail::new(
            "E0215",
            "`combine=subgroup` needs subgroup operations, which this device does not have",
        )),
        false => Ok(()),
    }
}

/// A workgroup of `w` invocations (`l`) each folding `partial`, combined
/// as `combine` says: their partials side by side (`serial`) or one fold
/// by a workgroup tree or by subgroups.
pub fn combine_group(combine: Combine, op: ReduceOp, w: u64, l: VarId, partial: Expr) -> Expr {
    match combine {
        Combine::Serial => compute_at(Level::Group, w, l, partial),
        Combine::Tree => reduce_at(Level::Group, op, w, l, partial),
        Combine::Subgroup => reduce_at(Level::Subgroup, op, w, l, partial),
    }
}
