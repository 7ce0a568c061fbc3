//! Producer-consumer fusion of expression `let`s: `let v = VALUE in BODY`
//! becomes `BODY` with every read `v[t]` replaced by `ELEM(VALUE, t)` (see
//! [`crate::elem`]) when recomputing is no dearer than storing.
//!
//! Expects: a checked, unscheduled program (items holding any written level
//! are left alone, as are `let`s with a level). Guarantees: the interpreter
//! gives bit-identical results (each inlined element is the same scalar
//! expression, folds in the same order); every read stays provably in bounds.
//!
//! When a `let` is inlined:
//! - every read of `v` in `BODY` is an element read `v[t]` whose index the
//!   interval analysis ([`crate::term::range`]) places inside `0..len(v)` (a
//!   guarded read qualifies only then, and loses its guard), or a whole read
//!   of a length-1 `v` (element 0); any other whole read keeps the `let`;
//! - the cost rule holds. `R` is the number of element reads per evaluation
//!   of the `let`: each read site weighted by the trip counts of the
//!   `compute`s and `reduce`s between the `let` and the read. `E` is the work
//!   of one element of `VALUE` ([`elem_work`]: a `reduce` of `n` terms costs
//!   `n` terms, a `compute` one body, a `let` inside its whole value) and `W`
//!   the work of the whole vector ([`work`]). The `let` is inlined when
//!   `R * E <= F * W`, with `F = 1` when `VALUE` holds a `reduce` (inlining
//!   may never repeat a reduction: softmax's `let m = reduce max ...`, read by
//!   every element of its row, stays) and `F = 4` when it does not (an
//!   elementwise value may be recomputed up to four times per element on
//!   average, which saves its storage: a `let` at an item's root is an array
//!   every invocation fills whole). A dead `let` (`R = 0`) disappears.
//! - Every inlined copy gets fresh variables, so no two binders share a
//!   name; a copy that would nest the item deeper than [`MAX_DEPTH`] or grow
//!   an index term past [`crate::elem::MAX_TERM_SIZE`] keeps the `let`.
//!
//! `let`s are visited bottom-up, so an inner `let` is decided first and an
//! outer one counts the reads the inner inlining left.

use std::collections::BTreeMap;

use crate::elem::elem;
use crate::pipeline::PassCtx;
use crate::subst::map_children;
use crate::term::{constant, range};
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Expr, ExprKind, IndexMap, Program, Term, TermKind, VarId, VecRef};

/// Items deeper than this after inlining keep their `let`s (the verifier's
/// limit is [`texpr_syntax::check::MAX_NESTING`]; scheduling adds a few levels).
pub const MAX_DEPTH: usize = texpr_syntax::check::MAX_NESTING / 2;

/// The `inline` pass: every profitable expression `let` of every unleveled item.
pub fn inline_lets(p: &mut Program, _cx: &PassCtx<'_>) -> Result<(), Vec<Diagnostic>> {
    for k in 0..p.globals.len() + p.outputs.len() {
        let root = item_root(p, k).clone();
        if has_levels(&root) {
            continue;
        }
        let new = inline_in(p, &root);
        if new != root && depth(&new) <= MAX_DEPTH {
            *item_root_mut(p, k) = new;
        }
    }
    Ok(())
}

fn item_root(p: &Program, k: usize) -> &Expr {
    match k.checked_sub(p.globals.len()) {
        None => &p.globals[k].value,
        Some(o) => &p.outputs[o].value,
    }
}

fn item_root_mut(p: &mut Program, k: usize) -> &mut Expr {
    match k.checked_sub(p.globals.len()) {
        None => &mut p.globals[k].value,
        Some(o) => &mut p.outputs[o].value,
    }
}

fn inline_in(p: &mut Program, e: &Expr) -> Expr {
    let kind = map_children(e, |c| inline_in(p, c));
    if let ExprKind::Let {
        level: None,
        var,
        value,
        body,
    } = &kind
    {
        let v = VecRef::Local(*var);
        if let Some(r) = element_reads(p, body, v, value.ty.len)
            && worth_inlining(r, value, if has_reduce(value) { 1 } else { 4 })
            && let Ok(b) = replace_reads(p, body, v, value)
        {
            return b;
        }
    }
    Expr {
        kind,
        ty: e.ty,
        span: e.span,
    }
}

/// The cost rule: `reads * elem_work(value) <= factor * work(value)`.
pub(crate) fn worth_inlining(reads: u64, value: &Expr, factor: u64) -> bool {
    u128::from(reads) * u128::from(elem_work(value)) <= u128::from(factor) * u128::from(work(value))
}

/// Whether `e` holds a `reduce`.
pub(crate) fn has_reduce(e: &Expr) -> bool {
    if matches!(e.kind, ExprKind::Reduce { .. }) {
        return true;
    }
    e.children().any(has_reduce)
}

