//! One kernel: the entry point computing an item root `compute@grid G |g| BODY`.
//!
//! Workgroup `g` computes `BODY` (length `M`) and writes element `e` at
//! `g*M + e`, guarded by `< L` when the grid is truncated or the dispatch is
//! padded. `BODY`'s spine is walked in order:
//! - `let@shared v = V in ...`: a `var<workgroup>` array filled cooperatively
//!   (invocation `l` fills `l, l+W, ...`; or its own `m` elements when `V` is
//!   `compute@group W`; or, when `V` is `reduce@group W`, the workgroup tree
//!   whose array then holds the result), then `workgroupBarrier()`;
//! - `let@reg v = V in ...`: every invocation materialises `V`;
//! - a `let@shared` inside a loop of the invocations' code (a shared-staged
//!   tile's block of reduction steps, see [`Ctx::staged_shared`]): a barrier
//!   (earlier readers are done), the cooperative fill, a barrier;
//! - the final value: `compute@group W |l| T` — invocation `l` computes its
//!   `m` elements; `reduce@group W |l| T` — a tree reduction in workgroup
//!   memory with barriers between the steps; `reduce@subgroup W |l| T` — a
//!   subgroup operation per element, lane 0 of each subgroup writes its
//!   partial to workgroup memory, a barrier, then a fold of the partials
//!   (see [`Ctx::subgroup_reduce`]); anything else — invocation `l`
//!   computes elements `l, l+W, ...` (see [`Ctx::elem`]).
//!
//! The workgroup size `W` is the widest group-level node on the spine (1 if
//! none). Barriers are written only at the function's top level or inside
//! loops with constant bounds (the writer refuses anything else).

use super::ctx::{Ctx, Ix};
use super::lit;
use crate::grid::GridRoot;
use texpr_syntax::ast::{Level, MemLevel};
use texpr_syntax::ir::{Expr, ExprKind, Layout, Strided, Ty};
use texpr_syntax::{Diagnostic, Span};

/// The most statements a short elementwise body's copies may take when
/// written fully unrolled (one copy per element); longer ones go in a loop
/// unrolled by [`super::cost::unroll_factor`]. Big unrolled bodies buy
/// nothing on llvmpipe and make naga's front end, which is quadratic in a
/// function's expressions, the larger part of compile time (stencil2d: 16
/// copies of 35 statements).
pub(crate) const FULL_UNROLL_STATEMENTS: u64 = 256;

/// Where the kernel writes and how it guards.
#[derive(Debug)]
pub struct Destination<'e> {
    pub buffer: String,
    pub id: crate::plan::BufferId,
    pub per_group: u64,
    pub len: u64,
    /// The grid's linear group id may exceed the grid (dispatch padding).
    pub guard_group: bool,
    /// Writes need `< len` (truncated grid).
    pub guard_len: bool,
    /// Raw position `p` is written at `perm.inverse_term(p)` (a tiled layout).
    pub perm: Option<&'e Layout>,
}

/// The workgroup size of a grid body and the node that sets it.
pub fn workgroup_size(body: &Expr) -> (u64, Span) {
    let mut best = (1, body.span);
    let mut e = body;
    loop {
        match &e.kind {
            ExprKind::Let {
                level: Some(MemLevel::Shared),
                value,
                body,
                ..
            } => {
                best = wider(best, group_node(value));
                e = body;
            }
            ExprKind::Let { body, .. } => e = body,
            _ => return wider(best, group_node(e)),
        }
    }
}

fn group_node(e: &Expr) -> Option<(u64, Span)> {
    match &e.kind {
        ExprKind::Compute {
            level: Some(Level::Group),
            n,
            ..
        }
        | ExprKind::Reduce {
            level: Some(Level::Group | Level::Subgroup),
            n,
            ..
        } => Some((*n, e.span)),
        _ => None,
    }
}

fn wider(a: (u64, Span), b: Option<(u64, Span)>) -> (u64, Span) {
    match b {
        Some(b) if b.0 > a.0 => b,
        _ => a,
    }
}

