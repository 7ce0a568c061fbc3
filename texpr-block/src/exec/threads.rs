//! Every rank in one process: one thread per rank, the local transport, the same executor as MPI.

use super::device::TileDevice;
use super::gather::{Gathered, finish_run, start_together};
use super::job::Job;
use super::outbox::RankError;
use super::rank::{RankOutcome, compile_bodies, run_rank};
use super::source::TileSource;
use super::transport::local::Hub;
use super::transport::{AckWait, Transport};
use std::time::{Duration, Instant};
use texpr_ir::Diagnostic;

/// What a whole run gives back.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// Every rank's stats and, when gathered, the result (from the source rank).
    pub gathered: Gathered,
    /// Every rank's outcome (its part of the result and its stats), by rank.
    pub ranks: Vec<RankOutcome>,
    /// The run's wall time on the source rank (after compiling).
    pub wall: Duration,
}

/// Makes the device of rank `r` (inside that rank's thread).
pub type DeviceMaker<'d> =
    dyn Fn(usize) -> Result<Box<dyn TileDevice + 'd>, Diagnostic> + Sync + 'd;

/// What one rank ends with; on the source rank, what it gathered.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    pub outcome: RankOutcome,
    pub gathered: Option<Gathered>,
    /// Wall time from the common start to the end of the run (the gathered
    /// result, on the source rank); compiling block bodies comes before.
    pub wall: Duration,
}

/// One rank from start to end: its block bodies compiled, every rank ready,
/// its tasks, then the end of the run.
pub fn run_and_finish(
    job: &Job<'_>,
    me: usize,
    dev: &mut dyn TileDevice,
    tr: &mut dyn Transport,
    source: &dyn TileSource,
) -> Result<Finished, RankError> {
    let (compile_ns, kernels) = compile_bodies(job, me, dev)?;
    dev.reserve_staging(job.staging.get(me).copied().unwrap_or(0))?;
    job.check_rank_budget(me, dev.scratch_bytes())?;
    start_together(job, me, dev, tr)?;
    let start = Instant::now();
    let mut outcome = run_rank(job, me, dev, tr, source)?;
    outcome.stats.compile_ns = compile_ns;
    outcome.stats.kernels = kernels;
    let gathered = finish_run(job, me, &outcome, dev, tr)?;
    Ok(Finished {
        outcome,
        gathered,
        wall: start.elapsed(),
    })
}

/// Runs every rank of `job` as a thread of this process.
pub fn run_threads(
    job: &Job<'_>,
    source: &dyn TileSource,
    make_device: &DeviceMaker<'_>,
) -> Result<RunOutcome, Diagnostic> {
    let hub = Hub::new(&job.comm, job.n_ranks());
    let results: Vec<Result<Finished, RankError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..job.n_ranks())
            .map(|me| {
                let hub = &hub;
                s.spawn(move || {
                    let mut tr = hub.transport(me);
                    let run = std::panic::AssertUnwindSafe(|| {
                        let mut dev = make_device(me)?;
                        run_and_finish(job, me, dev.as_mut(), &mut tr, source)
                    });
                    let result = std::panic::catch_unwind(run).unwrap_or_else(|_| Err(panicked()));
                    if let Err(RankError::Own(d)) = &result {
                        tr.report_failure(&report_text(d), ack_wait(d, job.watchdog));
                    }
                    result
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(panicked())))
            .collect()
    });
    collect(job, results)
}

fn panicked() -> RankError {
    RankError::Own(Diagnostic::error(
        crate::codes::KERNEL_RUN,
        "a rank's thread panicked",
    ))
}

/// The outcome, or the first rank's own failure (named).
fn collect(
    job: &Job<'_>,
    results: Vec<Result<Finished, RankError>>,
) -> Result<RunOutcome, Diagnostic> {
    let mut ranks = Vec::new();
    let mut gathered = None;
    let mut peer = None;
    let mut wall = Duration::ZERO;
    for (me, r) in results.into_iter().enumerate() {
        match r {
            Ok(f) => {
                ranks.push(f.outcome);
                if f.gathered.is_some() {
                    wall = f.wall;
                    gathered = f.gathered;
                }
            }
            Err(RankError::Own(d)) => return Err(on_rank(job, me, d)),
            Err(RankError::Peer { rank, text }) => peer = peer.or(Some((me, rank, text))),
        }
    }
    if let Some((me, rank, text)) = peer {
        return Err(stopped_by(job, me, rank, &text));
    }
    let gathered = gathered.expect("the source rank gathers");
    Ok(RunOutcome {
        gathered,
        ranks,
        wall,
    })
}

/// A rank's own failure, with the rank named in the message.
pub fn on_rank(job: &Job<'_>, me: usize, d: Diagnostic) -> Diagnostic {
    let at = job.position(me);
    let message = format!("rank {me} {at}: {}", d.message);
    Diagnostic { message, ..d }
}

/// Why rank `me` stopped: rank `failed` reported a failure.
pub fn stopped_by(job: &Job<'_>, me: usize, failed: usize, text: &str) -> Diagnostic {
    let at = job.position(failed);
    Diagnostic::error(
        crate::codes::RANK_FAILED,
        format!("rank {me} stopped: rank {failed} {at} failed: {text}"),
    )
}

/// How long a failing rank waits for the others to acknowledge its report
/// before it ends the job: until every other rank has, at most 10 s; when
/// it failed because some rank hangs (that rank never answers), until all
/// but one have, at most the `watchdog` (a live rank answers when its task
/// ends, which may take a while on a loaded machine).
pub fn ack_wait(d: &Diagnostic, watchdog: Duration) -> AckWait {
    if d.code == crate::codes::NO_PROGRESS {
        AckWait {
            limit: watchdog,
            silent: 1,
        }
    } else {
        AckWait {
            limit: Duration::from_secs(10),
            silent: 0,
        }
    }
}

/// A failure as the text other ranks receive: its code and message.
pub fn report_text(d: &Diagnostic) -> String {
    format!("[{}] {}", d.code, d.message)
}
