//! The kernel plan: what the runtime needs to run a compiled program.
//!
//! A [`Module`] is one WGSL module (one or more entry points), the buffers the
//! program uses, and the kernels to dispatch in order. It is plain data: the
//! runtime (`texpr-runtime`) executes it, and `texprc compile --emit kernels`
//! prints it.

pub use crate::buffer_id::{Access, BufferId};
use texpr_ir::ElemTy;
use texpr_ir::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferRole {
    /// `Program::inputs[i]`: uploaded before the first kernel.
    Input(u32),
    /// `Program::outputs[i]`: read back after the last kernel.
    Output(u32),
    /// `Program::globals[i]` (a top-level `let@global`).
    Global(u32),
    /// Compiler-made scratch (e.g. partial results of a multi-pass reduction).
    Scratch,
    /// The elements of a long vector literal ([`BufferPlan::init`]), uploaded
    /// before the first kernel and only read.
    Constant,
    /// One of the two buffers `Program::states[i]` alternates between
    /// across its loop's steps (see [`StepBuffer`]), or the one it lives
    /// in when its steps update it in place (`State::at`).
    State(u32),
    /// One of the two buffers holding loop `i`'s step (an `i32`; see
    /// [`LoopPlan::step`]).
    Step(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufferPlan {
    pub name: String,
    pub role: BufferRole,
    pub elem: ElemTy,
    /// Elements (4 bytes each).
    pub len: u64,
    /// Contents to upload before the first kernel, each element's bits
    /// (a [`BufferRole::Constant`]'s literal); empty for every other buffer.
    pub init: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub group: u32,
    pub binding: u32,
    /// The buffer bound; for a [`Binding::step`] binding, the one its first
    /// odd step binds.
    pub buffer: BufferId,
    pub access: Access,
    /// A loop state's value that moves between buffers from step to step:
    /// the buffer bound depends on the step ([`StepBuffer::at`]).
    pub step: Option<StepBuffer>,
}

impl Binding {
    /// The buffer bound while each loop `l` is at step `steps[l]`.
    pub fn buffer_at(&self, steps: &[u64]) -> BufferId {
        match &self.step {
            Some(s) => s.at_steps(steps.get(s.loop_id as usize).copied().unwrap_or(0), steps),
            None => self.buffer,
        }
    }
}

/// A loop state read or written inside its loop. Step 0 reads the initial
/// value (`init`) and writes `a`; an odd step reads `a` and writes `b`; an
/// even step after the first reads `b` and writes `a`. So no step copies a
/// state, and after `T` steps the state is in `init` (`T = 0`), `a` (odd)
/// or `b` (even).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepBuffer {
    /// Index into [`Module::loops`].
    pub loop_id: u32,
    /// `true`: the value the step computes (a state's next value); `false`:
    /// the value the step starts from.
    pub next: bool,
    pub init: BufferId,
    pub a: BufferId,
    pub b: BufferId,
    /// When the initial value is itself an outer loop's state's next value
    /// (a loop inside a step starting from what the step computes): that
    /// loop and its two buffers, `init` standing for them.
    pub init_from: Option<(u32, BufferId, BufferId)>,
}

impl StepBuffer {
    /// The buffer at step `t` of the loop.
    pub fn at(&self, t: u64) -> BufferId {
        self.at_steps(t, &[])
    }

    /// The buffer at step `t` of the loop, the outer loops at `steps`.
    pub fn at_steps(&self, t: u64, steps: &[u64]) -> BufferId {
        match (self.next, t) {
            (true, t) if t % 2 == 0 => self.a,
            (true, _) => self.b,
            (false, 0) => match self.init_from {
                Some((l, a, b)) => match steps.get(l as usize).copied().unwrap_or(0) % 2 {
                    0 => a,
                    _ => b,
                },
                None => self.init,
            },
            (false, t) if t % 2 == 1 => self.a,
            (false, _) => self.b,
        }
    }

    /// The buffer holding the state after all `count` steps.
    pub fn after(&self, count: u64) -> BufferId {
        match count {
            0 => self.init,
            c if c % 2 == 1 => self.a,
            _ => self.b,
        }
    }
}

/// A loop (`iterate`): the kernels `kernels` run `count` times in order,
/// each time with the loop's step one higher.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopPlan {
    pub count: u64,
    /// A contiguous range of [`Module::kernels`] (inner loops' included).
    pub kernels: std::ops::Range<usize>,
    /// The loop each of whose steps runs this one whole (an index into
    /// [`Module::loops`], which lists outer loops first).
    pub within: Option<u32>,
    /// Where the step lives when a kernel reads it: an `i32[1]` stepping
    /// from `init` (holding 0) like a state, one higher each step (the
    /// step's last kernel, or a kernel of its own, adds 1).
    pub step: Option<StepBuffer>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Entry point name in [`Module::wgsl`].
    pub entry_point: String,
    pub workgroup_size: [u32; 3],
    /// Workgroups to dispatch in x / y / z.
    pub dispatch: [u32; 3],
    pub bindings: Vec<Binding>,
    /// Bytes of workgroup memory the kernel declares (its `var<workgroup>`
    /// arrays): what the device's `maxComputeWorkgroupStorageSize` must allow.
    pub workgroup_storage_bytes: u64,
    /// The source the kernel computes (an output's or a global's span).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub wgsl: String,
    /// The extensions `wgsl` declares with `enable NAME;` at its top: those
    /// its kernels use that the target's consumer wants declared
    /// (`Features::enables`).
    pub enables: Vec<texpr_target::Extension>,
    /// Every extension the kernels use, declared or not (what a device must
    /// offer: subgroups, f16).
    pub uses: Vec<texpr_target::Extension>,
    pub buffers: Vec<BufferPlan>,
    /// Run in order; each kernel sees every write of the kernels before it.
    /// A loop's kernels run once per step ([`Module::loops`]).
    pub kernels: Vec<Kernel>,
    /// The program's loops, outer ones first.
    pub loops: Vec<LoopPlan>,
    /// The kernels as emission built them, in the kernel IR, one per entry
    /// of `kernels` (empty in a module of hand-written WGSL): what
    /// [`crate::translate()`] builds naga's module from.
    pub kir: Vec<crate::kir::Kernel>,
}

