//! How the ranks of a job end it together under the watchdog: the source
//! rank's work (its `--check`, the output files) beside a heartbeat, then a
//! barrier, each wait bounded.

use super::Mpi;
use crate::codes;
use mpi::request::{Request, Scope};
use mpi::traits::*;
use std::time::{Duration, Instant};
use texpr_ir::Diagnostic;

/// How long a waiting rank sleeps between tests of its request.
const NAP: Duration = Duration::from_millis(2);

impl Mpi {
    /// The end of a run on every rank, none of them waiting forever for a
    /// rank that stopped: `work` (the source rank's `--check`, anyone's
    /// output files) runs on a thread while the source rank broadcasts, at
    /// least every quarter of `watchdog`, whether its own work still runs;
    /// then every rank meets in a barrier. A rank that waits longer than
    /// `watchdog` for either (the source rank or another rank stopped)
    /// gives `report` an E0564 and ends the job (`MPI_Abort`). Returns what
    /// `work` gave.
    pub fn end_together<R: Send>(
        &self,
        source: usize,
        watchdog: Duration,
        work: impl FnOnce() -> R + Send,
        report: impl Fn(Diagnostic),
    ) -> R {
        let me = self.rank();
        let hang = |what: &str| -> ! {
            report(Diagnostic::error(
                codes::NO_PROGRESS,
                format!(
                    "rank {me}: no progress for {:.1} s waiting for {what} at the end of the job: some rank hangs",
                    watchdog.as_secs_f64()
                ),
            ));
            self.abort(1)
        };
        let period = (watchdog / 4).max(Duration::from_millis(10));
        let root = self.world.process_at_rank(source as i32);
        std::thread::scope(|s| {
            let job = s.spawn(work);
            loop {
                // The source rank's word: 1 while its work runs, 0 once it is done.
                let since = Instant::now();
                while me == source && !job.is_finished() && since.elapsed() < period {
                    std::thread::sleep(NAP);
                }
                let mut word = [u32::from(me == source && !job.is_finished())];
                mpi::request::scope(|scope| {
                    let req = root.immediate_broadcast_into(scope, &mut word[..]);
                    wait_within(req, watchdog, || hang("the source rank's word"));
                });
                if word[0] == 0 {
                    break;
                }
            }
            let out = job.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            wait_within(self.world.immediate_barrier(), watchdog, || {
                hang("every rank")
            });
            out
        })
    }
}

/// Tests `req` every [`NAP`] until it completes; `hang` when that takes
/// longer than `limit`.
fn wait_within<'a, D: ?Sized, S: Scope<'a>>(
    mut req: Request<'a, D, S>,
    limit: Duration,
    hang: impl FnOnce(),
) {
    let start = Instant::now();
    while let Err(r) = req.test() {
        req = r;
        if start.elapsed() > limit {
            hang();
            return;
        }
        std::thread::sleep(NAP);
    }
}
