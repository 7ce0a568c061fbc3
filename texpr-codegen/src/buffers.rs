//! The buffers of a program: one storage buffer per input, global and output,
//! in that order, then one per distinct vector literal longer than
//! [`INLINE_LITERAL`] elements or holding a value WGSL spells with a
//! `bitcast` ([`inline_literal`]; a constant buffer, uploaded with the program:
//! a long literal inside a shader costs drivers dearly — llvmpipe takes 80 s
//! to compile one of 1024 elements).
//!
//! Loops add two buffers per state, which the steps alternate between
//! ([`StepBuffer`]; a state's `next` global has no buffer of its own: it is
//! written into the state's), and, for a loop whose step a kernel reads, two
//! `i32[1]` step buffers and a constant 0. A state updated in place
//! (`State::at`) has one buffer, read and updated at every step, and its
//! `next` global a buffer of its own, unless that global's kernel writes
//! the update straight into the state's (`in_place::direct`). Inside its loop a state (or its
//! next value) is a *slot*: an id from [`SLOT_BASE`] up, which a kernel
//! declares like a buffer and binds per step; after its loop, the buffer
//! its last step wrote.

use crate::plan::{BufferId, BufferPlan, BufferRole, StepBuffer};
use std::collections::BTreeMap;
use texpr_ir::ElemTy;
use texpr_ir::Span;
use texpr_ir::{Expr, ExprKind, LoopId, Program, Scalar, VecRef};

/// The first slot id (ids below are buffers, of the program or a kernel's spills).
pub const SLOT_BASE: u32 = 1 << 30;

#[derive(Debug)]
pub struct BufferTable {
    pub plans: Vec<BufferPlan>,
    /// The declaration each buffer comes from, for diagnostics.
    pub spans: Vec<Span>,
    /// Each input's, global's and output's buffer (a state's `next` global:
    /// its slot), by position.
    inputs: Vec<BufferId>,
    globals: Vec<BufferId>,
    outputs: Vec<BufferId>,
    /// Each state's buffers (read inside its loop: the `current` slot).
    states: Vec<StateBuffers>,
    /// The slots: what a kernel declares (name, type) and how the runtime
    /// binds it at each step.
    pub slots: Vec<(BufferPlan, StepBuffer)>,
    /// Each loop's step buffers (a `current` slot) when a kernel reads its step.
    pub steps: Vec<Option<StateBuffers>>,
    /// Each state's: whether it is updated in place by its `next` global's
    /// kernel directly (`in_place::direct`).
    direct: Vec<bool>,
    /// The constant buffer of each long literal, by element type and bits.
    constants: BTreeMap<(u8, Vec<u32>), BufferId>,
}

/// The buffers of a loop-carried value.
#[derive(Clone, Copy, Debug)]
pub struct StateBuffers {
    /// Its loop.
    pub of: LoopId,
    /// The slot read inside the loop (the value the step starts from) and
    /// the slot written (the next value).
    pub current: BufferId,
    pub next: BufferId,
    /// The buffer holding the value after the loop.
    pub after: BufferId,
}

/// Vector literals up to this many elements stay in the shader (a
/// module-scope array); longer ones get a constant buffer.
pub const INLINE_LITERAL: usize = 16;

