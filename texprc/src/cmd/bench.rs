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
//! harness ([`texpr_codegen::runtime::raw`]): the same inputs, warm-ups, runs,
//! median and timing, and rates from the same work and traffic counts. A
//! schedule that fails to compile or run prints its error in its row; the rest
//! of the suite goes on. `--scale gpu` gives the suite (and the roofline
//! probes) sizes for a data-centre GPU ([`suite::GPU`]).

mod roofline;
mod rows;
mod suite;

use crate::cmd::run::open_gpu;
use crate::common::{Defines, Failure, Source};
use crate::plot::{self, Bar, Group, Limits, Series};
use roofline::Roofline;
use rows::{Outcome, Row};
use std::path::PathBuf;
use std::time::Duration;
use suite::Scale;
use texpr_codegen::runtime::Gpu;
use texpr_syntax::Diagnostic;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Programs to measure (.te files)
    #[arg(required_unless_present = "suite")]
    pub files: Vec<PathBuf>,
    /// Measure every example in examples/ at a realistic size, and the hand-written baselines
    #[arg(long, conflicts_with = "files")]
    pub suite: bool,
    /// With --suite: only these programs (comma-separated names, e.g. `matmul,sum`)
    #[arg(
        long,
        requires = "suite",
        value_delimiter = ',',
        value_name = "NAMES",
        value_parser = clap::builder::PossibleValuesParser::new(suite::CPU.iter().map(|(n, _)| *n))
    )]
    pub only: Vec<String>,
    /// Sizes of the suite and of the roofline probes: for lavapipe (`cpu`) or a data-centre GPU
    #[arg(long, value_enum, default_value_t = Scale::Cpu)]
    pub scale: Scale,
    /// Timed runs per program (the median is reported)
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Untimed runs before timing
    #[arg(long, default_value_t = 2)]
    pub warmups: usize,
    /// Adapter: an index or part of its name (default: $TEXPR_ADAPTER, else wgpu's choice)
    #[arg(long, value_name = "ADAPTER")]
    pub adapter: Option<String>,
    /// Also write the rates as an SVG bar chart to FILE
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also measure the schedule in FILE (a `pinned` row; repeatable)
    #[arg(long, value_name = "FILE")]
    pub schedule: Vec<PathBuf>,
    #[command(flatten)]
    pub defines: Defines,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let jobs = suite::jobs(&args);
    let none = Source {
        name: "<bench>".into(),
        text: String::new(),
    };
    let mut gpu = open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&none, d))?;
    let runs = args.runs.max(1);
    let device = format!("{} ({})", gpu.info().name, gpu.info().backend);
    let roofline = header(&gpu, &device, &args);
    println!(
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
            println!("{}", format_row(&job.name, &size, &row, &work));
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
        println!("chart: {}", path.display());
    }
    Ok(())
}

/// The lines above the table: the device and the harness, what the times
/// are, and the roofline (measured now).
fn header(gpu: &Gpu, device: &str, args: &Args) -> Option<Roofline> {
    println!(
        "device: {device}, {} warm-ups, median of {} runs, a program's rows interleaved",
        args.warmups.max(1),
        args.runs.max(1)
    );
    match gpu.has_timestamps() {
        true => {
            println!("gpu ms: the GPU's timestamps; wall ms: dispatch + wait; rates from gpu ms")
        }
        false => println!(
            "gpu ms: - (no timestamp queries); wall ms: dispatch + wait; rates from wall ms"
        ),
    }
    match roofline::measure(gpu, args.scale, args.warmups, args.runs.max(1)) {
        Ok(r) => {
            println!("{}", r.describe());
            Some(r)
        }
        Err(e) => {
            println!("roofline: not measured: {}", rows::runtime_text(&e));
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
