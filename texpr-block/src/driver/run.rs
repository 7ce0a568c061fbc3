//! Running a planned block program over ranks, its report, and `--check`.
//!
//! [`run_in_process`] runs every rank as a thread of this process; under MPI
//! the command line runs one rank per process with the same executor and
//! uses [`report`] and [`check`] on the source rank.

use super::{BlockOptions, Device, Planned, emit_all, plan};
use crate::codes;
use crate::exec::device::gpu::GpuDevice;
use crate::exec::device::interp::InterpDevice;
use crate::exec::device::{SchedulePicker, TileDevice, heuristic};
use crate::exec::threads::DeviceMaker;
use crate::exec::{Gathered, Job, Matrix, RandomSource, RunOutcome, TileSource, run_threads};
use std::fmt::Write as _;
use std::time::Duration;
use texpr::Target;
use texpr_ir::Diagnostic;
use texpr_runtime::Gpu;

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
pub fn job<'a>(args: &BlockOptions, planned: &'a Planned) -> Result<Job<'a>, Diagnostic> {
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
    if args.check {
        job = job.record_partials()?;
    }
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
        "rank  shards  sent B (plan)  received B (plan)  compute ms  wait ms  comm ms  peak B (plan)"
    );
    let ms = |ns: u64| ns as f64 / 1e6;
    for (r, st) in s.iter().enumerate() {
        let _ = writeln!(
            out,
            "r{r}  {}  {} ({})  {} ({})  {:.1}  {:.1}  {:.1}  {} ({})",
            st.shards,
            st.sent,
            plan_sent[r],
            st.received,
            plan_received[r],
            ms(st.compute_ns),
            ms(st.wait_ns),
            ms(st.comm_ns),
            st.peak,
            job.plan.peak[r],
        );
    }
    let mem = crate::graph::memory::Memory::new(job.g, &job.tasks, job.n_ranks());
    let held: Vec<(Vec<_>, usize)> = (0..s.len()).map(|r| mem.holdings(r)).collect();
    let _ = writeln!(
        out,
        "matrices held per rank, one device buffer each (tiles in {} B slots): {:?} (plan {:?}); device buffers with panels and partials: {:?} (plan {:?})",
        crate::graph::slots::SLOT_ALIGN_BYTES,
        s.iter().map(|r| r.matrices).collect::<Vec<_>>(),
        held.iter().map(|(m, _)| m.len() as u64).collect::<Vec<_>>(),
        s.iter().map(|r| r.buffers).collect::<Vec<_>>(),
        held.iter()
            .map(|(m, own)| (m.len() + own) as u64)
            .collect::<Vec<_>>(),
    );
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

/// Compares with the interpreter's dense reference of the unoptimised
/// program, each element within its own error bound
/// ([`crate::exec::reference`]); says how many elements it compared and the
/// largest tolerance relative to its element's value. A mismatch fails
/// (E0544), and so does an element left uncompared (E0548: unspecified, or
/// without a finite bound) unless `allow_unchecked`.
pub fn check(
    p: &crate::air::Program,
    inputs: &[Matrix],
    got: &Matrix,
    allow_unchecked: bool,
) -> Result<String, Diagnostic> {
    if crate::exec::residual::returned_factor(p).is_some() {
        return check_factor(p, inputs, got, allow_unchecked);
    }
    let want = crate::exec::reference::dense_reference(p, inputs)?;
    let checked = texpr_interp::accuracy::compare(
        &p.name,
        &texpr_interp::Value::f32(got.data.clone()),
        &want,
    );
    let c = checked.map_err(|m| {
        Diagnostic::error(
            codes::CHECK_FAILED,
            format!("the result differs from the interpreter's dense reference: {m}"),
        )
        .with_primary(p.ret_span, "this result")
    })?;
    // The largest tolerance (among the elements compared), and relative to
    // the largest element.
    let values = want.value.as_f32().unwrap_or(&[]);
    let largest = values.iter().fold(0.0f64, |m, v| m.max(f64::from(v.abs())));
    let tol = want
        .bounds
        .iter()
        .filter(|b| b.specified)
        .filter_map(|b| texpr_interp::accuracy::tolerance(*b, true))
        .fold(0.0f64, f64::max);
    let relative = tol / largest.max(1e-30);
    let total = c.total();
    let out = format!(
        "check: {} of {total} elements compared, each within its own error bound (largest difference {:.3e}, largest tolerance {tol:.3e}, {relative:.3e} of the largest element)",
        c.compared, c.largest_diff
    );
    let skipped = (!c.all_compared()).then(|| {
        format!(
            "{} unspecified (an infinity or NaN arose), {} without a finite bound",
            c.unspecified, c.unbounded
        )
    });
    verdict(out, (c.compared, total), skipped, allow_unchecked)
}

