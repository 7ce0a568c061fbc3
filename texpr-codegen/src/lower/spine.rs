//! The entry point of one item: the grid id (clamped, with `in_grid`, when the dispatch is
//! padded), the loop steps the item reads, the `let`s of the grid body's
//! spine (workgroup fills then a barrier; register values), and its final
//! value: an invocation's own elements of a `compute@group W`, a workgroup
//! tree, or elements `l, l+W, ...`; each element written at `g*M + j`
//! (through a tiled layout's inverse), guarded as the grid needs.

use super::cost::{expr_size, unroll_factor};
use super::{Ix, Loc, Lower, R};
use crate::grid::GridRoot;
use crate::kir::{BinOp as K, LoopStep, Mem, V};
use crate::plan::BufferId;
use texpr_ir::{Diagnostic, Span};
use texpr_ir::{Expr, ExprKind, Layout, Strided};
use texpr_ir::{Level, MemLevel};

/// The most statements a short elementwise body's copies may take when
/// written fully unrolled (one copy per element); longer ones go in a loop
/// unrolled by [`super::cost::unroll_factor`]. Big unrolled bodies buy
/// nothing on llvmpipe and make naga's front end, which is quadratic in a
/// function's expressions, the larger part of compile time (stencil2d: 16
/// copies of 35 statements).
const FULL_UNROLL_STATEMENTS: u64 = 256;

/// Where the kernel writes and how it guards.
#[derive(Debug)]
pub struct Out<'e> {
    pub mem: Mem,
    pub per_group: u64,
    pub len: u64,
    /// `in_grid`, when the dispatch is padded.
    pub in_grid: Option<V>,
    pub perm: Option<&'e Layout>,
    /// Writes need `< len` (a truncated grid).
    pub guard_len: bool,
    /// Element `j` goes to `base + j` (a state updated in place, written
    /// where the step's update begins); stores are then one element each.
    pub base: Option<V>,
}

/// What to do with element `j` once computed.
pub type Sink<'a> = dyn Fn(&mut Lower<'_>, Ix, V) -> R<()> + 'a;

/// The grid body of `sh`: its `let`s, then its final value into `out`.
pub fn body(cx: &mut Lower<'_>, sh: &GridRoot<'_>, g: V, out: &Out<'_>, out_id: BufferId) -> R<()> {
    let w = cx.group.group_size;
    let root_body = sh.body;
    if let Some(lanes) = &mut cx.reads.lanes {
        lanes.grid = Some(sh.grid_var);
    }
    cx.mark_quad_tiles(root_body, out_id);
    cx.mark_wide_folds(root_body, out_id);
    let mut e = root_body;
    while let ExprKind::Let {
        level,
        var,
        value,
        body,
    } = &e.kind
    {
        let name = cx.p.var(*var).name.clone();
        let loc = match level {
            Some(MemLevel::Shared) => {
                let loc = cx.fill_shared(&name, value, w, e.span)?;
                cx.b.barrier()?;
                loc
            }
            Some(MemLevel::Reg) => cx.local_vector(*var, value)?,
            Some(MemLevel::Lanes) => cx.lane_shared_vector(*var, value)?,
            Some(MemLevel::Prefetch) => cx.local_vector(*var, value)?,
            Some(MemLevel::Mma) => {
                let loc = cx.mma_block(&name, value, w, e.span)?;
                cx.b.barrier()?;
                loc
            }
            _ => {
                return Err(Diagnostic::error(
                    "E0303",
                    "`let@global` cannot stand inside an expression",
                )
                .with_primary(e.span, "this let"));
            }
        };
        cx.bind_local(*var, loc);
        e = body;
    }
    let sink: &Sink<'_> = &|cx, j, v| write(cx, out, g, j, v);
    match &e.kind {
        ExprKind::Compute {
            level: Some(Level::Group),
            n,
            var,
            map: None,
            body,
        } if *n == w => {
            let l = cx.local();
            cx.idx.insert(*var, Ix::Val(l));
            if let Some(lanes) = &mut cx.reads.lanes {
                lanes.local = Some(*var);
            }
            // Four at a time when nothing before has read a buffer.
            if std::ptr::eq(e, root_body)
                && let Some(q) = cx.quad(body, out, out_id)
                && cx.may_unroll(q.m / 4, cx.unroll.cost.elem(q.s) + 4)
            {
                return cx.quad_elements(&q, out, out_id, g);
            }
            own_elements(cx, body, sink, write_cost(out), Some((out, out_id, g)))
        }
        ExprKind::Reduce {
            level: Some(level @ (Level::Group | Level::Subgroup)),
            op,
            n,
            var,
            body,
            steps: None,
        } if *n == w => {
            let l = cx.local();
            cx.idx.insert(*var, Ix::Val(l));
            let arr = match level {
                Level::Group => cx.tree_into(*op, body, w, e.span)?,
                _ => {
                    cx.subgroup_into(*op, body, (w, e.span), Some(sink))?;
                    return Ok(());
                }
            };
            let m = body.ty.len as i64;
            let (l, end) = (cx.local(), cx.b.i32(m as i32));
            let trips = (m as u64).div_ceil(w);
            let j =
                cx.b.open_loop("e", (l, end, LoopStep::Up(w as i32)), false, trips);
            let v = cx.b.load(arr, j);
            sink(cx, Ix::Val(j), v)?;
            cx.b.close();
            Ok(())
        }
        _ => strided(cx, e, w, sink),
    }
}

