//! States updated in place (`State::at`): the kernels that keep one buffer
//! per such state. Before its loop runs, [`init_kernel`] copies the
//! initial value into the state's buffer; at the end of each step, after
//! every item of the step has read the state, [`write_back_kernel`] writes
//! the `next` global's elements into it from the step's `at` on, unless
//! the `next` global's own kernel wrote them there (`in_place::direct`,
//! `Out::base`). A loop run whole in one workgroup does both inside its
//! kernel ([`write_back`]; `fused.rs`).

use super::item::{KernelText, advance_step, finish, read_step};
use super::{Ix, Lower, R};
use crate::buffers::BufferTable;
use crate::kir::{self, BinOp as K, Builtin, LoopStep, Ty, V};
use crate::plan::{BufferId, Kernel};
use texpr_ir::{Program, Term};
use texpr_target::Target;

/// Invocations per workgroup of the two kernels.
const WIDTH: u64 = 64;
/// At most this many workgroups; each invocation loops over the rest.
const GROUPS: u64 = 4096;

/// A kernel of `len` elements' worth of invocations, in which `body` runs
/// for each element `e` (a grid-stride loop).
fn elementwise(
    cx: &mut Lower<'_>,
    len: u64,
    body: impl FnOnce(&mut Lower<'_>, V) -> R<()>,
) -> R<[u32; 3]> {
    let w = WIDTH.min(len.max(1));
    let groups = len.div_ceil(w).clamp(1, GROUPS);
    cx.b.set_workgroup_size(w as u32);
    let wid = cx.b.builtin(Builtin::WorkgroupId(0));
    let g = cx.b.value(kir::Op::Convert(wid), Ty::I32, "g");
    let l = cx.local();
    let width = cx.b.i32(w as i32);
    let first = cx.b.binary(K::Mul, g, width);
    let first = cx.b.binary(K::Add, first, l);
    let end = cx.b.i32(len as i32);
    let stride = LoopStep::Up((w * groups) as i32);
    let e =
        cx.b.open_loop("e", (first, end, stride), false, len.div_ceil(w * groups));
    body(cx, e)?;
    cx.b.close();
    Ok([w as u32, groups as u32, 1])
}

/// The kernel that copies state `s`'s initial value into its buffer.
pub fn init_kernel(
    p: &Program,
    bufs: &BufferTable,
    (k, first_spill, s): (usize, u32, u32),
    target: &Target,
) -> R<KernelText> {
    let st = &p.states[s as usize];
    let name = format!("{}_init", st.name);
    let mut cx = Lower::new(p, bufs, (k, first_spill), &name, target);
    cx.binds.within = p.loops[st.of as usize].within;
    let to = bufs.state(s).current;
    let from = bufs.of(st.init, p, cx.binds.within).ok_or_else(|| {
        texpr_ir::Diagnostic::error(
            "E0392",
            "internal error: a state's initial value has no buffer",
        )
        .with_primary(st.span, "this state")
    })?;
    cx.binds.writes.insert(to);
    let [w, groups, _] = elementwise(&mut cx, st.ty.len, |cx, e| {
        let (from, to) = (cx.buffer(from), cx.buffer(to));
        let v = cx.b.load(from, e);
        cx.b.store(to, e, v);
        Ok(())
    })?;
    Ok(finish(
        cx,
        plan(&name, k, (w, groups), st.span),
        st.span,
        target,
    ))
}

/// The kernel that writes state `s`'s `next` value into its buffer from
/// the step's `at` on; with `tick`, it also advances the loop's step.
pub fn write_back_kernel(
    p: &Program,
    bufs: &BufferTable,
    (k, first_spill): (usize, u32),
    (s, tick): (u32, bool),
    target: &Target,
) -> R<KernelText> {
    let st = &p.states[s as usize];
    let name = format!("{}_update", st.name);
    let mut cx = Lower::new(p, bufs, (k, first_spill), &name, target);
    cx.binds.within = Some(st.of);
    if st
        .at
        .as_ref()
        .is_some_and(|t| t.mentions(p.loops[st.of as usize].var))
    {
        read_step(&mut cx, st.of);
    }
    let updates = bufs.state(s);
    let len = p.vec_ty(st.next).len;
    let at = st.at.as_ref();
    let [w, groups, _] = elementwise(&mut cx, len, |cx, e| {
        write_one(cx, (updates.current, updates.next), at, e)
    })?;
    if tick {
        advance_step(&mut cx, st.of, true);
    }
    Ok(finish(
        cx,
        plan(&name, k, (w, groups), st.span),
        st.span,
        target,
    ))
}

/// `state[at + e] = next[e]`.
fn write_one(
    cx: &mut Lower<'_>,
    (state, next): (BufferId, BufferId),
    at: Option<&Term>,
    e: V,
) -> R<()> {
    cx.binds.writes.insert(state);
    let first = match at {
        Some(t) => cx.term(t)?,
        None => Ix::Const(0),
    };
    let first = cx.ix(first);
    let to = cx.b.binary(K::Add, first, e);
    let (state, next) = (cx.buffer(state), cx.buffer(next));
    let v = cx.b.load(next, e);
    cx.b.store(state, to, v);
    Ok(())
}

/// Inside a loop run whole by one workgroup of `w` invocations (local id
/// `lid`): state `s`'s write-back of this step, then a barrier.
pub fn write_back(cx: &mut Lower<'_>, p: &Program, s: u32, (lid, w): (V, u64)) -> R<()> {
    let st = &p.states[s as usize];
    let updates = cx.bufs.state(s);
    let len = p.vec_ty(st.next).len;
    workgroup_strided(cx, (lid, w), len, |cx, e| {
        write_one(cx, (updates.current, updates.next), st.at.as_ref(), e)
    })?;
    cx.b.storage_barrier()
}

/// `body` for each element `e` of `len` that invocation `lid` of a
/// workgroup of `w` owns: `lid`, `lid + w`, ...
pub fn workgroup_strided(
    cx: &mut Lower<'_>,
    (lid, w): (V, u64),
    len: u64,
    body: impl FnOnce(&mut Lower<'_>, V) -> R<()>,
) -> R<()> {
    let end = cx.b.i32(len as i32);
    let stride = LoopStep::Up(w.min(i32::MAX as u64) as i32);
    let e =
        cx.b.open_loop("e", (lid, end, stride), false, len.div_ceil(w));
    body(cx, e)?;
    cx.b.close();
    Ok(())
}

fn plan(name: &str, k: usize, (w, groups): (u32, u32), span: texpr_ir::Span) -> Kernel {
    Kernel {
        entry_point: super::entry_point(k, name),
        workgroup_size: [w, 1, 1],
        dispatch: [groups, 1, 1],
        bindings: Vec::new(),
        workgroup_storage_bytes: 0,
        span,
    }
}
