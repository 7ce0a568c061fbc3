//! Applying a [`Strategy`] to one item root: splitting, tiling and level
//! mapping with index maps that keep the result's layout, padding for sizes
//! that do not divide, register tiles and multi-pass reductions.
//!
//! Expects: a checked, unscheduled item root (no grid/group level, no
//! `let@shared`). Guarantees: a scheduled root (`compute@grid` with a level on
//! every node) that the interpreter evaluates to the same value — bit for bit
//! except `MultiPass`, `WideRows` and a staged `Tile`, which fold in another
//! order.
//!
//! The forms produced (`W` the workgroup size, `L` the item's length):
//! - `Coarsen { group: W, per_thread: T }`:
//!   `compute@grid G {k < L -> k} |g| compute@group W |l| compute@thread T |t| ELEM(E, (g*W+l)*T+t % L)`
//!   (the map and `% L` only when `G*W*T != L`);
//! - `Rows { group: W }` on `compute R |r| B`:
//!   `compute@grid G {k < L -> k} |g| compute@group W |l| B[r := (g*W+l) % R]` at thread level;
//! - `WideRows { group: W }` on `compute R |r| B`: one workgroup per row,
//!   `compute@grid R {k -> PERM(k)} |g|` over `B[r := g]` where each scalar
//!   `let v = V` of `B` is a `let@shared`, every reduction in `V` a
//!   `let@shared part = reduce@group W |l| reduce@thread N/W |t| E[c := t*W+l]`
//!   before it, and the final `compute C |c| F` is
//!   `compute@group W |l| compute@thread C/W |t| F[c := t*W+l]` (neighbouring
//!   invocations on neighbouring elements; `PERM` puts element `t*W+l` back
//!   in place), or a final scalar reduction a `reduce@group`;
//! - `Tile { group: [TI, TJ], reg: [RI, RJ] }` on `compute M |i| compute N |j| S`
//!   (or `compute B |p|` around it: the batch is the grid's top digit):
//!   `compute@grid GI*GJ {k -> PERM(k)} |g| compute@group TI*TJ |l| TILE` where
//!   `TILE` accumulates a `RI x RJ` register tile over the reduction in `S`,
//!   loading each operand read that depends on only one of `i`, `j` into a
//!   register tile per step, then applies the rest of `S` (the epilogue) to
//!   every accumulator; `PERM` is a [`DigitPerm`] from the computed order to
//!   row-major;
//! - `Tile { .., shared: Some(KB) }`: the same, with the reduction split into
//!   `reduce@thread K/KB |kb| let@shared STAGE.. in reduce@thread KB |kk| STEP`:
//!   each operand's block of `KB` steps for the whole workgroup
//!   (`TI*RI x KB` or `KB x TJ*RJ`, unit stride along the operand's
//!   contiguous index) is filled by all invocations together, and the
//!   per-step register tiles read it from there;
//! - `MultiPass { parts: P, group: W }` on `reduce N |i| E`: a new global
//!   `ITEM_partials = compute@grid P/W |g| compute@group W |l| reduce@thread N/P |t| E[i := (g*W+l)*(N/P)+t]`
//!   (each invocation reads a contiguous run: measured on llvmpipe, 2x
//!   faster than interleaving neighbouring invocations)
//!   and the item becomes one invocation folding the `P` partials;
//! - `MultiPass { parts: P, group: W, combine: Tree }` (resp. `Subgroup`):
//!   each workgroup combines its invocations' folds,
//!   `ITEM_partials = compute@grid P/W |g| reduce@group W |l| reduce@thread N/P |t| E[i := (g*W+l)*(N/P)+t]`
//!   (resp. `reduce@subgroup`), and the item folds the `P/W` partials; when
//!   `P == W` there is no partials global: the item is
//!   `compute@grid 1 |g| reduce@group W |l| ...` itself.
//!
//! Error codes: E0210 a schedule naming no item; E0211 a strategy that does
//! not fit the item's shape; E0212 sizes that do not divide as the strategy
//! needs; E0213 a workgroup wider than the device allows; E0214 more loop
//! iterations per invocation than the device runs; E0215 `combine=subgroup`
//! on a device without subgroup operations; E0216 more workgroup memory
//! than the device has.

use crate::digits::{DigitPerm, Padded};
use crate::distribute::distribute;
use crate::elem::elem;
use crate::limits::DeviceLimits;
use crate::schedule::{Combine, Schedule, Strategy};
use crate::subst::{map_children, subst_expr};
use crate::term::{bin, constant, var};
use crate::threads::to_thread_levels;
use texpr_syntax::ast::{Level, MemLevel, ReduceOp, TermOp};
use texpr_syntax::ir::{
    Expr, ExprKind, Global, IndexMap, Program, Term, Ty, VarId, VarKind, VecRef,
};
use texpr_syntax::{Diagnostic, Span};

/// An item of a program: a global or an output, by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    Global(usize),
    Output(usize),
}

impl Item {
    pub fn name(self, p: &Program) -> &str {
        match self {
            Item::Global(i) => &p.globals[i].name,
            Item::Output(i) => &p.outputs[i].name,
        }
    }
    pub fn root(self, p: &Program) -> &Expr {
        match self {
            Item::Global(i) => &p.globals[i].value,
            Item::Output(i) => &p.outputs[i].value,
        }
    }
    pub fn root_mut(self, p: &mut Program) -> &mut Expr {
        match self {
            Item::Global(i) => &mut p.globals[i].value,
            Item::Output(i) => &mut p.outputs[i].value,
        }
    }
    fn span(self, p: &Program) -> Span {
        match self {
            Item::Global(i) => p.globals[i].span,
            Item::Output(i) => p.outputs[i].span,
        }
    }
}

/// Every item of `p`: globals first, then outputs.
pub fn items(p: &Program) -> Vec<Item> {
    let mut v: Vec<Item> = (0..p.globals.len()).map(Item::Global).collect();
    v.extend((0..p.outputs.len()).map(Item::Output));
    v
}