impl Module {
    /// Every dispatch in order, each a kernel and the step of every loop
    /// at that moment (0 for loops not running): the kernels of a loop
    /// once per step. The sequence is `count` times a loop's kernels long,
    /// so it is produced as it is consumed.
    pub fn dispatches(&self) -> Dispatches<'_> {
        Dispatches {
            m: self,
            next: 0,
            steps: vec![0; self.loops.len()],
            open: Vec::new(),
        }
    }

    /// How many dispatches [`Module::dispatches`] yields (saturating).
    pub fn dispatch_count(&self) -> u64 {
        runs(self.kernels.len(), &self.loops)
            .into_iter()
            .fold(0, u64::saturating_add)
    }

    /// The innermost loop whose kernels include kernel `k`.
    pub fn innermost_loop(&self, k: usize) -> Option<u32> {
        innermost(&self.loops, k)
    }
}

/// The most dispatches one run of a plan may make (a loop's kernels count
/// once per step): code generation refuses a program past it (E0320), and
/// the runtime a plan.
pub const MAX_DISPATCHES: u64 = 1 << 26;

/// How often each of `kernels` kernels runs: as the loops around it
/// multiply (saturating).
pub fn runs(kernels: usize, loops: &[LoopPlan]) -> Vec<u64> {
    (0..kernels)
        .map(|k| {
            let mut runs = 1u64;
            let mut l = innermost(loops, k);
            while let Some(x) = l {
                runs = runs.saturating_mul(loops[x as usize].count);
                l = loops[x as usize].within;
            }
            runs
        })
        .collect()
}

/// The innermost of `loops` whose kernels include kernel `k`.
fn innermost(loops: &[LoopPlan], k: usize) -> Option<u32> {
    (0..loops.len())
        .rev()
        .find(|&l| loops[l].kernels.contains(&k))
        .map(|l| l as u32)
}

/// The iterator of [`Module::dispatches`].
#[derive(Clone, Debug)]
pub struct Dispatches<'m> {
    m: &'m Module,
    /// The next kernel to consider.
    next: usize,
    steps: Vec<u64>,
    /// The loops running, innermost last.
    open: Vec<u32>,
}