/// `--check` of a run: every partial of a sum the ranks recorded
/// ([`crate::exec::partials`]), each held to its tile's tolerance given the
/// partial it was made from (a partial not gathered, or not compared, is
/// E0548 unless `allow_unchecked`), and its result ([`check`]).
pub fn check_run(
    planned: &Planned,
    inputs: &[Matrix],
    gathered: &Gathered,
    allow_unchecked: bool,
) -> Result<String, Diagnostic> {
    let whole = |out: &mut String| -> Result<(), Diagnostic> {
        if let Some(got) = &gathered.result {
            out.push_str(&check(&planned.p, inputs, got, allow_unchecked)?);
        }
        Ok(())
    };
    let mut out = String::new();
    let (q, p) = (&planned.q, &planned.p);
    let recorded = crate::exec::partials::recorded(&planned.g, q, planned.cfg.n_ranks());
    if recorded.iter().all(Vec::is_empty) {
        whole(&mut out)?;
        return Ok(out);
    }
    let given = crate::exec::partials::inputs_of(q, p, inputs).ok_or_else(|| {
        Diagnostic::error(
            codes::KERNEL_RUN,
            "the planned program's inputs are not the program's (a bug of this layer)",
        )
    })?;
    let parts = crate::exec::reference::dense_parts(q, &given)?;
    // The partials first: a lost tile is named there.
    let c = crate::exec::partials::check(q, &planned.g, &parts, &gathered.partials)?;
    let partials = verdict(c.text, (c.compared, c.total), c.skipped, allow_unchecked)?;
    whole(&mut out)?;
    out.push_str(&partials);
    Ok(out)
}

/// A check's last word: `out` and ok when every element was compared
/// (`skipped` none), or when `allow_unchecked`; else E0548 saying what was
/// `skipped` of the `(compared, total)`.
fn verdict(
    mut out: String,
    (compared, total): (usize, usize),
    skipped: Option<String>,
    allow_unchecked: bool,
) -> Result<String, Diagnostic> {
    let Some(skipped) = skipped else {
        out.push_str(": ok\n");
        return Ok(out);
    };
    if allow_unchecked {
        out.push_str(&format!(": ok (--allow-unchecked; {skipped})\n"));
        return Ok(out);
    }
    Err(Diagnostic::error(
        codes::CHECK_INCOMPLETE,
        format!(
            "the check compared {compared} of {total} elements ({skipped}): it cannot vouch for the rest"
        ),
    )
    .with_note("pass --allow-unchecked to accept a check that compares fewer than all elements"))
}

/// `--check` of a returned `cholesky`: its residual against Cholesky's
/// backward-error bound ([`crate::exec::residual`]); forward bounds stop
/// vouching for factors of order 64 or so.
fn check_factor(
    p: &crate::air::Program,
    inputs: &[Matrix],
    got: &Matrix,
    allow_unchecked: bool,
) -> Result<String, Diagnostic> {
    let r = crate::exec::residual::check_factor(p, inputs, got)?;
    let total = got.data.len();
    let out = format!(
        "check: {} of {total} elements compared, each residual of A - L L^T within Cholesky's backward-error bound (gamma_(n+{}) |L| |L|^T plus the operand's tolerance; the largest {:.3e} of its bound; L zero above its diagonal)",
        r.compared,
        1 + crate::exec::residual::SLACK,
        r.worst
    );
    let skipped = (r.unchecked > 0).then(|| {
        format!(
            "{} with a non-finite value or an operand element without a finite bound",
            r.unchecked
        )
    });
    verdict(out, (r.compared, total), skipped, allow_unchecked)
}

/// `texprc block` in one process on random inputs (seed `args.seed`) with
/// the heuristic schedule: the text to print.
pub fn run_cli(args: &BlockOptions) -> Result<String, Vec<Diagnostic>> {
    let one = |d: Diagnostic| vec![d];
    let planned = plan(args)?;
    let gpu = match args.device {
        Device::Gpu if args.run || args.emit.contains(&crate::driver::Emit::Texpr) => {
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
    if args.check {
        let inputs = full_inputs(&planned.p, &source).map_err(one)?;
        let checked = check_run(&planned, &inputs, &outcome.gathered, args.allow_unchecked);
        out.push_str(&checked.map_err(one)?);
    }
    Ok(out)
}