/// E0210 for every name in `s` that is not an item of `p`.
pub fn check_names(p: &Program, s: &Schedule) -> Result<(), Vec<Diagnostic>> {
    let names: Vec<&str> = items(p).into_iter().map(|i| i.name(p)).collect();
    let known: std::collections::BTreeSet<&str> = names.iter().copied().collect();
    let errs: Vec<Diagnostic> = s
        .items
        .iter()
        .filter(|(n, _)| !known.contains(n.as_str()))
        .map(|(n, _)| {
            Diagnostic::error("E0210", format!("the schedule names `{n}`, not an item"))
                .with_note(format!("the items are: {}", names.join(", ")))
        })
        .collect();
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// Schedules `item` of `p` with `s`, rewriting the item (and adding globals
/// for a multi-pass reduction).
pub fn apply(
    p: &mut Program,
    item: Item,
    s: &Strategy,
    limits: &DeviceLimits,
) -> Result<(), Vec<Diagnostic>> {
    let root = item.root(p).clone();
    let name = item.name(p).to_string();
    let item_span = item.span(p);
    let fail = |code: &'static str, why: String| {
        vec![
            Diagnostic::error(code, format!("cannot schedule `{name}` as `{s}`: {why}"))
                .with_primary(item_span, "this item"),
        ]
    };
    let cap = u64::from(
        limits
            .max_invocations_per_workgroup
            .min(limits.max_workgroup_size[0]),
    );
    let group = match s {
        Strategy::Default => 1,
        Strategy::Coarsen { group, .. }
        | Strategy::Rows { group }
        | Strategy::WideRows { group }
        | Strategy::MultiPass { group, .. } => *group,
        Strategy::Tile { group, .. } => group[0] * group[1],
    };
    if group > cap {
        return Err(fail(
            "E0213",
            format!("{group} invocations per workgroup; the device allows {cap}"),
        ));
    }
    let new = match s {
        Strategy::Default => distribute(p, &root, limits).map_err(|d| vec![d])?,
        Strategy::Coarsen { group, per_thread } => {
            coarsen(p, &root, *group, *per_thread).map_err(|why| fail("E0212", why))?
        }
        Strategy::Rows { group } => rows(p, &root, *group).map_err(|(c, why)| fail(c, why))?,
        Strategy::WideRows { group } => {
            wide_rows(p, &root, *group).map_err(|(c, why)| fail(c, why))?
        }
        Strategy::Tile { group, reg, shared } => {
            tile(p, &root, *group, *reg, *shared, limits).map_err(|(c, why)| fail(c, why))?
        }
        Strategy::MultiPass {
            parts,
            group,
            combine,
        } => {
            return multipass(p, item, &root, (*parts, *group, *combine), limits)
                .map_err(|(c, why)| fail(c, why));
        }
    };
    // The default schedule is the baseline: code generation has the last
    // word on its loops (E0316).
    if let Some(budget) = limits
        .max_loop_iterations
        .filter(|_| *s != Strategy::Default)
    {
        let n = iterations(&new);
        if n > budget {
            return Err(fail(
                "E0214",
                format!("{n} loop iterations per invocation; the device runs {budget}"),
            ));
        }
    }
    *item.root_mut(p) = new;
    Ok(())
}

/// Loop iterations one invocation of a scheduled root runs (thread-level
/// loops and reductions, nested multiply, sequential add), as code generation
/// emits them: an estimate for choosing among strategies; the code
/// generator counts the loops it writes and has the last word (E0316).
pub fn iterations(e: &Expr) -> u64 {
    iterations_in(e, 1)
}

/// [`iterations`] inside a workgroup of `w` invocations: a `let@shared`
/// value is filled cooperatively, each invocation running `1/w` of its
/// elements.
fn iterations_in(e: &Expr, w: u64) -> u64 {
    match &e.kind {
        ExprKind::Let {
            level: Some(MemLevel::Shared),
            value,
            body,
            ..
        } if w > 1 => {
            let fill = match &value.kind {
                ExprKind::Compute { n, body: elem, .. } => {
                    n.div_ceil(w).saturating_mul(iterations_in(elem, w).max(1))
                }
                _ => iterations_in(value, w),
            };
            return fill.saturating_add(iterations_in(body, w));
        }
        ExprKind::Compute {
            level: Some(Level::Group),
            n,
            body,
            ..
        } => return iterations_in(body, *n),
        _ => {}
    }
    let inner = e
        .children()
        .map(|c| iterations_in(c, w))
        .fold(0u64, u64::saturating_add);
    match &e.kind {
        // Code generation unrolls short vectors (register tiles): no loop of
        // their own, their body's loops repeated.
        ExprKind::Compute {
            level: Some(Level::Thread) | None,
            n,
            ..
        } if e.ty.len <= 64 => n.saturating_mul(inner),
        ExprKind::Compute {
            level: Some(Level::Thread) | None,
            n,
            ..
        }
        | ExprKind::Reduce {
            level: Some(Level::Thread) | None,
            n,
            ..
        } => n.saturating_mul(inner.max(1)),
        _ => inner,
    }
}

