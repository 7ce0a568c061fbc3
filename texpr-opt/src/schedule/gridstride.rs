//! `gridstride groups=G group=W [chunk=K] [width=D] [combine=C]` on a
//! scalar fold `F(reduce N |i| E)` (an arithmetic epilogue `F`, e.g. `mean
//! = sum / N`, or none): a device-sized grid of `G` workgroups of `W`
//! invocations (`S = G*W` in all) sweeps the input `T = N / (DS)` times,
//! each invocation taking `D` (4 or 8; 4 when not given) consecutive terms
//! (a quad) per sweep, and `K` consecutive quads before it strides over the
//! grid: invocation `v = g*W + l` takes quad `Q(t) = (t/K * S + v) * K +
//! t%K` in sweep `t`
//! (`K = 1`: `t*S + v`, neighbouring invocations on neighbouring quads, the
//! classic grid-stride loop GPUs coalesce; `K = T`: `v*T + t`, one
//! contiguous run per invocation, what llvmpipe streams fastest, 5-7x
//! faster than `K = 1` (docs/benchmark-history.md, *The preference tables*)):
//!
//! ```text
//! ITEM_partials = compute@grid G |g| COMBINE W |l|
//!   let@reg acc = reduce@thread T |t|
//!     let@reg q = compute@thread D |r| x[D*Q(t) + r] in
//!     compute@thread D |c| E[i := D*Q(t) + c, x[i] := q[c]]
//!   in reduce@thread D |c| acc[c]
//! ITEM = compute@grid 1 |g| compute@group 1 |l|
//!   F(op(reduce@thread P |p| ITEM_partials[p], reduce@thread R |j| E[i := DST + j]))
//! ```
//!
//! Every read `x[i]` of `E` is loaded once per sweep into a `D`-element
//! register tile `q` (code generation makes it one `vec4` load per four
//! where `x` is `f32` of a length divisible by 4, and one `vec4<u64>` for
//! eight under `loads=wide`) and the
//! accumulator `acc` holds `D` independent folds. `COMBINE` is the workgroup's combine as in
//! `multipass` (`serial`: every invocation writes its partial, `P = S`;
//! `tree` / `subgroup`: one partial per workgroup, `P = G`). The `R = N -
//! 4ST` terms no sweep covers are folded by the final invocation after the
//! partials, so any `N >= DS` works; a `max`/`min` fold starts from its
//! first term everywhere, so no identity is needed. The fold order differs
//! from the source's, like `multipass`'s.
//!
//! E0211 for a root of another shape, E0212 when `N < DS` or `K` does not
//! divide `T`, E0215 for
//! `combine=subgroup` without subgroups.

use super::data::Combine;
use super::fail::Fail;
use super::grid::{
    combine_two, compute_at, grid_over, index, lane, let_at, reduce_at, replace_equal, same_read,
};
use super::multipass::{combine_group, fold_partials, replace_node, subgroups_needed};
use super::shape;
use texpr_ir::build::read_local;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{add, constant, div, linear, mul, rem, var};
use texpr_ir::{Expr, ExprKind, Program, Ty, VarId, VarKind, VecRef};
use texpr_ir::{Level, MemLevel};
use texpr_target::Target;

