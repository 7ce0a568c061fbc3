//! `texprc block --run` under `mpirun`: this process is one rank (feature `mpi`).
//!
//! Every process plans the same program; errors found before the run (in
//! the program or the arguments) are the same on every rank and printed once
//! (by rank 0). Everything that touches files or devices happens inside the
//! MPI transport, so that it can fail on one rank alone. When this rank fails it prints its error
//! (naming itself), tells every other rank and, once they have acknowledged
//! (or after a few seconds), aborts the job; when another rank's report
//! arrives this rank prints why it stops (naming the failing rank),
//! acknowledges and waits for the abort. A signal (mpirun ends the other
//! ranks with SIGTERM when one dies) prints a coded error and exits.

use super::{Args, failure, open_gpu, picker, write_outputs};
use crate::block_io::BlockInputs;
use crate::common::{Failure, Source, color};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use texpr_block::codes;
use texpr_block::driver::run::{Backend, check_run, full_inputs, job, report};
use texpr_block::driver::{BlockOptions, emit_all, plan};
use texpr_block::exec::threads::{
    Finished, ack_wait, on_rank, report_text, run_and_finish, stopped_by,
};
use texpr_block::exec::transport::mpi::Mpi;
use texpr_block::exec::{Gathered, Job, RankError};
use texpr_ir::Diagnostic;
use texpr_ir::diag::render_with;

/// Set once this rank has printed why it stops, so a later signal stays quiet.
static REPORTED: AtomicBool = AtomicBool::new(false);

pub fn run(args: &Args, b: &BlockOptions, src: &Source) -> Result<(), Failure> {
    let mpi = Mpi::init().map_err(|d| Failure::about(src, d))?;
    let me = mpi.rank();
    let mpi = Ending {
        mpi: Some(mpi),
        me,
        watchdog: b.watchdog,
    };
    // Errors before the run are the same on every rank: rank 0 prints them,
    // and no rank exits before it has (mpirun ends the job when the first
    // process exits non-zero).
    let once = |f: Failure| {
        if me == 0 {
            let _ = f.report();
        }
        mpi.barrier();
        Failure {
            usage: f.usage,
            ..Failure::new(src, Vec::new())
        }
    };
    if !b.run {
        let d = Diagnostic::error(
            codes::MPI_WITHOUT_RUN,
            "started by an MPI launcher without --run: only a run needs several processes",
        )
        .with_note("add --run, or print the plan without mpirun");
        return Err(once(failure(src, vec![d])));
    }
    let (p, q) = b.grid;
    if mpi.size() != p * q {
        let d = Diagnostic::error(
            codes::RANK_COUNT,
            format!(
                "the MPI job has {} processes, but the grid {p}x{q} has {} ranks",
                mpi.size(),
                p * q
            ),
        )
        .with_note(format!("run it with mpirun -np {}", p * q));
        return Err(once(Failure::about(src, d)));
    }
    let planned = plan(b).map_err(|d| once(failure(src, d)))?;
    let job = job(b, &planned).map_err(|d| once(Failure::about(src, d)))?;
    watch_signals(me);
    let (finished, device, emitted) = mpi.with_transport(&job.comm, job.cfg.grid, |tr| {
        match run_rank(args, b, &planned, &job, me, tr) {
            Ok(done) => done,
            Err(RankError::Own(d)) => {
                print_error(src, &on_rank(&job, me, d.clone()));
                tr.report_failure(&report_text(&d), ack_wait(&d, job.watchdog));
                mpi.abort(1)
            }
            Err(RankError::Peer { rank, text }) => {
                print_error(src, &stopped_by(&job, me, rank, &text));
                tr.acknowledge(rank);
                wait_for_the_end()
            }
        }
    });
    let (
        Finished {
            outcome,
            gathered,
            wall,
        },
        inputs,
    ) = finished;
    let fail = |d| Failure::about(src, d);
    // Every rank ends together (the source rank's report and check on the
    // way), none waiting forever for a rank that stops after the result.
    let ended = mpi.end_together(
        job.source(),
        b.watchdog,
        || -> Result<(), Diagnostic> {
            write_outputs(
                args,
                &planned,
                gathered.as_ref().and_then(|g| g.result.as_ref()),
                &[&outcome.part],
            )?;
            let Some(gathered) = &gathered else {
                return Ok(());
            };
            let how = format!("{} MPI processes", job.n_ranks());
            out!("{emitted}{}", report(&job, gathered, &how, &device, wall));
            finish_check(b, &planned, &inputs, gathered)
        },
        |d| print_error(src, &d),
    );
    ended.map_err(fail)
}

