//! The timing harness: every time `texprc bench` and `texprc tune` report,
//! for compiled programs, hand-written WGSL and the device's own limits alike.
//!
//! - [`Gpu::prepare`] (and [`Gpu::prepare_raw`], [`Gpu::prepare_copy`]) makes
//!   the pipelines and buffers of a dispatch sequence and uploads its inputs,
//!   waiting for the upload: none of that is ever timed.
//! - [`Gpu::time`] runs every prepared sequence `warmups` times (at least
//!   once), then `runs` times, round-robin across the sequences (each round
//!   in a rotated order, every other round backwards: [`round_order`]), so
//!   that load drifting during a measurement hits all of them alike, and
//!   whatever the run before leaves behind (its caches, a long kernel's
//!   aftermath) does not always fall on the same sequence. Each run is one [`Sample`]: the wall clock of dispatch and
//!   wait, and the GPU's own timestamps summed over the sequence's passes
//!   where the device has timestamp queries ([`Gpu::has_timestamps`]).
//! - A [`Timing`] is a sequence's samples; its figures are their medians,
//!   [`Timing::primary`] the GPU's own (else the wall clock's).
//!
//! With a cut-off factor `f` ([`TimingPlan::cutoff`]), a sequence far slower
//! than the others stops early: one whose first warm-up took over `f` times
//! the fastest first warm-up skips its other warm-ups, and after each timed
//! round one whose fastest of at least [`CUT_AFTER`] timed runs is over `f`
//! times the best median is timed no further ([`Timing::cut`]): one run
//! slowed by the load cannot cut it. Its figure is still a warm median
//! (after at least one warm-up).
//!
//! When the device is lost, timing stops and [`Timings::lost_in`] names the
//! sequence whose run found it.

use std::time::{Duration, Instant};

use super::buffers::{Bound, BufferPool};
use super::timing::Timer;
use super::{Gpu, HostBuffer, RuntimeError, scope::scoped};
use texpr_codegen::plan::Module;

/// Timed runs a sequence has at least before the cut-off may stop it.
pub const CUT_AFTER: usize = 2;

/// The order of `n` sequences in round `round`: from sequence `round / 2`
/// forwards in even rounds and backwards in odd ones, so that each sequence
/// comes first in turn and follows one neighbour in one round and the other
/// in the next.
pub fn round_order(round: usize, n: usize) -> impl Iterator<Item = usize> {
    let start = (round / 2) % n.max(1);
    (0..n).map(move |k| match round % 2 {
        0 => (start + k) % n,
        _ => (start + n - k) % n,
    })
}

/// One timed run of a sequence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Wall clock from the first submit to the end of the wait for the last.
    pub wall: Duration,
    /// The GPU's own timestamps, summed over the sequence's passes (or
    /// around its copies), where the device has timestamp queries.
    pub gpu: Option<Duration>,
}

impl Sample {
    /// The GPU's own time where there is one, else the wall clock.
    pub fn primary(&self) -> Duration {
        self.gpu.unwrap_or(self.wall)
    }
}

/// The timed runs of one sequence (at least one) and their medians.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub samples: Vec<Sample>,
    /// Timed fewer runs than asked: far slower than the best ([`TimingPlan::cutoff`]).
    pub cut: bool,
}

impl Timing {
    /// The median wall clock.
    pub fn wall(&self) -> Duration {
        median(self.samples.iter().map(|s| s.wall).collect())
    }

    /// The median of the GPU's own times, where every run has one.
    pub fn gpu(&self) -> Option<Duration> {
        let gpu: Option<Vec<Duration>> = self.samples.iter().map(|s| s.gpu).collect();
        gpu.filter(|g| !g.is_empty()).map(median)
    }

    /// The figure to compare: [`Timing::gpu`] where there is one, else [`Timing::wall`].
    pub fn primary(&self) -> Duration {
        self.gpu().unwrap_or_else(|| self.wall())
    }
}

/// How [`Gpu::time`] times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimingPlan {
    /// Untimed runs of each sequence first (at least one is always made).
    pub warmups: usize,
    /// Timed runs of each sequence (at least one).
    pub runs: usize,
    /// Stop timing a sequence whose median is over this many times the best.
    pub cutoff: Option<f64>,
}

/// What [`Gpu::time`] measured, one result per sequence in the order given.
#[derive(Debug)]
pub struct Timings {
    pub results: Vec<Result<Timing, RuntimeError>>,
    /// The sequence whose run found the device lost; every sequence not
    /// finished by then has the same [`RuntimeError::DeviceLost`].
    pub lost_in: Option<usize>,
}

