//! A module run again and again on new inputs: its pipelines and buffers
//! made once ([`Gpu::reusable`]: an [`Executable`] and device arrays for its
//! inputs and outputs), then each [`Gpu::rerun`] writes the inputs into
//! their arrays, launches, and reads the outputs back — what a host calling
//! one compiled program many times on host data needs, without making a
//! buffer per call.
//!
//! A [`Reusable`] holds one run's arrays: runs at the same time each need
//! their own (make one per thread, or keep a pool). It belongs to the device
//! that made it: after [`Gpu::reopen`], make a new one.

use super::array::{Contents, DeviceArray};
use super::buffers::check_inputs;
use super::launch::Executable;
use super::{Gpu, HostBuffer, RuntimeError};
use texpr_codegen::plan::Module;

/// A module loaded on one device, with arrays for its inputs and outputs.
#[derive(Debug)]
pub struct Reusable {
    exe: Executable,
    inputs: Vec<DeviceArray>,
    outputs: Vec<DeviceArray>,
}

impl Reusable {
    /// The arrays its inputs are written into, in order.
    pub fn inputs(&self) -> &[DeviceArray] {
        &self.inputs
    }

    /// The arrays its outputs are written into, in order (each rerun
    /// overwrites them).
    pub fn outputs(&self) -> &[DeviceArray] {
        &self.outputs
    }
}

impl Gpu {
    /// Loads `module` ([`Gpu::load`]) and makes arrays for its inputs, with
    /// `inputs` uploaded, and for its outputs.
    pub fn reusable(
        &self,
        module: &Module,
        inputs: &[HostBuffer],
    ) -> Result<Reusable, RuntimeError> {
        self.check_health()?;
        check_inputs(module, inputs)?;
        let exe = self.load(module)?;
        let inputs = (exe.input_buffers().iter().zip(inputs))
            .map(|(b, h)| self.host_array(&b.name, h))
            .collect::<Result<Vec<_>, _>>()?;
        let outputs = self.output_arrays(&exe, Contents::Zeros)?;
        Ok(Reusable {
            exe,
            inputs,
            outputs,
        })
    }

    /// Writes `inputs` into `r`'s input arrays, runs every kernel and reads
    /// back the outputs (in `Output` order); the same checks and errors as
    /// [`Gpu::run`], without its timestamps.
    pub fn rerun(
        &self,
        r: &Reusable,
        inputs: &[HostBuffer],
    ) -> Result<Vec<HostBuffer>, RuntimeError> {
        self.check_health()?;
        check_inputs(r.exe.module(), inputs)?;
        for (a, h) in r.inputs.iter().zip(inputs) {
            self.write_array(a, &h.bytes()[..a.nbytes() as usize])?;
        }
        let ins: Vec<&DeviceArray> = r.inputs.iter().collect();
        let outs: Vec<&DeviceArray> = r.outputs.iter().collect();
        self.launch_timed(&r.exe, &ins, &outs, None, true, &[])?;
        self.read(&outs)
    }
}