/// Whether any `compute`, `reduce` or `let` in `e` has a level.
pub(crate) fn has_levels(e: &Expr) -> bool {
    let here = match &e.kind {
        ExprKind::Compute { level, .. } | ExprKind::Reduce { level, .. } => level.is_some(),
        ExprKind::Let { level, .. } => level.is_some(),
        _ => false,
    };
    here || e.children().any(has_levels)
}

/// `e` with every level removed (element extraction writes thread levels).
pub(crate) fn strip_levels(e: &Expr) -> Expr {
    let kind = match map_children(e, strip_levels) {
        ExprKind::Compute {
            n, var, map, body, ..
        } => ExprKind::Compute {
            level: None,
            n,
            var,
            map,
            body,
        },
        ExprKind::Reduce {
            op, n, var, body, ..
        } => ExprKind::Reduce {
            level: None,
            op,
            n,
            var,
            body,
        },
        ExprKind::Let {
            var, value, body, ..
        } => ExprKind::Let {
            level: None,
            var,
            value,
            body,
        },
        k => k,
    };
    Expr {
        kind,
        ty: e.ty,
        span: e.span,
    }
}

/// Nesting depth of `e`, not counting broadcasts (as the verifier counts).
pub(crate) fn depth(e: &Expr) -> usize {
    let d = e.children().map(depth).max().unwrap_or(0);
    d + usize::from(!matches!(e.kind, ExprKind::Broadcast(_)))
}

/// The scalar operations to compute all of `e` once (saturating).
pub(crate) fn work(e: &Expr) -> u64 {
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
pub(crate) fn elem_work(e: &Expr) -> u64 {
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
pub(crate) fn element_reads(p: &Program, e: &Expr, v: VecRef, len: u64) -> Option<u64> {
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
pub(crate) fn replace_reads(
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
    if let Some(index) = index {
        let x = elem(p, value, &index)?;
        let mut x = freshen(p, &strip_levels(&x));
        x.span = e.span;
        return Ok(x);
    }
    let mut err = None;
    let kind = map_children(e, |c| {
        if err.is_some() {
            return c.clone();
        }
        replace_reads(p, c, v, value).unwrap_or_else(|d| {
            err = Some(d);
            c.clone()
        })
    });
    match err {
        Some(d) => Err(d),
        None => Ok(Expr {
            kind,
            ty: e.ty,
            span: e.span,
        }),
    }
}

/// `e` with a fresh variable for every variable it binds (`compute`,
/// `reduce`, `let` and index-map variables).
pub(crate) fn freshen(p: &mut Program, e: &Expr) -> Expr {
    let mut bound = Vec::new();
    binders(e, &mut bound);
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

fn binders(e: &Expr, out: &mut Vec<VarId>) {
    match &e.kind {
        ExprKind::Compute { var, map, .. } => {
            out.push(*var);
            if let Some(m) = map {
                out.push(m.var);
            }
        }
        ExprKind::Reduce { var, .. } | ExprKind::Let { var, .. } => out.push(*var),
        _ => {}
    }
    e.children().for_each(|c| binders(c, out));
}

/// `e` with variables renamed by `map` (binders and uses alike).
pub(crate) fn rename(e: &Expr, map: &BTreeMap<VarId, VarId>) -> Expr {
    let rv = |v: &VarId| *map.get(v).unwrap_or(v);
    let rvec = |v: &VecRef| match v {
        VecRef::Local(x) => VecRef::Local(rv(x)),
        other => *other,
    };
    let kind = match map_children(e, |c| rename(c, map)) {
        ExprKind::Compute {
            level,
            n,
            var,
            map: m,
            body,
        } => ExprKind::Compute {
            level,
            n,
            var: rv(&var),
            map: m.map(|m| IndexMap {
                var: rv(&m.var),
                len: m.len,
                term: rename_term(&m.term, map),
            }),
            body,
        },
        ExprKind::Reduce {
            level,
            op,
            n,
            var,
            body,
        } => ExprKind::Reduce {
            level,
            op,
            n,
            var: rv(&var),
            body,
        },
        ExprKind::Let {
            level,
            var,
            value,
            body,
        } => ExprKind::Let {
            level,
            var: rv(&var),
            value,
            body,
        },
        ExprKind::Index { vec, index, guard } => ExprKind::Index {
            vec: rvec(&vec),
            index: rename_term(&index, map),
            guard,
        },
        ExprKind::Whole(v) => ExprKind::Whole(rvec(&v)),
        ExprKind::IndexVar(v) => ExprKind::IndexVar(rv(&v)),
        k => k,
    };
    Expr {
        kind,
        ty: e.ty,
        span: e.span,
    }
}

fn rename_term(t: &Term, map: &BTreeMap<VarId, VarId>) -> Term {
    let kind = match &t.kind {
        TermKind::Var(v) => TermKind::Var(*map.get(v).unwrap_or(v)),
        TermKind::Const(c) => TermKind::Const(*c),
        TermKind::Binary(op, a, b) => TermKind::Binary(
            *op,
            Box::new(rename_term(a, map)),
            Box::new(rename_term(b, map)),
        ),
    };
    Term { kind, span: t.span }
}
