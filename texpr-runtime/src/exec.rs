//! Running a plan: dispatch the kernels in order over a few submits, wait, read back.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::array::{Contents, DeviceArray};
use super::buffers::{Bound, Step, check_inputs, invocations};
use super::timing::Timer;
use super::{Gpu, HostBuffer, RuntimeError, scope::scoped};
use texpr_codegen::plan::Module;

/// The most dispatches one submit holds.
const DISPATCHES_PER_SUBMIT: usize = 4096;

/// Invocations after which a submit holds no further dispatch: a submit is
/// the unit the wait limit watches ([`crate::WAIT_LIMIT`]) and Ctrl-C stops
/// between, so one of many large dispatches stays as short as sixteen of
/// them were, while a loop of small steps goes in one.
const INVOCATIONS_PER_SUBMIT: u64 = 1 << 20;

/// Submissions a device may have in flight before a launch waits for its
/// own oldest one.
pub const MAX_QUEUED: u64 = 64;

/// The outputs of one run, in `Output` order, and the time the GPU work took.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub outputs: Vec<HostBuffer>,
    /// Kernels dispatched (a loop's kernels once per step they run).
    pub dispatches: u64,
    /// Command buffers submitted to the device's queue for them (each
    /// waited for before the next).
    pub submissions: u64,
    /// Wall clock from the first submit to the completion of the last kernel.
    pub gpu_time: Duration,
    /// The GPU's own timestamps summed over the compute passes, where the
    /// adapter has timestamp queries ([`Gpu::has_timestamps`]).
    pub kernel_time: Option<Duration>,
}

/// A copy after the last kernel: `size` bytes from the start of one
/// buffer to the start of another (an output to its staging buffer).
pub(super) type Copy<'a> = (&'a wgpu::Buffer, &'a wgpu::Buffer, u64);

/// What [`Gpu::submit_all`] submitted: the last submission (if any), the
/// dispatches and the submissions.
#[derive(Debug)]
pub(super) struct Submitted {
    pub last: Option<wgpu::SubmissionIndex>,
    pub dispatches: u64,
    pub submissions: u64,
}

/// How a sequence of submits waits: after each one (a run, and the timing
/// harness, whose errors then name the kernels that failed), or only to
/// keep the device's queue bounded (a launch; `recent` is the launcher's
/// own submissions, oldest first).
#[derive(Debug)]
pub(super) enum Pace<'a> {
    EachSubmit,
    Queued(&'a mut VecDeque<wgpu::SubmissionIndex>),
}

impl Gpu {
    /// Uploads `inputs` (in the order of the plan's input buffers), runs every
    /// kernel in order and reads back the outputs: [`Gpu::load`], an upload
    /// per input, [`Gpu::launch`] (waiting after each submission) and one
    /// read of every output. Its outputs start zeroed, so a hand-written
    /// module may read an output before it writes it.
    pub fn run(&self, module: &Module, inputs: &[HostBuffer]) -> Result<RunResult, RuntimeError> {
        self.check_health()?;
        check_inputs(module, inputs)?;
        let exe = self.load(module)?;
        let arrays = (exe.input_buffers().iter().zip(inputs))
            .map(|(b, h)| self.host_array(&b.name, h))
            .collect::<Result<Vec<_>, _>>()?;
        let outputs = self.output_arrays(&exe, Contents::Zeros)?;
        let (ins, outs): (Vec<&DeviceArray>, Vec<&DeviceArray>) =
            (arrays.iter().collect(), outputs.iter().collect());
        let sizes = module
            .dispatches()
            .map(|(k, _)| invocations(&module.kernels[k]));
        let timer = self.made_timer(submits(sizes).len())?;
        let start = Instant::now();
        let sent = self.launch_timed(&exe, &ins, &outs, timer.as_ref(), true, &[])?;
        let gpu_time = start.elapsed();
        let outputs = self.read(&outs)?;
        let kernel_time = match (timer, &sent.last) {
            (Some(t), Some(last)) => Some(self.read_timer(&t, last)?),
            _ => None,
        };
        Ok(RunResult {
            outputs,
            dispatches: sent.dispatches,
            submissions: sent.submissions,
            gpu_time,
            kernel_time,
        })
    }

    /// Encodes and submits every kernel, waiting after each submit; the
    /// last submit's index.
    pub(super) fn dispatch_all(
        &self,
        bound: &Bound,
        timer: Option<&Timer>,
    ) -> Result<wgpu::SubmissionIndex, RuntimeError> {
        let sent = self.submit_all(bound, timer, Pace::EachSubmit, &[])?;
        Ok(sent.last.expect("at least one submit"))
    }

