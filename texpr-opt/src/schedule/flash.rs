//! `flash group=W split=P` on a row `compute R |r| BODY` whose `BODY` is
//! `let`s, then `compute C |c| G(reduce T |j| E)`: attention after
//! `shift_lse`,
//! `let s = compute T |j| S in let m = reduce lse T |j| s[j] in
//! compute D |d| reduce T |j| exp(s[j] - m) * v[j*D + d]`. The row streams
//! over its keys, as flash attention does:
//! - each vector `let` (the row of scores) is recomputed where it is read
//!   ([`replace_reads`]) instead of stored, so no row-long array exists;
//! - each scalar `let` is a `let@reg` (the log-sum-exp an online fold over
//!   the keys, one pass);
//! - the final compute and its fold are interchanged, the columns becoming
//!   the fold's vector accumulator:
//!   `let@reg acc = reduce@thread T |j| let@reg h = H in
//!   compute@thread C/P |t| E[c := t*P + p]`, where each `H` is a maximal
//!   subexpression of `E` that does not depend on the column (the score and
//!   its exponential, computed once per key instead of once per column);
//!   then `compute@thread C/P |t| G[reduce := acc[t]]`.
//!
//! `W/P` rows a workgroup, `P` invocations a row (`l / P` the row, `p = l %
//! P` the part), each computing `C/P` of its columns, `t*P + p`:
//! neighbouring invocations on neighbouring columns, put back in place by a
//! digit layout. Each of a row's `P` invocations folds the row's scalar
//! `let`s itself: `P` trades that repeated work for parallelism. Every
//! value is the one the interpreter computes, in its order: the fold over
//! `j` accumulates each column in the same order, and a hoisted `H` is the
//! same value computed once.
//!
//! A read of a global vector that only a row's `reduce`/`compute` of at
//! most [`CACHE_MAX`] steps moves, inside another of its loops (the query
//! row `q[r*D + d]`, read once per key in each fold), is loaded once into a
//! `let@reg` at the top of the row ([`cache_reads`]): the row's query stays
//! in registers, as flash attention keeps its `Q` block.
//!
//! E0211 for another shape (or a vector `let` read whole), E0212 when `P`
//! does not divide `W` and `C`, or `W/P` the rows.

use std::collections::BTreeSet;

use super::fail::Fail;
use super::grid::{compute_at, grid, index, interleaved_rows, let_at, reduce_at};
use super::shape;
use crate::passes::recompute::{MAX_COPIES, element_reads, nodes, replace_reads};
use texpr_ir::build::{read_local, read_of, whole};
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{self, constant, div, linear, rem, var};
use texpr_ir::{ElemTy, Level, MemLevel};
use texpr_ir::{Expr, ExprKind, Program, Term, Ty, VarId, VarKind, VecRef};

pub fn flash(p: &mut Program, root: &Expr, (w, split): (u64, u64)) -> Result<Expr, Fail> {
    let shape::Rows {
        r: r_n,
        var: r,
        body,
    } = shape::rows(root).ok_or_else(not_flash)?;
    if split == 0 || !w.is_multiple_of(split) {
        return Err(Fail::sizes(format!(
            "`split={split}` does not divide the {w} invocations"
        )));
    }
    let per_group = w / split;
    if !r_n.is_multiple_of(per_group) {
        return Err(Fail::sizes(format!(
            "{r_n} rows do not divide into workgroups of {per_group}"
        )));
    }
    let span = root.span;
    let g = index(p, "g", r_n / per_group, span);
    let l = index(p, "l", w, span);
    // Row `g*(W/P) + l/P`, part `l % P`.
    let row_term = linear(var(g), per_group, div(var(l), split));
    let row = subst_expr(p, body, r, &row_term);
    let (lets, last) = stream(p, row)?;
    let (final_row, cols) = columns(p, &last, (split, l))?;
    let mut out = final_row;
    for (v, value) in lets.into_iter().rev() {
        out = let_at(MemLevel::Reg, v, value.with_thread_levels(), out);
    }
    let out = cache_reads(p, &out);
    let group = compute_at(Level::Group, w, l, out);
    let per = cols / split;
    let len = root.ty.len;
    let map = (split > 1 && per > 1).then(|| interleaved_rows(p, (split, per, r_n), len, span));
    Ok(grid(r_n / per_group, g, map, group, root.ty, span))
}

fn not_flash() -> Fail {
    Fail::shape(
        "`flash` needs an item `compute R |r| BODY` whose `BODY` is `let`s, \
         then `compute C |c| F(reduce T |j| E)`",
    )
}