/// The `let@reg`s at the top of `e`, computed once; returns what they scope.
fn hoist_lets<'e>(cx: &mut Lower<'_>, mut e: &'e Expr) -> R<(&'e Expr, bool)> {
    let mut any = false;
    while let ExprKind::Let {
        level: Some(level @ (MemLevel::Reg | MemLevel::Prefetch | MemLevel::Lanes)),
        var,
        value,
        body,
    } = &e.kind
    {
        let loc = match level {
            MemLevel::Prefetch => cx.prefetched(*var, value)?,
            MemLevel::Lanes => cx.lane_shared_vector(*var, value)?,
            _ => cx.local_vector(*var, value)?,
        };
        cx.bind_local(*var, loc);
        any = true;
        e = body;
    }
    Ok((e, any))
}

/// Invocation `l` computes elements `l*m + j` of `compute@group W |l| body`
/// and hands each to `sink`: unrolled when short and within the budget,
/// else in a loop unrolled by up to 8 as the budget allows.
///
/// Under `loads=wide`, a compute's reads of a row go eight a load
/// (`wide.rs`), and with `out` (the kernel's output, which `sink` writes,
/// its id and the group id) eight elements go out a `vec4<u64>` store.
pub fn own_elements(
    cx: &mut Lower<'_>,
    body: &Expr,
    sink: &Sink<'_>,
    sink_cost: u64,
    out: Option<(&Out<'_>, BufferId, V)>,
) -> R<()> {
    let (body, hoisted) = hoist_lets(cx, body)?;
    let m = body.ty.len as i64;
    let l = cx.local();
    if m == 1 {
        let v = cx.elem(body, Ix::Const(0))?;
        return sink(cx, Ix::Val(l), v);
    }
    let each = cx.unroll.cost.elem(body) + sink_cost + 1;
    let short = (hoisted && m as u64 <= cx.unroll.cost.register_vector)
        || (m <= 16 && (m as u64).saturating_mul(each) <= FULL_UNROLL_STATEMENTS);
    let (steps, j) = match short && cx.may_unroll(m as u64, each) {
        true => (m as u64, None),
        false => {
            let size = expr_size(body) / (m as usize);
            let u = cx.fit_unroll(unroll_factor(m as u64, size.max(1) as u64), each);
            let (zero, end) = (cx.b.i32(0), cx.b.i32(m as i32));
            let trips = (m as u64).div_ceil(u);
            let j =
                cx.b.open_loop("j", (zero, end, LoopStep::Up(u as i32)), true, trips);
            (u, Some(j))
        }
    };
    let index = |cx: &mut Lower<'_>, step: u64| match j {
        Some(j) if step == 0 => Ix::Val(j),
        Some(j) => cx.arith(K::Add, Ix::Val(j), Ix::Const(step as i64)),
        None => Ix::Const(step as i64),
    };
    // A compute's reads of a row, eight at a time where the device loads
    // so: one element per step of its variable.
    let wide = match &body.kind {
        ExprKind::Compute {
            n,
            var,
            body: inner,
            ..
        } if *n == m as u64 => Some((*var, cx.wide_fold_reads(inner, *var, m as u64, steps))),
        _ => None,
    };
    let out = out.filter(|(o, id, _)| cx.wide_output(o, *id, m as u64, steps));
    let mut eight = Vec::new();
    for step in 0..steps {
        let copy = cx.b.enter_copy(step);
        let at = index(cx, step);
        if let Some((var, reads)) = &wide {
            cx.idx.insert(*var, at);
            cx.wide_step(reads, *var, step)?;
        }
        let v = cx.elem(body, at)?;
        match out {
            Some((o, _, g)) => {
                eight.push(v);
                if eight.len() == 8 {
                    let first = index(cx, step - 7);
                    cx.wide_store(o, g, m as u64, first, &std::mem::take(&mut eight));
                }
            }
            None => {
                let base = cx.arith(K::Mul, Ix::Val(l), Ix::Const(m));
                let at = cx.arith(K::Add, base, at);
                sink(cx, at, v)?;
            }
        }
        cx.b.leave_copy(copy);
    }
    if let Some((var, _)) = wide {
        cx.wide_done(var);
    }
    if j.is_some() {
        cx.b.close();
    }
    Ok(())
}

