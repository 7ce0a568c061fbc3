//! A compiled program run on device arrays: [`Gpu::load`] makes its
//! pipelines and the buffers it keeps for itself (globals, scratch, loop
//! states, constants) once; [`Gpu::launch`] binds its inputs and new output
//! arrays and submits every kernel without waiting.
//!
//! Nothing here reads back or waits for the device: a launch's outputs are
//! arrays that the next launch can take as inputs (the queue runs
//! submissions in order, and wgpu orders the accesses to each buffer across
//! them), and only a read ([`Gpu::read_into`]) waits. So `k2(k1(x))` on
//! device arrays crosses to the host once, at the end. [`Gpu::run`] is this
//! path with an upload before and a read after.
//!
//! Every kernel writes its outputs, globals and scratch whole, and a loop
//! reads its states' initial values from buffers it never writes, so the
//! buffers an [`Executable`] keeps serve every launch; launches from
//! several threads submit one at a time (the kernels of one launch are never
//! interleaved with another's). A launch waits only when its device already
//! has [`super::MAX_QUEUED`] submissions not completed, for the oldest of its own:
//! the queue of work in flight, and the memory it holds, stays bounded.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use super::array::{Contents, DeviceArray, describe};
use super::buffers::{Bound, BoundBuffer};
use super::exec::{Copy, Pace, Submitted};
use super::pipeline::Pipeline;
use super::timing::Timer;
use super::{Gpu, RuntimeError};
use texpr_codegen::plan::{BufferPlan, BufferRole, Module};

/// A module loaded on one device, ready to launch on device arrays.
#[derive(Debug)]
pub struct Executable {
    /// The plan (without its WGSL, which the pipelines hold).
    module: Module,
    pipelines: Vec<Arc<Pipeline>>,
    /// The serial number of the device that loaded it.
    device: u64,
    /// The buffers it keeps, one per buffer of the plan that is neither an
    /// input nor an output.
    own: Vec<Option<wgpu::Buffer>>,
    /// The plan's buffer of each input and output, in their order.
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    /// Held while a launch submits; its recent submissions.
    submits: Mutex<VecDeque<wgpu::SubmissionIndex>>,
}

impl Executable {
    /// The plan it runs.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// Each input's element type and length, in order.
    pub fn input_types(&self) -> impl Iterator<Item = (texpr_ir::ElemTy, u64)> + '_ {
        self.inputs.iter().map(|&at| {
            let b = &self.module.buffers[at];
            (b.elem, b.len)
        })
    }

    /// Each output's element type and length, in order.
    pub fn output_types(&self) -> impl Iterator<Item = (texpr_ir::ElemTy, u64)> + '_ {
        self.outputs.iter().map(|&at| {
            let b = &self.module.buffers[at];
            (b.elem, b.len)
        })
    }

    /// The plan's buffers of its inputs, in order.
    pub fn input_buffers(&self) -> Vec<&BufferPlan> {
        self.inputs
            .iter()
            .map(|&at| &self.module.buffers[at])
            .collect()
    }

    /// Whether `gpu`'s device loaded it.
    pub fn is_on(&self, gpu: &Gpu) -> bool {
        self.device == gpu.serial
    }
}

/// The plan's buffers of `role`'s kind (inputs or outputs), by index.
fn by_index(
    module: &Module,
    pick: impl Fn(BufferRole) -> Option<u32>,
) -> Result<Vec<usize>, RuntimeError> {
    let mut found: Vec<(u32, usize)> = (module.buffers.iter().enumerate())
        .filter_map(|(at, b)| pick(b.role).map(|i| (i, at)))
        .collect();
    found.sort();
    for (k, &(i, _)) in found.iter().enumerate() {
        if i as usize != k {
            return Err(RuntimeError::BadPlan(format!(
                "buffer index {i} where {k} was expected"
            )));
        }
    }
    Ok(found.into_iter().map(|(_, at)| at).collect())
}

