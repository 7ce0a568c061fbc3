//! `texprc block --run`: running a planned program over ranks, its report, and `--check`.
//!
//! [`run_in_process`] runs every rank as a thread of this process; under MPI
//! the command line runs one rank per process with the same executor and
//! uses [`report`] and [`check`] on the source rank.

use crate::cli::{BlockArgs, Device, Planned, emit_all, plan, tolerance};
use crate::codes;
use crate::exec::device::gpu::GpuDevice;
use crate::exec::device::interp::InterpDevice;
use crate::exec::device::{SchedulePicker, TileDevice, heuristic};
use crate::exec::threads::DeviceMaker;
use crate::exec::{
    Gathered, Job, Matrix, RandomSource, RunOutcome, TileSource, eval_dense, max_rel_diff,
    run_threads,
};
use std::fmt::Write as _;
use std::time::Duration;
use texpr::Target;
use texpr_codegen::runtime::Gpu;
use texpr_syntax::Diagnostic;

/// What runs a rank's block bodies.
#[derive(Clone, Copy)]
pub struct Backend<'a> {
    /// `None`: the interpreter.
    pub gpu: Option<&'a Gpu>,
    pub pick: &'a SchedulePicker,
}

impl std::fmt::Debug for Backend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Backend({})", self.describe())
    }
}

impl<'a> Backend<'a> {
    /// A rank's device.
    pub fn device(&self) -> Box<dyn TileDevice + 'a> {
        match self.gpu {
            Some(gpu) => Box::new(GpuDevice::new(gpu, self.pick)),
            None => Box::new(InterpDevice::new(self.pick)),
        }
    }

    /// The device's target, for compiling bodies: the opened GPU's, else
    /// the built-in portable one (`wgpu-default`).
    pub fn target(&self) -> Target {
        self.gpu.map(|g| g.target().clone()).unwrap_or_default()
    }

    /// What the device is.
    pub fn describe(&self) -> String {
        self.device().describe()
    }
}

/// The job of running `planned` as `args` asks.
pub fn job<'a>(args: &BlockArgs, planned: &'a Planned) -> Result<Job<'a>, Diagnostic> {
    let budget = args.budget.unwrap_or(u64::MAX);
    let mut job = Job::new(
        &planned.q,
        &planned.g,
        &planned.plan,
        planned.cfg,
        budget,
        args.gather,
    )?;
    job.watchdog = args.watchdog;
    job.check_budget()?;
    Ok(job)
}

/// Runs every rank in this process.
pub fn run_in_process(
    job: &Job<'_>,
    source: &dyn TileSource,
    backend: Backend<'_>,
) -> Result<RunOutcome, Diagnostic> {
    let make: &DeviceMaker<'_> = &|_| Ok(backend.device());
    run_threads(job, source, make)
}

/// The report of a run: per rank what it did and moved next to the plan,
/// then the run's wall time.
pub fn report(
    job: &Job<'_>,
    gathered: &Gathered,
    how: &str,
    device: &str,
    wall: Duration,
) -> String {
    let s = &gathered.stats;
    let (plan_sent, plan_received) = (&job.plan.sent, &job.plan.received);
    let shards: u64 = s.iter().map(|r| r.shards).sum();
    let copies: u64 = s.iter().map(|r| r.copies).sum();
    let kernels = s.iter().map(|r| r.kernels).max().unwrap_or(0);
    let (p, q) = (job.cfg.grid.rows(), job.cfg.grid.cols());
    let mut out = format!(
        "ran {shards} shards and {copies} copies on a {p}x{q} grid ({how}) with {kernels} distinct kernels per rank on {device}\n"
    );
    let _ = writeln!(
        out,
        "rank  shards  sent B (plan)  received B (plan)  wait ms  peak B (plan)"
    );
    for (r, st) in s.iter().enumerate() {
        let _ = writeln!(
            out,
            "r{r}  {}  {} ({})  {} ({})  {:.1}  {} ({})",
            st.shards,
            st.sent,
            plan_sent[r],
            st.received,
            plan_received[r],
            st.wait_ns as f64 / 1e6,
            st.peak,
            job.plan.peak[r],
        );
    }
    let scratch: Vec<u64> = s.iter().map(|r| r.scratch).collect();
    let _ = writeln!(
        out,
        "kernel scratch B per rank: {scratch:?} (with the peak, within the budget)"
    );
    let measured: (Vec<u64>, Vec<u64>) = s.iter().map(|r| (r.sent, r.received)).unzip();
    let agree = measured.0 == *plan_sent && measured.1 == *plan_received;
    let _ = writeln!(
        out,
        "bytes moved: {}",
        if agree {
            "as planned on every rank"
        } else {
            "DIFFER from the plan"
        }
    );
    let compile = s.iter().map(|r| r.compile_ns).max().unwrap_or(0) as f64 / 1e9;
    let _ = writeln!(
        out,
        "run: {:.3} s wall on the source rank, from the start all ranks agreed on to the gathered result (before it, compiling block bodies took up to {compile:.3} s)",
        wall.as_secs_f64()
    );
    out
}

