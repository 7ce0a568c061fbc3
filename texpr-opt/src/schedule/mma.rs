//! `mma block=BMxBN group=W` on a contraction `compute M |i| compute N |j|
//! S`, `S` holding one `reduce + K |k| x * y` (`x` free of `j`, `y` free of
//! `i`; each maybe an `f16` widened by a cast): tensor cores.
//!
//! `compute@grid (M/BM)*(N/BN) {k -> LAYOUT} |g|
//!     let@mma acc = compute@thread BM |r| compute@thread BN |c| FOLD(i, j) in
//!     compute@group W |l| compute@thread E |e| S[FOLD := acc[l*E + e]]`
//! with `E = BM*BN/W`: workgroup `g` owns block `(g / (N/BN), g % (N/BN))`;
//! the `let@mma` is the block's folds, which code generation computes with
//! cooperative matrices (`mma.rs` there), and each invocation applies the
//! epilogue to `E` consecutive elements of the block (the grid's layout
//! places them). The block folds in the device's order (bounded).
//!
//! Blocks that overhang the result (`M` or `N` not a multiple of the block)
//! recompute an edge row or column, their indices wrapping `% M` (`% N`),
//! and the grid's padded layout never writes them.
//!
//! It fits where the target lists a square configuration for the operands'
//! and the fold's element types that divides `BM`, `BN` and `K` (E0218
//! otherwise, naming what is missing), `W` divides the block (E0212), and
//! the workgroup is whole subgroups of a fixed size (E0218).

use super::fail::Fail;
use super::grid::{compute_at, grid, index, let_at, wrapped};
use super::shape::{self, Tiled, single_reduce};
use super::tile::epilogue::replace;
use texpr_ir::build::read_local;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{add, div, linear, mul, rem, var};
use texpr_ir::{DigitPerm, Expr, IndexMap, Layout, MapKind, Padded, Products};
use texpr_ir::{Level, MemLevel, Program, Ty, VarKind};
use texpr_target::Target;

/// Whether `mma block=BMxBN group=W` fits contraction `t` on `target`:
/// its fold of products, or the coded reason it does not (the one rule the
/// strategy and the heuristic's offers read).
pub fn fits<'e>(
    t: &Tiled<'e>,
    [bm, bn]: [u64; 2],
    w: u64,
    target: &Target,
) -> Result<Products<'e>, Fail> {
    if t.batch.is_some() {
        return Err(Fail::shape(
            "`mma` needs an item `compute M |i| compute N |j| S` with a scalar `S`",
        ));
    }
    let fold = single_reduce(t.body)
        .ok_or_else(|| Fail::shape("`mma` needs `S` to hold one fold `reduce + K |k| x * y`"))?;
    let prods = fold.products().ok_or_else(|| {
        Fail::shape("`mma` needs `S`'s fold to be `reduce + K |k| x * y`, `x` and `y` of one type")
    })?;
    if prods.x.mentions(t.j) || prods.y.mentions(t.i) {
        return Err(Fail::shape(
            "`mma` needs `x` free of `j` and `y` free of `i` in `x * y`",
        ));
    }
    let (k, ab, cr) = (prods.k, prods.ab, prods.cr);
    if bm * bn % w != 0 {
        return Err(Fail::sizes(format!(
            "{w} invocations must divide the {bm}x{bn} block"
        )));
    }
    let (mp, np) = (t.m.next_multiple_of(bm), t.n.next_multiple_of(bn));
    if mp * np > i32::MAX as u64 / 3 {
        return Err(Fail::sizes(format!(
            "a {mp} x {np} padded result overflows i32 indices"
        )));
    }
    let list = &target.features.cooperative_matrix;
    if texpr_target::coop::square_config(list, ab.name(), cr.name(), &[bm, bn, k]).is_none() {
        return Err(Fail::new(
            "E0218",
            format!(
                "the target lists no cooperative-matrix configuration `8x8x8 {0}>{1}` or `16x16x16 {0}>{1}` dividing {bm}, {bn} and {k} (it lists: {2})",
                ab.name(),
                cr.name(),
                texpr_target::coop::format_list(list)
            ),
        ));
    }
    match target.features.subgroup_size {
        Some((lo, hi)) if lo == hi && w.is_multiple_of(u64::from(lo)) => Ok(prods),
        sizes => Err(Fail::new(
            "E0218",
            format!(
                "cooperative matrices need whole subgroups of a fixed size; {w} invocations on subgroups of {sizes:?}"
            ),
        )),
    }
}

pub fn mma(
    p: &mut Program,
    root: &Expr,
    block: [u64; 2],
    w: u64,
    target: &Target,
) -> Result<Expr, Fail> {
    let t = shape::tiled(root).ok_or_else(|| {
        Fail::shape("`mma` needs an item `compute M |i| compute N |j| S` with a scalar `S`")
    })?;
    let prods = fits(&t, block, w, target)?;
    let fold = single_reduce(t.body).expect("fits found it");
    let (bm, bn, cr) = (block[0], block[1], prods.cr);
    let span = root.span;
    // Blocks that overhang the result (padded to `mp x np`) recompute an
    // edge row or column (indices wrap) and are never written.
    let (gi, gj) = (t.m.div_ceil(bm), t.n.div_ceil(bn));
    let (mp, np) = (gi * bm, gj * bn);
    let e_len = bm * bn / w;
    let g = index(p, "g", gi * gj, span);
    let (r, c) = (index(p, "r", bm, span), index(p, "c", bn, span));
    let (l, e) = (index(p, "l", w, span), index(p, "e", e_len, span));
    // Row `i` and column `j` of block element (rr, cc).
    let row = |rr| wrapped(add(mul(div(var(g), gj), bm), rr), t.m, mp);
    let col = |cc| wrapped(add(mul(rem(var(g), gj), bn), cc), t.n, np);
    let folds = subst_expr(p, fold, t.i, &row(var(r)));
    let folds = subst_expr(p, &folds, t.j, &col(var(c)));
    let acc_value = compute_at(
        Level::Thread,
        bm,
        r,
        compute_at(Level::Thread, bn, c, folds.with_thread_levels()),
    );
    let acc = p.fresh_var("acc", VarKind::Vector(Ty::new(cr, bm * bn)), span);
    let q = linear(var(l), e_len, var(e));
    let epi = replace(t.body, fold, &read_local(acc, q.clone(), cr).at(fold.span));
    let epi = subst_expr(p, &epi, t.i, &row(div(q.clone(), bn)));
    let epi = subst_expr(p, &epi, t.j, &col(rem(q, bn)));
    let invocations = compute_at(
        Level::Group,
        w,
        l,
        compute_at(Level::Thread, e_len, e, epi.with_thread_levels()),
    );
    let spine = let_at(MemLevel::Mma, acc, acc_value, invocations);
    let perm = DigitPerm::new(&[
        (bn, 1, 1),
        (gj, bn, bm * bn),
        (bm, np, bn),
        (gi, np * bm, bm * bn * gj),
    ])
    .expect("the blocks' order is a digit permutation");
    let len = t.m * t.n;
    let padded = (mp, np) != (t.m, t.n);
    let map = (padded || !perm.is_identity()).then(|| IndexMap {
        var: index(p, "k", len, span),
        len,
        kind: MapKind::Layout(match padded {
            true => Layout::Padded(Padded::new(t.m, t.n, np, perm).expect("a padded block layout")),
            false => Layout::Digits(perm),
        }),
    });
    Ok(grid(gi * gj, g, map, spine, root.ty, span))
}