/// A dispatch sequence ready to time: pipelines made, buffers made and filled.
#[derive(Debug)]
pub struct Prepared {
    work: Work,
    timer: Option<Timer>,
}

#[derive(Debug)]
enum Work {
    Kernels(Bound),
    /// `copy_buffer_to_buffer` of `bytes` from `src` to `dst`.
    Copy {
        src: wgpu::Buffer,
        dst: wgpu::Buffer,
        bytes: u64,
    },
}

/// Where one sequence stands in [`Gpu::time`].
#[derive(Debug, Default)]
struct State {
    samples: Vec<Sample>,
    first_warmup: Option<Duration>,
    skip_warmups: bool,
    cut: bool,
    failed: Option<RuntimeError>,
}

impl State {
    fn runs_in(&self, round: usize, timed: bool) -> bool {
        self.failed.is_none() && !self.cut && (timed || round == 0 || !self.skip_warmups)
    }

    /// The figure the cut-off judges: the fastest run, once there are enough.
    fn fastest(&self) -> Option<Duration> {
        let runs = self.samples.iter().map(Sample::primary);
        runs.min().filter(|_| self.samples.len() >= CUT_AFTER)
    }

    fn median(&self) -> Option<Duration> {
        (!self.samples.is_empty())
            .then(|| median(self.samples.iter().map(Sample::primary).collect()))
    }

    fn result(self) -> Result<Timing, RuntimeError> {
        match self.failed {
            Some(e) => Err(e),
            None => Ok(Timing {
                samples: self.samples,
                cut: self.cut,
            }),
        }
    }
}

impl Gpu {
    /// Binds `module` (its inputs and outputs from `pool`, see
    /// [`BufferPool`]), makes its pipelines and timestamp queries, and waits
    /// for the inputs to be uploaded.
    pub fn prepare(
        &self,
        module: &Module,
        inputs: &[HostBuffer],
        pool: &mut BufferPool,
    ) -> Result<Prepared, RuntimeError> {
        self.check_health()?;
        let bound = self.bind(module, inputs, Some(pool))?;
        let timer = self.made_timer(super::exec::passes(&bound))?;
        self.settle()?;
        Ok(Prepared {
            work: Work::Kernels(bound),
            timer,
        })
    }

