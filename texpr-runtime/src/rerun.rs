//! A module run again and again on new inputs: its pipelines, buffers,
//! bind groups and staging buffers made once ([`Gpu::reusable`]), then each
//! [`Gpu::rerun`] writes the inputs into their buffers, dispatches every
//! kernel, and reads the outputs back — what a host calling one compiled
//! program many times (the Python `Kernel`) needs, without making a buffer
//! per call.
//!
//! Every kernel writes its outputs, globals and scratch whole, and a loop
//! reads its states' initial values from buffers it never writes, so a
//! rerun computes what a fresh [`Gpu::run`] computes. A [`Reusable`] holds
//! one run's buffers: runs at the same time each need their own (make one
//! per thread, or keep a pool). It belongs to the device that made it: after
//! [`Gpu::reopen`], make a new one.

use super::buffers::{Bound, check_inputs};
use super::exec::Readback;
use super::{Gpu, HostBuffer, RuntimeError, scope::scoped};
use texpr_codegen::plan::{BufferRole, Module};

/// A module's buffers and bindings on one device, ready to run again.
#[derive(Debug)]
pub struct Reusable {
    bound: Bound,
    readbacks: Vec<Readback>,
    /// `(input index, buffer index)` of every input buffer.
    inputs: Vec<(usize, usize)>,
    /// The module's plan of buffers, for checking later inputs.
    module: Module,
}

impl Gpu {
    /// Makes `module`'s pipelines (from the cache when made before), its
    /// buffers with `inputs` uploaded, its bind groups and staging buffers.
    pub fn reusable(
        &self,
        module: &Module,
        inputs: &[HostBuffer],
    ) -> Result<Reusable, RuntimeError> {
        self.check_health()?;
        let bound = self.bind(module, inputs, None)?;
        let readbacks = self.staging(module)?;
        let inputs = (module.buffers.iter().enumerate())
            .filter_map(|(at, b)| match b.role {
                BufferRole::Input(i) => Some((i as usize, at)),
                _ => None,
            })
            .collect();
        Ok(Reusable {
            bound,
            readbacks,
            inputs,
            module: Module {
                wgsl: String::new(),
                ..module.clone()
            },
        })
    }

    /// Writes `inputs` into `r`'s input buffers, runs every kernel and reads
    /// back the outputs (in `Output` order); the same checks and errors as
    /// [`Gpu::run`], without its timestamps.
    pub fn rerun(
        &self,
        r: &Reusable,
        inputs: &[HostBuffer],
    ) -> Result<Vec<HostBuffer>, RuntimeError> {
        self.check_health()?;
        check_inputs(&r.module, inputs)?;
        let during = || "writing the inputs".to_string();
        let written = scoped(&self.device, || {
            for &(i, at) in &r.inputs {
                self.queue
                    .write_buffer(&r.bound.buffers[at], 0, &inputs[i].bytes());
            }
        });
        self.checked(during, written, |message| RuntimeError::Execution {
            during: during(),
            message,
        })?;
        let last = self.dispatch_all(&r.bound, &r.readbacks, None)?;
        let outputs = self.read_back(&r.readbacks, &last)?;
        self.check_health()?;
        Ok(outputs)
    }
}
