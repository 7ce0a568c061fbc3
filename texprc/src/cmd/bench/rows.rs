//! The rows of one program in `texprc bench`: its schedules (default,
//! heuristic, tuned, pinned) compiled, its hand-written baselines, all
//! prepared on one pool of buffers (the inputs uploaded once) and timed
//! together by the runtime's harness, their runs interleaved.

use super::args::Args;
use super::suite::{Job, baselines_of};
use crate::common::{Defines, Source, frontend};
use crate::inputs::to_host;
use crate::plot::Series;
use std::time::{Duration, Instant};
use texpr::{Options, Schedule, ScheduleChoice};
use texpr_codegen::Module;
use texpr_runtime::{BufferPool, Gpu, HostBuffer, Prepared, RuntimeError, Timing, TimingPlan};
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;

/// One row of the table: a schedule or a baseline of a program.
pub struct Row {
    pub series: Series,
    pub label: String,
    pub outcome: Outcome,
}

pub enum Outcome {
    Measured {
        /// Median compile time (schedules only, not baselines).
        compile: Option<Duration>,
        timing: Timing,
    },
    NotTuned,
    Failed(String),
}

/// A row before timing: prepared, or already decided.
enum Pending {
    Ready {
        compile: Option<Duration>,
        prepared: Prepared,
    },
    Done(Outcome),
}

/// The rows of one program: default, heuristic, tuned, pinned, then its baselines.
pub fn measure(gpu: &Gpu, job: &Job, src: &Source, program: &Program, args: &Args) -> Vec<Row> {
    let inputs: Vec<HostBuffer> = texpr_interp::random_inputs(program, 1)
        .iter()
        .map(to_host)
        .collect();
    let mut pool = BufferPool::default();
    let mut labels = Vec::new();
    let mut pending = Vec::new();
    for (series, label, choice) in schedules(program, gpu, args) {
        let row = match choice {
            Ok(None) => Pending::Done(Outcome::NotTuned),
            Ok(Some(choice)) => match compile(gpu, job, src, choice, args.runs.max(1)) {
                Ok((module, compile)) => ready(gpu.prepare(&module, &inputs, &mut pool), compile),
                Err(text) => Pending::Done(Outcome::Failed(text)),
            },
            Err(why) => Pending::Done(Outcome::Failed(why)),
        };
        labels.push((series, label));
        pending.push(row);
    }
    if job.baselines {
        for (name, made) in baselines_of(&job.name, program, &inputs) {
            let prepared = made.and_then(|p| gpu.prepare_raw(&p, &mut pool));
            labels.push((Series::Baseline, name.to_string()));
            pending.push(ready(prepared, None));
        }
    }
    let entries: Vec<&Prepared> = pending
        .iter()
        .filter_map(|p| match p {
            Pending::Ready { prepared, .. } => Some(prepared),
            Pending::Done(_) => None,
        })
        .collect();
    let plan = TimingPlan {
        warmups: args.warmups,
        runs: args.runs,
        cutoff: None,
    };
    let mut timings = gpu.time(&entries, &plan).results.into_iter();
    labels
        .into_iter()
        .zip(pending)
        .map(|((series, label), p)| {
            let outcome = match p {
                Pending::Done(outcome) => outcome,
                Pending::Ready { compile, .. } => match timings.next() {
                    Some(Ok(timing)) => Outcome::Measured { compile, timing },
                    Some(Err(e)) => Outcome::Failed(runtime_text(&e)),
                    None => Outcome::Failed("not timed".into()),
                },
            };
            Row {
                series,
                label,
                outcome,
            }
        })
        .collect()
}

fn ready(prepared: Result<Prepared, RuntimeError>, compile: Option<Duration>) -> Pending {
    match prepared {
        Ok(prepared) => Pending::Ready { compile, prepared },
        Err(e) => Pending::Done(Outcome::Failed(runtime_text(&e))),
    }
}

type Choice = Result<Option<ScheduleChoice>, String>;

/// The schedules to measure: default, heuristic, tuned (`None` when the
/// cache has none), then each `--schedule` file.
fn schedules(program: &Program, gpu: &Gpu, args: &Args) -> Vec<(Series, String, Choice)> {
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
            Ok(tuned(program, gpu).map(ScheduleChoice::Tuned)),
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
    schedules
}

/// The schedule the cache holds for `program` on this device.
fn tuned(program: &Program, gpu: &Gpu) -> Option<Schedule> {
    crate::cache::Cache::open_default().get(&crate::cache::key(program, gpu))
}

/// Compiles one schedule from source text `runs` times: the module and
/// the median compile time.
fn compile(
    gpu: &Gpu,
    job: &Job,
    src: &Source,
    schedule: ScheduleChoice,
    runs: usize,
) -> Result<(Module, Option<Duration>), String> {
    let opts = Options {
        target: gpu.target().clone(),
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
            .and_then(|p| texpr::compile(&p, &opts).map_err(|d| diags_text(&d)))?;
        compiled = Some(made);
        compile_times.push(t.elapsed());
    }
    let compiled = compiled.ok_or("nothing compiled")?;
    compile_times.sort();
    Ok((compiled.module, compile_times.get(runs / 2).copied()))
}

/// The diagnostics on one line: `E0316: message; E0310: message`.
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

pub fn runtime_text(e: &RuntimeError) -> String {
    format!("{}: {}", e.code(), one_line(&e.to_string()))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
