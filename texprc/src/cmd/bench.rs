//! `texprc bench FILE... | --suite`: compile time (parse to validated WGSL) and
//! GPU time of programs for three schedules: `default`, `heuristic`, and
//! `tuned` (the schedule cache's entry for the program on this device, if
//! `texprc tune` made one), with the work they do (GFLOP/s), the data they
//! must move (GB/s) and their share of the device's roofline.
//!
//! The measuring is `texpr_tune::bench`'s (the suite, the timing of a
//! program's rows, the roofline); this command reads the files, prints the
//! table (`gpu ms` is the GPU's own timestamps where the device has
//! timestamp queries, `wall ms` dispatch plus wait; rates use the first
//! where there is one) and writes the chart. A schedule that fails to
//! compile or run prints its error in its row; the rest of the suite goes
//! on. `--scale gpu` gives the suite (and the roofline probes) sizes for a
//! data-centre GPU ([`texpr_tune::bench::GPU`]).

mod args;

pub use args::Args;

use crate::cmd::run::open_gpu;
use crate::common::{Defines, Failure, Source, frontend, read_schedule, read_source};
use crate::plot::{self, Bar, Group, Limits};
use std::time::Duration;
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_runtime::Gpu;
use texpr_tune::bench::{
    self, Job, JobSource, Outcome, Pinned, Roofline, Row, Runs, Series, Work, seconds,
};

/// The programs to measure: the files given, or the suite.
fn jobs(args: &Args) -> Vec<Job> {
    if !args.suite {
        return args
            .files
            .iter()
            .map(|f| Job::of_file(f, &args.defines.defines))
            .collect();
    }
    bench::suite_jobs(args.scale.into(), &args.only)
}

/// The job's source (a file read, or the text the suite makes) and its
/// checked program.
fn load(job: &Job) -> Result<(Source, Program), Failure> {
    let src = match job.source() {
        JobSource::File(file) => read_source(&file)?,
        JobSource::Text { name, text } => Source { name, text },
    };
    let defs = Defines {
        defines: job.defines.clone(),
    };
    let program = frontend(&src, &defs)?;
    Ok((src, program))
}

/// Each `--schedule FILE`: its name (the file's stem) and the schedule, or
/// why it cannot be read.
fn pinned(args: &Args) -> Vec<Pinned> {
    (args.schedule.iter())
        .map(|path| {
            let name = path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            );
            (name, read_schedule(path).map_err(|f| format!("{f:?}")))
        })
        .collect()
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
    let pinned = pinned(&args);
    let timing = Runs {
        warmups: args.warmups,
        runs: args.runs,
    };
    for job in jobs {
        let (src, program) = load(&job)?;
        if gpu.is_lost() {
            gpu = gpu
                .reopen()
                .map_err(|e| Failure::about(&none, crate::cmd::run::runtime_diag(&e)))?;
        }
        let work = Work::of(&program, roofline);
        let size = job.size();
        let mut bars = Vec::new();
        let cache = crate::common::schedule_cache();
        for row in bench::measure(&gpu, &job, &src.text, &program, &pinned, &cache, timing) {
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
    match bench::roofline::measure(gpu, args.scale.into(), args.warmups, args.runs.max(1)) {
        Ok(r) => {
            outln!("{}", r.describe());
            Some(r)
        }
        Err(e) => {
            outln!("roofline: not measured: {}", bench::runtime_text(&e));
            None
        }
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
                .share(secs)
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