type Fail = (&'static str, String);

fn compute(level: Level, n: u64, v: VarId, body: Expr) -> Expr {
    let ty = Ty::new(body.ty.elem, n * body.ty.len);
    let span = body.span;
    Expr {
        kind: ExprKind::Compute {
            level: Some(level),
            n,
            var: v,
            map: None,
            body: Box::new(body),
        },
        ty,
        span,
    }
}

/// The grid root around `body` (whose raw length is `raw`), with a
/// truncating map when the item is shorter; the grid variable is `g`.
fn grid_over(p: &mut Program, g: VarId, n: u64, len: u64, raw: u64, body: Expr) -> Expr {
    let (span, elem) = (body.span, body.ty.elem);
    let map = (raw != len).then(|| {
        let k = p.fresh_var("k", VarKind::Index { extent: len }, span);
        IndexMap {
            var: k,
            len,
            term: var(k),
        }
    });
    Expr {
        kind: ExprKind::Compute {
            level: Some(Level::Grid),
            n,
            var: g,
            map,
            body: Box::new(body),
        },
        ty: Ty::new(elem, len),
        span,
    }
}

fn coarsen(p: &mut Program, root: &Expr, w: u64, t: u64) -> Result<Expr, String> {
    let len = root.ty.len;
    let threads = len.div_ceil(t);
    let w = w.min(threads);
    let g_n = threads.div_ceil(w);
    let raw = g_n * w * t;
    if raw > i32::MAX as u64 {
        return Err(format!("{raw} padded elements overflow i32 indices"));
    }
    let span = root.span;
    let g = p.fresh_var("g", VarKind::Index { extent: g_n }, span);
    let l = p.fresh_var("l", VarKind::Index { extent: w }, span);
    let tv = p.fresh_var("t", VarKind::Index { extent: t }, span);
    let lin = bin(
        TermOp::Add,
        bin(
            TermOp::Mul,
            bin(
                TermOp::Add,
                bin(TermOp::Mul, var(g), constant(w as i64)),
                var(l),
            ),
            constant(t as i64),
        ),
        var(tv),
    );
    let idx = if raw != len {
        bin(TermOp::Rem, lin, constant(len as i64))
    } else {
        lin
    };
    let body = elem(p, root, &idx).map_err(|d| d.message)?;
    let inner = if t == 1 {
        body
    } else {
        compute(Level::Thread, t, tv, body)
    };
    let group = compute(Level::Group, w, l, inner);
    Ok(grid_over(p, g, g_n, len, raw, group))
}

/// `compute R |r| BODY` (unscheduled, no index map): `(R, r, BODY)`.
fn row_item<'e>(root: &'e Expr, strategy: &str) -> Result<(&'e u64, VarId, &'e Expr), Fail> {
    match &root.kind {
        ExprKind::Compute {
            level: None,
            n,
            var,
            map: None,
            body,
        } => Ok((n, *var, body)),
        _ => Err((
            "E0211",
            format!("`{strategy}` needs an item `compute R |r| BODY` without an index map"),
        )),
    }
}

fn rows(p: &mut Program, root: &Expr, w: u64) -> Result<Expr, Fail> {
    let (r_n, r, body) = row_item(root, "rows")?;
    let w = w.min(*r_n);
    let g_n = r_n.div_ceil(w);
    let raw_rows = g_n * w;
    if raw_rows * body.ty.len > i32::MAX as u64 {
        return Err(("E0212", "padded rows overflow i32 indices".into()));
    }
    let span = root.span;
    let g = p.fresh_var("g", VarKind::Index { extent: g_n }, span);
    let l = p.fresh_var("l", VarKind::Index { extent: w }, span);
    let lin = bin(
        TermOp::Add,
        bin(TermOp::Mul, var(g), constant(w as i64)),
        var(l),
    );
    let idx = if raw_rows != *r_n {
        bin(TermOp::Rem, lin, constant(*r_n as i64))
    } else {
        lin
    };
    let row = to_thread_levels(&subst_expr(p, body, r, &idx));
    let group = compute(Level::Group, w, l, row);
    Ok(grid_over(
        p,
        g,
        g_n,
        root.ty.len,
        raw_rows * body.ty.len,
        group,
    ))
}

fn wide_rows(p: &mut Program, root: &Expr, w: u64) -> Result<Expr, Fail> {
    let (r_n, r, body) = row_item(root, "wide_rows")?;
    let span = root.span;
    let g = p.fresh_var("g", VarKind::Index { extent: *r_n }, span);
    let row = subst_expr(p, body, r, &var(g));
    let l = p.fresh_var("l", VarKind::Index { extent: w }, span);
    let (new_row, layout) = wide_body(p, &row, w, l)?;
    let len = root.ty.len;
    // The row's elements computed `[l][t]`, laid out `t*W + l`: a digit
    // permutation within each row.
    let map = layout.map(|per| {
        let c = w * per;
        let perm = DigitPerm::new(&[(w, 1, per), (per, w, 1), (*r_n, c, c)])
            .expect("a row layout is a digit permutation");
        let k = p.fresh_var("k", VarKind::Index { extent: len }, span);
        IndexMap {
            var: k,
            len,
            term: perm.term(k),
        }
    });
    Ok(Expr {
        kind: ExprKind::Compute {
            level: Some(Level::Grid),
            n: *r_n,
            var: g,
            map,
            body: Box::new(new_row),
        },
        ty: root.ty,
        span,
    })
}

/// One row of `wide_rows`: scalar `let`s become `let@shared`s (their
/// reductions workgroup trees), the final value a `compute@group` or
/// `reduce@group`. Returns the row and, when its elements are interleaved
/// across the invocations, the elements per invocation.
fn wide_body(p: &mut Program, e: &Expr, w: u64, l: VarId) -> Result<(Expr, Option<u64>), Fail> {
    let c = |x: u64| constant(x as i64);
    let shape_err = || {
        (
            "E0211",
            "`wide_rows` needs a row of scalar `let`s, then `compute C |c| E` or a scalar `reduce N |c| E`"
                .to_string(),
        )
    };
    match &e.kind {
        ExprKind::Let {
            level: None,
            var: v,
            value,
            body,
        } if value.ty.len == 1 => {
            let mut lets = Vec::new();
            let value = split_reduces(p, value, w, l, &mut lets)?;
            let (rest, layout) = wide_body(p, body, w, l)?;
            let mut out = let_at(MemLevel::Shared, *v, to_thread_levels(&value), rest);
            for (tv, tval) in lets.into_iter().rev() {
                out = let_at(MemLevel::Shared, tv, tval, out);
            }
            Ok((out, layout))
        }
        ExprKind::Compute {
            level: None,
            n,
            var: cv,
            map: None,
            body,
        } if n.is_multiple_of(w) => {
            let per = n / w;
            let t = p.fresh_var("t", VarKind::Index { extent: per }, e.span);
            // Element `t*W + l`: neighbouring invocations on neighbouring
            // elements; the grid's index map puts it back in place.
            let idx = bin(TermOp::Add, bin(TermOp::Mul, var(t), c(w)), var(l));
            let b = to_thread_levels(&subst_expr(p, body, *cv, &idx));
            let inner = compute(Level::Thread, per, t, b);
            let layout = (per > 1 && w > 1).then_some(per);
            Ok((compute(Level::Group, w, l, inner), layout))
        }
        ExprKind::Reduce { level: None, .. } if e.ty.len == 1 => {
            Ok((group_reduce(p, e, w, l)?, None))
        }
        ExprKind::Compute { n, .. } | ExprKind::Reduce { n, .. } if !n.is_multiple_of(w) => Err((
            "E0212",
            format!("{n} terms do not split across {w} invocations"),
        )),
        _ => Err(shape_err()),
    }
}

