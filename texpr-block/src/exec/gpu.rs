//! The GPU kernel runner: each distinct block body compiled once to a kernel plan, run with wgpu.

use super::runner::{KernelRunner, check_kernel};
use crate::codes;
use std::collections::BTreeMap;
use texpr::{Module, Options};
use texpr_codegen::runtime::{Gpu, HostBuffer};
use texpr_syntax::Diagnostic;

/// Runs block bodies on a GPU; modules are cached by kernel source.
#[derive(Debug)]
pub struct GpuRunner<'g> {
    gpu: &'g Gpu,
    cache: BTreeMap<String, Module>,
    /// GPU time of all runs so far.
    pub gpu_time: std::time::Duration,
}

impl<'g> GpuRunner<'g> {
    pub fn new(gpu: &'g Gpu) -> GpuRunner<'g> {
        GpuRunner {
            gpu,
            cache: BTreeMap::new(),
            gpu_time: std::time::Duration::ZERO,
        }
    }

    fn module(&mut self, kernel: &str) -> Result<&Module, Diagnostic> {
        if !self.cache.contains_key(kernel) {
            let prog = check_kernel(kernel)?;
            let opts = Options {
                target: self.gpu.target().clone(),
                overrides: Vec::new(),
                schedule: texpr::ScheduleChoice::Default,
            };
            let compiled = texpr::compile(&prog, &opts).map_err(|ds| {
                let text = texpr_syntax::diag::render("block-body.te", kernel, &ds);
                Diagnostic::error(codes::KERNEL_RUN, "a block body does not compile")
                    .with_note(text)
            })?;
            self.cache.insert(kernel.to_string(), compiled.module);
        }
        Ok(&self.cache[kernel])
    }
}

impl KernelRunner for GpuRunner<'_> {
    fn run(&mut self, kernel: &str, inputs: &[&[f32]]) -> Result<Vec<f32>, Diagnostic> {
        let gpu = self.gpu;
        let module = self.module(kernel)?.clone();
        let bufs: Vec<HostBuffer> = inputs.iter().map(|v| HostBuffer::from_f32(v)).collect();
        let res = gpu.run(&module, &bufs).map_err(|e| {
            Diagnostic::error(
                codes::KERNEL_RUN,
                format!("a block body failed on the GPU: {e}"),
            )
        })?;
        self.gpu_time += res.gpu_time;
        res.outputs
            .first()
            .map(HostBuffer::to_f32)
            .ok_or_else(|| Diagnostic::error(codes::KERNEL_RUN, "a block body gave no output"))
    }

    fn compiled(&self) -> usize {
        self.cache.len()
    }
}
