//! `texprc bench FILE... | --suite`: compile time (parse to validated WGSL) and
//! GPU time of programs, as medians over several runs after warm-ups, with
//! the work they do (GFLOP/s) and the data they must move (GB/s), for three
//! schedules: `default`, `heuristic`, and `tuned` (the schedule cache's entry
//! for the program on this device, if `texprc tune` made one).
//!
//! With `--suite`, the hand-written WGSL baselines of `shaders/baselines/` run
//! beside the programs they compute (matmul, sum, axpb) through the same
//! harness ([`texpr_codegen::runtime::raw`]): the same inputs, warm-ups, runs,
//! median and timing, and rates from the same work and traffic counts. A
//! schedule that fails to compile or run prints its error in its row; the rest
//! of the suite goes on.

use crate::cmd::run::open_gpu;
use crate::common::{Defines, Failure, Source, frontend, read_source};
use crate::inputs::to_host;
use crate::plot::{self, Bar, Group, Series};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use texpr_codegen::runtime::raw::{RawProgram, baselines};
use texpr_codegen::runtime::{Gpu, HostBuffer, RuntimeError};
use texpr_codegen::{Options, Schedule, ScheduleChoice};
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;

/// `y = 2x + 1`: the program the `axpb_vec4` baseline computes, benched with it.
const AXPB: &str = "// axpb: y = 2x + 1 (the axpb_vec4 baseline's program)
param N = 1048576
input x: f32[N]
output y: f32[N] = compute N |i| x[i] * 2.0 + 1.0
";

/// The suite: every example at a realistic size (name, `-D` overrides), and
/// `axpb` (not an example: [`AXPB`]).
const SUITE: &[(&str, &[(&str, i64)])] = &[
    ("saxpy", &[("N", 1 << 24)]),
    ("axpb", &[("N", 1 << 24)]),
    ("chain", &[("N", 1 << 24)]),
    ("dot", &[("N", 1 << 22)]),
    ("sum", &[("N", 1 << 24)]),
    ("max", &[("N", 1 << 24)]),
    ("softmax", &[("R", 4096), ("C", 1024)]),
    ("layernorm", &[("R", 4096), ("C", 1024)]),
    ("matvec", &[("M", 4096), ("N", 4096)]),
    ("matmul", &[("M", 1024), ("N", 1024), ("K", 1024)]),
    (
        "batched_matmul",
        &[("BATCH", 8), ("M", 128), ("N", 128), ("K", 128)],
    ),
    ("transpose", &[("M", 2048), ("N", 2048)]),
    ("conv1d", &[("N", 1 << 22), ("K", 7)]),
    ("stencil2d", &[("H", 2048), ("W", 2048)]),
    ("attention", &[("S", 128), ("T", 128), ("D", 64)]),
];

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
        value_parser = clap::builder::PossibleValuesParser::new(SUITE.iter().map(|(n, _)| *n))
    )]
    pub only: Vec<String>,
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

/// One program to measure.
struct Job {
    name: String,
    /// Where the source comes from: a file, or built-in text.
    file: Option<PathBuf>,
    defines: Vec<(String, i64)>,
    /// Whether to run the hand-written baselines of this program.
    baselines: bool,
}

/// One row of the table: a schedule or a baseline of a program.
struct Row {
    series: Series,
    label: String,
    outcome: Outcome,
}

enum Outcome {
    Measured {
        compile: Option<Duration>,
        gpu: Duration,
    },
    NotTuned,
    Failed(String),
}