/// `reduce N |c| E` (scalar) as `reduce@group W |l| reduce@thread N/W |t| E[c := t*W + l]`.
fn group_reduce(p: &mut Program, e: &Expr, w: u64, l: VarId) -> Result<Expr, Fail> {
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
        return Err((
            "E0212",
            format!("{n} terms do not split across {w} invocations"),
        ));
    }
    let per = n / w;
    let t = p.fresh_var("t", VarKind::Index { extent: per }, e.span);
    let idx = bin(
        TermOp::Add,
        bin(TermOp::Mul, var(t), constant(w as i64)),
        var(l),
    );
    let b = to_thread_levels(&subst_expr(p, body, *cv, &idx));
    let inner = Expr {
        kind: ExprKind::Reduce {
            level: Some(Level::Thread),
            op: *op,
            n: per,
            var: t,
            body: Box::new(b),
        },
        ty: e.ty,
        span: e.span,
    };
    Ok(Expr {
        kind: ExprKind::Reduce {
            level: Some(Level::Group),
            op: *op,
            n: w,
            var: l,
            body: Box::new(inner),
        },
        ty: e.ty,
        span: e.span,
    })
}

/// `e` with each outermost scalar `reduce` replaced by a read of a new
/// `let@shared` holding its workgroup tree (pushed to `lets`, in order).
fn split_reduces(
    p: &mut Program,
    e: &Expr,
    w: u64,
    l: VarId,
    lets: &mut Vec<(VarId, Expr)>,
) -> Result<Expr, Fail> {
    if let ExprKind::Reduce { .. } = &e.kind {
        let value = group_reduce(p, e, w, l)?;
        let v = p.fresh_var("part", VarKind::Vector(e.ty), e.span);
        lets.push((v, value));
        return Ok(Expr {
            kind: ExprKind::Index {
                vec: VecRef::Local(v),
                index: constant(0),
                guard: None,
            },
            ty: e.ty,
            span: e.span,
        });
    }
    let mut err = None;
    let kind = map_children(e, |ch| match split_reduces(p, ch, w, l, lets) {
        Ok(x) => x,
        Err(f) => {
            err.get_or_insert(f);
            ch.clone()
        }
    });
    match err {
        Some(f) => Err(f),
        None => Ok(Expr {
            kind,
            ty: e.ty,
            span: e.span,
        }),
    }
}

/// The single outermost `reduce` in `s` (the rest of `s` is its epilogue),
/// if there is exactly one.
fn single_reduce(s: &Expr) -> Option<&Expr> {
    fn walk<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        if let ExprKind::Reduce { .. } = e.kind {
            out.push(e);
            return;
        }
        visit(e, |c| walk(c, out));
    }
    let mut found = Vec::new();
    walk(s, &mut found);
    match found.as_slice() {
        [r] if r.ty.len == 1 => Some(*r),
        _ => None,
    }
}

/// Calls `f` on each direct child of `e`.
fn visit<'e>(e: &'e Expr, mut f: impl FnMut(&'e Expr)) {
    match &e.kind {
        ExprKind::Compute { body, .. } | ExprKind::Reduce { body, .. } => f(body),
        ExprKind::Let { value, body, .. } => {
            f(value);
            f(body);
        }
        ExprKind::Broadcast(x) | ExprKind::Cast(x) | ExprKind::Unary(_, x) => f(x),
        ExprKind::Binary(_, a, b) => {
            f(a);
            f(b);
        }
        ExprKind::Call(_, args) => args.iter().for_each(f),
        _ => {}
    }
}

/// `e` with the node at address `target` replaced by `by`.
fn replace(e: &Expr, target: *const Expr, by: &Expr) -> Expr {
    if std::ptr::eq(e, target) {
        return by.clone();
    }
    Expr {
        kind: map_children(e, |c| replace(c, target, by)),
        ty: e.ty,
        span: e.span,
    }
}