    /// A copy of `bytes` (rounded down to whole words, at most the device's
    /// largest buffer) from one device buffer to another: the device's copy
    /// bandwidth. Timed by timestamps where the device can write them
    /// between commands ([`Gpu::has_encoder_timestamps`]).
    pub fn prepare_copy(&self, bytes: u64) -> Result<Prepared, RuntimeError> {
        self.check_health()?;
        let bytes = (bytes.min(self.wgpu_limits.max_buffer_size) / 4 * 4).max(4);
        let make = |name: &str| {
            self.made_buffer(name, || {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(name),
                    size: bytes,
                    usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
        };
        let (src, dst) = (make("copy source")?, make("copy destination")?);
        let timer = match self.has_encoder_timestamps() {
            true => self.made_timer(1)?,
            false => None,
        };
        Ok(Prepared {
            work: Work::Copy { src, dst, bytes },
            timer,
        })
    }

    /// Times the prepared sequences round-robin (see the module doc).
    pub fn time(&self, entries: &[&Prepared], plan: &TimingPlan) -> Timings {
        let mut states: Vec<State> = entries.iter().map(|_| State::default()).collect();
        let warmups = plan.warmups.max(1);
        for round in 0..warmups + plan.runs.max(1) {
            let timed = round >= warmups;
            for i in round_order(round, entries.len()) {
                let state = &mut states[i];
                if !state.runs_in(round, timed) {
                    continue;
                }
                match self.time_once(entries[i]) {
                    Ok(s) if timed => state.samples.push(s),
                    Ok(s) => {
                        state.first_warmup.get_or_insert(s.primary());
                    }
                    Err(e) if self.is_lost() => return lost(states, i, e),
                    Err(e) => state.failed = Some(e),
                }
            }
            if let Some(factor) = plan.cutoff {
                cut(&mut states, factor, round == 0);
            }
        }
        Timings {
            results: states.into_iter().map(State::result).collect(),
            lost_in: None,
        }
    }

    /// Times one prepared sequence (no cut-off).
    pub fn time_one(
        &self,
        prepared: &Prepared,
        warmups: usize,
        runs: usize,
    ) -> Result<Timing, RuntimeError> {
        let plan = TimingPlan {
            warmups,
            runs,
            cutoff: None,
        };
        let mut timings = self.time(&[prepared], &plan);
        timings.results.remove(0)
    }

    /// Uploads once, then times `runs` repetitions of all kernels after
    /// `warmups` (at least one): [`Gpu::prepare`] and [`Gpu::time_one`].
    pub fn bench(
        &self,
        module: &Module,
        inputs: &[HostBuffer],
        warmups: usize,
        runs: usize,
    ) -> Result<Timing, RuntimeError> {
        let prepared = self.prepare(module, inputs, &mut BufferPool::default())?;
        self.time_one(&prepared, warmups, runs)
    }

    /// Waits until everything queued so far (uploads) has run.
    fn settle(&self) -> Result<(), RuntimeError> {
        let index = self.submit([]);
        self.wait(Some(index), || "uploading the inputs".into())
    }

    fn time_once(&self, p: &Prepared) -> Result<Sample, RuntimeError> {
        let start = Instant::now();
        let last = match &p.work {
            Work::Kernels(bound) => self.dispatch_all(bound, p.timer.as_ref())?,
            Work::Copy { src, dst, bytes } => self.copy_once(src, dst, *bytes, p.timer.as_ref())?,
        };
        let wall = start.elapsed();
        let gpu = p
            .timer
            .as_ref()
            .map(|t| self.read_timer(t, &last))
            .transpose()?;
        Ok(Sample { wall, gpu })
    }

    fn copy_once(
        &self,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        bytes: u64,
        timer: Option<&Timer>,
    ) -> Result<wgpu::SubmissionIndex, RuntimeError> {
        let during = || format!("copying {bytes} bytes between two buffers");
        let index = scoped(&self.device, || {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            if let Some(t) = timer {
                t.write(&mut encoder, 0, false);
            }
            encoder.copy_buffer_to_buffer(src, 0, dst, 0, bytes);
            if let Some(t) = timer {
                t.write(&mut encoder, 0, true);
                t.resolve(&mut encoder);
            }
            self.submit([encoder.finish()])
        });
        let index = self.checked(during, index, |message| RuntimeError::Execution {
            during: during(),
            message,
        })?;
        self.wait(Some(index.clone()), during)?;
        Ok(index)
    }
}

/// Marks sequences far slower than the best: after the first warm-up
/// round (`first`) by their first warm-up, they skip the other warm-ups;
/// after a timed round by their fastest run against the best median, they
/// are timed no further.
fn cut(states: &mut [State], factor: f64, first: bool) {
    let slower = |t: Duration, best: Duration| t.as_secs_f64() > factor * best.as_secs_f64();
    if first {
        let fastest = states.iter().filter_map(|s| s.first_warmup).min();
        for s in states.iter_mut() {
            if let (Some(t), Some(best)) = (s.first_warmup, fastest) {
                s.skip_warmups = slower(t, best);
            }
        }
    }
    let best = states.iter().filter_map(State::median).min();
    for s in states.iter_mut() {
        if let (Some(t), Some(best)) = (s.fastest(), best) {
            s.cut |= slower(t, best);
        }
    }
}

/// The device was lost in sequence `at`'s run: it and every sequence not
/// finished get the loss; the cut and failed ones keep what they had.
fn lost(states: Vec<State>, at: usize, e: RuntimeError) -> Timings {
    let results = states
        .into_iter()
        .enumerate()
        .map(|(i, s)| match i != at && (s.cut || s.failed.is_some()) {
            true => s.result(),
            false => Err(e.clone()),
        })
        .collect();
    Timings {
        results,
        lost_in: Some(at),
    }
}

/// The middle element (the upper one of an even count); zero for none.
fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::round_order;
    use std::collections::BTreeSet;

    /// Every sequence runs once a round, comes first in turn, and runs
    /// right after each of its two neighbours.
    #[test]
    fn rounds_rotate_and_alternate_direction() {
        for n in 1..7 {
            let rounds: Vec<Vec<usize>> = (0..2 * n).map(|r| round_order(r, n).collect()).collect();
            for order in &rounds {
                let mut sorted = order.clone();
                sorted.sort();
                assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            }
            let firsts: BTreeSet<usize> = rounds.iter().map(|o| o[0]).collect();
            assert_eq!(firsts.len(), n, "n = {n}");
            for i in 0..n {
                let before: BTreeSet<usize> = (rounds.iter())
                    .flat_map(|o| o.windows(2).filter(|w| w[1] == i).map(|w| w[0]))
                    .collect();
                let neighbours = BTreeSet::from([(i + n - 1) % n, (i + 1) % n]);
                let want = if n > 1 { neighbours } else { BTreeSet::new() };
                assert_eq!(before, want, "n = {n}, i = {i}");
            }
        }
    }
}
