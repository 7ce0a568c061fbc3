//! Recomputing a vector where it is read instead of storing it: the cost
//! rule and the read replacement shared by `inline` (expression `let`s) and
//! `fuse_globals` (top-level `let`s).
//!
//! - [`element_reads`] counts the element reads of a vector in an expression,
//!   each weighted by the trip counts of the `compute`s and `reduce`s around
//!   it, and says whether every read is one that can be recomputed: an
//!   element read `v[t]` whose index the interval analysis
//!   ([`texpr_syntax::ir::term::range`]) places inside `0..len(v)` (a guarded
//!   read qualifies only then, and loses its guard), or a whole read of a
//!   length-1 `v` (element 0).
//! - [`worth_inlining`] is the cost rule `R * E <= F * W`: `R` the weighted
//!   reads, `E` the work of one element of the value ([`elem_work`]: a
//!   `reduce` of `n` terms costs `n` terms, a `compute` one body, a `let`
//!   inside its whole value), `W` the work of the whole vector ([`work`]).
//! - [`replace_reads`] replaces every read by the element it reads
//!   (`ELEM(value, t)`, see [`crate::index::elem`]), with fresh variables in every
//!   copy ([`freshen`]) so that no two binders share a name, and no levels.

use std::collections::BTreeMap;

use crate::index::elem::elem;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::term::{self, constant, range};
use texpr_syntax::ir::{Expr, ExprKind, MapKind, Program, VarId, VecRef};

/// Items deeper than this after recomputing keep their `let`s (the verifier's
/// limit is [`texpr_syntax::check::MAX_NESTING`]; scheduling adds a few levels).
pub const MAX_DEPTH: usize = texpr_syntax::check::MAX_NESTING / 2;

/// The cost rule: `reads * elem_work(value) <= factor * work(value)`.
pub fn worth_inlining(reads: u64, value: &Expr, factor: u64) -> bool {
    u128::from(reads) * u128::from(elem_work(value)) <= u128::from(factor) * u128::from(work(value))
}

/// The scalar operations to compute all of `e` once (saturating).
pub fn work(e: &Expr) -> u64 {
    let len = e.ty.len;
    match &e.kind {
        ExprKind::Compute { n, body, .. } => n.saturating_mul(work(body)),
        ExprKind::Reduce { n, body, .. } => n.saturating_mul(work(body).saturating_add(len)),
        ExprKind::Let { value, body, .. } => work(value).saturating_add(work(body)),
        ExprKind::Index { .. } | ExprKind::IndexVar(_) | ExprKind::Const(_) => 1,
        ExprKind::Whole(_) | ExprKind::Fill(_) | ExprKind::VecLit(_) => len,
        _ => e.children().map(work).fold(len, u64::saturating_add),
    }
}

/// The scalar operations to compute one element of `e` (`ELEM(e, t)`).
pub fn elem_work(e: &Expr) -> u64 {
    match &e.kind {
        ExprKind::Compute { body, .. } => elem_work(body),
        ExprKind::Reduce { n, body, .. } => n.saturating_mul(elem_work(body).saturating_add(1)),
        ExprKind::Let { value, body, .. } => work(value).saturating_add(elem_work(body)),
        ExprKind::Broadcast(x) => elem_work(x),
        ExprKind::Index { .. }
        | ExprKind::IndexVar(_)
        | ExprKind::Const(_)
        | ExprKind::Whole(_)
        | ExprKind::Fill(_)
        | ExprKind::VecLit(_) => 1,
        _ => e.children().map(elem_work).fold(1, u64::saturating_add),
    }
}

/// Element reads of `v` (length `len`) in `e`, each weighted by the trip
/// counts of the loops around it in `e`; `None` when some read is not an
/// element read provably in bounds (see the module doc).
pub fn element_reads(p: &Program, e: &Expr, v: VecRef, len: u64) -> Option<u64> {
    let mut total = 0u64;
    count_reads(p, e, v, len, 1, &mut total).then_some(total)
}