fn tile(
    p: &mut Program,
    root: &Expr,
    group: [u64; 2],
    reg: [u64; 2],
    shared: Option<u64>,
    limits: &DeviceLimits,
) -> Result<Expr, Fail> {
    // An optional batch: `compute B |p| compute M |i| compute N |j| S`.
    let (batch, inner_root) = match &root.kind {
        ExprKind::Compute {
            level: None,
            n: b_n,
            var: pv,
            map: None,
            body,
        } if matches!(&body.kind, ExprKind::Compute { level: None, map: None, body: b2, .. }
            if matches!(&b2.kind, ExprKind::Compute { level: None, map: None, body: s, .. } if s.ty.len == 1)) =>
        {
            (Some((*b_n, *pv)), &**body)
        }
        _ => (None, root),
    };
    let shape = match &inner_root.kind {
        ExprKind::Compute {
            level: None,
            n: m_n,
            var: i,
            map: None,
            body,
        } => match &body.kind {
            ExprKind::Compute {
                level: None,
                n: n_n,
                var: j,
                map: None,
                body: s,
            } if s.ty.len == 1 => Some((*m_n, *i, *n_n, *j, &**s)),
            _ => None,
        },
        _ => None,
    };
    let Some((m_n, i, n_n, j, s)) = shape else {
        return Err((
            "E0211",
            "`tile` needs an item `compute M |i| compute N |j| S` (or `compute B |p|` around it) with a scalar `S` and no index maps"
                .into(),
        ));
    };
    let [ti_n, tj_n] = group;
    let [ri_n, rj_n] = reg;
    // Padded to whole blocks: rows and columns past the edge compute a copy
    // of an edge row or column (`% M`, `% N` keep every read in bounds) and
    // are not written (a `Padded` layout).
    let (gi_n, gj_n) = (m_n.div_ceil(ti_n * ri_n), n_n.div_ceil(tj_n * rj_n));
    let (mp, np) = (gi_n * ti_n * ri_n, gj_n * tj_n * rj_n);
    if mp * np > i32::MAX as u64 / 3 {
        return Err((
            "E0212",
            format!("a {mp} x {np} padded result overflows i32 indices"),
        ));
    }
    let wrap_i = (mp != m_n).then_some(m_n);
    let wrap_j = (np != n_n).then_some(n_n);
    let b_n = batch.map_or(1, |b| b.0);
    if b_n * mp * np > i32::MAX as u64 / 3 {
        return Err((
            "E0212",
            format!("{b_n} results of {mp} x {np} overflow i32 indices"),
        ));
    }
    if b_n > 1 && (wrap_i.is_some() || wrap_j.is_some()) {
        return Err((
            "E0212",
            format!(
                "a batch of {m_n} x {n_n} results does not divide into {}x{} blocks (batched tiles are not padded)",
                ti_n * ri_n,
                tj_n * rj_n
            ),
        ));
    }
    let w = ti_n * tj_n;
    let span = root.span;
    let g = p.fresh_var(
        "g",
        VarKind::Index {
            extent: b_n * gi_n * gj_n,
        },
        span,
    );
    let l = p.fresh_var("l", VarKind::Index { extent: w }, span);
    let c = |x: u64| constant(x as i64);
    // Batch `p = g / (GI*GJ)`, the same for the whole workgroup; the block
    // within the batch `gt = g % (GI*GJ)`.
    let (s, gt) = match batch {
        Some((_, pv)) if b_n > 1 => {
            let s = subst_expr(p, s, pv, &bin(TermOp::Div, var(g), c(gi_n * gj_n)));
            (s, bin(TermOp::Rem, var(g), c(gi_n * gj_n)))
        }
        Some((_, pv)) => (subst_expr(p, s, pv, &c(0)), var(g)),
        None => (s.clone(), var(g)),
    };
    let s = &s;
    // i = ((gt / GJ) * TI + l / TJ) * RI + ri; j = ((gt % GJ) * TJ + l % TJ) * RJ + rj.
    let i_base = bin(
        TermOp::Mul,
        bin(
            TermOp::Add,
            bin(TermOp::Mul, bin(TermOp::Div, gt.clone(), c(gj_n)), c(ti_n)),
            bin(TermOp::Div, var(l), c(tj_n)),
        ),
        c(ri_n),
    );
    let j_base = bin(
        TermOp::Mul,
        bin(
            TermOp::Add,
            bin(TermOp::Mul, bin(TermOp::Rem, gt.clone(), c(gj_n)), c(tj_n)),
            bin(TermOp::Rem, var(l), c(tj_n)),
        ),
        c(rj_n),
    );
    let at = |base: &Term, r: VarId, wrap: Option<u64>| {
        let t = bin(TermOp::Add, base.clone(), var(r));
        match wrap {
            Some(n) => bin(TermOp::Rem, t, c(n)),
            None => t,
        }
    };
    let fresh_r =
        |p: &mut Program, name: &str, n: u64| p.fresh_var(name, VarKind::Index { extent: n }, span);

    let elem_ty = root.ty.elem;
    let tile_body = match single_reduce(s) {
        Some(reduce) => {
            let ExprKind::Reduce {
                op,
                n: k_n,
                var: k,
                body: rbody,
                ..
            } = &reduce.kind
            else {
                unreachable!("single_reduce returns reduces")
            };
            // Operand loads that depend on one of i, j: register tiles per step.
            let mut loads_i: Vec<Expr> = Vec::new();
            let mut loads_j: Vec<Expr> = Vec::new();
            collect_loads(rbody, [i, j, *k, g], &mut loads_i, &mut loads_j);
            let (ri, rj) = (fresh_r(p, "ri", ri_n), fresh_r(p, "rj", rj_n));
            let mut inner = (**rbody).clone();
            let mut lets: Vec<(VarId, Expr)> = Vec::new();
            // With shared staging: the reduction runs as `kb` blocks of `kk`
            // steps, and each load's block of `KB` steps for the whole
            // workgroup is staged in workgroup memory.
            let staged = match shared {
                Some(kb_n) => {
                    if !k_n.is_multiple_of(kb_n) {
                        return Err((
                            "E0212",
                            format!("{k_n} reduction steps do not divide into blocks of {kb_n}"),
                        ));
                    }
                    let bytes = (loads_i.len() as u64 * ti_n * ri_n
                        + loads_j.len() as u64 * tj_n * rj_n)
                        * kb_n
                        * 4;
                    if bytes > u64::from(limits.max_workgroup_storage_bytes) {
                        return Err((
                            "E0216",
                            format!(
                                "{bytes} bytes of workgroup memory; the device allows {}",
                                limits.max_workgroup_storage_bytes
                            ),
                        ));
                    }
                    let kb = fresh_r(p, "kb", k_n / kb_n);
                    let kk = fresh_r(p, "kk", kb_n);
                    Some((kb_n, kb, kk))
                }
                None => None,
            };
            let mut shared_lets: Vec<(VarId, Expr)> = Vec::new();
            for (loads, n, base, orig, r, along_i, wrap) in [
                (&loads_i, ri_n, &i_base, i, ri, true, wrap_i),
                (&loads_j, rj_n, &j_base, j, rj, false, wrap_j),
            ] {
                for ld in loads {
                    let rr = fresh_r(p, "r", n);
                    let one = match staged {
                        None => to_thread_levels(&subst_expr(p, ld, orig, &at(base, rr, wrap))),
                        Some((kb_n, kb, kk)) => {
                            let (block, width) = if along_i {
                                (ti_n * ri_n, ri_n)
                            } else {
                                (tj_n * rj_n, rj_n)
                            };
                            let st = Staging {
                                along_i,
                                wrap,
                                block,
                                width,
                                lanes: tj_n,
                                gj_n,
                            };
                            let (v, read) =
                                stage(p, ld, [orig, *k], (kb_n, kb, kk), (&gt, l, rr), st);
                            shared_lets.push(v);
                            read
                        }
                    };
                    let value = compute(Level::Thread, n, rr, one);
                    let v = p.fresh_var("tile", VarKind::Vector(value.ty), span);
                    let read = Expr {
                        kind: ExprKind::Index {
                            vec: VecRef::Local(v),
                            index: var(r),
                            guard: None,
                        },
                        ty: ld.ty,
                        span: ld.span,
                    };
                    inner = replace_equal(&inner, ld, &read);
                    lets.push((v, value));
                }
            }
            let inner = subst_expr(p, &inner, i, &at(&i_base, ri, wrap_i));
            let inner = subst_expr(p, &inner, j, &at(&j_base, rj, wrap_j));
            let inner = match staged {
                Some((kb_n, kb, kk)) => {
                    let kt = bin(TermOp::Add, bin(TermOp::Mul, var(kb), c(kb_n)), var(kk));
                    subst_expr(p, &inner, *k, &kt)
                }
                None => inner,
            };
            let mut step = compute(
                Level::Thread,
                ri_n,
                ri,
                compute(Level::Thread, rj_n, rj, to_thread_levels(&inner)),
            );
            for (v, value) in lets.into_iter().rev() {
                step = let_reg(v, value, step);
            }
            let acc_ty = Ty::new(elem_ty, ri_n * rj_n);
            let reduce_at = |n: u64, v: VarId, body: Expr| Expr {
                kind: ExprKind::Reduce {
                    level: Some(Level::Thread),
                    op: *op,
                    n,
                    var: v,
                    body: Box::new(body),
                },
                ty: acc_ty,
                span: reduce.span,
            };
            let acc_val = match staged {
                None => reduce_at(*k_n, *k, step),
                Some((kb_n, kb, kk)) => {
                    let mut block = reduce_at(kb_n, kk, step);
                    for (v, value) in shared_lets.into_iter().rev() {
                        block = let_at(MemLevel::Shared, v, value, block);
                    }
                    reduce_at(k_n / kb_n, kb, block)
                }
            };
            let acc = p.fresh_var("acc", VarKind::Vector(acc_ty), span);
            let (ei, ej) = (fresh_r(p, "ei", ri_n), fresh_r(p, "ej", rj_n));
            let read = Expr {
                kind: ExprKind::Index {
                    vec: VecRef::Local(acc),
                    index: bin(TermOp::Add, bin(TermOp::Mul, var(ei), c(rj_n)), var(ej)),
                    guard: None,
                },
                ty: reduce.ty,
                span: reduce.span,
            };
            let epi = replace(s, reduce, &read);
            let epi = subst_expr(p, &epi, i, &at(&i_base, ei, wrap_i));
            let epi = subst_expr(p, &epi, j, &at(&j_base, ej, wrap_j));
            let out = compute(
                Level::Thread,
                ri_n,
                ei,
                compute(Level::Thread, rj_n, ej, to_thread_levels(&epi)),
            );
            let_reg(acc, acc_val, out)
        }
        None => {
            let (ri, rj) = (fresh_r(p, "ri", ri_n), fresh_r(p, "rj", rj_n));
            let e = subst_expr(p, s, i, &at(&i_base, ri, wrap_i));
            let e = subst_expr(p, &e, j, &at(&j_base, rj, wrap_j));
            compute(
                Level::Thread,
                ri_n,
                ri,
                compute(Level::Thread, rj_n, rj, to_thread_levels(&e)),
            )
        }
    };
    let group_e = compute(Level::Group, w, l, tile_body);
    let perm = DigitPerm::new(&[
        (rj_n, 1, 1),
        (tj_n, rj_n, ri_n * rj_n),
        (gj_n, tj_n * rj_n, w * ri_n * rj_n),
        (ri_n, np, rj_n),
        (ti_n, np * ri_n, tj_n * ri_n * rj_n),
        (gi_n, np * ri_n * ti_n, gj_n * w * ri_n * rj_n),
        (b_n, mp * np, gi_n * gj_n * w * ri_n * rj_n),
    ])
    .expect("a tile order is a digit permutation");
    let len = b_n * m_n * n_n;
    let padded = (mp, np) != (m_n, n_n);
    let map = (padded || !perm.is_identity()).then(|| {
        let k = p.fresh_var("k", VarKind::Index { extent: len }, span);
        let term = match padded {
            true => Padded::new(m_n, n_n, np, perm)
                .expect("a padded tile layout")
                .term(k),
            false => perm.term(k),
        };
        IndexMap { var: k, len, term }
    });
    Ok(Expr {
        kind: ExprKind::Compute {
            level: Some(Level::Grid),
            n: b_n * gi_n * gj_n,
            var: g,
            map,
            body: Box::new(group_e),
        },
        ty: root.ty,
        span,
    })
}