pub fn run(args: Args) -> Result<(), Failure> {
    let jobs = jobs(&args);
    let none = Source {
        name: "<bench>".into(),
        text: String::new(),
    };
    let gpu = open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&none, d))?;
    let runs = args.runs.max(1);
    let device = format!("{} ({})", gpu.info().name, gpu.info().backend);
    println!(
        "device: {device}, {} warm-ups, median of {runs} runs",
        args.warmups
    );
    println!(
        "{:<16} {:>26} {:<14} {:>12} {:>12} {:>10} {:>10}",
        "program", "size", "schedule", "compile ms", "gpu ms", "GFLOP/s", "GB/s"
    );
    let mut groups = Vec::new();
    for job in jobs {
        let (src, program) = load(&job)?;
        let flops = texpr_opt::cost::flops(&program) as f64;
        let bytes = texpr_opt::cost::min_bytes(&program) as f64;
        let size: Vec<String> = job
            .defines
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let size = size.join(",");
        let mut bars = Vec::new();
        for row in measure(&gpu, &job, &src, &program, &args) {
            println!("{}", format_row(&job.name, &size, &row, flops, bytes));
            let rate = |per: f64| match row.outcome {
                Outcome::Measured { gpu, .. } if per > 0.0 => Some(per / gpu.as_secs_f64() / 1e9),
                _ => None,
            };
            let note = (row.series == Series::Baseline).then(|| {
                let prefix = format!("{}_", job.name);
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
            bars.push(Bar {
                series: row.series,
                note,
                missing,
                gflops: rate(flops),
                gbs: rate(bytes),
            });
        }
        groups.push(Group {
            name: job.name.clone(),
            bars,
        });
    }
    if let Some(path) = &args.svg {
        let title = format!("texprc bench on {device}: median of {runs} runs");
        plot::write_svg(path, &title, &groups).map_err(|e| {
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

fn jobs(args: &Args) -> Vec<Job> {
    if !args.suite {
        return args
            .files
            .iter()
            .map(|f| Job {
                name: f
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                file: Some(f.clone()),
                defines: args.defines.defines.clone(),
                baselines: false,
            })
            .collect();
    }
    SUITE
        .iter()
        .filter(|(name, _)| args.only.is_empty() || args.only.iter().any(|o| o == name))
        .map(|(name, defs)| Job {
            name: name.to_string(),
            file: (*name != "axpb").then(|| Path::new("examples").join(format!("{name}.te"))),
            defines: defs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            baselines: true,
        })
        .collect()
}

fn load(job: &Job) -> Result<(Source, Program), Failure> {
    let src = match &job.file {
        Some(file) => read_source(file)?,
        None => Source {
            name: format!("<{}>", job.name),
            text: AXPB.to_string(),
        },
    };
    let defs = Defines {
        defines: job.defines.clone(),
    };
    let program = frontend(&src, &defs)?;
    Ok((src, program))
}

/// The rows of one program: default, heuristic, tuned, then its baselines.
fn measure(gpu: &Gpu, job: &Job, src: &Source, program: &Program, args: &Args) -> Vec<Row> {
    let runs = args.runs.max(1);
    let inputs: Vec<HostBuffer> = texpr_interp::random_inputs(program, 1)
        .iter()
        .map(to_host)
        .collect();
    let mut rows = Vec::new();
    let mut schedules = vec![
        (
            Series::Default,
            "default".to_string(),
            Ok(Some(ScheduleChoice::Default)),
        ),
        (
            Series::Heuristic,
            "heuristic".to_string(),
            Ok(Some(ScheduleChoice::Heuristic)),
        ),
        (
            Series::Tuned,
            "tuned".to_string(),
            Ok(tuned(program, gpu).map(ScheduleChoice::Given)),
        ),
    ];
    for path in &args.schedule {
        let name = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let choice = crate::common::read_schedule(path)
            .map(|s| Some(ScheduleChoice::Given(s)))
            .map_err(|f| one_line(&format!("{f:?}")));
        schedules.push((Series::Pinned, format!("pinned {name}"), choice));
    }
    for (series, label, choice) in schedules {
        let outcome = match choice {
            Ok(None) => Outcome::NotTuned,
            Ok(Some(choice)) => {
                schedule_outcome(gpu, job, src, choice, &inputs, args.warmups, runs)
            }
            Err(why) => Outcome::Failed(why),
        };
        rows.push(Row {
            series,
            label,
            outcome,
        });
    }
    if job.baselines {
        for (name, made) in baselines_of(&job.name, program, &inputs) {
            let outcome = match made.and_then(|p| gpu.bench_raw(&p, args.warmups, runs)) {
                Ok(times) => Outcome::Measured {
                    compile: None,
                    gpu: median(times),
                },
                Err(e) => Outcome::Failed(runtime_text(&e)),
            };
            rows.push(Row {
                series: Series::Baseline,
                label: name.into(),
                outcome,
            });
        }
    }
    rows
}

/// The schedule the cache holds for `program` on this device.
fn tuned(program: &Program, gpu: &Gpu) -> Option<Schedule> {
    crate::cache::Cache::open_default().get(&crate::cache::key(program, gpu))
}

/// Compiles (timed over the runs, from source text) and benches one schedule.
fn schedule_outcome(
    gpu: &Gpu,
    job: &Job,
    src: &Source,
    schedule: ScheduleChoice,
    inputs: &[HostBuffer],
    warmups: usize,
    runs: usize,
) -> Outcome {
    let opts = Options {
        limits: gpu.limits(),
        overrides: job.defines.clone(),
        schedule,
    };
    let defs = Defines {
        defines: job.defines.clone(),
    };
    let mut compile_times = Vec::new();
    let mut compiled = None;
    for _ in 0..runs {
        let t = Instant::now();
        let made = frontend(src, &defs)
            .map_err(|f| diags_text(&f.diags))
            .and_then(|p| texpr_codegen::compile(&p, &opts).map_err(|d| diags_text(&d)));
        match made {
            Ok(c) => compiled = Some(c),
            Err(text) => return Outcome::Failed(text),
        }
        compile_times.push(t.elapsed());
    }
    let Some(compiled) = compiled else {
        return Outcome::Failed("nothing compiled".into());
    };
    match gpu.bench(&compiled.module, inputs, warmups, runs) {
        Ok(times) => Outcome::Measured {
            compile: Some(median(compile_times)),
            gpu: median(times),
        },
        Err(e) => Outcome::Failed(runtime_text(&e)),
    }
}

/// The hand-written baselines computing what suite program `name` computes,
/// on the same inputs.
fn baselines_of(
    name: &str,
    program: &Program,
    inputs: &[HostBuffer],
) -> Vec<(&'static str, Result<RawProgram, RuntimeError>)> {
    let param = |p: &str| {
        program
            .params
            .iter()
            .find(|(n, _)| n == p)
            .map_or(0, |(_, v)| (*v).max(0) as u64)
    };
    let input = |i: usize| inputs.get(i).cloned().unwrap_or(HostBuffer::from_f32(&[]));
    match name {
        "matmul" => {
            let mnk = [param("M"), param("N"), param("K")];
            vec![
                (
                    "matmul_naive",
                    baselines::matmul_naive(mnk, input(0), input(1)),
                ),
                (
                    "matmul_tiled",
                    baselines::matmul_tiled(mnk, input(0), input(1)),
                ),
            ]
        }
        "sum" => vec![("sum_tree", baselines::sum_tree(param("N"), input(0)))],
        "axpb" => vec![("axpb_vec4", baselines::axpb_vec4(param("N"), input(0)))],
        _ => Vec::new(),
    }
}

fn format_row(name: &str, size: &str, row: &Row, flops: f64, bytes: f64) -> String {
    let head = format!("{name:<16} {size:>26} {:<14}", row.label);
    match &row.outcome {
        Outcome::Measured { compile, gpu } => {
            let secs = gpu.as_secs_f64();
            let compile = match compile {
                Some(c) => format!("{:.2}", c.as_secs_f64() * 1e3),
                None => "-".into(),
            };
            format!(
                "{head} {compile:>12} {:>12.3} {:>10.3} {:>10.3}",
                secs * 1e3,
                flops / secs / 1e9,
                bytes / secs / 1e9
            )
        }
        Outcome::NotTuned => format!("{head} {:>12}", "not tuned"),
        Outcome::Failed(text) => format!("{head} error: {text}"),
    }
}

/// The diagnostics on one line: `E0316: message; E0214: message`.
fn diags_text(diags: &[Diagnostic]) -> String {
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.code, one_line(&d.message)))
        .collect();
    if errors.is_empty() {
        "failed without a diagnostic".into()
    } else {
        errors.join("; ")
    }
}

fn runtime_text(e: &RuntimeError) -> String {
    format!("{}: {}", e.code(), one_line(&e.to_string()))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}
