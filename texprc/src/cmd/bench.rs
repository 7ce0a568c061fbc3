//! `texprc bench FILE... | --suite`: compile time (parse to validated WGSL) and
//! GPU time of programs for three schedules: `default`, `heuristic`, and
//! `tuned` (the schedule cache's entry for the program on this device, if
//! `texprc tune` made one), with the work they do (GFLOP/s), the data they
//! must move (GB/s) and their share of the device's roofline.
//!
//! Every time comes from the runtime's timing harness (`Gpu::prepare`,
//! `Gpu::time`): pipelines made and inputs uploaded first, then warm-ups,
//! then the median of the runs; the rows of one program are timed together,
//! their runs interleaved. `gpu ms` is the GPU's own timestamps where the
//! device has timestamp queries, `wall ms` dispatch plus wait; rates use the
//! first where there is one. The roofline ([`roofline`]: copy bandwidth and
//! FMA throughput) is measured in the same run, first.
//!
//! With `--suite`, the hand-written WGSL baselines of `shaders/baselines/` run
//! beside the programs they compute (matmul, sum, axpb) through the same
//! harness ([`texpr_runtime::raw`]): the same inputs, warm-ups, runs,
//! median and timing, and rates from the same work and traffic counts. A
//! schedule that fails to compile or run prints its error in its row; the rest
//! of the suite goes on. `--scale gpu` gives the suite (and the roofline
//! probes) sizes for a data-centre GPU ([`suite::GPU`]).

mod args;
mod roofline;
mod rows;
mod suite;
mod unrolled;

pub use args::Args;

use crate::cmd::run::open_gpu;
use crate::common::{Failure, Source};
use crate::plot::{self, Bar, Group, Limits, Series};
use roofline::Roofline;
use rows::{Outcome, Row};
use std::time::Duration;
use texpr_runtime::Gpu;
use texpr_syntax::Diagnostic;

/// The programs to measure: the files given, or the suite.
fn jobs(args: &Args) -> Vec<suite::Job> {
    if !args.suite {
        return args
            .files
            .iter()
            .map(|f| suite::Job::of_file(f, &args.defines.defines))
            .collect();
    }
    suite::suite_jobs(args.scale, &args.only)
}

pub fn run(args: Args) -> Result<(), Failure> {
    let jobs = jobs(&args);
    let none = Source {
        name: "<bench>".into(),
        text: String::new(),
    };
    let mut gpu = open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&none, d))?;
    let runs = args.runs.max(1);
    let device = format!("{} ({})", gpu.info().name, gpu.info().backend);
    let roofline = header(&gpu, &device, &args);
    outln!(
        "{:<16} {:>26} {:<14} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}",
        "program",
        "size",
        "schedule",
        "compile ms",
        "gpu ms",
        "wall ms",
        "GFLOP/s",
        "GB/s",
        "roofline"
    );
    let mut groups = Vec::new();
    for job in jobs {
        let (src, program) = suite::load(&job)?;
        if gpu.is_lost() {
            gpu = gpu
                .reopen()
                .map_err(|e| Failure::about(&none, crate::cmd::run::runtime_diag(&e)))?;
        }
        let work = Work {
            flops: texpr_opt::cost::flops(&program) as f64,
            bytes: texpr_opt::cost::min_bytes(&program) as f64,
            roofline,
        };
        let size = job.size();
        let mut bars = Vec::new();
        for row in rows::measure(&gpu, &job, &src, &program, &args) {
            outln!("{}", format_row(&job.name, &size, &row, &work));
            bars.push(bar(&job.name, &row, &work));
        }
        groups.push(Group {
            name: job.name.clone(),
            bars,
        });
    }
    if let Some(path) = &args.svg {
        let title = format!("texprc bench on {device}: median of {runs} runs");
        let limits = roofline.map(|r| Limits {
            gflops: r.fma_gflops,
            gbs: r.copy_gbs,
        });
        plot::write_svg(path, &title, &groups, limits).map_err(|e| {
            Failure::about(
                &none,
                Diagnostic::error(
                    crate::codes::WRITE_OUTPUT,
                    format!("cannot write the chart: {e}"),
                ),
            )
        })?;
        outln!("chart: {}", path.display());
    }
    Ok(())
}

/// The lines above the table: the device and the harness, what the times
/// are, and the roofline (measured now).
fn header(gpu: &Gpu, device: &str, args: &Args) -> Option<Roofline> {
    outln!(
        "device: {device}, {} warm-ups, median of {} runs, a program's rows interleaved",
        args.warmups.max(1),
        args.runs.max(1)
    );
    match gpu.has_timestamps() {
        true => {
            outln!("gpu ms: the GPU's timestamps; wall ms: dispatch + wait; rates from gpu ms")
        }
        false => {
            outln!("gpu ms: - (no timestamp queries); wall ms: dispatch + wait; rates from wall ms")
        }
    }
    match roofline::measure(gpu, args.scale, args.warmups, args.runs.max(1)) {
        Ok(r) => {
            outln!("{}", r.describe());
            Some(r)
        }
        Err(e) => {
            outln!("roofline: not measured: {}", rows::runtime_text(&e));
            None
        }
    }
}

/// What one program does, and the device's limits, for its rates.
struct Work {
    flops: f64,
    bytes: f64,
    roofline: Option<Roofline>,
}

/// The figure rates are computed from: the GPU's own, else the wall clock.
fn seconds(outcome: &Outcome) -> Option<f64> {
    match outcome {
        Outcome::Measured { timing, .. } => Some(timing.primary().as_secs_f64()),
        _ => None,
    }
}

fn bar(name: &str, row: &Row, work: &Work) -> Bar {
    let rate = |per: f64| {
        seconds(&row.outcome)
            .filter(|_| per > 0.0)
            .map(|secs| per / secs / 1e9)
    };
    let note = (row.series == Series::Baseline).then(|| {
        let prefix = format!("{name}_");
        row.label
            .strip_prefix(&prefix)
            .unwrap_or(&row.label)
            .to_string()
    });
    let missing = match row.outcome {
        Outcome::Measured { .. } => None,
        Outcome::NotTuned => Some("not tuned".to_string()),
        Outcome::Failed(_) => Some("error".to_string()),
    };
    Bar {
        series: row.series,
        note,
        missing,
        gflops: rate(work.flops),
        gbs: rate(work.bytes),
    }
}

fn format_row(name: &str, size: &str, row: &Row, work: &Work) -> String {
    let head = format!("{name:<16} {size:>26} {:<14}", row.label);
    let ms = |d: Duration| format!("{:.3}", d.as_secs_f64() * 1e3);
    match &row.outcome {
        Outcome::Measured { compile, timing } => {
            let secs = timing.primary().as_secs_f64();
            let compile = match compile {
                Some(c) => format!("{:.2}", c.as_secs_f64() * 1e3),
                None => "-".into(),
            };
            let gpu = timing.gpu().map_or_else(|| "-".into(), ms);
            let share = work
                .roofline
                .and_then(|r| r.share(work.flops, work.bytes, secs))
                .map_or_else(|| "-".into(), |s| format!("{:.0}% {}", s.percent, s.limit));
            format!(
                "{head} {compile:>10} {gpu:>10} {:>10} {:>10.3} {:>10.3} {share:>9}",
                ms(timing.wall()),
                work.flops / secs / 1e9,
                work.bytes / secs / 1e9
            )
        }
        Outcome::NotTuned => format!("{head} {:>10}", "not tuned"),
        Outcome::Failed(text) => format!("{head} error: {text}"),
    }
}
