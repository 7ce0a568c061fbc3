//! One kernel's entry point: the grid id
//! (the linear workgroup id over a dispatch folded into x / y / z, clamped
//! with `in_grid` when the dispatch is padded), the local id, the steps of
//! the loops around the item that it reads, the grid body (`spine.rs`),
//! and the loop steps it advances; then the bindings in buffer order (the
//! output, its spills and the slots it advances read-write) and what the
//! limit checks need ([`KernelText`]).

use super::spine::{self, Out};
use super::{Ix, Lower, PrivateDecl, R};
use crate::buffers::BufferTable;
use crate::dispatch;
use crate::grid::grid_root;
use crate::kir::{self, BinOp as K, Builtin, Op, Ty};
use crate::plan::{Binding, BufferId, BufferPlan, Kernel};
use texpr_ir::{Diagnostic, Span};
use texpr_ir::{Expr, ExprKind, LoopId, Program};
use texpr_ir::{Level, Loads, MemLevel};
use texpr_target::Target;

/// One kernel: its plan, its IR, its text (once printed) and what the
/// limit checks need.
#[derive(Debug)]
pub struct KernelText {
    pub kernel: Kernel,
    pub kir: kir::Kernel,
    /// The WGSL printed from `kir` (empty until [`crate::emit`] prints it).
    pub text: String,
    /// What the kernel IR's passes found (`kir::passes`: budgets exceeded).
    pub errors: Vec<Diagnostic>,
    /// Function memory the kernel declares, and the most one invocation
    /// holds at once.
    pub private: Vec<PrivateDecl>,
    pub peak_private: u64,
    /// Statements unrolling added.
    pub unrolled_statements: u64,
    /// Scratch buffers for arrays past the memory budget, with the `let`
    /// each holds.
    pub spills: Vec<(BufferPlan, Span)>,
}

/// Where a kernel's item stands among the program's loops: the loop it is
/// computed in, and the loops whose step it advances.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InLoop {
    pub within: Option<LoopId>,
    pub ticks: Vec<LoopId>,
}

/// Kernel number `k` for item `name` (root `root`) writing `out`, moving
/// elements as `loads` says; its spill buffers (if any) numbered from
/// `first_spill`.
pub fn kernel(
    p: &Program,
    bufs: &BufferTable,
    (k, first_spill): (usize, u32),
    (name, root, span, out, loads): (&str, &Expr, Span, BufferId, Loads),
    in_loop: &InLoop,
    target: &Target,
) -> Result<KernelText, Diagnostic> {
    let sh = grid_root(root)?;
    check_subgroups(root, target)?;
    let (w, size_span) = workgroup_size(sh.body);
    let limits = &target.limits;
    let dispatch = dispatch::fold(sh.groups, limits.max_workgroups_per_dimension, root.span)?;
    let dispatched = dispatch.iter().map(|&d| d as u64).product::<u64>();
    let padded = dispatched > sh.groups;
    let entry = super::entry_point(k, name);
    let mut cx = Lower::new(p, bufs, (k, first_spill), name, target);
    cx.b.set_workgroup_size(w.min(u32::MAX as u64) as u32);
    cx.reads.loads = loads;
    cx.reads.lanes = super::Lanes::of(target, w);
    cx.binds.out = Some(out);
    cx.binds.within = in_loop.within;
    cx.group.group_size = w;
    cx.spilling.invocations = dispatched.saturating_mul(w);
    read_steps(&mut cx, root);
    let [x, y, _] = dispatch;
    let wid = |cx: &mut Lower<'_>, c| cx.b.builtin(Builtin::WorkgroupId(c));
    let mut lin = wid(&mut cx, 0);
    if (x as u64) < sh.groups {
        let (w1, w2) = (wid(&mut cx, 1), wid(&mut cx, 2));
        let (cx_, cxy) = (cx.b.u32(x), cx.b.u32((x as u64 * y as u64) as u32));
        let a = cx.b.binary(K::Mul, w1, cx_);
        let b = cx.b.binary(K::Mul, w2, cxy);
        let s = cx.b.binary(K::Add, lin, a);
        lin = cx.b.binary(K::Add, s, b);
    }
    let (g, in_grid) = match padded {
        true => {
            let groups = cx.b.u32(sh.groups as u32);
            let in_grid =
                cx.b.value(Op::Binary(K::Lt, lin, groups), Ty::BOOL, "in_grid");
            let last = cx.b.u32((sh.groups - 1) as u32);
            let g = cx.b.call(kir::Fun::Min, vec![lin, last]);
            let g = cx.b.value(Op::Convert(g), Ty::I32, "g");
            // An invocation's linear id counts the padding too.
            cx.spilling.g = Some(cx.b.value(Op::Convert(lin), Ty::I32, "glin"));
            (g, Some(in_grid))
        }
        false => {
            let g = cx.b.value(Op::Convert(lin), Ty::I32, "g");
            cx.spilling.g = Some(g);
            (g, None)
        }
    };
    cx.local();
    cx.spilling.inv_at = Some(cx.b.mark());
    let base = match bufs.direct_into(out) {
        Some(s) => Some(update_at(&mut cx, s)?),
        None => None,
    };
    let dest = Out {
        mem: cx.buffer(out),
        per_group: sh.per_group,
        len: sh.len,
        in_grid,
        perm: sh.perm,
        guard_len: sh.len < sh.groups * sh.per_group,
        base,
    };
    cx.idx.insert(sh.grid_var, Ix::Val(g));
    spine::body(&mut cx, &sh, g, &dest, out)?;
    for &l in &in_loop.ticks {
        advance_step(&mut cx, l, true);
    }
    let plan = Kernel {
        entry_point: entry,
        workgroup_size: [w.min(u32::MAX as u64) as u32, 1, 1],
        dispatch,
        bindings: Vec::new(),
        workgroup_storage_bytes: 0,
        span,
    };
    Ok(finish(cx, plan, size_span, target))
}