/// The row's spine with every vector `let` recomputed where it is read:
/// the scalar `let`s left, in order, and the row's final value. A chain of
/// vector `let`s each read several times by the next multiplies the copies;
/// a row that would grow past [`MAX_COPIES`] times its size as written does
/// not stream (E0211).
fn stream(p: &mut Program, mut e: Expr) -> Result<(Vec<(VarId, Expr)>, Expr), Fail> {
    let mut lets = Vec::new();
    let limit = MAX_COPIES.saturating_mul(nodes(&e));
    loop {
        let ExprKind::Let {
            level: None,
            var: v,
            value,
            body,
        } = &e.kind
        else {
            return Ok((lets, e));
        };
        let (v, len) = (*v, value.ty.len);
        if len == 1 {
            lets.push((v, (**value).clone()));
            e = (**body).clone();
            continue;
        }
        let name = p.var(v).name.clone();
        let Some(reads) = element_reads(p, body, VecRef::Local(v), len) else {
            return Err(Fail::shape(format!(
                "`flash` recomputes the row's vector `let`s where they are read; \
                 `{name}` is read whole or possibly out of bounds"
            )));
        };
        let grown = nodes(body).saturating_add(reads.sites.saturating_mul(nodes(value)));
        if grown > limit {
            return Err(Fail::shape(format!(
                "`flash` recomputes the row's vector `let`s where they are read; \
                 `{name}` is read {} times by what follows, which would copy the row's \
                 values more than {MAX_COPIES} times",
                reads.sites
            )));
        }
        let value = (**value).clone();
        e = replace_reads(p, body, VecRef::Local(v), &value)
            .map_err(|d| Fail::new(d.code, d.message))?;
    }
}

/// `compute C |c| G(reduce T |j| E)` interchanged for the invocation's
/// `C/P` columns (`t*P + l % P`): the fold over `j` with the column's terms
/// as a vector accumulator, then the epilogue `G` on it. Returns the value
/// and `C`.
fn columns(p: &mut Program, last: &Expr, (split, l): (u64, VarId)) -> Result<(Expr, u64), Fail> {
    let ExprKind::Compute {
        level: None,
        n: cols,
        var: c,
        map: None,
        body,
    } = &last.kind
    else {
        return Err(not_flash());
    };
    let fold = shape::single_reduce(body).ok_or_else(not_flash)?;
    let ExprKind::Reduce {
        level: None,
        op,
        n: keys,
        var: j,
        body: term,
        steps: None,
    } = &fold.kind
    else {
        return Err(not_flash());
    };
    let cols = *cols;
    if !cols.is_multiple_of(split) {
        return Err(Fail::sizes(format!(
            "{cols} columns do not split across {split} invocations"
        )));
    }
    let per = cols / split;
    let span = last.span;
    // Column `t*P + l % P`.
    let t = index(p, "t", per, span);
    let col = linear(var(t), split, rem(var(l), split));
    let term = subst_expr(p, term, *c, &col).with_thread_levels();
    let mut hoisted = Vec::new();
    let inner = BTreeSet::from([t]);
    let term = hoist(p, &term, &inner, &mut hoisted);
    let mut step = compute_at(Level::Thread, per, t, term);
    for (h, value) in hoisted.into_iter().rev() {
        step = let_at(MemLevel::Reg, h, value, step);
    }
    let acc = reduce_at(Level::Thread, *op, *keys, *j, step).at(fold.span);
    // The epilogue on each accumulator, `G[reduce := acc[t2]]` (`acc[t2]`
    // alone without one): the accumulators a `let@reg`, which code
    // generation keeps in registers across the fold.
    let a = p.fresh_var("acc", VarKind::Vector(acc.ty), span);
    let t2 = index(p, "t", per, span);
    let epilogue = replace_node(body, fold, &read_local(a, var(t2), fold.ty.elem));
    let col2 = linear(var(t2), split, rem(var(l), split));
    let epilogue = subst_expr(p, &epilogue, *c, &col2).with_thread_levels();
    let out = compute_at(Level::Thread, per, t2, epilogue);
    Ok((let_at(MemLevel::Reg, a, acc, out), cols))
}

/// `e` with its maximal subexpressions that read no variable of `inner`
/// (nor one bound inside `e`) and do some work (a fold, a read or a
/// function) moved out to `hoisted` as `let@reg`s, read in their place.
fn hoist(
    p: &mut Program,
    e: &Expr,
    inner: &BTreeSet<VarId>,
    hoisted: &mut Vec<(VarId, Expr)>,
) -> Expr {
    let leaf = matches!(
        e.kind,
        ExprKind::Index { .. }
            | ExprKind::Whole(_)
            | ExprKind::IndexVar(_)
            | ExprKind::Const(_)
            | ExprKind::Fill(_)
            | ExprKind::VecLit(_)
    );
    if leaf {
        return e.clone();
    }
    // Work worth a register: a fold, a read or a function, not index
    // arithmetic the column's own terms repeat anyway.
    let work = e.any(|n| {
        matches!(
            n.kind,
            ExprKind::Reduce { .. }
                | ExprKind::Index { .. }
                | ExprKind::Unary(..)
                | ExprKind::Call(..)
        )
    });
    if work && e.ty.elem != ElemTy::Bool && !depends(e, inner) {
        let h = p.fresh_var("h", VarKind::Vector(e.ty), e.span);
        hoisted.push((h, e.clone()));
        let read = match e.ty.len {
            1 => read_local(h, constant(0), e.ty.elem),
            _ => whole(p, VecRef::Local(h)),
        };
        return read.at(e.span);
    }
    let mut below = inner.clone();
    below.extend(e.binders());
    e.map_children(|ch| hoist(p, ch, &below, hoisted))
}

