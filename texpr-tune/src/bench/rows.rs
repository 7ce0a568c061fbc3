//! The rows of one program in a benchmark: its schedules (default,
//! heuristic, tuned, pinned) compiled, its hand-written baselines, all
//! prepared on one pool of buffers (the inputs uploaded once) and timed
//! together by the runtime's harness, their runs interleaved.

use super::suite::{Job, baselines_of};
use crate::cache::{self, Cache};
use crate::values::to_host;
use std::time::{Duration, Instant};
use texpr::{Options, Schedule, ScheduleChoice};
use texpr_codegen::Module;
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_runtime::{BufferPool, Gpu, HostBuffer, Prepared, RuntimeError, Timing, TimingPlan};

/// What a row measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Series {
    Default,
    Heuristic,
    Tuned,
    /// A schedule the caller gives (`texprc bench --schedule`).
    Pinned,
    Baseline,
}

impl Series {
    pub const ALL: [Series; 5] = [
        Series::Default,
        Series::Heuristic,
        Series::Tuned,
        Series::Pinned,
        Series::Baseline,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Series::Default => "default",
            Series::Heuristic => "heuristic",
            Series::Tuned => "tuned",
            Series::Pinned => "pinned",
            Series::Baseline => "hand-written baseline",
        }
    }
}

/// How a program's rows are timed: `warmups` untimed runs, then `runs`
/// timed ones, the median reported (each schedule is also compiled `runs`
/// times, the median compile time reported).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Runs {
    pub warmups: usize,
    pub runs: usize,
}

/// A schedule given by the caller: its name, and the schedule or why it
/// could not be read (one line, shown in its row).
pub type Pinned = (String, Result<Schedule, String>);

/// One row of the table: a schedule or a baseline of a program.
#[derive(Debug)]
pub struct Row {
    pub series: Series,
    pub label: String,
    pub outcome: Outcome,
}

/// What became of a row.
#[derive(Debug)]
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

/// The rows of one program (`job`, whose source text is `src` and checked
/// program `program`): default, heuristic, tuned (from `cache`), each of
/// `pinned`, then its baselines.
pub fn measure(
    gpu: &Gpu,
    job: &Job,
    src: &str,
    program: &Program,
    pinned: &[Pinned],
    cache: &Cache,
    runs: Runs,
) -> Vec<Row> {
    let inputs: Vec<HostBuffer> = texpr_interp::random_inputs(program, 1)
        .iter()
        .map(to_host)
        .collect();
    let mut pool = BufferPool::default();
    let mut labels = Vec::new();
    let mut pending = Vec::new();
    for (series, label, choice) in schedules(program, gpu, pinned, cache) {
        let row = match choice {
            Ok(None) => Pending::Done(Outcome::NotTuned),
            Ok(Some(choice)) => match compile(gpu, job, src, choice, runs.runs.max(1)) {
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
        warmups: runs.warmups,
        runs: runs.runs,
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
/// cache has none), then each pinned one.
fn schedules(
    program: &Program,
    gpu: &Gpu,
    pinned: &[Pinned],
    cache: &Cache,
) -> Vec<(Series, String, Choice)> {
    let tuned = cache.get(&cache::key(program, gpu));
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
            Ok(tuned.map(ScheduleChoice::Tuned)),
        ),
    ];
    for (name, schedule) in pinned {
        let choice = (schedule.clone())
            .map(|s| Some(ScheduleChoice::Given(s)))
            .map_err(|why| one_line(&why));
        schedules.push((Series::Pinned, format!("pinned {name}"), choice));
    }
    schedules
}

/// Compiles one schedule from source text `runs` times: the module and
/// the median compile time.
fn compile(
    gpu: &Gpu,
    job: &Job,
    src: &str,
    schedule: ScheduleChoice,
    runs: usize,
) -> Result<(Module, Option<Duration>), String> {
    let opts = Options {
        target: gpu.target().clone(),
        overrides: job.defines.clone(),
        schedule,
    };
    let mut compile_times = Vec::new();
    let mut compiled = None;
    for _ in 0..runs {
        let t = Instant::now();
        let made = texpr_syntax::frontend(src, &job.defines)
            .map_err(|d| diags_text(&d))
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

/// A runtime error on one line: `E0404: message`.
pub fn runtime_text(e: &RuntimeError) -> String {
    format!("{}: {}", e.code(), one_line(&e.to_string()))
}

/// `s` with its white space runs made single spaces.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