impl Gpu {
    /// Checks `module` against the device's limits, makes (or finds in the
    /// cache) its pipelines and the buffers it keeps, constants written.
    pub fn load(&self, module: &Module) -> Result<Executable, RuntimeError> {
        self.check_health()?;
        let pipelines = self.checked_pipelines(module)?;
        let inputs = by_index(module, |r| match r {
            BufferRole::Input(i) => Some(i),
            _ => None,
        })?;
        let outputs = by_index(module, |r| match r {
            BufferRole::Output(i) => Some(i),
            _ => None,
        })?;
        let own = (module.buffers.iter())
            .map(|b| match b.role {
                BufferRole::Input(_) | BufferRole::Output(_) => Ok(None),
                _ => self.plan_buffer(b, None).map(Some),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Executable {
            module: Module {
                wgsl: String::new(),
                ..module.clone()
            },
            pipelines,
            device: self.serial,
            own,
            inputs,
            outputs,
            submits: Mutex::new(VecDeque::new()),
        })
    }

    /// Runs `exe` on `inputs` (its inputs in order, each of the planned
    /// element type and length, any shape) into new output arrays
    /// (one-dimensional), submitted without waiting. The output arrays'
    /// buffers may come from the device's pool with old contents: a
    /// compiled program writes its outputs whole (a hand-written module
    /// that reads an output before writing it is run with [`Gpu::run`],
    /// whose outputs start zeroed, or given zeroed arrays by
    /// [`Gpu::launch_into`]).
    pub fn launch(
        &self,
        exe: &Executable,
        inputs: &[&DeviceArray],
    ) -> Result<Vec<DeviceArray>, RuntimeError> {
        self.check_launch(exe, inputs)?;
        let outputs = self.output_arrays(exe, Contents::Written)?;
        let refs: Vec<&DeviceArray> = outputs.iter().collect();
        self.launch_timed(exe, inputs, &refs, None, false, &[])?;
        Ok(outputs)
    }

    /// Runs `exe` on `inputs` into `outputs` (arrays of the planned element
    /// type and length, none of them an input), submitted without waiting.
    pub fn launch_into(
        &self,
        exe: &Executable,
        inputs: &[&DeviceArray],
        outputs: &[&DeviceArray],
    ) -> Result<(), RuntimeError> {
        self.check_launch(exe, inputs)?;
        self.check_outputs(exe, inputs, outputs)?;
        self.launch_timed(exe, inputs, outputs, None, false, &[])?;
        Ok(())
    }

    /// [`Gpu::launch_into`], then reads the outputs back into `dst` as
    /// [`Gpu::read_into`] does, their copies to staging memory submitted
    /// with the last kernels: one submission for all, and one wait.
    pub fn launch_read(
        &self,
        exe: &Executable,
        inputs: &[&DeviceArray],
        outputs: &[&DeviceArray],
        dst: &mut [&mut [u8]],
    ) -> Result<(), RuntimeError> {
        self.check_launch(exe, inputs)?;
        self.check_outputs(exe, inputs, outputs)?;
        self.check_reads(outputs, dst)?;
        let staging = self.staging_for(outputs)?;
        let copies: Vec<Copy<'_>> = (outputs.iter().zip(&staging))
            .map(|(o, s)| (o.buffer(), s, s.size()))
            .collect();
        let sent = self.launch_timed(exe, inputs, outputs, None, false, &copies)?;
        let last = sent
            .last
            .ok_or_else(|| RuntimeError::BadPlan("nothing submitted".into()))?;
        self.finish_reads(&staging, outputs, dst, last)
    }

    /// Outputs in number, on this device, of the planned element type and
    /// length, none of them an input.
    fn check_outputs(
        &self,
        exe: &Executable,
        inputs: &[&DeviceArray],
        outputs: &[&DeviceArray],
    ) -> Result<(), RuntimeError> {
        if outputs.len() != exe.outputs.len() {
            return Err(RuntimeError::BadPlan(format!(
                "{} output arrays given for {} outputs",
                outputs.len(),
                exe.outputs.len()
            )));
        }
        for (o, &at) in outputs.iter().zip(&exe.outputs) {
            self.on_device(o)?;
            let b = &exe.module.buffers[at];
            if o.elem() != b.elem || o.len() != b.len {
                return Err(RuntimeError::BadPlan(format!(
                    "output `{}` is {}[{}]; the array given for it is {}",
                    b.name,
                    b.elem.name(),
                    b.len,
                    describe(o.elem(), o.shape())
                )));
            }
            if inputs.iter().any(|i| i.same_buffer(o)) {
                return Err(RuntimeError::BadPlan(format!(
                    "the array given for output `{}` is also an input",
                    b.name
                )));
            }
        }
        Ok(())
    }

    /// New arrays for `exe`'s outputs, holding `contents`.
    pub(super) fn output_arrays(
        &self,
        exe: &Executable,
        contents: Contents<'_>,
    ) -> Result<Vec<DeviceArray>, RuntimeError> {
        (exe.outputs.iter())
            .map(|&at| {
                let b = &exe.module.buffers[at];
                self.new_array(&b.name, b.elem, &[b.len], contents)
            })
            .collect()
    }

    /// Inputs in number, on this device, of the planned element type and length.
    fn check_launch(&self, exe: &Executable, inputs: &[&DeviceArray]) -> Result<(), RuntimeError> {
        self.check_health()?;
        if !exe.is_on(self) {
            return Err(RuntimeError::OtherDevice("a loaded program".into()));
        }
        if inputs.len() != exe.inputs.len() {
            return Err(RuntimeError::InputCount {
                expected: exe.inputs.len(),
                got: inputs.len(),
            });
        }
        for (index, (a, &at)) in inputs.iter().zip(&exe.inputs).enumerate() {
            self.on_device(a)?;
            let b = &exe.module.buffers[at];
            if a.elem() != b.elem || a.len() != b.len {
                return Err(RuntimeError::InputMismatch {
                    index,
                    name: b.name.clone(),
                    expected_elem: b.elem,
                    expected_len: b.len,
                    got_elem: a.elem(),
                    got_len: a.len(),
                });
            }
        }
        Ok(())
    }

    /// Binds and submits every kernel of `exe` on checked arrays (with
    /// timestamps when `timer` is given); what was submitted.
    pub(super) fn launch_timed(
        &self,
        exe: &Executable,
        inputs: &[&DeviceArray],
        outputs: &[&DeviceArray],
        timer: Option<&Timer>,
        wait_each: bool,
        copies: &[Copy<'_>],
    ) -> Result<Submitted, RuntimeError> {
        let buffers: Vec<wgpu::Buffer> = (exe.module.buffers.iter().enumerate())
            .map(|(at, b)| match (b.role, &exe.own[at]) {
                (BufferRole::Input(i), _) => Ok(inputs[i as usize].buffer().clone()),
                (BufferRole::Output(i), _) => Ok(outputs[i as usize].buffer().clone()),
                (_, Some(own)) => Ok(own.clone()),
                (_, None) => Err(RuntimeError::BadPlan(format!("no buffer for `{}`", b.name))),
            })
            .collect::<Result<_, _>>()?;
        let whole: Vec<BoundBuffer> = buffers.iter().cloned().map(BoundBuffer::whole).collect();
        let (variants, order) = self.bind_dispatches(&exe.module, &exe.pipelines, &whole)?;
        let bound = Bound { variants, order };
        let mut recent = exe.submits.lock().unwrap_or_else(|p| p.into_inner());
        let pace = match wait_each {
            true => Pace::EachSubmit,
            false => Pace::Queued(&mut recent),
        };
        let sent = self.submit_all(&bound, timer, pace, copies)?;
        self.counters.launched();
        Ok(sent)
    }
}