/// Invocation `l` computes elements `l, l+W, ...` of `e`.
fn strided(cx: &mut Lower<'_>, e: &Expr, w: u64, sink: &Sink<'_>) -> R<()> {
    let (e, _) = hoist_lets(cx, e)?;
    let len = e.ty.len as i64;
    if w == 1 && len == 1 {
        let v = cx.elem(e, Ix::Const(0))?;
        return sink(cx, Ix::Const(0), v);
    }
    let (l, end) = (cx.local(), cx.b.i32(len as i32));
    let trips = (len as u64).div_ceil(w);
    let j =
        cx.b.open_loop("e", (l, end, LoopStep::Up(w as i32)), false, trips);
    let v = cx.elem(e, Ix::Val(j))?;
    sink(cx, Ix::Val(j), v)?;
    cx.b.close();
    Ok(())
}

impl Lower<'_> {
    /// Declares a workgroup array and fills it with `value` cooperatively
    /// (no barrier); a workgroup tree's array holds its result.
    pub fn fill_shared(&mut self, name: &str, value: &Expr, w: u64, span: Span) -> R<Loc> {
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
            let l = self.local();
            self.idx.insert(*var, Ix::Val(l));
            return match level {
                Level::Group => self.tree_into(*op, body, w, span).map(Loc::Array),
                _ => self
                    .subgroup_into(*op, body, (w, span), None)
                    .map(Loc::Array),
            };
        }
        let arr = self.shared_array(name, value.ty.elem, value.ty.len, span);
        if let Some((raw, rows)) = strided_rows(value) {
            // Padded against bank conflicts: raw element `r` at
            // `(r / C) * S + r % C`.
            let (c, st) = (rows.cols as i64, rows.stride as i64);
            let sink: &Sink<'_> = &|cx, j, v| {
                let q = cx.div(j, c);
                let row = cx.arith(K::Mul, q, Ix::Const(st));
                let r = cx.rem(j, c);
                let at = cx.arith(K::Add, row, r);
                let at = cx.ix(at);
                cx.b.store(arr, at, v);
                Ok(())
            };
            self.fill_with(&raw, w, sink)?;
            return Ok(Loc::Array(arr));
        }
        let sink: &Sink<'_> = &|cx, j, v| {
            let at = cx.ix(j);
            cx.b.store(arr, at, v);
            Ok(())
        };
        self.fill_with(value, w, sink)?;
        Ok(Loc::Array(arr))
    }

    /// A `var<workgroup>` array of `len` elements.
    pub fn shared_array(
        &mut self,
        base: &str,
        elem: texpr_ir::ElemTy,
        len: u64,
        span: Span,
    ) -> Mem {
        let name = format!("s{}_{}", self.k, self.b.fresh(base));
        // Past `u32::MAX` elements, as many as the IR holds: over any
        // device's budget all the same (`kir::passes::check_workgroup`).
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        self.b.declare_shared(name, super::ty(elem), len, span)
    }

    /// Invocations fill `value`'s elements: their own `m` elements of a
    /// `compute@group W`, else elements `l, l+W, ...`.
    pub fn fill_with(&mut self, value: &Expr, w: u64, sink: &Sink<'_>) -> R<()> {
        match &value.kind {
            ExprKind::Compute {
                level: Some(Level::Group),
                n,
                var,
                map: None,
                body,
            } if *n == w => {
                let l = self.local();
                self.idx.insert(*var, Ix::Val(l));
                own_elements(self, body, sink, 1, None)
            }
            _ => strided(self, value, w, sink),
        }
    }
}

