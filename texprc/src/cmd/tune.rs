//! `texprc tune FILE`: search for the fastest schedule of a program on this
//! device and store it in the schedule cache, where `compile --device`,
//! `run` and `bench` find it.
//!
//! The search is coordinate descent over the heuristic's candidates
//! (`texpr_opt::heuristic::candidates`): start from the heuristic schedule;
//! for each item in turn, try each of its candidates with the other items
//! fixed and keep the fastest. Every candidate is compiled (one that does
//! not compile is skipped and counted), run once and compared with the
//! interpreter (a wrong one is reported and never chosen), then timed with
//! `Gpu::bench` (median of `--runs` after `--warmups`). The search stops when
//! the time budget is spent; the heuristic and the default schedules are
//! always measured (the heuristic first, so a far slower default is timed
//! once, not `--runs` times).
//!
//! A program of more than [`SAMPLE_ABOVE`] operations is checked on a
//! sample of each output ([`SAMPLES`] evenly spaced elements, the last
//! included; `texpr_interp::eval_elements`): interpreting a 1024^3 matmul
//! whole takes over a minute, its sample a fraction of a second.

use crate::cache::{self, Cache};
use crate::cmd::run::{open_gpu, runtime_diag};
use crate::codes;
use crate::common::{Defines, Failure, Source, frontend, read_source};
use crate::inputs::{to_host, to_value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use texpr_codegen::runtime::{Gpu, HostBuffer};
use texpr_codegen::{Options, Schedule, ScheduleChoice, Strategy};
use texpr_interp::Value;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program to tune (a .te file)
    pub file: PathBuf,
    /// Stop trying candidates after this many seconds (the default and
    /// heuristic schedules are always measured)
    #[arg(long = "budget-s", value_name = "SECS", default_value_t = 60.0)]
    pub budget_s: f64,
    /// Timed runs per candidate (the median is compared)
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Untimed runs before timing
    #[arg(long, default_value_t = 2)]
    pub warmups: usize,
    /// Adapter: an index or part of its name (default: $TEXPR_ADAPTER, else wgpu's choice)
    #[arg(long, value_name = "ADAPTER")]
    pub adapter: Option<String>,
    #[command(flatten)]
    pub defines: Defines,
}

/// Operations (`texpr_opt::cost::flops`) above which candidates are checked
/// on a sample of their outputs.
const SAMPLE_ABOVE: u64 = 50_000_000;
/// Elements sampled per output.
const SAMPLES: u64 = 2048;

/// The elements to check of each output: all, or [`SAMPLES`] of them.
fn picks(program: &Program) -> Option<Vec<Vec<u64>>> {
    (texpr_opt::cost::flops(program) > SAMPLE_ABOVE).then(|| {
        program
            .outputs
            .iter()
            .map(|o| {
                let n = o.value.ty.len;
                let step = n.div_ceil(SAMPLES).max(1);
                let mut ks: Vec<u64> = (0..n).step_by(step as usize).collect();
                if ks.last() != Some(&(n - 1)) {
                    ks.push(n - 1);
                }
                ks
            })
            .collect()
    })
}

/// The elements `picks` of each value.
fn pick(values: &[Value], picks: &[Vec<u64>]) -> Vec<Value> {
    values
        .iter()
        .zip(picks)
        .map(|(v, ks)| {
            let mut d = texpr_interp::Data::with_capacity(v.elem(), ks.len());
            for &k in ks {
                if let Some(x) = v.data.get(k as usize) {
                    d.push(x).expect("same element type");
                }
            }
            Value::new(d)
        })
        .collect()
}

/// What measuring one schedule found.
#[derive(Clone, Debug)]
enum Outcome {
    /// Median time in milliseconds; `true` when only the checking run was
    /// timed (far slower than the best, not worth timing further).
    Time(f64, bool),
    /// It does not compile (or the runtime refused it): the first diagnostic.
    Failed(String),
    /// Its results differ from the interpreter's.
    Wrong(String),
}

impl Outcome {
    fn ms(&self) -> Option<f64> {
        match self {
            Outcome::Time(ms, _) => Some(*ms),
            _ => None,
        }
    }
}

/// Everything measuring needs, and what it has measured (by schedule text).
struct Tuner<'a> {
    program: &'a Program,
    gpu: &'a Gpu,
    opts: Options,
    host: Vec<HostBuffer>,
    /// The interpreter's outputs, or their sampled elements.
    expected: Vec<texpr_interp::accuracy::Reference>,
    picks: Option<Vec<Vec<u64>>>,
    warmups: usize,
    runs: usize,
    seen: BTreeMap<String, Outcome>,
    failed: usize,
    wrong: usize,
}