/// Where one operand's block sits in a shared-staged tile: along `i` (the
/// operand depends on `i` and `k`) or `j`, the block's extent along that
/// dimension (`TI*RI` or `TJ*RJ`), the register tile's width (`RI` or `RJ`),
/// the invocations per row of the workgroup (`TJ`) and workgroups per row of
/// the grid (`GJ`).
struct Staging {
    along_i: bool,
    /// The dimension's extent when the tile pads it (reads wrap around).
    wrap: Option<u64>,
    block: u64,
    width: u64,
    lanes: u64,
    gj_n: u64,
}

/// Stages operand read `ld` (of `dim` and `k`) for the workgroup's block of
/// `KB` reduction steps: the `let@shared` holding the block (laid out with
/// consecutive elements along the operand's unit-stride index, so
/// neighbouring invocations fill neighbouring addresses), and the read of
/// element `rr` of an invocation's register tile from it at step `kk`.
fn stage(
    p: &mut Program,
    ld: &Expr,
    [dim, k]: [VarId; 2],
    (kb_n, kb, kk): (u64, VarId, VarId),
    (gt, l, rr): (&Term, VarId, VarId),
    st: Staging,
) -> ((VarId, Expr), Expr) {
    let c = |x: u64| constant(x as i64);
    let span = ld.span;
    let len = st.block * kb_n;
    let x = p.fresh_var("x", VarKind::Index { extent: len }, span);
    let k_at = |step: Term| bin(TermOp::Add, bin(TermOp::Mul, var(kb), c(kb_n)), step);
    // Along i the workgroup's rows and an invocation's lane are `/`, along
    // j `%` (see `tile`'s `i_base` and `j_base`).
    let pick = if st.along_i { TermOp::Div } else { TermOp::Rem };
    let base = bin(TermOp::Mul, bin(pick, gt.clone(), c(st.gj_n)), c(st.block));
    let lane = bin(
        TermOp::Add,
        bin(TermOp::Mul, bin(pick, var(l), c(st.lanes)), c(st.width)),
        var(rr),
    );
    let (dim_t, k_t, read_ix) = if st.along_i {
        // [row][step]: row = x / KB, step = x % KB.
        (
            bin(TermOp::Add, base, bin(TermOp::Div, var(x), c(kb_n))),
            k_at(bin(TermOp::Rem, var(x), c(kb_n))),
            bin(TermOp::Add, bin(TermOp::Mul, lane, c(kb_n)), var(kk)),
        )
    } else {
        // [step][column]: step = x / block, column = x % block.
        (
            bin(TermOp::Add, base, bin(TermOp::Rem, var(x), c(st.block))),
            k_at(bin(TermOp::Div, var(x), c(st.block))),
            bin(TermOp::Add, bin(TermOp::Mul, var(kk), c(st.block)), lane),
        )
    };
    let dim_t = match st.wrap {
        Some(n) => bin(TermOp::Rem, dim_t, c(n)),
        None => dim_t,
    };
    let e = subst_expr(p, ld, dim, &dim_t);
    let e = subst_expr(p, &e, k, &k_t);
    let value = compute(Level::Thread, len, x, to_thread_levels(&e));
    let v = p.fresh_var("stage", VarKind::Vector(value.ty), span);
    let read = Expr {
        kind: ExprKind::Index {
            vec: VecRef::Local(v),
            index: read_ix,
            guard: None,
        },
        ty: ld.ty,
        span,
    };
    ((v, value), read)
}