/// This rank's run on its device; the emitted text (source rank only) and
/// the device's name too. Input files are opened here, by each rank, so that
/// a file one rank cannot read stops every rank.
fn run_rank(
    args: &Args,
    b: &BlockOptions,
    planned: &texpr_block::driver::Planned,
    job: &Job<'_>,
    me: usize,
    tr: &mut dyn texpr_block::exec::transport::Transport,
) -> Result<((Finished, BlockInputs), String, String), RankError> {
    let inputs = BlockInputs::open(&planned.p, &args.inputs, args.random)?;
    let gpu = open_gpu(b)?;
    let pick = picker(gpu.as_ref());
    let backend = Backend {
        gpu: gpu.as_ref(),
        pick: &pick,
    };
    let emitted = if me == job.source() {
        emit_all(b, planned, &backend.target(), &pick)?
    } else {
        String::new()
    };
    let mut dev = backend.device();
    let device = dev.describe();
    let finished = run_and_finish(job, me, dev.as_mut(), tr, &inputs)?;
    Ok(((finished, inputs), device, emitted))
}

fn finish_check(
    b: &BlockOptions,
    planned: &texpr_block::driver::Planned,
    inputs: &BlockInputs,
    gathered: &Gathered,
) -> Result<(), Diagnostic> {
    if b.check {
        let full = full_inputs(&planned.p, inputs)?;
        out!(
            "{}",
            check_run(planned, &full, gathered, b.allow_unchecked)?
        );
    }
    Ok(())
}

/// Prints a diagnostic to stderr in one write, so ranks' lines do not mix.
fn print_error(src: &Source, d: &Diagnostic) {
    REPORTED.store(true, Ordering::SeqCst);
    let text = render_with(&src.name, &src.text, std::slice::from_ref(d), color());
    use std::io::Write as _;
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// The MPI library of this rank, finalised when dropped, under the
/// watchdog: Open MPI's `MPI_Finalize` waits for every rank of the job, so
/// a rank that stops after the last barrier and before it finalises would
/// keep the others, and `mpirun`, waiting forever. A rank whose
/// finalisation takes longer than the watchdog prints E0564 and exits
/// without it; `mpirun` then ends every rank of the job, the stopped one too.
struct Ending {
    mpi: Option<Mpi>,
    me: usize,
    watchdog: Duration,
}

impl std::ops::Deref for Ending {
    type Target = Mpi;
    fn deref(&self) -> &Mpi {
        self.mpi
            .as_ref()
            .expect("MPI is finalised only when dropped")
    }
}

impl Drop for Ending {
    fn drop(&mut self) {
        let Some(mpi) = self.mpi.take() else { return };
        let (me, watchdog) = (self.me, self.watchdog);
        let ended = std::sync::Arc::new(AtomicBool::new(false));
        let seen = ended.clone();
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while start.elapsed() < watchdog {
                if seen.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            if seen.load(Ordering::SeqCst) {
                return;
            }
            if !REPORTED.swap(true, Ordering::SeqCst) {
                let d = Diagnostic::error(
                    codes::NO_PROGRESS,
                    format!(
                        "rank {me}: no progress for {:.1} s waiting for every rank to finalise MPI: some rank hangs",
                        watchdog.as_secs_f64()
                    ),
                );
                let text = render_with("", "", &[d], color());
                use std::io::Write as _;
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
            std::process::exit(1);
        });
        drop(mpi);
        ended.store(true, Ordering::SeqCst);
    }
}

/// After another rank's failure: the failing rank aborts the job soon; exit if it does not.
fn wait_for_the_end() -> ! {
    std::thread::sleep(Duration::from_secs(20));
    std::process::exit(1)
}

/// On SIGTERM, SIGINT or SIGHUP: print a coded error (unless one was printed) and exit.
fn watch_signals(me: usize) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            if !REPORTED.swap(true, Ordering::SeqCst) {
                let d = Diagnostic::error(
                    codes::STOPPED,
                    format!(
                        "rank {me} was stopped by signal {sig}: another rank of the job died, or the job was interrupted"
                    ),
                );
                let text = render_with("", "", &[d], false);
                use std::io::Write as _;
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
            std::process::exit(1);
        }
    });
}