impl BufferTable {
    pub fn new(p: &Program) -> BufferTable {
        let mut t = BufferTable {
            plans: Vec::new(),
            spans: Vec::new(),
            inputs: Vec::new(),
            globals: Vec::new(),
            outputs: Vec::new(),
            states: Vec::new(),
            slots: Vec::new(),
            steps: vec![None; p.loops.len()],
            constants: BTreeMap::new(),
            direct: (0..p.states.len())
                .map(|s| crate::in_place::direct(p, s))
                .collect(),
        };
        for (i, x) in p.inputs.iter().enumerate() {
            let id = t.add(
                &x.name,
                BufferRole::Input(i as u32),
                x.ty.elem,
                x.ty.len,
                x.span,
            );
            t.inputs.push(id);
        }
        let next_of: BTreeMap<u32, usize> = (p.states.iter().enumerate())
            .filter_map(|(s, st)| match (st.next, st.at.is_none() || t.direct[s]) {
                (VecRef::Global(g), true) => Some((g, s)),
                _ => None,
            })
            .collect();
        // A state's next global is written into the state's buffers: its
        // slot stands in for it (set below).
        for (i, g) in p.globals.iter().enumerate() {
            let id = match next_of.contains_key(&(i as u32)) {
                true => BufferId(u32::MAX),
                false => {
                    let (elem, len) = (g.value.ty.elem, g.value.ty.len);
                    t.add(&g.name, BufferRole::Global(i as u32), elem, len, g.span)
                }
            };
            t.globals.push(id);
        }
        for (i, o) in p.outputs.iter().enumerate() {
            let (elem, len) = (o.value.ty.elem, o.value.ty.len);
            let id = t.add(&o.name, BufferRole::Output(i as u32), elem, len, o.span);
            t.outputs.push(id);
        }
        for (s, st) in p.states.iter().enumerate() {
            let init = t.of_outside(st.init);
            let role = BufferRole::State(s as u32);
            if st.at.is_some() {
                let (elem, len) = (st.ty.elem, st.ty.len);
                let buf = t.add(&st.name, role, elem, len, st.span);
                let next = match st.next {
                    VecRef::Global(g) if t.direct[s] => {
                        t.globals[g as usize] = buf;
                        buf
                    }
                    VecRef::Global(g) => t.globals[g as usize],
                    _ => BufferId(u32::MAX),
                };
                t.states.push(StateBuffers {
                    of: st.of,
                    current: buf,
                    next,
                    after: buf,
                });
                continue;
            }
            let a = t.add(
                &format!("{}_a", st.name),
                role,
                st.ty.elem,
                st.ty.len,
                st.span,
            );
            let b = t.add(
                &format!("{}_b", st.name),
                role,
                st.ty.elem,
                st.ty.len,
                st.span,
            );
            let count = p.loops[st.of as usize].count;
            let bufs = t.slots_of(
                &st.name,
                st.of,
                (st.ty.elem, st.ty.len),
                [init, a, b],
                count,
            );
            t.states.push(bufs);
            if let VecRef::Global(g) = st.next {
                t.globals[g as usize] = bufs.next;
            }
        }
        for (l, lp) in p.loops.iter().enumerate() {
            let reads_step = (p.globals.iter().map(|g| &g.value))
                .chain(p.outputs.iter().map(|o| &o.value))
                .any(|e| e.mentions(lp.var))
                || (p.states.iter()).any(|s| s.at.as_ref().is_some_and(|t| t.mentions(lp.var)));
            if !reads_step {
                continue;
            }
            let (role, name) = (BufferRole::Step(l as u32), format!("step{l}"));
            let mut zero = plan(&format!("{name}_0"), BufferRole::Constant, ElemTy::I32, 1);
            zero.init = vec![0];
            let init = BufferId(t.plans.len() as u32);
            t.plans.push(zero);
            t.spans.push(lp.span);
            let a = t.add(&format!("{name}_a"), role, ElemTy::I32, 1, lp.span);
            let b = t.add(&format!("{name}_b"), role, ElemTy::I32, 1, lp.span);
            let bufs = t.slots_of(&name, l as u32, (ElemTy::I32, 1), [init, a, b], lp.count);
            t.steps[l] = Some(bufs);
        }
        let roots = (p.globals.iter().map(|g| &g.value)).chain(p.outputs.iter().map(|o| &o.value));
        for root in roots {
            t.add_constants(root);
        }
        t
    }

    /// Adds a buffer; returns its id.
    fn add(
        &mut self,
        name: &str,
        role: BufferRole,
        elem: ElemTy,
        len: u64,
        span: Span,
    ) -> BufferId {
        let id = BufferId(self.plans.len() as u32);
        let name = self.free_name(name);
        self.plans.push(plan(&name, role, elem, len));
        self.spans.push(span);
        id
    }

    /// The current and next slots of a value of loop `l` alternating
    /// between `a` and `b` from `init`, and its buffer after `count` steps.
    fn slots_of(
        &mut self,
        name: &str,
        l: LoopId,
        (elem, len): (ElemTy, u64),
        [init, a, b]: [BufferId; 3],
        count: u64,
    ) -> StateBuffers {
        // An initial value that is an outer state's next value: its buffers.
        let init_from = self
            .slot(init)
            .filter(|s| s.next)
            .map(|s| (s.loop_id, s.a, s.b));
        let mut slot = |next: bool, suffix: &str| {
            let id = BufferId(SLOT_BASE + self.slots.len() as u32);
            let step = StepBuffer {
                loop_id: l,
                next,
                init,
                a,
                b,
                init_from,
            };
            let name = self.free_name(&format!("{name}{suffix}"));
            self.slots
                .push((plan(&name, BufferRole::Scratch, elem, len), step));
            (id, step)
        };
        let (current, step) = slot(false, "");
        let (next, _) = slot(true, "_next");
        StateBuffers {
            of: l,
            current,
            next,
            after: step.after(count),
        }
    }

    /// The buffer of an input or global read outside every loop (a state's
    /// initial value; a state's next value is not one).
    fn of_outside(&self, v: VecRef) -> BufferId {
        match v {
            VecRef::Input(i) => self.inputs[i as usize],
            VecRef::Global(g) => self.globals[g as usize],
            _ => BufferId(u32::MAX),
        }
    }