fn let_reg(v: VarId, value: Expr, body: Expr) -> Expr {
    let_at(MemLevel::Reg, v, value, body)
}

fn let_at(level: MemLevel, v: VarId, value: Expr, body: Expr) -> Expr {
    let (ty, span) = (body.ty, body.span);
    Expr {
        kind: ExprKind::Let {
            level: Some(level),
            var: v,
            value: Box::new(value),
            body: Box::new(body),
        },
        ty,
        span,
    }
}

/// Distinct scalar reads in `e` whose index mentions only `i` and `k`, and
/// `i` (into `li`), or only `j` and `k`, and `j` (into `lj`) — besides the
/// grid variable `g`, the same for the whole workgroup (a batch index):
/// operands that one register tile per reduction step can hold.
fn collect_loads(e: &Expr, ijkg: [VarId; 4], li: &mut Vec<Expr>, lj: &mut Vec<Expr>) {
    let [i, j, k, g] = ijkg;
    if let ExprKind::Index {
        index,
        vec: VecRef::Input(_) | VecRef::Global(_),
        ..
    } = &e.kind
    {
        let mut vars = Vec::new();
        term_vars(index, &mut vars);
        let only =
            |a: VarId| vars.iter().all(|v| *v == a || *v == k || *v == g) && vars.contains(&a);
        let list = if only(i) {
            Some(li)
        } else if only(j) {
            Some(lj)
        } else {
            None
        };
        if let Some(list) = list
            && !list.iter().any(|x| same(x, e))
        {
            list.push(e.clone());
        }
        return;
    }
    visit(e, |c| collect_loads(c, ijkg, li, lj));
}

fn term_vars(t: &Term, out: &mut Vec<VarId>) {
    use texpr_syntax::ir::TermKind as K;
    match &t.kind {
        K::Var(v) => out.push(*v),
        K::Binary(_, a, b) => {
            term_vars(a, out);
            term_vars(b, out);
        }
        K::Const(_) => {}
    }
}

/// Equal up to spans.
fn same(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (
            ExprKind::Index {
                vec: va,
                index: ia,
                guard: ga,
            },
            ExprKind::Index {
                vec: vb,
                index: ib,
                guard: gb,
            },
        ) => va == vb && ga == gb && term_eq(ia, ib),
        _ => false,
    }
}

fn term_eq(a: &Term, b: &Term) -> bool {
    use texpr_syntax::ir::TermKind as K;
    match (&a.kind, &b.kind) {
        (K::Const(x), K::Const(y)) => x == y,
        (K::Var(x), K::Var(y)) => x == y,
        (K::Binary(o1, a1, b1), K::Binary(o2, a2, b2)) => {
            o1 == o2 && term_eq(a1, a2) && term_eq(b1, b2)
        }
        _ => false,
    }
}

