//! Running a plan: dispatch the kernels in order over a few submits, wait, read back.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::buffers::{Bound, byte_size};
use super::timing::Timer;
use super::{Gpu, HostBuffer, RuntimeError, scope::scoped};
use crate::plan::{BufferRole, Module};

/// Kernels encoded into one submit; longer sequences are split.
const KERNELS_PER_SUBMIT: usize = 16;
/// How long to wait for one submit before giving up.
const WAIT_LIMIT: Duration = Duration::from_secs(120);

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
struct Readback {
    source: usize,
    elem: texpr_syntax::ast::ElemTy,
    len: u64,
    staging: wgpu::Buffer,
}

impl Gpu {
    /// Uploads `inputs` (in the order of the plan's input buffers), runs every
    /// kernel in order and reads back the outputs.
    pub fn run(&self, module: &Module, inputs: &[HostBuffer]) -> Result<RunResult, RuntimeError> {
        self.check_health()?;
        let bound = self.bind(module, inputs)?;
        let readbacks =
            scoped(&self.device, || self.staging(module)).map_err(RuntimeError::Execution)?;
        let timer =
            scoped(&self.device, || self.timer(passes(&bound))).map_err(RuntimeError::Execution)?;
        let start = Instant::now();
        self.dispatch_all(&bound, &readbacks, timer.as_ref())?;
        let gpu_time = start.elapsed();
        let outputs = self.read_back(&readbacks)?;
        let kernel_time = timer.map(|t| self.read_timer(&t)).transpose()?;
        self.check_health()?;
        Ok(RunResult {
            outputs,
            gpu_time,
            kernel_time,
        })
    }

    /// Uploads once, then times `warmups + runs` repetitions of all kernels
    /// (dispatch and wait); returns the `runs` timed durations.
    pub fn bench(
        &self,
        module: &Module,
        inputs: &[HostBuffer],
        warmups: usize,
        runs: usize,
    ) -> Result<Vec<Duration>, RuntimeError> {
        self.check_health()?;
        let bound = self.bind(module, inputs)?;
        let mut times = Vec::with_capacity(runs);
        for i in 0..warmups + runs {
            let start = Instant::now();
            self.dispatch_all(&bound, &[], None)?;
            if i >= warmups {
                times.push(start.elapsed());
            }
        }
        self.check_health()?;
        Ok(times)
    }

    /// Staging buffers for the outputs, sorted by output index.
    fn staging(&self, module: &Module) -> Vec<Readback> {
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
                let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&b.name),
                    size: byte_size(b.len),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                Readback {
                    source: at,
                    elem: b.elem,
                    len: b.len,
                    staging,
                }
            })
            .collect()
    }

    /// Encodes and submits every kernel (then the output copies), waiting after each submit.
    fn dispatch_all(
        &self,
        bound: &Bound,
        readbacks: &[Readback],
        timer: Option<&Timer>,
    ) -> Result<(), RuntimeError> {
        let chunks: Vec<_> = bound.steps.chunks(KERNELS_PER_SUBMIT).collect();
        let n_chunks = chunks.len().max(1);
        for c in 0..n_chunks {
            let steps = chunks.get(c).copied().unwrap_or(&[]);
            let copies = if c + 1 == n_chunks { readbacks } else { &[] };
            let index = scoped(&self.device, || {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                encode(&mut encoder, steps, timer.map(|t| t.writes(c)));
                if let Some(t) = timer.filter(|_| c + 1 == n_chunks) {
                    t.resolve(&mut encoder);
                }
                for r in copies {
                    let src = &bound.buffers[r.source];
                    encoder.copy_buffer_to_buffer(src, 0, &r.staging, 0, byte_size(r.len));
                }
                self.queue.submit([encoder.finish()])
            })
            .map_err(RuntimeError::Execution)?;
            self.wait(Some(index))?;
        }
        Ok(())
    }

    fn wait(&self, index: Option<wgpu::SubmissionIndex>) -> Result<(), RuntimeError> {
        let poll = wgpu::PollType::Wait {
            submission_index: index,
            timeout: Some(WAIT_LIMIT),
        };
        match self.device.poll(poll) {
            Ok(_) => Ok(()),
            Err(wgpu::PollError::Timeout) => Err(RuntimeError::Timeout(format!(
                "no completion after {WAIT_LIMIT:?}"
            ))),
            Err(e) => Err(RuntimeError::Execution(e.to_string())),
        }
    }

    /// Maps every staging buffer and copies its words out.
    fn read_back(&self, readbacks: &[Readback]) -> Result<Vec<HostBuffer>, RuntimeError> {
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
        self.wait(None)?;
        for (i, res) in rx.iter() {
            res.map_err(|e| RuntimeError::Readback(format!("output {i}: {e}")))?;
        }
        readbacks.iter().map(read_one).collect()
    }
}

/// Compute passes in a run: one per submit that has kernels.
fn passes(bound: &Bound) -> usize {
    bound.steps.len().div_ceil(KERNELS_PER_SUBMIT)
}

pub(super) fn encode(
    encoder: &mut wgpu::CommandEncoder,
    steps: &[super::buffers::Step],
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
    super::resident::read_staging(&r.staging, r.elem, r.len)
}