fn count_reads(p: &Program, e: &Expr, v: VecRef, len: u64, mult: u64, total: &mut u64) -> bool {
    match &e.kind {
        ExprKind::Index { vec, index, .. } if *vec == v => {
            let inside = matches!(range(p, index), Some((lo, hi)) if lo >= 0 && (hi as u64) < len);
            *total = total.saturating_add(mult);
            return inside;
        }
        ExprKind::Whole(w) if *w == v => {
            *total = total.saturating_add(mult);
            return len == 1;
        }
        _ => {}
    }
    let inner = match &e.kind {
        ExprKind::Compute { n, .. } | ExprKind::Reduce { n, .. } => mult.saturating_mul(*n),
        _ => mult,
    };
    e.children()
        .all(|c| count_reads(p, c, v, len, inner, total))
}

/// `e` with every read of `v` replaced by the element of `value` it reads
/// (fresh variables in each copy, no levels). Reads must satisfy
/// [`element_reads`]. Fails when an index term grows too large (E0207).
pub fn replace_reads(
    p: &mut Program,
    e: &Expr,
    v: VecRef,
    value: &Expr,
) -> Result<Expr, Diagnostic> {
    let index = match &e.kind {
        ExprKind::Index { vec, index, .. } if *vec == v => Some(index.clone()),
        ExprKind::Whole(w) if *w == v => Some(constant(0)),
        _ => None,
    };
    match index {
        Some(index) => {
            let mut x = elem(p, value, &index)?;
            x.walk_mut(|n| n.set_level(None, None));
            Ok(freshen(p, &x).at(e.span))
        }
        None => e.try_map_children(|c| replace_reads(p, c, v, value)),
    }
}

/// `e` with a fresh variable for every variable it binds (`compute`,
/// `reduce`, `let` and index-map variables).
pub fn freshen(p: &mut Program, e: &Expr) -> Expr {
    let mut bound = Vec::new();
    e.walk(|n| match &n.kind {
        ExprKind::Compute { var, map, .. } => {
            bound.push(*var);
            bound.extend(map.as_ref().map(|m| m.var));
        }
        ExprKind::Reduce { var, .. } | ExprKind::Let { var, .. } => bound.push(*var),
        _ => {}
    });
    let mut map = BTreeMap::new();
    for v in bound {
        if map.contains_key(&v) {
            continue;
        }
        let info = p.var(v).clone();
        let base = base_name(&info.name).to_string();
        let fresh = p.fresh_var(&base, info.kind, info.span);
        map.insert(v, fresh);
    }
    rename(e, &map)
}

/// `j_3` -> `j` (fresh names count up from the base again).
fn base_name(name: &str) -> &str {
    match name.rsplit_once('_') {
        Some((base, n)) if !base.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => base,
        _ => name,
    }
}

/// `e` with variables renamed by `map` (binders and uses alike).
pub fn rename(e: &Expr, map: &BTreeMap<VarId, VarId>) -> Expr {
    let rv = |v: VarId| *map.get(&v).unwrap_or(&v);
    let mut out = e.clone();
    out.walk_mut(|n| match &mut n.kind {
        ExprKind::Compute { var, map: m, .. } => {
            *var = rv(*var);
            if let Some(m) = m {
                m.var = rv(m.var);
                if let MapKind::Term(t) = &mut m.kind {
                    *t = term::rename(t, &rv);
                }
            }
        }
        ExprKind::Reduce { var, steps, .. } => {
            *var = rv(*var);
            if let Some(t) = steps {
                *t = term::rename(t, &rv);
            }
        }
        ExprKind::Let { var, .. } => *var = rv(*var),
        ExprKind::Index { vec, index, .. } => {
            if let VecRef::Local(x) = vec {
                *x = rv(*x);
            }
            *index = term::rename(index, &rv);
        }
        ExprKind::Whole(VecRef::Local(x)) | ExprKind::IndexVar(x) => *x = rv(*x),
        _ => {}
    });
    out
}