impl Ctx<'_> {
    /// Writes the body of the entry point for `root`; `l` is the local id.
    pub fn kernel_body(
        &mut self,
        root: &GridRoot<'_>,
        w: u64,
        g: Ix,
        out: &Destination<'_>,
    ) -> Result<(), Diagnostic> {
        self.idx.insert(root.grid_var, g);
        self.group_size = w;
        if let Some(lanes) = &mut self.lanes {
            lanes.grid = Some(root.grid_var);
        }
        self.mark_quad_tiles(root.body, out.id);
        self.mark_wide_folds(root.body, out.id);
        let mut e = root.body;
        while let ExprKind::Let {
            level,
            var,
            value,
            body,
        } = &e.kind
        {
            let name = self.p.var(*var).name.clone();
            let loc = match level {
                Some(MemLevel::Shared) => self.shared_let(&name, value, w, e.span)?,
                Some(MemLevel::Reg | MemLevel::Prefetch) => self.local_vector(*var, value)?,
                _ => {
                    return Err(Diagnostic::error(
                        "E0303",
                        "`let@global` cannot stand inside an expression",
                    )
                    .with_primary(e.span, "this let"));
                }
            };
            self.bind_local(*var, loc);
            e = body;
        }
        match &e.kind {
            ExprKind::Compute {
                level: Some(Level::Group),
                n,
                var,
                map: None,
                body,
            } if *n == w => {
                self.idx.insert(*var, Ix::Name("l".into()));
                if let Some(lanes) = &mut self.lanes {
                    lanes.local = Some(*var);
                }
                // Four at a time when nothing before has read a buffer.
                if std::ptr::eq(e, root.body)
                    && let Some(q) = self.quad(body, out, out.id)
                    && self.may_unroll(q.m / 4, self.cost().elem(q.s) + 4)
                {
                    match q.octo {
                        true => self.octo.insert(out.id),
                        false => self.vec4.insert(out.id),
                    };
                    return self.quad_elements(&q, out);
                }
                let sink: &Sink<'_> = &|cx, j, v| cx.write(out, &j, v);
                self.own_elements(body, sink, write_cost(out), Some(out))
            }
            ExprKind::Reduce {
                level: Some(level @ (Level::Group | Level::Subgroup)),
                op,
                n,
                var,
                body,
                steps: None,
            } if *n == w => {
                self.idx.insert(*var, Ix::Name("l".into()));
                match level {
                    Level::Group => self.tree_reduce(*op, body, w, e.span, out),
                    _ => self.subgroup_reduce(*op, body, w, e.span, out),
                }
            }
            _ => self.strided(e, w, &|cx, j, v| cx.write(out, &j, v)),
        }
    }

    /// Materialises the `let@reg`s at the top of `e` once (they do not
    /// depend on which element is computed) and returns what they scope.
    fn hoist_lets<'e>(&mut self, mut e: &'e Expr) -> Result<(&'e Expr, bool), Diagnostic> {
        let mut any = false;
        while let ExprKind::Let {
            level: Some(level @ (MemLevel::Reg | MemLevel::Prefetch)),
            var,
            value,
            body,
        } = &e.kind
        {
            let loc = match level {
                MemLevel::Prefetch => self.prefetched(*var, value)?,
                _ => self.local_vector(*var, value)?,
            };
            self.bind_local(*var, loc);
            any = true;
            e = body;
        }
        Ok((e, any))
    }

    /// Invocation `l` computes elements `l*m + j` of `compute@group W |l| body`
    /// and hands each to `sink` (about `sink_cost` statements). Leading
    /// `let@reg`s are computed once; after them, up to
    /// the budget's `register_vector` elements are written unrolled (a
    /// register tile's epilogue; any body up to 16 elements) when the copies
    /// fit the kernel's budget of unrolled statements, else in a loop
    /// unrolled by up to 8 as far as the budget allows. Where the device
    /// loads wide, reads of a row go eight a load (`wide.rs`), and when
    /// `out` is given (the kernel's output, which `sink` writes) eight
    /// elements go out a `vec4<u64>` store ([`Ctx::wide_output`]).
    pub(super) fn own_elements(
        &mut self,
        body: &Expr,
        sink: &Sink<'_>,
        sink_cost: u64,
        out: Option<&Destination<'_>>,
    ) -> Result<(), Diagnostic> {
        let (body, hoisted) = self.hoist_lets(body)?;
        let m = body.ty.len as i64;
        if m == 1 {
            let v = self.elem(body, &Ix::Const(0))?;
            return sink(self, Ix::Name("l".into()), &v);
        }
        let each = self.cost().elem(body) + sink_cost + 1;
        // A register tile's epilogue must be unrolled (its registers are
        // indexed by constants); other short bodies only while small.
        let short = (hoisted && m as u64 <= self.budget.register_vector)
            || (m <= 16 && (m as u64).saturating_mul(each) <= FULL_UNROLL_STATEMENTS);
        // Every element unrolled (`j` none), or a loop of `steps` a trip.
        let (steps, j) = match short && self.may_unroll(m as u64, each) {
            true => (m as u64, None),
            false => {
                // One element's size: the vector's over its length.
                let size = super::cost::expr_size(body) / (m as usize);
                let u = super::cost::unroll_factor(m as u64, size.max(1) as u64);
                let u = self.fit_unroll(u, each);
                // Constant bounds: every invocation runs it alike (uniform).
                (
                    u,
                    Some(self.open_loop("j", &Ix::Const(0), m, u as i64, true)),
                )
            }
        };
        let index = |cx: &mut Self, step: u64| match &j {
            Some(j) => cx.step_index(j, step),
            None => Ix::Const(step as i64),
        };
        // A compute's reads of a row, eight at a time where the device loads
        // so: one element per step of its variable (not a tile's rows).
        let wide = match &body.kind {
            ExprKind::Compute {
                n,
                var,
                body: inner,
                ..
            } if *n == m as u64 => Some((*var, self.wide_fold_reads(inner, *var, m as u64, steps))),
            _ => None,
        };
        let out = out.filter(|o| self.wide_output(o, m as u64, steps));
        let mut eight = Vec::new();
        for step in 0..steps {
            let copy = self.w.enter_copy(step);
            let at = index(self, step);
            if let Some((var, reads)) = &wide {
                self.idx.insert(*var, at.clone());
                self.wide_step(reads, *var, step)?;
            }
            let v = self.elem(body, &at)?;
            match out {
                Some(out) => {
                    eight.push(v);
                    if eight.len() == 8 {
                        let first = index(self, step - 7);
                        self.wide_store(out, m as u64, &first, &std::mem::take(&mut eight))?;
                    }
                }
                None => {
                    let at = self
                        .w
                        .let_("i32", format!("l * {} + {at}", lit::i32_lit(m as i32)));
                    sink(self, Ix::Name(at), &v)?;
                }
            }
            self.w.leave_copy(copy);
        }
        if let Some((var, _)) = wide {
            self.wide_done(var);
        }
        if j.is_some() {
            self.w.close();
        }
        Ok(())
    }

    /// Invocation `l` computes elements `l, l+W, ...` of `e` (leading
    /// `let@reg`s computed once).
    fn strided(&mut self, e: &Expr, w: u64, sink: &Sink<'_>) -> Result<(), Diagnostic> {
        let (e, _) = self.hoist_lets(e)?;
        let len = e.ty.len as i64;
        if w == 1 && len == 1 {
            let v = self.elem(e, &Ix::Const(0))?;
            return sink(self, Ix::Const(0), &v);
        }
        let j = self.open_loop("e", &Ix::Name("l".into()), len, w as i64, false);
        let v = self.elem(e, &Ix::Name(j.clone()))?;
        sink(self, Ix::Name(j), &v)?;
        self.w.close();
        Ok(())
    }

    /// Fills a `var<workgroup>` array with `value` cooperatively, then a barrier.
    fn shared_let(
        &mut self,
        name: &str,
        value: &Expr,
        w: u64,
        span: Span,
    ) -> Result<super::ctx::Loc, Diagnostic> {
        let loc = self.fill_shared(name, value, w, span)?;
        self.w.barrier()?;
        Ok(loc)
    }

    /// Declares a `var<workgroup>` array and fills it with `value`
    /// cooperatively (no barrier).
    pub(super) fn fill_shared(
        &mut self,
        name: &str,
        value: &Expr,
        w: u64,
        span: Span,
    ) -> Result<super::ctx::Loc, Diagnostic> {
        // A workgroup tree or a subgroup combine: its array holds the result.
        if let ExprKind::Reduce {
            level: Some(level @ (Level::Group | Level::Subgroup)),
            op,
            n,
            var,
            body,
            steps: None,
        } = &value.kind
            && *n == w
        {
            self.idx.insert(*var, Ix::Name("l".into()));
            let red = match level {
                Level::Group => self.tree_into(*op, body, w, span)?,
                _ => self.subgroup_into(*op, body, w, span)?,
            };
            return Ok(super::ctx::Loc::Array(red));
        }
        let arr = self.declare_shared(name, value.ty.elem, value.ty.len, span);
        if let Some((raw, rows)) = strided_rows(value) {
            // Padded against bank conflicts: each raw element `r` written
            // once, at `(r / C) * S + r % C` (the padding never).
            let (c, st) = (rows.cols as i32, rows.stride as i32);
            let sink: &Sink<'_> = &|cx, j, v| {
                let at = match j {
                    Ix::Const(r) => lit::i32_lit((r / c as i64 * st as i64 + r % c as i64) as i32),
                    Ix::Name(r) => cx.w.let_(
                        "i32",
                        format!(
                            "({r} / {}) * {} + {r} % {}",
                            lit::i32_lit(c),
                            lit::i32_lit(st),
                            lit::i32_lit(c)
                        ),
                    ),
                };
                cx.w.line(format!("{arr}[{at}] = {v};"));
                Ok(())
            };
            self.fill_with(&raw, w, sink)?;
            return Ok(super::ctx::Loc::Array(arr));
        }
        let sink: &Sink<'_> = &|cx, j, v| {
            cx.w.line(format!("{arr}[{j}] = {v};"));
            Ok(())
        };
        self.fill_with(value, w, sink)?;
        Ok(super::ctx::Loc::Array(arr))
    }

    /// Invocations fill `value`'s elements cooperatively, handing each to
    /// `sink`: their own `m` elements of a `compute@group W`, else
    /// elements `l, l+W, ...`.
    fn fill_with(&mut self, value: &Expr, w: u64, sink: &Sink<'_>) -> Result<(), Diagnostic> {
        match &value.kind {
            ExprKind::Compute {
                level: Some(Level::Group),
                n,
                var,
                map: None,
                body,
            } if *n == w => {
                self.idx.insert(*var, Ix::Name("l".into()));
                self.own_elements(body, sink, 1, None)?;
            }
            _ => self.strided(value, w, sink)?,
        }
        Ok(())
    }

    /// `out[g*M + j] = v`, guarded as the target needs.
    pub(super) fn write(
        &mut self,
        out: &Destination<'_>,
        j: &Ix,
        v: &str,
    ) -> Result<(), Diagnostic> {
        let m = lit::i32_lit(out.per_group as i32);
        let mut lin = self.w.let_("i32", format!("g * {m} + {j}"));
        if let Some(perm) = &out.perm {
            // A variable no program has: bound to the raw position only here.
            let raw = texpr_syntax::ir::VarId(u32::MAX);
            self.idx.insert(raw, Ix::Name(lin.clone()));
            let at = crate::wgsl::index::term(
                self,
                &perm.inverse_term(texpr_syntax::ir::term::var(raw)),
            )?;
            self.idx.remove(&raw);
            lin = self.named(&at).to_string();
        }
        let mut conds = Vec::new();
        if out.guard_group {
            conds.push("in_grid".to_string());
        }
        if out.guard_len {
            conds.push(format!("{lin} < {}", lit::i32_lit(out.len as i32)));
        }
        if conds.is_empty() {
            self.w.line(format!("{}[{lin}] = {v};", out.buffer));
        } else {
            self.w.open(format!("if ({})", conds.join(" && ")), false);
            self.w.line(format!("{}[{lin}] = {v};", out.buffer));
            self.w.close();
        }
        Ok(())
    }
}