/// Whether `e` reads an index variable or local vector of `vars`.
fn depends(e: &Expr, vars: &BTreeSet<VarId>) -> bool {
    let local = |v: &VecRef| matches!(v, VecRef::Local(x) if vars.contains(x));
    e.any(|n| match &n.kind {
        ExprKind::Index { vec, index, .. } => {
            local(vec) || index.vars().iter().any(|x| vars.contains(x))
        }
        ExprKind::Whole(v) => local(v),
        ExprKind::IndexVar(x) => vars.contains(x),
        ExprKind::Compute { map: Some(m), .. } => vars.iter().any(|x| m.mentions(*x)),
        _ => false,
    })
}

/// `e` with the node `at` (by address) replaced by `by`.
fn replace_node(e: &Expr, at: &Expr, by: &Expr) -> Expr {
    if std::ptr::eq(e, at) {
        return by.clone();
    }
    e.map_children(|ch| replace_node(ch, at, by))
}

/// Most elements of one read a row keeps in registers ([`cache_reads`]).
pub const CACHE_MAX: u64 = 64;

/// A global read along one of the row's loops, loaded once for the row:
/// `var = compute@thread n |u| vec[index]`.
struct Cached {
    vec: VecRef,
    index: Term,
    u: VarId,
    n: u64,
    var: VarId,
}

/// `row` (an invocation's work) with each global read `x[f(d)]` whose only
/// variable bound in the row is `d`, of a loop of at most [`CACHE_MAX`]
/// steps, and which stands inside another of the row's loops, read from a
/// `let@reg` of `compute@thread n |u| x[f(u)]` at the top of the row (equal
/// reads share one).
fn cache_reads(p: &mut Program, row: &Expr) -> Expr {
    let mut caches = Vec::new();
    let out = cache_in(p, row, &mut Vec::new(), &mut caches);
    caches.into_iter().rev().fold(out, |body, c| {
        let elem = p.vec_ty(c.vec).elem;
        let read = read_of(c.vec, c.index, elem).at(body.span);
        let value = compute_at(Level::Thread, c.n, c.u, read);
        let_at(MemLevel::Reg, c.var, value, body)
    })
}

fn cache_in(
    p: &mut Program,
    e: &Expr,
    loops: &mut Vec<(VarId, u64)>,
    caches: &mut Vec<Cached>,
) -> Expr {
    match &e.kind {
        ExprKind::Index {
            vec: vec @ (VecRef::Input(_) | VecRef::Global(_)),
            index: at,
            guard: None,
        } => {
            let mut bound: Vec<VarId> = (at.vars().into_iter())
                .filter(|v| loops.iter().any(|(x, _)| x == v))
                .collect();
            bound.dedup();
            let (&[d], true) = (bound.as_slice(), loops.len() >= 2) else {
                return e.clone();
            };
            let n = loops.iter().find(|(x, _)| *x == d).map_or(0, |l| l.1);
            if n > CACHE_MAX {
                return e.clone();
            }
            let equal = |c: &Cached| {
                c.vec == *vec && c.n == n && term::subst(at, d, &var(c.u)).same(&c.index)
            };
            let at_cache = match caches.iter().position(equal) {
                Some(x) => x,
                None => {
                    let u = index(p, "u", n, e.span);
                    let ty = Ty::new(e.ty.elem, n);
                    caches.push(Cached {
                        vec: *vec,
                        index: term::subst(at, d, &var(u)),
                        u,
                        n,
                        var: p.fresh_var("row", VarKind::Vector(ty), e.span),
                    });
                    caches.len() - 1
                }
            };
            read_local(caches[at_cache].var, var(d), e.ty.elem).at(e.span)
        }
        ExprKind::Compute { n, var: v, .. } | ExprKind::Reduce { n, var: v, .. } => {
            loops.push((*v, *n));
            let out = e.map_children(|ch| cache_in(p, ch, loops, caches));
            loops.pop();
            out
        }
        _ => e.map_children(|ch| cache_in(p, ch, loops, caches)),
    }
}