    /// Encodes and submits every kernel, in as few submits as [`submits`]
    /// allows (one submit without kernels when `pace` waits after each
    /// submit), paced by `pace`; what was submitted.
    pub(super) fn submit_all(
        &self,
        bound: &Bound,
        timer: Option<&Timer>,
        mut pace: Pace<'_>,
        copies: &[Copy<'_>],
    ) -> Result<Submitted, RuntimeError> {
        let all: Vec<&Step> = bound.steps().collect();
        let chunks: Vec<&[&Step]> = submits(all.iter().map(|s| s.invocations))
            .into_iter()
            .map(|r| &all[r])
            .collect();
        let one = matches!(pace, Pace::EachSubmit) || !copies.is_empty();
        let n_chunks = chunks.len().max(usize::from(one));
        let mut last = None;
        for c in 0..n_chunks {
            let steps = chunks.get(c).copied().unwrap_or(&[]);
            let during = || running(steps);
            if let Pace::Queued(recent) = &mut pace {
                self.throttle(recent, during)?;
            }
            let index = scoped(&self.device, || {
                let mut encoder = self.device.create_command_encoder(&Default::default());
                encode(&mut encoder, steps, timer.map(|t| t.writes(c)));
                if let Some(t) = timer.filter(|_| c + 1 == n_chunks) {
                    t.resolve(&mut encoder);
                }
                if c + 1 == n_chunks {
                    for (src, dst, size) in copies {
                        encoder.copy_buffer_to_buffer(src, 0, dst, 0, *size);
                    }
                }
                self.submit([encoder.finish()])
            });
            let index = self.checked(during, index, |message| RuntimeError::Execution {
                during: format!("submitting {}", during()),
                message,
            })?;
            match &mut pace {
                Pace::EachSubmit => self.wait(Some(index.clone()), during)?,
                Pace::Queued(recent) => {
                    recent.push_back(index.clone());
                    // Between submissions, as a wait would ask ([`crate::interruptible`]).
                    if crate::interrupt::requested() {
                        return Err(RuntimeError::Interrupted { during: during() });
                    }
                }
            }
            last = Some(index);
        }
        Ok(Submitted {
            last,
            dispatches: all.len() as u64,
            submissions: n_chunks as u64,
        })
    }

    /// While the device has [`MAX_QUEUED`] submissions in flight, waits for
    /// the oldest of `recent` (a launcher's own).
    fn throttle(
        &self,
        recent: &mut VecDeque<wgpu::SubmissionIndex>,
        during: impl Fn() -> String,
    ) -> Result<(), RuntimeError> {
        while recent.len() as u64 > MAX_QUEUED / 2 && self.queued_submissions() >= MAX_QUEUED {
            let Some(oldest) = recent.pop_front() else {
                break;
            };
            self.wait(Some(oldest), &during)?;
        }
        // Submissions completed long ago need no waiting.
        while recent.len() as u64 > MAX_QUEUED {
            recent.pop_front();
        }
        Ok(())
    }
}

/// "running kernel `k0_y`" or "running kernels `k0_a`, `k1_b`" (what one
/// submit runs, each kernel named once, with the dispatches when a loop
/// repeats them).
fn running(steps: &[&Step]) -> String {
    let mut names: Vec<String> = Vec::new();
    for s in steps {
        let name = format!("`{}`", s.entry_point);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let times = match steps.len() > names.len() {
        true => format!(" ({} dispatches)", steps.len()),
        false => String::new(),
    };
    match names.len() {
        0 => "waiting for the uploads".into(),
        1 => format!("running kernel {}{times}", names[0]),
        _ => format!("running kernels {}{times}", names.join(", ")),
    }
}

/// Compute passes in a run: one per submit that has kernels.
pub(super) fn passes(bound: &Bound) -> usize {
    submits(bound.steps().map(|s| s.invocations)).len()
}

/// The dispatches of a run, each given by its invocations, split into
/// submits: consecutive runs of at most [`DISPATCHES_PER_SUBMIT`], each
/// closed once it holds [`INVOCATIONS_PER_SUBMIT`] invocations. A run's
/// dispatches wait for nothing but each other (a pass orders them), so a
/// loop of small steps goes in one submit, and one wait.
pub(super) fn submits(sizes: impl Iterator<Item = u64>) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut end, mut work) = (0, 0, 0u64);
    for n in sizes {
        end += 1;
        work = work.saturating_add(n);
        if end - start == DISPATCHES_PER_SUBMIT || work >= INVOCATIONS_PER_SUBMIT {
            out.push(start..end);
            (start, work) = (end, 0);
        }
    }
    if start < end {
        out.push(start..end);
    }
    out
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

#[cfg(test)]
mod tests {
    use super::{DISPATCHES_PER_SUBMIT, INVOCATIONS_PER_SUBMIT, submits};

    #[test]
    fn small_dispatches_share_a_submit_and_large_ones_split() {
        assert_eq!(
            submits(std::iter::empty()),
            Vec::<std::ops::Range<usize>>::new()
        );
        // A loop of 500 small steps: one submit.
        assert_eq!(submits(std::iter::repeat_n(256, 500)), vec![0..500]);
        // Past the dispatch cap, a second.
        let n = DISPATCHES_PER_SUBMIT + 3;
        assert_eq!(
            submits(std::iter::repeat_n(1, n)),
            vec![0..DISPATCHES_PER_SUBMIT, DISPATCHES_PER_SUBMIT..n]
        );
        // Each dispatch over the invocation budget: one a submit.
        let big = INVOCATIONS_PER_SUBMIT + 1;
        assert_eq!(submits([big, 1, big].into_iter()), vec![0..1, 1..3]);
    }
}
