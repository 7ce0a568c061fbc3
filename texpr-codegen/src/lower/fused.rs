//! A loop in one kernel (`Loop::group`, the schedule's `loop group=W`):
//! one workgroup of `W` invocations runs every step, each of the loop's
//! items in turn (each on the whole workgroup, `in_loop`'s form), a
//! storage and a workgroup barrier after each item.
//!
//! A state lives in its two buffers (`a`, `b`, [`crate::plan::StepBuffer`])
//! as it does when each step is a dispatch, but the kernel binds both:
//! first every state's initial value is copied into `b`; then each trip of
//! the kernel's loop runs two steps, an even one (reading `b`, writing `a`)
//! and an odd one (reading `a`, writing `b`; skipped past the end of an
//! odd count), so after `T` steps a state is where
//! [`crate::plan::StepBuffer::after`] says. The step index is the trip's.
//! The loop's plan runs the kernel once.

use super::item::{KernelText, finish};
use super::spine::{self, Out};
use super::{Ix, Lower, R};
use crate::buffers::BufferTable;
use crate::grid::grid_root;
use crate::kir::{BinOp as K, LoopStep, V};
use crate::plan::{BufferId, Kernel};
use texpr_ir::Diagnostic;
use texpr_ir::{Expr, Loads, LoopId, Program, VecRef};
use texpr_ir::{ExprKind, Span};
use texpr_target::Target;

/// An item of the loop: name, root, span, the buffer (slot) it writes.
pub type LoopItem<'p> = (&'p str, &'p Expr, Span, BufferId);

/// One state of the loop: the slots its items name (the value a step reads,
/// the value it writes), and the buffers the kernel binds for them.
#[derive(Clone, Copy, Debug)]
struct StateSlots {
    current: BufferId,
    next: BufferId,
    init: BufferId,
    a: BufferId,
    b: BufferId,
    len: u64,
    /// Updated in place: this state (one buffer, `a` and `b` alike, its
    /// `next` global a buffer of its own).
    in_place: Option<u32>,
}