impl Iterator for Dispatches<'_> {
    /// A kernel index and the step of every loop.
    type Item = (usize, Vec<u64>);

    fn next(&mut self) -> Option<(usize, Vec<u64>)> {
        loop {
            // The end of the innermost running loop's kernels: its next step.
            if let Some(&l) = self.open.last() {
                let lp = &self.m.loops[l as usize];
                if self.next >= lp.kernels.end {
                    self.steps[l as usize] += 1;
                    if self.steps[l as usize] < lp.count {
                        self.next = lp.kernels.start;
                    } else {
                        self.steps[l as usize] = 0;
                        self.open.pop();
                    }
                    continue;
                }
            }
            if self.next >= self.m.kernels.len() {
                return None;
            }
            // A loop starting here (outermost first).
            let starting = (0..self.m.loops.len()).find(|&l| {
                let lp = &self.m.loops[l];
                lp.kernels.start == self.next
                    && !self.open.contains(&(l as u32))
                    && lp.within == self.open.last().copied()
            });
            if let Some(l) = starting {
                let lp = &self.m.loops[l];
                if lp.count == 0 || lp.kernels.is_empty() {
                    self.next = lp.kernels.end.max(self.next + 1);
                } else {
                    self.steps[l] = 0;
                    self.open.push(l as u32);
                }
                continue;
            }
            let k = self.next;
            self.next += 1;
            return Some((k, self.steps.clone()));
        }
    }
}

impl std::fmt::Display for BufferRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BufferRole::Input(i) => write!(f, "input {i}"),
            BufferRole::Output(i) => write!(f, "output {i}"),
            BufferRole::Global(i) => write!(f, "global {i}"),
            BufferRole::Scratch => write!(f, "scratch"),
            BufferRole::Constant => write!(f, "constant"),
            BufferRole::State(i) => write!(f, "state {i}"),
            BufferRole::Step(i) => write!(f, "step of loop {i}"),
        }
    }
}

impl std::fmt::Display for Module {
    /// The plan without the WGSL: buffers, then kernels in dispatch order
    /// (what `texprc compile --emit kernels` prints).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "buffers:")?;
        for (i, b) in self.buffers.iter().enumerate() {
            writeln!(
                f,
                "  b{i} {}: {}[{}] ({})",
                b.name,
                b.elem.name(),
                b.len,
                b.role
            )?;
        }
        writeln!(f, "kernels (in dispatch order):")?;
        for (i, k) in self.kernels.iter().enumerate() {
            for (l, lp) in self.loops.iter().enumerate() {
                if lp.kernels.start == i {
                    writeln!(
                        f,
                        "  loop {l}: kernels {}..{} run {} times{}",
                        lp.kernels.start,
                        lp.kernels.end,
                        lp.count,
                        lp.within
                            .map_or(String::new(), |w| format!(" in each step of loop {w}"))
                    )?;
                }
            }
            let [x, y, z] = k.workgroup_size;
            let [dx, dy, dz] = k.dispatch;
            let invocations = u64::from(x * y * z) * u64::from(dx) * u64::from(dy) * u64::from(dz);
            writeln!(
                f,
                "  {}: workgroup_size ({x}, {y}, {z}), dispatch ({dx}, {dy}, {dz}), {invocations} invocations",
                k.entry_point
            )?;
            for b in &k.bindings {
                let buf = &self.buffers[b.buffer.0 as usize];
                let access = match b.access {
                    Access::Read => "read",
                    Access::ReadWrite => "read_write",
                };
                let steps = match &b.step {
                    Some(s) if s.next => {
                        format!(", per step: b{} on even steps, b{} on odd", s.a.0, s.b.0)
                    }
                    Some(s) => format!(
                        ", per step: b{} on the first, b{} on odd steps, b{} on even",
                        s.init.0, s.a.0, s.b.0
                    ),
                    None => String::new(),
                };
                writeln!(
                    f,
                    "    @group({}) @binding({}) b{} {} ({access}{steps})",
                    b.group, b.binding, b.buffer.0, buf.name
                )?;
            }
        }
        Ok(())
    }
}

/// What a binding of buffer `p` (moving between buffers as `step` says)
/// holds, in the program's words: a loop state's or a loop's step's value
/// (the current one, or the next one a step computes) rather than the
/// buffers they alternate between. (For E0313, `kir::passes::check_bindings`.)
pub fn user_name(step: Option<StepBuffer>, p: &BufferPlan) -> String {
    let next = step.is_some_and(|s| s.next);
    match (p.role, step) {
        (BufferRole::State(_), Some(_)) => {
            let base = p.name.trim_end_matches('_');
            let base = base.strip_suffix("_a").unwrap_or(base);
            match next {
                true => format!("the next value of state `{base}`"),
                false => format!("state `{base}`"),
            }
        }
        (BufferRole::Step(l), Some(_)) => match next {
            true => format!("the next step of loop {l}"),
            false => format!("the step of loop {l}"),
        },
        _ => format!("`{}`", p.name),
    }
}