/// The grid-stride fold's new root (the final pass) and the value of the
/// partials global it reads as global `at`.
pub fn gridstride(
    p: &mut Program,
    root: &Expr,
    ([groups, w, chunk, width], combine): ([u64; 4], Combine),
    target: &Target,
    at: u32,
) -> Result<(Expr, Expr), Fail> {
    subgroups_needed(combine, target)?;
    let fold = shape::fold(root)
        .filter(|f| f.body.ty.len == 1 && root.ty.len == 1)
        .ok_or_else(|| Fail::shape("`gridstride` needs a scalar item `F(reduce N |i| E)`"))?;
    let node = fold.reduce;
    let invocations = groups * w;
    let sweep = width * invocations;
    let n = fold.n;
    if n < sweep || n > i32::MAX as u64 || !(n / sweep).is_multiple_of(chunk) {
        return Err(Fail::sizes(format!(
            "{n} terms do not fill sweeps of {groups} x {w} invocations of {width} in chunks of {chunk}"
        )));
    }
    let span = root.span;
    let g = index(p, "g", groups, span);
    let l = index(p, "l", w, span);
    let partial = invocation_fold(p, &fold, (g, w, l), [invocations, chunk, width]);
    let group_e = combine_group(combine, fold.op, w, l, partial);
    let folded = match combine {
        Combine::Serial => invocations,
        Combine::Tree | Combine::Subgroup => groups,
    };
    let value = grid_over(p, g, groups, folded, folded, group_e);
    let mut last = fold_partials(p, (fold.op, folded, fold.body.ty), at, span);
    let covered = n / sweep * sweep;
    if covered < n {
        let j = index(p, "j", n - covered, span);
        let idx = add(var(j), constant(covered as i64));
        let term_j = subst_expr(p, fold.body, fold.var, &idx).with_thread_levels();
        let tail = reduce_at(Level::Thread, fold.op, n - covered, j, term_j).at(span);
        last = combine_two(p, fold.op, last, tail);
    }
    let finish = replace_node(root, node, &last).with_thread_levels();
    let g2 = index(p, "g", 1, span);
    let l2 = index(p, "l", 1, span);
    let new_root = grid_over(p, g2, 1, 1, 1, compute_at(Level::Group, 1, l2, finish));
    Ok((new_root, value))
}

/// One invocation's fold over its sweeps: `width` accumulators in
/// registers, each read of `x[i]` loaded as a `width`-element register tile
/// per sweep, then the accumulators folded.
fn invocation_fold(
    p: &mut Program,
    fold: &shape::Fold<'_>,
    (g, w, l): (VarId, u64, VarId),
    [invocations, chunk, width]: [u64; 3],
) -> Expr {
    let span = fold.body.span;
    let elem = fold.body.ty.elem;
    let sweeps = fold.n / (width * invocations);
    let t = index(p, "t", sweeps, span);
    let v = lane(g, w, l);
    let quad = match chunk {
        1 => add(mul(var(t), invocations), v),
        k if k == sweeps => linear(v, sweeps, var(t)),
        k => linear(add(mul(div(var(t), k), invocations), v), k, rem(var(t), k)),
    };
    let quad_at = |r: VarId| linear(quad.clone(), width, var(r));
    let c = index(p, "c", width, span);
    let mut body = fold.body.clone();
    let mut lets = Vec::new();
    for ld in unit_reads(fold.body, fold.var) {
        let r = index(p, "r", width, span);
        let one = subst_expr(p, &ld, fold.var, &quad_at(r)).with_thread_levels();
        let value = compute_at(Level::Thread, width, r, one).at(ld.span);
        let q = p.fresh_var("q", VarKind::Vector(value.ty), span);
        body = replace_equal(&body, &ld, &read_local(q, var(c), ld.ty.elem).at(ld.span));
        lets.push((q, value));
    }
    let term = subst_expr(p, &body, fold.var, &quad_at(c)).with_thread_levels();
    let mut step = compute_at(Level::Thread, width, c, term).at(span);
    for (q, value) in lets.into_iter().rev() {
        step = let_at(MemLevel::Reg, q, value, step).at(span);
    }
    let mut acc_val = reduce_at(Level::Thread, fold.op, sweeps, t, step).at(span);
    acc_val.ty = Ty::new(elem, width);
    let acc = p.fresh_var("acc", VarKind::Vector(acc_val.ty), span);
    let c2 = index(p, "c", width, span);
    let four = reduce_at(
        Level::Thread,
        fold.op,
        width,
        c2,
        read_local(acc, var(c2), elem).at(span),
    );
    let_at(MemLevel::Reg, acc, acc_val, four.at(span)).at(span)
}

/// The distinct reads `v[i]` of an input or global in `e`, in order.
fn unit_reads(e: &Expr, i: VarId) -> Vec<Expr> {
    let mut out: Vec<Expr> = Vec::new();
    e.walk(|x| {
        if let ExprKind::Index {
            vec: VecRef::Input(_) | VecRef::Global(_),
            index,
            guard: None,
        } = &x.kind
            && index.same(&var(i))
            && !out.iter().any(|o| same_read(o, x))
        {
            out.push(x.clone());
        }
    });
    out
}
