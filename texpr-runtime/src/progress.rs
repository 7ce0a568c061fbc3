//! Submitting work and waiting for it, with a limit that measures the
//! device's progress, not the wall clock since the submit.
//!
//! One queue is shared by everything that runs on a [`Gpu`]: the test
//! binary's threads share one device, the block executor's ranks (as
//! threads) share one. A submit runs only after every earlier submit on the
//! queue, so a wait bounded by the time since its own submit also counts
//! its neighbours' work, and a correct run fails (E0415) because another
//! thread filled the queue. A real device's watchdog does not count that:
//! Linux's GPU scheduler arms a job's timeout when the job reaches the
//! hardware and re-arms it whenever a job completes. So does this: a wait
//! gives up only after [`Gpu::wait_limit`] (120 s by default) in which the
//! device completed no submission at all — its own work or anyone's queued
//! before it. A hung kernel completes nothing and is still reported after
//! the limit, never waited for forever; a busy queue that keeps finishing
//! work never times out a run queued behind it. A wait is for the
//! submission it names: the outputs' readback waits for the run's own last
//! submission, not for whatever other threads submitted since.
//!
//! Every submit goes through [`Gpu::submit`], which asks the queue to note
//! the time of its completion ([`wgpu::Queue::on_submitted_work_done`]: the
//! callback runs in whichever thread's poll finds it done). [`Gpu::wait`]
//! blocks on its own submission for what is left of the limit since the
//! device last completed something, as far as polls have seen
//! ([`Watchdog`]); when that runs out with a completion in between, it
//! waits again, until the device has gone the whole limit without one. (It does not poll in short slices: wgpu-core
//! 30 asserts, and panics, when a wait that timed out races another
//! thread's poll that empties the queue, gfx-rs/wgpu#9958; a timed-out
//! wait is kept as rare as a genuine limit.)

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{Gpu, RuntimeError};

/// The default limit: how long the device may complete nothing before a wait fails.
pub const WAIT_LIMIT: Duration = Duration::from_secs(120);

/// Submissions made and completed on one device, when the last completion
/// was seen, and the wait limit.
#[derive(Debug)]
pub(super) struct Progress {
    submitted: AtomicU64,
    done: Arc<Done>,
    limit_ns: AtomicU64,
}

/// What the completion callbacks record.
#[derive(Debug)]
struct Done {
    count: AtomicU64,
    /// Nanoseconds from `epoch` to the last completion seen.
    last_ns: AtomicU64,
    epoch: Instant,
}

impl Default for Progress {
    fn default() -> Progress {
        Progress {
            submitted: AtomicU64::new(0),
            done: Arc::new(Done {
                count: AtomicU64::new(0),
                last_ns: AtomicU64::new(0),
                epoch: Instant::now(),
            }),
            limit_ns: AtomicU64::new(WAIT_LIMIT.as_nanos() as u64),
        }
    }
}

impl Progress {
    fn completed(&self) -> u64 {
        self.done.count.load(Ordering::Acquire)
    }

    /// When a completion was last seen (`None`: never).
    fn last_completion(&self) -> Option<Instant> {
        let ns = self.done.last_ns.load(Ordering::Acquire);
        (self.completed() > 0).then(|| self.done.epoch + Duration::from_nanos(ns))
    }
}

impl Gpu {
    /// How long a wait lets the device go without completing any work
    /// before it fails with [`RuntimeError::Timeout`] (see the module docs).
    pub fn wait_limit(&self) -> Duration {
        Duration::from_nanos(self.progress.limit_ns.load(Ordering::Relaxed))
    }