/// `value` without its `strided(C, S)` layout, and the layout, when it has
/// one (a padded workgroup array).
pub(crate) fn strided_rows(value: &Expr) -> Option<(Expr, Strided)> {
    let ExprKind::Compute {
        level,
        n,
        var,
        map: Some(m),
        body,
    } = &value.kind
    else {
        return None;
    };
    let Some(Layout::Strided(rows)) = m.layout() else {
        return None;
    };
    let kind = ExprKind::Compute {
        level: *level,
        n: *n,
        var: *var,
        map: None,
        body: body.clone(),
    };
    let ty = Ty::new(value.ty.elem, n * body.ty.len);
    Some((
        Expr {
            kind,
            ty,
            span: value.span,
        },
        *rows,
    ))
}

/// What to do with element `j` once computed.
pub(super) type Sink<'a> = dyn Fn(&mut Ctx<'_>, Ix, &str) -> Result<(), Diagnostic> + 'a;

/// Statements one write to `out` takes (its position, the inverse of a
/// tiled layout, guards, the store).
fn write_cost(out: &Destination<'_>) -> u64 {
    let raw = texpr_syntax::ir::term::var(texpr_syntax::ir::VarId(u32::MAX));
    let perm = out
        .perm
        .map_or(0, |p| super::cost::term_cost(&p.inverse_term(raw)));
    3 + perm + 2 * (out.guard_group || out.guard_len) as u64
}