/// Kernel number `k` running loop `l` whole, its items `items` in order;
/// its spill buffers numbered from `first_spill`.
pub fn loop_kernel(
    p: &Program,
    bufs: &BufferTable,
    (k, first_spill): (usize, u32),
    l: LoopId,
    items: &[LoopItem<'_>],
    target: &Target,
) -> R<KernelText> {
    let lp = &p.loops[l as usize];
    let w = lp.group.unwrap_or(1);
    let states = state_slots(p, bufs, l)?;
    let name = match p.states.iter().find(|s| s.of == l) {
        Some(s) => format!("{}_loop", s.name),
        None => format!("loop{l}"),
    };
    let entry = super::entry_point(k, &name);
    let mut cx = Lower::new(p, bufs, (k, first_spill), &name, target);
    cx.b.set_workgroup_size(w.min(u32::MAX as u64) as u32);
    // One view of each buffer for the whole kernel: element by element.
    cx.reads.loads = Loads::Scalar;
    cx.binds.within = Some(l);
    cx.group.group_size = w;
    cx.spilling.invocations = w;
    let zero = cx.b.i32(0);
    cx.spilling.g = Some(zero);
    let lid = cx.local();
    cx.spilling.inv_at = Some(cx.b.mark());
    for st in &states {
        cx.binds.writes.insert(st.a);
        cx.binds.writes.insert(st.b);
    }
    for st in &states {
        copy(&mut cx, st, lid, w)?;
    }
    cx.b.storage_barrier()?;
    let count = lp.count;
    let trips = count.div_ceil(2);
    let end = cx.b.i32(trips.min(i32::MAX as u64) as i32);
    let h =
        cx.b.open_loop("h", (zero, end, LoopStep::Up(1)), true, trips);
    let two = cx.b.i32(2);
    let t = cx.b.binary(K::Mul, h, two);
    step(&mut cx, (l, t, false), &states, items)?;
    let one = cx.b.i32(1);
    let t1 = cx.b.binary(K::Add, t, one);
    let odd_count = count % 2 == 1;
    if odd_count {
        let last = cx.b.i32(count.min(i32::MAX as u64) as i32);
        let more = cx.b.binary(K::Lt, t1, last);
        cx.b.open_if(more, true);
    }
    step(&mut cx, (l, t1, true), &states, items)?;
    if odd_count {
        cx.b.close();
    }
    cx.b.close();
    let plan = Kernel {
        entry_point: entry,
        workgroup_size: [w.min(u32::MAX as u64) as u32, 1, 1],
        dispatch: [1, 1, 1],
        bindings: Vec::new(),
        workgroup_storage_bytes: 0,
        span: lp.span,
    };
    Ok(finish(cx, plan, lp.span, target))
}

/// Each state of loop `l` with its slots and buffers.
fn state_slots(p: &Program, bufs: &BufferTable, l: LoopId) -> R<Vec<StateSlots>> {
    let internal = || {
        Diagnostic::error("E0392", "internal error: a loop state has no buffers")
            .with_primary(p.loops[l as usize].span, "this loop")
    };
    (p.states.iter().enumerate())
        .filter(|(_, st)| st.of == l)
        .map(|(s, st)| {
            if st.at.is_some() {
                let own = bufs.state(s as u32);
                let init = bufs.of(st.init, p, p.loops[l as usize].within);
                return Ok(StateSlots {
                    current: own.current,
                    next: own.next,
                    init: init.ok_or_else(internal)?,
                    a: own.current,
                    b: own.current,
                    len: st.ty.len,
                    in_place: Some(s as u32),
                });
            }
            let current = bufs.of(VecRef::State(s as u32), p, Some(l));
            let next = match st.next {
                VecRef::Global(g) => Some(bufs.global(g)),
                _ => None,
            };
            let (Some(current), Some(next)) = (current, next) else {
                return Err(internal());
            };
            let sb = bufs.slot(current).ok_or_else(internal)?;
            Ok(StateSlots {
                current,
                next,
                init: sb.init,
                a: sb.a,
                b: sb.b,
                len: st.ty.len,
                in_place: None,
            })
        })
        .collect()
}

/// `b[e] = init[e]` for `e = l, l + w, ...` below the state's length.
fn copy(cx: &mut Lower<'_>, st: &StateSlots, lid: V, w: u64) -> R<()> {
    let (from, to) = (cx.buffer(st.init), cx.buffer(st.b));
    super::update::workgroup_strided(cx, (lid, w), st.len, |cx, e| {
        let v = cx.b.load(from, e);
        cx.b.store(to, e, v);
        Ok(())
    })
}

/// Step `t` of loop `l` (odd: reading `a`, writing `b`; even: the other
/// way): every item in turn, a barrier after each.
fn step(
    cx: &mut Lower<'_>,
    (l, t, odd): (LoopId, V, bool),
    states: &[StateSlots],
    items: &[LoopItem<'_>],
) -> R<()> {
    cx.idx.insert(cx.p.loops[l as usize].var, Ix::Val(t));
    cx.binds.slots_as.clear();
    for st in states.iter().filter(|st| st.in_place.is_none()) {
        let (read, write) = match odd {
            true => (st.a, st.b),
            false => (st.b, st.a),
        };
        cx.binds.slots_as.insert(st.current, read);
        cx.binds.slots_as.insert(st.next, write);
    }
    for &(name, root, _, out) in items {
        let sh = grid_root(root)?;
        let (width, _) = super::item::workgroup_size(sh.body);
        if sh.groups != 1 || width != cx.group.group_size || has_shared(sh.body) {
            return Err(Diagnostic::error(
                "E0392",
                format!(
                    "internal error: `{name}` is not on one workgroup of {} invocations",
                    cx.group.group_size
                ),
            )
            .with_primary(root.span, "this item"));
        }
        let out = cx.binds.slots_as.get(&out).copied().unwrap_or(out);
        cx.binds.out = Some(out);
        let zero = cx.spilling.g.expect("the group id, set first");
        cx.idx.insert(sh.grid_var, Ix::Const(0));
        let dest = Out {
            mem: cx.buffer(out),
            per_group: sh.per_group,
            len: sh.len,
            in_grid: None,
            perm: sh.perm,
            guard_len: sh.len < sh.groups * sh.per_group,
            base: None,
        };
        // Fewer elements than invocations: the others have nothing to
        // compute (element `l` is invocation `l`'s), so they skip it.
        let idle = sh.len < cx.group.group_size && sh.perm.is_none() && !collective(sh.body);
        if idle {
            let (lid, len) = (cx.local(), cx.b.i32(sh.len as i32));
            let busy = cx.b.binary(K::Lt, lid, len);
            cx.b.open_if(busy, false);
        }
        spine::body(cx, &sh, zero, &dest, out)?;
        if idle {
            cx.b.close();
        }
        cx.b.storage_barrier()?;
    }
    let (lid, w) = (cx.local(), cx.group.group_size);
    for s in states.iter().filter_map(|st| st.in_place) {
        super::update::write_back(cx, cx.p, s, (lid, w))?;
    }
    Ok(())
}

/// Whether `e` folds across invocations (a workgroup or subgroup
/// `reduce`), which every invocation must reach.
fn collective(e: &Expr) -> bool {
    e.any(|x| {
        matches!(
            x.kind,
            ExprKind::Reduce {
                level: Some(texpr_ir::Level::Group | texpr_ir::Level::Subgroup),
                ..
            }
        )
    })
}

/// Whether `e` holds a workgroup array or a workgroup-wide fold (which
/// would need barriers of their own inside the step).
fn has_shared(e: &Expr) -> bool {
    e.find(|x| {
        matches!(
            x.kind,
            ExprKind::Let {
                level: Some(texpr_ir::MemLevel::Shared | texpr_ir::MemLevel::Mma),
                ..
            }
        )
    })
    .is_some()
}