impl Tuner<'_> {
    fn measure(&mut self, choice: &ScheduleChoice, best_ms: Option<f64>) -> Outcome {
        let memo = match choice {
            ScheduleChoice::Given(s) => s.to_string(),
            ScheduleChoice::Default => "<default>".into(),
            ScheduleChoice::Heuristic => "<heuristic>".into(),
        };
        if let Some(o) = self.seen.get(&memo) {
            return o.clone();
        }
        let o = self.measure_new(choice, best_ms);
        match o {
            Outcome::Failed(_) => self.failed += 1,
            Outcome::Wrong(_) => self.wrong += 1,
            Outcome::Time(..) => {}
        }
        self.seen.insert(memo, o.clone());
        o
    }

    fn measure_new(&self, choice: &ScheduleChoice, best_ms: Option<f64>) -> Outcome {
        let opts = Options {
            schedule: choice.clone(),
            ..self.opts.clone()
        };
        let compiled = match texpr_codegen::compile(self.program, &opts) {
            Ok(c) => c,
            Err(d) => return Outcome::Failed(first(&d)),
        };
        let result = match self.gpu.run(&compiled.module, &self.host) {
            Ok(r) => r,
            Err(e) => return Outcome::Failed(first(&[runtime_diag(&e)])),
        };
        let mut got: Vec<Value> = result.outputs.iter().map(to_value).collect();
        if let Some(picks) = &self.picks {
            got = pick(&got, picks);
        }
        let bad = texpr_interp::accuracy::check_outputs(self.program, &got, &self.expected);
        if let Some(m) = bad.first() {
            return Outcome::Wrong(m.to_string());
        }
        // One timed run first (the checking run's time includes building
        // the pipeline): a candidate far slower than the best is not timed further.
        let once = match self.gpu.bench(&compiled.module, &self.host, 0, 1) {
            Ok(times) => median(times).as_secs_f64() * 1e3,
            Err(e) => return Outcome::Failed(first(&[runtime_diag(&e)])),
        };
        if best_ms.is_some_and(|b| once > 4.0 * b) {
            return Outcome::Time(once, true);
        }
        match self
            .gpu
            .bench(&compiled.module, &self.host, self.warmups, self.runs.max(1))
        {
            Ok(times) => Outcome::Time(median(times).as_secs_f64() * 1e3, false),
            Err(e) => Outcome::Failed(first(&[runtime_diag(&e)])),
        }
    }
}

