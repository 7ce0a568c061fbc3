//! Running a plan: dispatch the kernels in order over a few submits, wait, read back.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::buffers::{Bound, Step, byte_size};
use super::timing::Timer;
use super::{Gpu, HostBuffer, RuntimeError, scope::scoped};
use texpr_codegen::plan::{BufferRole, Module};

/// Kernels encoded into one submit; longer sequences are split.
const KERNELS_PER_SUBMIT: usize = 16;

/// The outputs of one run, in `Output` order, and the time the GPU work took.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub outputs: Vec<HostBuffer>,
    /// Wall clock from the first submit to the completion of the last kernel.
    pub gpu_time: Duration,
    /// The GPU's own timestamps summed over the compute passes, where the
    /// adapter has timestamp queries ([`Gpu::has_timestamps`]).
    pub kernel_time: Option<Duration>,
}

/// A staging buffer that an output is copied into for reading back.
#[derive(Debug)]
pub(super) struct Readback {
    source: usize,
    elem: texpr_syntax::ir::ElemTy,
    len: u64,
    staging: wgpu::Buffer,
}

impl Gpu {
    /// Uploads `inputs` (in the order of the plan's input buffers), runs every
    /// kernel in order and reads back the outputs.
    pub fn run(&self, module: &Module, inputs: &[HostBuffer]) -> Result<RunResult, RuntimeError> {
        self.check_health()?;
        let bound = self.bind(module, inputs, None)?;
        let readbacks = self.staging(module)?;
        let timer = self.made_timer(passes(&bound))?;
        let start = Instant::now();
        let last = self.dispatch_all(&bound, &readbacks, timer.as_ref())?;
        let gpu_time = start.elapsed();
        let outputs = self.read_back(&readbacks, &last)?;
        let kernel_time = timer.map(|t| self.read_timer(&t, &last)).transpose()?;
        self.check_health()?;
        Ok(RunResult {
            outputs,
            gpu_time,
            kernel_time,
        })
    }

    /// Staging buffers for the outputs, sorted by output index.
    pub(super) fn staging(&self, module: &Module) -> Result<Vec<Readback>, RuntimeError> {
        let mut outs: Vec<(u32, usize)> = module
            .buffers
            .iter()
            .enumerate()
            .filter_map(|(at, b)| match b.role {
                BufferRole::Output(i) => Some((i, at)),
                _ => None,
            })
            .collect();
        outs.sort();
        outs.into_iter()
            .map(|(_, at)| {
                let b = &module.buffers[at];
                let name = format!("{} (readback)", b.name);
                let staging = self.made_buffer(&name, || {
                    self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(&name),
                        size: byte_size(b.elem, b.len),
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                })?;
                Ok(Readback {
                    source: at,
                    elem: b.elem,
                    len: b.len,
                    staging,
                })
            })
            .collect()
    }

    /// Encodes and submits every kernel (then the output copies), waiting
    /// after each submit; the last submit's index.
    pub(super) fn dispatch_all(
        &self,
        bound: &Bound,
        readbacks: &[Readback],
        timer: Option<&Timer>,
    ) -> Result<wgpu::SubmissionIndex, RuntimeError> {
        let all: Vec<&Step> = bound.steps().collect();
        let chunks: Vec<_> = all.chunks(KERNELS_PER_SUBMIT).collect();
        let n_chunks = chunks.len().max(1);
        let mut last = None;
        for c in 0..n_chunks {
            let steps = chunks.get(c).copied().unwrap_or(&[]);
            let copies = if c + 1 == n_chunks { readbacks } else { &[] };
            let during = || running(steps, !copies.is_empty());
            let index = scoped(&self.device, || {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                encode(&mut encoder, steps, timer.map(|t| t.writes(c)));
                if let Some(t) = timer.filter(|_| c + 1 == n_chunks) {
                    t.resolve(&mut encoder);
                }
                for r in copies {
                    let src = &bound.buffers[r.source];
                    encoder.copy_buffer_to_buffer(src, 0, &r.staging, 0, byte_size(r.elem, r.len));
                }
                self.submit([encoder.finish()])
            });
            let index = self.checked(during, index, |message| RuntimeError::Execution {
                during: format!("submitting {}", during()),
                message,
            })?;
            self.wait(Some(index.clone()), during)?;
            last = Some(index);
        }
        Ok(last.expect("at least one submit"))
    }

    /// Maps every staging buffer (filled by submission `last`, this run's
    /// own, whatever other threads submitted since) and copies its words out.
    pub(super) fn read_back(
        &self,
        readbacks: &[Readback],
        last: &wgpu::SubmissionIndex,
    ) -> Result<Vec<HostBuffer>, RuntimeError> {
        let (tx, rx) = mpsc::channel();
        for (i, r) in readbacks.iter().enumerate() {
            let tx = tx.clone();
            r.staging
                .slice(..)
                .map_async(wgpu::MapMode::Read, move |res| {
                    let _ = tx.send((i, res));
                });
        }
        drop(tx);
        let during = || "reading back the outputs".to_string();
        self.wait(Some(last.clone()), during)?;
        for (i, res) in rx.iter() {
            let res = res.map_err(|e| format!("output {i}: {e}"));
            self.checked(during, res, RuntimeError::Readback)?;
        }
        readbacks.iter().map(read_one).collect()
    }
}

/// "running kernel `k0_y`" or "running kernels `k0_a`, `k1_b`" (what one
/// submit runs), and the copies of the outputs after the last.
fn running(steps: &[&Step], copies: bool) -> String {
    let names: Vec<String> = steps
        .iter()
        .map(|s| format!("`{}`", s.entry_point))
        .collect();
    let kernels = match names.len() {
        0 => String::new(),
        1 => format!("kernel {}", names[0]),
        _ => format!("kernels {}", names.join(", ")),
    };
    match (kernels.is_empty(), copies) {
        (true, _) => "copying the outputs for reading back".into(),
        (false, true) => format!("running {kernels} (and copying the outputs)"),
        (false, false) => format!("running {kernels}"),
    }
}

/// Compute passes in a run: one per submit that has kernels.
pub(super) fn passes(bound: &Bound) -> usize {
    bound.len().div_ceil(KERNELS_PER_SUBMIT)
}

pub(super) fn encode(
    encoder: &mut wgpu::CommandEncoder,
    steps: &[&Step],
    timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
) {
    if steps.is_empty() {
        return;
    }
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: None,
        timestamp_writes: timestamps,
    });
    for s in steps {
        pass.set_pipeline(&s.pipeline.pipeline);
        for (g, bg) in s.bind_groups.iter().enumerate() {
            if let Some(bg) = bg {
                pass.set_bind_group(g as u32, bg, &[]);
            }
        }
        let [x, y, z] = s.dispatch;
        pass.dispatch_workgroups(x, y, z);
    }
}

fn read_one(r: &Readback) -> Result<HostBuffer, RuntimeError> {
    super::buffers::read_staging(&r.staging, r.elem, r.len)
}