    /// A constant buffer for every long literal in `e` not seen before.
    fn add_constants(&mut self, e: &Expr) {
        if let ExprKind::VecLit(vals) = &e.kind
            && !inline_literal(vals)
        {
            let key = literal_key(e.ty.elem, vals);
            if !self.constants.contains_key(&key) {
                let id = BufferId(self.plans.len() as u32);
                let name = self.free_name(&format!("const_{}", self.constants.len()));
                let mut plan = plan(&name, BufferRole::Constant, e.ty.elem, vals.len() as u64);
                plan.init = key.1.clone();
                self.plans.push(plan);
                self.spans.push(e.span);
                self.constants.insert(key, id);
            }
        }
        e.children().for_each(|c| self.add_constants(c));
    }

    /// `base`, or `base` with `_` appended until no buffer has the name.
    fn free_name(&self, base: &str) -> String {
        let mut name = base.to_string();
        while self.plans.iter().any(|b| b.name == name)
            || self.slots.iter().any(|s| s.0.name == name)
        {
            name.push('_');
        }
        name
    }

    /// The constant buffer holding literal `vals` of type `elem`, unless it
    /// stays in the shader ([`inline_literal`]).
    pub fn constant(&self, elem: ElemTy, vals: &[Scalar]) -> Option<BufferId> {
        if inline_literal(vals) {
            return None;
        }
        self.constants.get(&literal_key(elem, vals)).copied()
    }

    /// The buffer of an input, global or state read by an item in loop
    /// `within` (a slot inside the value's loop); `None` for local vectors.
    pub fn of(&self, v: VecRef, p: &Program, within: Option<LoopId>) -> Option<BufferId> {
        match v {
            VecRef::Input(i) => Some(self.inputs[i as usize]),
            VecRef::Global(i) => Some(self.globals[i as usize]),
            VecRef::State(s) => {
                let st = self.states[s as usize];
                match p.loop_within(within, st.of) {
                    true => Some(st.current),
                    false => Some(st.after),
                }
            }
            VecRef::Local(_) => None,
        }
    }

    /// State `s`'s buffers.
    pub fn state(&self, s: u32) -> StateBuffers {
        self.states[s as usize]
    }

    /// Whether state `s` is updated in place by its `next` global's kernel
    /// directly (no update kernel after it).
    pub fn direct(&self, s: u32) -> bool {
        self.direct[s as usize]
    }

    /// The state updated in place directly by a kernel writing `out`.
    pub fn direct_into(&self, out: BufferId) -> Option<u32> {
        (0..self.states.len() as u32)
            .find(|&s| self.direct(s) && self.states[s as usize].current == out)
    }

    /// The slot holding loop `l`'s step, when a kernel reads it.
    pub fn step(&self, l: LoopId) -> Option<StateBuffers> {
        self.steps.get(l as usize).copied().flatten()
    }

    /// The plan of a buffer or slot of the program.
    pub fn plan_of(&self, id: BufferId) -> &BufferPlan {
        match id.0.checked_sub(SLOT_BASE) {
            Some(s) => &self.slots[s as usize].0,
            None => &self.plans[id.0 as usize],
        }
    }

    /// How slot `id` is bound, if it is one.
    pub fn slot(&self, id: BufferId) -> Option<StepBuffer> {
        let s = id.0.checked_sub(SLOT_BASE)?;
        self.slots.get(s as usize).map(|x| x.1)
    }

    pub fn global(&self, i: u32) -> BufferId {
        self.globals[i as usize]
    }

    pub fn output(&self, i: u32) -> BufferId {
        self.outputs[i as usize]
    }
}

fn plan(name: &str, role: BufferRole, elem: ElemTy, len: u64) -> BufferPlan {
    BufferPlan {
        name: name.to_string(),
        role,
        elem,
        len,
        init: Vec::new(),
    }
}

/// Whether a literal stays in the shader: at most [`INLINE_LITERAL`]
/// elements, each written as a WGSL literal (a module-scope initializer must
/// be a constant expression, and naga does not evaluate the `bitcast` that
/// spells an infinity, a NaN, `-0.0` or `i32::MIN`).
pub fn inline_literal(vals: &[Scalar]) -> bool {
    let plain = |v: &Scalar| match *v {
        Scalar::F32(x) => x.is_finite() && !(x == 0.0 && x.is_sign_negative()),
        Scalar::F16(x) => x.is_finite() && !(x.to_f32() == 0.0 && x.is_sign_negative()),
        Scalar::I32(x) => x != i32::MIN,
        Scalar::U32(_) => true,
    };
    vals.len() <= INLINE_LITERAL && vals.iter().all(plain)
}

/// A literal's element type and elements as bits.
fn literal_key(elem: ElemTy, vals: &[Scalar]) -> (u8, Vec<u32>) {
    let bits = vals
        .iter()
        .map(|v| match *v {
            Scalar::F32(x) => x.to_bits(),
            Scalar::F16(x) => u32::from(x.to_bits()),
            Scalar::I32(x) => x as u32,
            Scalar::U32(x) => x,
        })
        .collect();
    (elem as u8, bits)
}
