//! `texprc tune FILE`: search for the fastest schedule of a program on this
//! device and store it in the schedule cache, where `compile --device`,
//! `run` and `bench` find it. The search, its trials and the cache are
//! `texpr_tune`'s (see its `search` module); this command parses the
//! arguments, prints each candidate as it is measured, and prints the
//! winner as a schedule file with the final figures (the winner, the
//! heuristic and the default timed together once more) as comments.

use crate::cmd::run::open_gpu;
use crate::codes;
use crate::common::{Defines, Failure, Source, frontend, read_source};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use texpr::{Schedule, Target};
use texpr_ir::Diagnostic;
use texpr_tune::cache;
use texpr_tune::{Outcome, Trials, TuneError, Tuner};

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

pub fn run(args: Args) -> Result<(), Failure> {
    let started = Instant::now();
    let budget = Duration::from_secs_f64(args.budget_s.max(0.0));
    let src = read_source(&args.file)?;
    let program = frontend(&src, &args.defines)?;
    let gpu = open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&src, d))?;
    let target = gpu.target().clone();
    let key = cache::key(&program, &gpu);
    let device = cache::device_name(gpu.info());
    let overrides = args.defines.defines.clone();
    let mut tuner =
        Tuner::new(&program, gpu, overrides, (args.warmups, args.runs)).map_err(|e| match e {
            TuneError::Schedule(d) => Failure::new(&src, d),
            TuneError::Reference(e) => Failure::about(&src, Diagnostic::error(codes::EVAL, e)),
        })?;
    if let Some(n) = tuner.trials.sampled() {
        eprintln!(
            "checking {n} sampled elements per output against the interpreter ({} operations)",
            texpr_opt::cost::flops(&program)
        );
    }
    eprintln!("tuning {} on {device}", src.name);

    // The heuristic and the default, timed together.
    let baselines = tuner.baselines();
    let [heur, default] = &baselines;
    eprintln!(
        "heuristic schedule ({}): {heur}",
        tuner.heuristic.to_string().trim_end().replace('\n', "; ")
    );
    eprintln!("default schedule: {default}");

    let found = tuner.search(&baselines, started + budget, &mut |t| {
        let best = t
            .best_ms
            .map(|ms| format!("{ms:.3} ms"))
            .unwrap_or_else(|| "none".into());
        eprintln!(
            "[{}/{}] {}: {}  {}  (best {best})",
            t.tried, t.total, t.item, t.strategy, t.outcome
        );
    });
    let Some((winner, searched_ms)) = found.best else {
        let msg = format!(
            "no schedule of `{}` compiled and matched the interpreter on {device}",
            src.name
        );
        return Err(Failure::about(
            &src,
            Diagnostic::error(codes::TUNE_NOTHING, msg)
                .with_note(format!("default: {default}"))
                .with_note(format!("heuristic: {heur}")),
        ));
    };
    let tried = (found.tried, found.total);
    eprintln!(
        "{}",
        summary(&tuner.trials, tried, started, found.out_of_time)
    );
    report(&mut tuner, (&winner, searched_ms), (&device, &target), key)
}

/// What the search tried, how long it took and what failed.
fn summary(
    t: &Trials,
    (tried, total): (usize, usize),
    started: Instant,
    out_of_time: bool,
) -> String {
    let lost = match t.reopened {
        0 => String::new(),
        n => format!(" (the device was lost and reopened {n} time(s))"),
    };
    format!(
        "tried {tried} of {total} candidates in {:.1} s{}: {} failed to compile or run{lost}, {} were wrong",
        started.elapsed().as_secs_f64(),
        if out_of_time {
            " (the budget ran out)"
        } else {
            ""
        },
        t.failed,
        t.wrong
    )
}

/// Times the winner, the heuristic and the default together, stores the
/// winner in the cache with its time, and prints it as a schedule file with
/// the figures as comments.
fn report(
    tuner: &mut Tuner,
    (winner, searched_ms): (&Schedule, f64),
    (device, target): (&str, &Target),
    key: cache::CacheKey,
) -> Result<(), Failure> {
    let [won, heur, default] = tuner.verdict(winner);
    eprintln!("timed together once more: tuned {won}, heuristic {heur}, default {default}");
    let ms = won.ms().unwrap_or(searched_ms);
    store(key, winner, ms, target)?;
    let vs = |name: &str, o: &Outcome| match o.ms() {
        Some(other) => format!("{:.2}x the {name} ({other:.3} ms)", other / ms),
        None => format!("the {name} did not run"),
    };
    outln!("# tuned for {device}: {ms:.3} ms");
    outln!("# {}, {}", vs("heuristic", &heur), vs("default", &default));
    out!("{winner}");
    Ok(())
}

/// Stores the winner in the schedule cache.
fn store(key: cache::CacheKey, winner: &Schedule, ms: f64, target: &Target) -> Result<(), Failure> {
    let mut cache = crate::common::schedule_cache();
    cache
        .put(key, winner.clone(), ms, target.clone())
        .map_err(|e| {
            let msg = match cache.path() {
                Some(p) => format!("cannot write the schedule cache `{}`: {e}", p.display()),
                None => format!("cannot write the schedule cache: {e}"),
            };
            Failure::about(&no_source(), Diagnostic::error(codes::CACHE_WRITE, msg))
        })?;
    if let Some(p) = cache.path() {
        eprintln!("stored in {}", p.display());
    }
    Ok(())
}

fn no_source() -> Source {
    Source {
        name: "<cache>".into(),
        text: String::new(),
    }
}
