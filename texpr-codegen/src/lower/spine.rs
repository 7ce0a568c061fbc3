//! The entry point of one item (as `wgsl/module.rs` and `wgsl/kernel.rs`
//! write it): the grid id (clamped, with `in_grid`, when the dispatch is
//! padded), the loop steps the item reads, the `let`s of the grid body's
//! spine (workgroup fills then a barrier; register values), and its final
//! value: an invocation's own elements of a `compute@group W`, a workgroup
//! tree, or elements `l, l+W, ...`; each element written at `g*M + j`
//! (through a tiled layout's inverse), guarded as the grid needs.

use super::{Fail, Ix, Loc, Lower, R};
use crate::grid::GridRoot;
use crate::kir::{BinOp as K, Builtin, LoopStep, Mem, Op, Ty, V};
use crate::plan::{BufferId, Kernel as Plan};
use crate::wgsl::cost::{expr_size, unroll_factor};
use crate::wgsl::kernel::{FULL_UNROLL_STATEMENTS, strided_rows};
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::{Level, MemLevel};
use texpr_syntax::ir::{Expr, ExprKind, Layout, LoopId};

/// Where the kernel writes and how it guards.
pub struct Out<'e> {
    pub mem: Mem,
    pub per_group: u64,
    pub len: u64,
    /// `in_grid`, when the dispatch is padded.
    pub in_grid: Option<V>,
    pub perm: Option<&'e Layout>,
    /// Writes need `< len` (a truncated grid).
    pub guard_len: bool,
}

/// What to do with element `j` once computed.
pub type Sink<'a> = dyn Fn(&mut Lower<'_>, Ix, V) -> R<()> + 'a;

/// The kernel body for grid root `sh` (item `root`) writing buffer `out`.
pub fn item(
    cx: &mut Lower<'_>,
    sh: &GridRoot<'_>,
    root: &Expr,
    out: BufferId,
    plan: &Plan,
) -> R<()> {
    read_steps(cx, root)?;
    let [x, y, _] = plan.dispatch;
    let dispatched = plan.dispatch.iter().map(|&d| d as u64).product::<u64>();
    let padded = dispatched > sh.groups;
    let wid = |cx: &mut Lower<'_>, c| cx.b.builtin(Builtin::WorkgroupId(c));
    let mut lin = wid(cx, 0);
    if (x as u64) < sh.groups {
        let (w1, w2) = (wid(cx, 1), wid(cx, 2));
        let (cx_, cxy) = (cx.b.u32(x), cx.b.u32((x as u64 * y as u64) as u32));
        let a = cx.b.binary(K::Mul, w1, cx_);
        let b = cx.b.binary(K::Mul, w2, cxy);
        let s = cx.b.binary(K::Add, lin, a);
        lin = cx.b.binary(K::Add, s, b);
    }
    let (g, in_grid) = match padded {
        true => {
            let groups = cx.b.u32(sh.groups as u32);
            let in_grid = cx.b.binary(K::Lt, lin, groups);
            let last = cx.b.u32((sh.groups - 1) as u32);
            let g = cx.b.call(crate::kir::Fun::Min, vec![lin, last]);
            (cx.b.value(Op::Convert(g), Ty::I32, "g"), Some(in_grid))
        }
        false => (cx.b.value(Op::Convert(lin), Ty::I32, "g"), None),
    };
    cx.local();
    let dest = Out {
        mem: cx.buffer(out)?,
        per_group: sh.per_group,
        len: sh.len,
        in_grid,
        perm: sh.perm,
        guard_len: sh.len < sh.groups * sh.per_group,
    };
    cx.idx.insert(sh.grid_var, Ix::Val(g));
    cx.group_size = plan.workgroup_size[0] as u64;
    body(cx, sh.body, g, &dest)
}

/// Binds each step of a loop around the item that its root reads.
fn read_steps(cx: &mut Lower<'_>, root: &Expr) -> R<()> {
    let mut l = cx.within;
    while let Some(x) = l {
        let lp = &cx.p.loops[x as usize];
        if let Some(step) = cx.bufs.step(x)
            && root.mentions(lp.var)
        {
            let buf = cx.buffer(step.current)?;
            let zero = cx.b.i32(0);
            let t = cx.b.load(buf, zero);
            cx.idx.insert(lp.var, Ix::Val(t));
        }
        l = lp.within;
    }
    Ok(())
}

/// Writes the next step of loop `l` (one more than this one), from the
/// first invocation of the first workgroup only when `first_only`.
pub fn advance_step(cx: &mut Lower<'_>, l: LoopId, first_only: bool) -> R<()> {
    let Some(step) = cx.bufs.step(l) else {
        return Ok(());
    };
    let cur = cx.buffer(step.current)?;
    let next = cx.buffer(step.next)?;
    if first_only {
        let zero = cx.b.u32(0);
        let mut cond = None;
        for b in [0, 1, 2]
            .map(Builtin::WorkgroupId)
            .into_iter()
            .chain([0, 1, 2].map(Builtin::LocalId))
        {
            let v = cx.b.builtin(b);
            let z = cx.b.binary(K::Eq, v, zero);
            cond = Some(match cond {
                None => z,
                Some(c) => cx.b.binary(K::And, c, z),
            });
        }
        cx.b.open_if(cond.expect("six conditions"), false);
    }
    let zero = cx.b.i32(0);
    let t = cx.b.load(cur, zero);
    let one = cx.b.i32(1);
    let t1 = cx.b.binary(K::Add, t, one);
    cx.b.store(next, zero, t1);
    if first_only {
        cx.b.close();
    }
    Ok(())
}