/// `out[g*M + j] = v`, through the layout's inverse, guarded as needed.
fn write(cx: &mut Lower<'_>, out: &Out<'_>, g: V, j: Ix, v: V) -> R<()> {
    let base = cx.arith(K::Mul, Ix::Val(g), Ix::Const(out.per_group as i64));
    let mut lin = cx.arith(K::Add, base, j);
    if let Some(perm) = out.perm {
        // A variable no program has: bound to the raw position only here.
        let raw = texpr_ir::VarId(u32::MAX);
        cx.idx.insert(raw, lin);
        let t = perm.inverse_term(texpr_ir::term::var(raw));
        lin = cx.term(&t)?;
        cx.idx.remove(&raw);
    }
    let at = cx.ix(lin);
    let to = match out.base {
        Some(base) => cx.b.binary(K::Add, base, at),
        None => at,
    };
    guarded(cx, out, at, |cx| cx.b.store(out.mem, to, v));
    Ok(())
}

/// Runs `store` for output position `lin`, inside `if (in_grid && lin <
/// len)` as far as the grid needs either guard.
pub fn guarded(cx: &mut Lower<'_>, out: &Out<'_>, lin: V, store: impl FnOnce(&mut Lower<'_>)) {
    let mut cond = out.in_grid;
    if out.guard_len {
        let len = cx.b.i32(out.len as i32);
        let inside = cx.b.binary(K::Lt, lin, len);
        cond = Some(match cond {
            Some(c) => cx.b.binary(K::And, c, inside),
            None => inside,
        });
    }
    match cond {
        Some(c) => {
            cx.b.open_if(c, false);
            store(cx);
            cx.b.close();
        }
        None => store(cx),
    }
}

/// Statements one write takes (its position, a layout's inverse, guards).
fn write_cost(out: &Out<'_>) -> u64 {
    let raw = texpr_ir::term::var(texpr_ir::VarId(u32::MAX));
    let perm = (out.perm).map_or(0, |p| super::cost::term_cost(&p.inverse_term(raw)));
    3 + perm + 2 * (out.in_grid.is_some() || out.guard_len) as u64
}

/// `value` without its `strided(C, S)` layout, and the layout, when it has
/// one (a padded workgroup array).
fn strided_rows(value: &Expr) -> Option<(Expr, Strided)> {
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
    let ty = texpr_ir::Ty::new(value.ty.elem, n * body.ty.len);
    Some((
        Expr {
            kind,
            ty,
            span: value.span,
        },
        *rows,
    ))
}