    /// Sets [`Gpu::wait_limit`] for every later wait on this device.
    pub fn set_wait_limit(&self, limit: Duration) {
        let ns = u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX);
        self.progress.limit_ns.store(ns, Ordering::Relaxed);
    }

    /// Submissions made on this device that have not completed yet (as far
    /// as the last poll knows).
    pub fn queued_submissions(&self) -> u64 {
        let made = self.progress.submitted.load(Ordering::Acquire);
        made.saturating_sub(self.progress.completed())
    }

    /// Submits `commands` and counts the submission, and its completion
    /// when a poll finds it done. Every submit of the runtime goes here.
    pub(super) fn submit(
        &self,
        commands: impl IntoIterator<Item = wgpu::CommandBuffer>,
    ) -> wgpu::SubmissionIndex {
        let index = self.queue.submit(commands);
        self.progress.submitted.fetch_add(1, Ordering::AcqRel);
        let done = Arc::clone(&self.progress.done);
        // Called once everything submitted so far is done.
        self.queue.on_submitted_work_done(move || {
            let ns = done.epoch.elapsed().as_nanos().min(u64::MAX as u128) as u64;
            done.last_ns.fetch_max(ns, Ordering::AcqRel);
            done.count.fetch_add(1, Ordering::AcqRel);
        });
        index
    }

    /// Waits for submission `index` (or all work submitted so far); `during`
    /// says what ran. Fails with [`RuntimeError::Timeout`] once the device
    /// has completed nothing for [`Gpu::wait_limit`], and with
    /// [`RuntimeError::Interrupted`] when, the wait done, this thread's
    /// check asks to stop ([`crate::interruptible`]).
    pub(super) fn wait(
        &self,
        index: Option<wgpu::SubmissionIndex>,
        during: impl Fn() -> String,
    ) -> Result<(), RuntimeError> {
        let limit = self.wait_limit();
        let mut dog = Watchdog::new(limit, Instant::now());
        loop {
            let poll = wgpu::PollType::Wait {
                submission_index: index.clone(),
                timeout: Some(dog.left(Instant::now())),
            };
            let polled = self.device.poll(poll);
            if !matches!(polled, Err(wgpu::PollError::Timeout)) {
                let polled = polled.map(|_| ()).map_err(|e| e.to_string());
                self.checked(&during, polled, |message| RuntimeError::Execution {
                    during: during(),
                    message,
                })?;
                if crate::interrupt::requested() {
                    return Err(RuntimeError::Interrupted { during: during() });
                }
                return Ok(());
            }
            if dog.expired(self.progress.last_completion(), Instant::now()) {
                let why = format!(
                    "{} made no progress: the device completed no work for {limit:?} \
                     ({} submissions not completed)",
                    during(),
                    self.queued_submissions()
                );
                return self.checked(&during, Err(why), RuntimeError::Timeout);
            }
        }
    }
}

/// A wait's clock: it runs from the last time the device completed any
/// submission (or from the start of the wait), and expires after the limit
/// without one.
#[derive(Debug)]
struct Watchdog {
    limit: Duration,
    since: Instant,
}

impl Watchdog {
    fn new(limit: Duration, now: Instant) -> Watchdog {
        Watchdog { limit, since: now }
    }

    /// How long the next wait may block: what is left of the limit.
    fn left(&self, now: Instant) -> Duration {
        (self.limit).saturating_sub(now.saturating_duration_since(self.since))
    }

    /// After a wait that timed out at `now`, the device's last completion
    /// then: whether the device has gone the whole limit without completing
    /// anything (a later completion restarts the clock).
    fn expired(&mut self, last_completion: Option<Instant>, now: Instant) -> bool {
        if let Some(t) = last_completion.filter(|t| *t > self.since) {
            self.since = t;
        }
        self.left(now).is_zero()
    }
}

#[cfg(test)]
mod tests {
    use super::Watchdog;
    use std::time::{Duration, Instant};

    const LIMIT: Duration = Duration::from_secs(10);

    /// Waits as `Gpu::wait` does, each wait lasting what is left; a
    /// submission completes at each of `done` (offsets from the start).
    /// When the watchdog expires, and how many waits it took.
    fn expires(done: &[Duration]) -> (Duration, usize) {
        let t0 = Instant::now();
        let mut dog = Watchdog::new(LIMIT, t0);
        let (mut at, mut waits) = (Duration::ZERO, 0);
        loop {
            at += dog.left(t0 + at);
            waits += 1;
            let last = done.iter().filter(|d| **d <= at).max().map(|d| t0 + *d);
            if dog.expired(last, t0 + at) {
                return (at, waits);
            }
        }
    }

    /// Work queued ahead that keeps completing, a submission every 4 s for
    /// 100 s, does not time the wait out, though it waits ten limits: the
    /// device goes without completing anything only after the last.
    #[test]
    fn a_device_that_keeps_completing_work_does_not_time_out() {
        let every_4s: Vec<Duration> = (1..=25).map(|k| Duration::from_secs(4 * k)).collect();
        let (at, waits) = expires(&every_4s);
        assert_eq!(at, Duration::from_secs(100) + LIMIT);
        // Each wait but the last ends after at least 8 s of the 110.
        assert!(waits <= 14, "{waits} waits");
    }

    /// A device that completes nothing (a hung kernel) expires after the
    /// limit, counted from the last completion, in one wait or two.
    #[test]
    fn a_device_that_completes_nothing_expires_after_the_limit() {
        assert_eq!(expires(&[]), (LIMIT, 1));
        let once = [Duration::from_secs(7)];
        assert_eq!(expires(&once), (once[0] + LIMIT, 2));
    }

    #[test]
    fn a_wait_blocks_for_what_is_left_of_the_limit() {
        let t0 = Instant::now();
        let mut dog = Watchdog::new(Duration::from_millis(20), t0);
        assert_eq!(dog.left(t0), Duration::from_millis(20));
        let later = t0 + Duration::from_millis(15);
        assert_eq!(dog.left(later), Duration::from_millis(5));
        assert!(!dog.expired(Some(later), t0 + Duration::from_millis(20)));
        assert_eq!(
            dog.left(t0 + Duration::from_millis(20)),
            Duration::from_millis(15)
        );
        assert!(dog.expired(None, t0 + Duration::from_millis(35)));
    }
}