/// Where state `s`'s update in place begins this step (the step read if
/// the place depends on it).
fn update_at(cx: &mut Lower<'_>, s: u32) -> R<kir::V> {
    let st = &cx.p.states[s as usize];
    let Some(at) = &st.at else {
        return Err(Diagnostic::error(
            "E0392",
            "internal error: a state written in place has no place",
        )
        .with_primary(st.span, "this state"));
    };
    if at.mentions(cx.p.loops[st.of as usize].var) {
        read_step(cx, st.of);
    }
    let at = cx.term(at)?;
    Ok(cx.ix(at))
}

/// Kernel number `k` that only advances loop `l`'s step.
pub fn step_kernel(
    p: &Program,
    bufs: &BufferTable,
    k: usize,
    l: LoopId,
    target: &Target,
) -> KernelText {
    let name = format!("step{l}");
    let entry = super::entry_point(k, &name);
    let first_spill = bufs.plans.len() as u32;
    let mut cx = Lower::new(p, bufs, (k, first_spill), &name, target);
    cx.binds.within = Some(l);
    advance_step(&mut cx, l, false);
    let span = p.loops[l as usize].span;
    let plan = Kernel {
        entry_point: entry,
        workgroup_size: [1, 1, 1],
        dispatch: [1, 1, 1],
        bindings: Vec::new(),
        workgroup_storage_bytes: 0,
        span,
    };
    finish(cx, plan, span, target)
}

/// The kernel with its bindings in buffer order (a slot bound as the buffer
/// its loop's steps bind in turn) and its workgroup memory, and its accounts.
pub(super) fn finish(
    cx: Lower<'_>,
    mut plan: Kernel,
    size_span: Span,
    target: &Target,
) -> KernelText {
    let unrolled_statements = cx.b.unrolled();
    let mut kir = cx.b.finish();
    kir.spans = kir::Spans {
        item: plan.span,
        workgroup_size: size_span,
    };
    for d in &mut kir.bindings {
        let step = cx.bufs.slot(d.buffer);
        let buffer = step.map_or(d.buffer, |s| s.a);
        d.what = match cx.bufs.plans.get(buffer.0 as usize) {
            Some(p) => crate::plan::user_name(step, p),
            None => "a scratch buffer".into(),
        };
    }
    let errors = match kir::passes::run(&mut kir, target) {
        Ok(()) => Vec::new(),
        Err(errs) => errs,
    };
    plan.workgroup_storage_bytes = kir::passes::workgroup_bytes(&kir);
    plan.bindings = (kir.bindings.iter().enumerate())
        .map(|(i, d)| {
            let step = cx.bufs.slot(d.buffer);
            Binding {
                group: 0,
                binding: i as u32,
                buffer: step.map_or(d.buffer, |s| s.a),
                access: d.access,
                step,
            }
        })
        .collect();
    KernelText {
        kernel: plan,
        kir,
        text: String::new(),
        errors,
        private: cx.accounts.private,
        peak_private: cx.accounts.peak_private,
        unrolled_statements,
        spills: cx.spilling.spills,
    }
}

/// Binds each step of a loop around the item that its root reads:
/// `step[0]` of the step's slot.
fn read_steps(cx: &mut Lower<'_>, root: &Expr) {
    let mut l = cx.binds.within;
    while let Some(x) = l {
        let lp = &cx.p.loops[x as usize];
        if root.mentions(lp.var) {
            read_step(cx, x);
        }
        l = lp.within;
    }
}

/// Binds loop `l`'s step variable to `step[0]` of its slot, when a kernel
/// reads the step (it has a slot) and this one has not read it yet.
pub(super) fn read_step(cx: &mut Lower<'_>, l: LoopId) {
    let var = cx.p.loops[l as usize].var;
    if let Some(step) = cx.bufs.step(l)
        && !cx.idx.contains_key(&var)
    {
        let buf = cx.buffer(step.current);
        let zero = cx.b.i32(0);
        let t = cx.b.load(buf, zero);
        cx.idx.insert(var, Ix::Val(t));
    }
}

/// Writes the next step of loop `l` (one more than this one), from the
/// first invocation of the first workgroup only when `first_only`.
pub(super) fn advance_step(cx: &mut Lower<'_>, l: LoopId, first_only: bool) {
    let Some(step) = cx.bufs.step(l) else {
        return;
    };
    cx.binds.writes.insert(step.next);
    let cur = cx.buffer(step.current);
    let next = cx.buffer(step.next);
    if first_only {
        let zero = cx.b.u32(0);
        let mut cond = None;
        let ids = [0, 1, 2].map(Builtin::WorkgroupId).into_iter();
        for b in ids.chain([0, 1, 2].map(Builtin::LocalId)) {
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
}

/// `reduce@subgroup` on a device without subgroup operations is E0317.
fn check_subgroups(root: &Expr, target: &Target) -> R<()> {
    let at = root.find(|x| {
        matches!(
            x.kind,
            ExprKind::Reduce {
                level: Some(Level::Subgroup),
                ..
            }
        )
    });
    match at {
        Some(at) if !target.subgroups() => Err(Diagnostic::error(
            "E0317",
            "`reduce@subgroup` needs subgroup operations, which this device does not have",
        )
        .with_primary(at.span, "this reduction uses subgroup operations")
        .with_note("write `reduce@group` (a workgroup tree in shared memory) instead")),
        _ => Ok(()),
    }
}

/// The workgroup size of a grid body (the widest group-level node on its
/// spine, 1 if none) and the node that sets it.
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