/// Every input of `p` in full (for the dense reference).
pub fn full_inputs(
    p: &crate::air::Program,
    source: &dyn TileSource,
) -> Result<Vec<Matrix>, Diagnostic> {
    p.inputs()
        .into_iter()
        .enumerate()
        .map(|(k, r)| {
            let s = p.ty(r).shape;
            let (rows, cols) = (s.rows as usize, s.cols as usize);
            let data = source.block(k, 0..rows, 0..cols)?;
            Ok(Matrix { rows, cols, data })
        })
        .collect()
}

/// Compares with the dense reference of the unoptimised program.
pub fn check(
    p: &crate::air::Program,
    inputs: &[Matrix],
    got: &Matrix,
) -> Result<String, Diagnostic> {
    let want = eval_dense(p, inputs)?;
    let tol = tolerance(p);
    let diff = max_rel_diff(&want, got).unwrap_or(f32::INFINITY);
    if diff <= tol {
        return Ok(format!(
            "check: max relative difference {diff:.3e} (tolerance {tol:.3e}): ok\n"
        ));
    }
    Err(Diagnostic::error(
        codes::CHECK_FAILED,
        format!("the result differs from the dense reference by {diff:.3e} (tolerance {tol:.3e})"),
    ))
}

/// `texprc block` in one process on random inputs (seed `args.seed`) with
/// the heuristic schedule: the text to print.
pub fn run_cli(args: &BlockArgs) -> Result<String, Vec<Diagnostic>> {
    let one = |d: Diagnostic| vec![d];
    let planned = plan(args)?;
    let gpu = match args.device {
        Device::Gpu if args.run || args.emit.contains(&crate::cli::Emit::Texpr) => {
            Some(Gpu::open_from_env().map_err(|e| {
                one(Diagnostic::error(
                    codes::NO_GPU,
                    format!("no GPU adapter: {e}"),
                ))
            })?)
        }
        _ => None,
    };
    let backend = Backend {
        gpu: gpu.as_ref(),
        pick: &heuristic,
    };
    let mut out = emit_all(args, &planned, &backend.target(), backend.pick).map_err(one)?;
    if !args.run {
        return Ok(out);
    }
    let job = job(args, &planned).map_err(one)?;
    let source = RandomSource { seed: args.seed };
    let outcome = run_in_process(&job, &source, backend).map_err(one)?;
    let how = format!("{} ranks as threads", job.n_ranks());
    let text = report(
        &job,
        &outcome.gathered,
        &how,
        &backend.describe(),
        outcome.wall,
    );
    out.push_str(&text);
    if let (true, Some(got)) = (args.check, &outcome.gathered.result) {
        let inputs = full_inputs(&planned.p, &source).map_err(one)?;
        out.push_str(&check(&planned.p, &inputs, got).map_err(one)?);
    }
    Ok(out)
}