/// `e` with every read equal to `ld` replaced by `by`.
fn replace_equal(e: &Expr, ld: &Expr, by: &Expr) -> Expr {
    if same(e, ld) {
        return by.clone();
    }
    Expr {
        kind: map_children(e, |c| replace_equal(c, ld, by)),
        ty: e.ty,
        span: e.span,
    }
}

fn multipass(
    p: &mut Program,
    item: Item,
    root: &Expr,
    (parts, w, combine): (u64, u64, Combine),
    limits: &DeviceLimits,
) -> Result<(), Fail> {
    if combine == Combine::Subgroup && !limits.subgroups() {
        return Err((
            "E0215",
            "`combine=subgroup` needs subgroup operations, which this device does not have".into(),
        ));
    }
    let ExprKind::Reduce {
        level: None,
        op,
        n,
        var: i,
        body,
    } = &root.kind
    else {
        return Err(("E0211", "`multipass` needs an item `reduce N |i| E`".into()));
    };
    if !n.is_multiple_of(parts) || !parts.is_multiple_of(w) {
        return Err((
            "E0212",
            format!("{n} terms do not split into {parts} parts in groups of {w}"),
        ));
    }
    let per = n / parts;
    let m = body.ty.len;
    if parts * m > i32::MAX as u64 {
        return Err(("E0212", "too many partial results for i32 indices".into()));
    }
    // Partials the item folds: one per invocation, or one per workgroup.
    let folded = match combine {
        Combine::Serial => parts,
        Combine::Tree | Combine::Subgroup => parts / w,
    };
    if let Some(budget) = limits.max_loop_iterations {
        // A workgroup combine adds at most `W` steps per element (the fold
        // of the per-subgroup partials, or the tree's).
        let combine_steps = match combine {
            Combine::Serial => 0,
            _ => w * m,
        };
        let worst = (per * iterations(body).max(1) + combine_steps).max(folded * m);
        if worst > budget {
            return Err((
                "E0214",
                format!("{worst} loop iterations per invocation; the device runs {budget}"),
            ));
        }
    }
    let span = root.span;
    let g_n = parts / w;
    let g = p.fresh_var("g", VarKind::Index { extent: g_n }, span);
    let l = p.fresh_var("l", VarKind::Index { extent: w }, span);
    let t = p.fresh_var("t", VarKind::Index { extent: per }, span);
    let c = |x: u64| constant(x as i64);
    let idx = bin(
        TermOp::Add,
        bin(
            TermOp::Mul,
            bin(TermOp::Add, bin(TermOp::Mul, var(g), c(w)), var(l)),
            c(per),
        ),
        var(t),
    );
    let term_e = to_thread_levels(&subst_expr(p, body, *i, &idx));
    let partial = Expr {
        kind: ExprKind::Reduce {
            level: Some(Level::Thread),
            op: *op,
            n: per,
            var: t,
            body: Box::new(term_e),
        },
        ty: body.ty,
        span,
    };
    let group_e = match combine {
        Combine::Serial => compute(Level::Group, w, l, partial),
        Combine::Tree => reduce_at(Level::Group, *op, w, l, partial),
        Combine::Subgroup => reduce_at(Level::Subgroup, *op, w, l, partial),
    };
    if combine != Combine::Serial && folded == 1 {
        // One workgroup combines everything: no partials global.
        *item.root_mut(p) = grid_over(p, g, 1, m, m, group_e);
        return Ok(());
    }
    let value = grid_over(p, g, g_n, folded * m, folded * m, group_e);
    let base = format!("{}_partials", item.name(p));
    let mut name = base.clone();
    let mut suffix = 1;
    while items(p).iter().any(|it| it.name(p) == name) {
        suffix += 1;
        name = format!("{base}{suffix}");
    }
    let at = match item {
        Item::Global(x) => x,
        Item::Output(_) => p.globals.len(),
    };
    renumber_globals(p, at);
    p.globals.insert(
        at,
        Global {
            name,
            level: Some(MemLevel::Global),
            value,
            span,
        },
    );
    let part_ty = Ty::new(body.ty.elem, folded * m);
    let item = match item {
        Item::Global(x) => Item::Global(x + 1),
        o => o,
    };
    // The fold of the partials: one invocation.
    let q = p.fresh_var("q", VarKind::Index { extent: folded }, span);
    let read = |index: Term| -> Expr {
        Expr {
            kind: ExprKind::Index {
                vec: VecRef::Global(at as u32),
                index,
                guard: None,
            },
            ty: Ty::scalar(part_ty.elem),
            span,
        }
    };
    let term_q = if m == 1 {
        read(var(q))
    } else {
        let e = p.fresh_var("e", VarKind::Index { extent: m }, span);
        let r = read(bin(TermOp::Add, bin(TermOp::Mul, var(q), c(m)), var(e)));
        compute(Level::Thread, m, e, r)
    };
    let fold = Expr {
        kind: ExprKind::Reduce {
            level: Some(Level::Thread),
            op: *op,
            n: folded,
            var: q,
            body: Box::new(term_q),
        },
        ty: body.ty,
        span,
    };
    let g2 = p.fresh_var("g", VarKind::Index { extent: 1 }, span);
    let l2 = p.fresh_var("l", VarKind::Index { extent: 1 }, span);
    let new_root = grid_over(p, g2, 1, m, m, compute(Level::Group, 1, l2, fold));
    *item.root_mut(p) = new_root;
    Ok(())
}

/// `reduce@level op n |v| body`.
fn reduce_at(level: Level, op: ReduceOp, n: u64, v: VarId, body: Expr) -> Expr {
    let (ty, span) = (body.ty, body.span);
    Expr {
        kind: ExprKind::Reduce {
            level: Some(level),
            op,
            n,
            var: v,
            body: Box::new(body),
        },
        ty,
        span,
    }
}

/// Shifts every reference to a global at position `>= at` up by one.
fn renumber_globals(p: &mut Program, at: usize) {
    let at = at as u32;
    crate::subst::map_vec_refs(p, &|v| match v {
        VecRef::Global(x) if x >= at => VecRef::Global(x + 1),
        v => v,
    });
}
