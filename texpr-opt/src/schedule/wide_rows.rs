//! `wide_rows group=W` on `compute R |r| BODY`: one workgroup per row,
//! `compute@grid R {k -> PERM(k)} |g|` over `BODY[r := g]` where each scalar
//! `let v = V` of `BODY` is a `let@shared`, every reduction in `V` a
//! `let@shared part = reduce@group W |l| reduce@thread N/W |t| E[c := t*W+l]`
//! before it, and the final `compute C |c| F` is
//! `compute@group W |l| compute@thread C/W |t| F[c := t*W+l]` (neighbouring
//! invocations on neighbouring elements; `PERM`, a digit permutation, puts
//! element `t*W+l` back in place), or a final scalar reduction a
//! `reduce@group`. A vector `let v = V` (attention's row of scores) is a
//! `let@shared` of `V` at thread level, which the workgroup fills together
//! (element `j` by invocation `j % W`): computed once per row, read by
//! every later element of it (E0216 when the row's blocks do not fit the
//! device's workgroup memory).

use super::data::Combine;
use super::fail::Fail;
use super::grid::{compute_at, fits_shared, grid, index, interleaved_rows, let_at, reduce_at};
use super::multipass::{combine_group, subgroups_needed};
use super::rows::not_rows;
use super::shape;
use texpr_ir::build::read_local;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{constant, linear, var};
use texpr_ir::{Expr, ExprKind, Program, VarId, VarKind};
use texpr_ir::{Level, MemLevel};
use texpr_target::Target;

pub fn wide_rows(
    p: &mut Program,
    root: &Expr,
    (w, combine): (u64, Combine),
    target: &Target,
) -> Result<Expr, Fail> {
    if combine == Combine::Serial {
        return Err(Fail::shape(
            "`wide_rows` combines a row's folds by `tree` or `subgroup`, not `serial`",
        ));
    }
    subgroups_needed(combine, target)?;
    let shape::Rows {
        r: r_n,
        var: r,
        body,
    } = shape::rows(root).ok_or_else(|| not_rows("wide_rows"))?;
    let span = root.span;
    let g = index(p, "g", r_n, span);
    let row = subst_expr(p, body, r, &var(g));
    let l = index(p, "l", w, span);
    let (new_row, layout) = wide_body(p, &row, (w, combine), l)?;
    fits_shared(shared_bytes(&new_row), target)?;
    let len = root.ty.len;
    // The row's elements computed `[l][t]`, laid out `t*W + l`: a digit
    // permutation within each row.
    let map = layout.map(|per| interleaved_rows(p, (w, per, r_n), len, span));
    Ok(grid(r_n, g, map, new_row, root.ty, span))
}

/// One row of `wide_rows`: scalar `let`s become `let@shared`s (their
/// reductions workgroup trees), the final value a `compute@group` or
/// `reduce@group`. Returns the row and, when its elements are interleaved
/// across the invocations, the elements per invocation.
fn wide_body(
    p: &mut Program,
    e: &Expr,
    (w, combine): (u64, Combine),
    l: VarId,
) -> Result<(Expr, Option<u64>), Fail> {
    match &e.kind {
        ExprKind::Let {
            level: None,
            var: v,
            value,
            body,
        } if value.ty.len == 1 => {
            let mut lets = Vec::new();
            let value = split_reduces(p, value, (w, combine), l, &mut lets)?;
            let (rest, layout) = wide_body(p, body, (w, combine), l)?;
            let mut out = let_at(MemLevel::Shared, *v, value.with_thread_levels(), rest);
            for (tv, tval) in lets.into_iter().rev() {
                out = let_at(MemLevel::Shared, tv, tval, out);
            }
            Ok((out, layout))
        }
        ExprKind::Let {
            level: None,
            var: v,
            value,
            body,
        } => {
            let (rest, layout) = wide_body(p, body, (w, combine), l)?;
            Ok((
                let_at(MemLevel::Shared, *v, value.with_thread_levels(), rest),
                layout,
            ))
        }
        ExprKind::Compute {
            level: None,
            n,
            var: cv,
            map: None,
            body,
        } if n.is_multiple_of(w) => {
            let per = n / w;
            let t = index(p, "t", per, e.span);
            // Element `t*W + l`: neighbouring invocations on neighbouring
            // elements; the grid's index map puts it back in place.
            let b = subst_expr(p, body, *cv, &linear(var(t), w, var(l))).with_thread_levels();
            let inner = compute_at(Level::Thread, per, t, b);
            let layout = (per > 1 && w > 1).then_some(per);
            Ok((compute_at(Level::Group, w, l, inner), layout))
        }
        ExprKind::Reduce { level: None, .. } if e.ty.len == 1 => {
            Ok((group_reduce(p, e, (w, combine), l)?, None))
        }
        ExprKind::Compute { n, .. } | ExprKind::Reduce { n, .. } if !n.is_multiple_of(w) => Err(
            Fail::sizes(format!("{n} terms do not split across {w} invocations")),
        ),
        _ => Err(Fail::shape(
            "`wide_rows` needs a row of `let`s, then `compute C |c| E` or a scalar `reduce N |c| E`",
        )),
    }
}

/// Bytes of workgroup memory the `let@shared`s on a row's spine take.
fn shared_bytes(body: &Expr) -> u64 {
    let mut e = body;
    let mut elements = 0;
    while let ExprKind::Let { value, body, .. } = &e.kind {
        elements += value.ty.len;
        e = body;
    }
    elements * 4
}

/// `reduce N |c| E` (scalar) as `reduce@group W |l| reduce@thread N/W |t| E[c := t*W + l]`
/// (`reduce@subgroup` with `combine=subgroup`).
fn group_reduce(
    p: &mut Program,
    e: &Expr,
    (w, combine): (u64, Combine),
    l: VarId,
) -> Result<Expr, Fail> {
    let ExprKind::Reduce {
        op,
        n,
        var: cv,
        body,
        ..
    } = &e.kind
    else {
        unreachable!("group_reduce takes a reduce")
    };
    if !n.is_multiple_of(w) || body.ty.len != 1 {
        return Err(Fail::sizes(format!(
            "{n} terms do not split across {w} invocations"
        )));
    }
    let per = n / w;
    let t = index(p, "t", per, e.span);
    let b = subst_expr(p, body, *cv, &linear(var(t), w, var(l))).with_thread_levels();
    let inner = reduce_at(Level::Thread, *op, per, t, b).at(e.span);
    Ok(combine_group(combine, *op, w, l, inner).at(e.span))
}

/// `e` with each outermost scalar `reduce` replaced by a read of a new
/// `let@shared` holding its workgroup tree (pushed to `lets`, in order).
fn split_reduces(
    p: &mut Program,
    e: &Expr,
    w: (u64, Combine),
    l: VarId,
    lets: &mut Vec<(VarId, Expr)>,
) -> Result<Expr, Fail> {
    if let ExprKind::Reduce { .. } = &e.kind {
        let value = group_reduce(p, e, w, l)?;
        let v = p.fresh_var("part", VarKind::Vector(e.ty), e.span);
        lets.push((v, value));
        return Ok(read_local(v, constant(0), e.ty.elem).at(e.span));
    }
    e.try_map_children(|ch| split_reduces(p, ch, w, l, lets))
}