fn first(d: &[Diagnostic]) -> String {
    match d.first() {
        Some(d) => format!("{}: {}", d.code, d.message),
        None => "failed".into(),
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn show(o: &Outcome) -> String {
    match o {
        Outcome::Time(ms, false) => format!("{ms:.3} ms"),
        Outcome::Time(ms, true) => format!("{ms:.3} ms (one run: too slow to time further)"),
        Outcome::Failed(why) => format!("skipped, does not compile: {why}"),
        Outcome::Wrong(why) => format!("WRONG, differs from the interpreter: {why}"),
    }
}

pub fn run(args: Args) -> Result<(), Failure> {
    let started = Instant::now();
    let budget = Duration::from_secs_f64(args.budget_s.max(0.0));
    let src = read_source(&args.file)?;
    let program = frontend(&src, &args.defines)?;
    let gpu = open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&src, d))?;
    let limits = gpu.limits();
    let prepared = texpr_opt::prepare(&program, &limits).map_err(|d| Failure::new(&src, d))?;
    let candidates = texpr_opt::heuristic::candidates(&prepared, &limits);
    let heuristic = texpr_opt::heuristic::heuristic(&prepared, &limits);
    let inputs = texpr_interp::random_inputs(&program, 1);
    let picks = picks(&program);
    if let Some(p) = &picks {
        eprintln!(
            "checking {} sampled elements per output against the interpreter ({} operations)",
            p.iter().map(Vec::len).max().unwrap_or(0),
            texpr_opt::cost::flops(&program)
        );
    }
    let expected = match &picks {
        Some(p) => texpr_interp::accuracy::reference_elements(&program, &inputs, p),
        None => texpr_interp::accuracy::reference(&program, &inputs),
    }
    .map_err(|e| {
        Failure::about(
            &src,
            Diagnostic::error(codes::EVAL, format!("evaluation failed: {e}")),
        )
    })?;
    let mut t = Tuner {
        program: &program,
        gpu: &gpu,
        opts: Options {
            limits: limits.clone(),
            overrides: args.defines.defines.clone(),
            schedule: ScheduleChoice::Default,
        },
        host: inputs.iter().map(to_host).collect(),
        expected,
        picks,
        warmups: args.warmups,
        runs: args.runs,
        seen: BTreeMap::new(),
        failed: 0,
        wrong: 0,
    };
    let device = cache::device_name(gpu.info());
    eprintln!("tuning {} on {device}", src.name);

    let heur = t.measure(&ScheduleChoice::Given(heuristic.clone()), None);
    eprintln!(
        "heuristic schedule ({}): {}",
        heuristic.to_string().trim_end().replace('\n', "; "),
        show(&heur)
    );
    let default = t.measure(&ScheduleChoice::Default, heur.ms());
    eprintln!("default schedule: {}", show(&default));

    // The starting point: the heuristic's schedule, else the default's.
    let default_schedule = Schedule {
        items: heuristic
            .items
            .iter()
            .map(|(n, _)| (n.clone(), Strategy::Default))
            .collect(),
    };
    let mut best: Option<(Schedule, f64)> = match (heur.ms(), default.ms()) {
        (Some(h), Some(d)) if d < h => Some((default_schedule.clone(), d)),
        (Some(h), _) => Some((heuristic.clone(), h)),
        (None, Some(d)) => Some((default_schedule.clone(), d)),
        (None, None) => None,
    };
    if let Some((s, _)) = &best {
        // The default measured as `<default>`; remember its text form too.
        if *s == default_schedule {
            t.seen.insert(s.to_string(), default.clone());
        }
    }

    let total: usize = candidates.iter().map(|(_, c)| c.len()).sum();
    let mut tried = 0;
    let mut out_of_time = false;
    'items: for (item, strategies) in &candidates {
        for s in strategies {
            if started.elapsed() >= budget {
                out_of_time = true;
                break 'items;
            }
            tried += 1;
            let base = best.as_ref().map(|(b, _)| b.clone()).unwrap_or_default();
            let mut cand = base;
            cand.set(item, s.clone());
            let o = t.measure(
                &ScheduleChoice::Given(cand.clone()),
                best.as_ref().map(|b| b.1),
            );
            if let Some(ms) = o.ms()
                && best.as_ref().is_none_or(|b| ms < b.1)
            {
                best = Some((cand, ms));
            }
            let best_ms = best
                .as_ref()
                .map(|b| format!("{:.3} ms", b.1))
                .unwrap_or_else(|| "none".into());
            eprintln!(
                "[{tried}/{total}] {item}: {s}  {}  (best {best_ms})",
                show(&o)
            );
        }
    }

    let Some((winner, ms)) = best else {
        let msg = format!(
            "no schedule of `{}` compiled and matched the interpreter on {device}",
            src.name
        );
        return Err(Failure::about(
            &src,
            Diagnostic::error(codes::TUNE_NOTHING, msg)
                .with_note(format!("default: {}", show(&default)))
                .with_note(format!("heuristic: {}", show(&heur))),
        ));
    };
    eprintln!(
        "tried {tried} of {total} candidates in {:.1} s{}: {} did not compile, {} were wrong",
        started.elapsed().as_secs_f64(),
        if out_of_time {
            " (the budget ran out)"
        } else {
            ""
        },
        t.failed,
        t.wrong
    );

    let mut cache = Cache::open_default();
    let key = cache::key(&program, &gpu);
    cache.put(key, winner.clone(), ms).map_err(|e| {
        let msg = match cache.path() {
            Some(p) => format!("cannot write the schedule cache `{}`: {e}", p.display()),
            None => format!("cannot write the schedule cache: {e}"),
        };
        Failure::about(&no_source(), Diagnostic::error(codes::CACHE_WRITE, msg))
    })?;
    if let Some(p) = cache.path() {
        eprintln!("stored in {}", p.display());
    }

    // A valid schedule file on stdout, the figures as comments.
    let vs = |name: &str, o: &Outcome| match o.ms() {
        Some(other) => format!("{:.2}x the {name} ({other:.3} ms)", other / ms),
        None => format!("the {name} did not run"),
    };
    println!("# tuned for {device}: {ms:.3} ms");
    println!("# {}, {}", vs("heuristic", &heur), vs("default", &default));
    print!("{winner}");
    Ok(())
}

fn no_source() -> Source {
    Source {
        name: "<cache>".into(),
        text: String::new(),
    }
}