fn body(cx: &mut Lower<'_>, root_body: &Expr, g: V, out: &Out<'_>) -> R<()> {
    let w = cx.group_size;
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
                let loc = cx.fill_shared(&name, value, w)?;
                cx.b.barrier()?;
                loc
            }
            Some(MemLevel::Reg) => cx.local_vector(*var, value)?,
            Some(MemLevel::Prefetch) => return Err(Fail::Unported("a prefetch")),
            _ => {
                return Err(Fail::Error(
                    Diagnostic::error("E0303", "`let@global` cannot stand inside an expression")
                        .with_primary(e.span, "this let"),
                ));
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
            own_elements(cx, body, sink, write_cost(out))
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
                Level::Group => cx.tree_into(*op, body, w)?,
                _ => {
                    cx.subgroup_into(*op, body, w, Some(sink))?;
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
        level: Some(level @ (MemLevel::Reg | MemLevel::Prefetch)),
        var,
        value,
        body,
    } = &e.kind
    {
        if *level == MemLevel::Prefetch {
            return Err(Fail::Unported("a prefetch"));
        }
        let loc = cx.local_vector(*var, value)?;
        cx.bind_local(*var, loc);
        any = true;
        e = body;
    }
    Ok((e, any))
}

/// Invocation `l` computes elements `l*m + j` of `compute@group W |l| body`
/// and hands each to `sink`: unrolled when short and within the budget,
/// else in a loop unrolled by up to 8 as the budget allows.
pub fn own_elements(cx: &mut Lower<'_>, body: &Expr, sink: &Sink<'_>, sink_cost: u64) -> R<()> {
    let (body, hoisted) = hoist_lets(cx, body)?;
    let m = body.ty.len as i64;
    let l = cx.local();
    if m == 1 {
        let v = cx.elem(body, Ix::Const(0))?;
        return sink(cx, Ix::Val(l), v);
    }
    let each = cx.cost.elem(body) + sink_cost + 1;
    let short = (hoisted && m as u64 <= cx.cost.register_vector)
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
    for step in 0..steps {
        let copy = cx.b.enter_copy(step);
        let at = match j {
            Some(j) if step == 0 => Ix::Val(j),
            Some(j) => cx.arith(K::Add, Ix::Val(j), Ix::Const(step as i64)),
            None => Ix::Const(step as i64),
        };
        let v = cx.elem(body, at)?;
        let base = cx.arith(K::Mul, Ix::Val(l), Ix::Const(m));
        let at = cx.arith(K::Add, base, at);
        sink(cx, at, v)?;
        cx.b.leave_copy(copy);
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
    pub fn fill_shared(&mut self, name: &str, value: &Expr, w: u64) -> R<Loc> {
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
                Level::Group => self.tree_into(*op, body, w).map(Loc::Array),
                _ => self.subgroup_into(*op, body, w, None).map(Loc::Array),
            };
        }
        let arr = self.shared_array(name, value.ty.elem, value.ty.len);
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
    pub fn shared_array(&mut self, base: &str, elem: texpr_syntax::ast::ElemTy, len: u64) -> Mem {
        let name = format!("s{}_{}", self.k, self.b.fresh(base));
        self.b.declare_shared(name, super::ty(elem), len as u32)
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
                own_elements(self, body, sink, 1)
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
        let raw = texpr_syntax::ir::VarId(u32::MAX);
        cx.idx.insert(raw, lin);
        let t = perm.inverse_term(texpr_syntax::ir::term::var(raw));
        lin = cx.term(&t)?;
        cx.idx.remove(&raw);
    }
    let at = cx.ix(lin);
    let mut cond = out.in_grid;
    if out.guard_len {
        let len = cx.b.i32(out.len as i32);
        let inside = cx.b.binary(K::Lt, at, len);
        cond = Some(match cond {
            Some(c) => cx.b.binary(K::And, c, inside),
            None => inside,
        });
    }
    match cond {
        Some(c) => {
            cx.b.open_if(c, false);
            cx.b.store(out.mem, at, v);
            cx.b.close();
        }
        None => cx.b.store(out.mem, at, v),
    }
    Ok(())
}

/// Statements one write takes (its position, a layout's inverse, guards).
fn write_cost(out: &Out<'_>) -> u64 {
    let raw = texpr_syntax::ir::term::var(texpr_syntax::ir::VarId(u32::MAX));
    let perm = (out.perm).map_or(0, |p| crate::wgsl::cost::term_cost(&p.inverse_term(raw)));
    3 + perm + 2 * (out.in_grid.is_some() || out.guard_len) as u64
}
