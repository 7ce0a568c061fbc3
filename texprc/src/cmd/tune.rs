//! `texprc tune FILE`: search for the fastest schedule of a program on this
//! device and store it in the schedule cache, where `compile --device`,
//! `run` and `bench` find it.
//!
//! The search is coordinate descent over each item's candidates
//! (`texpr::candidates`: what the optimizer and code generation accept):
//! start from the heuristic schedule (`texpr::choose`, as `compile` and
//! `run` choose it); for each item in turn, try each of its candidates with
//! the other items fixed and keep the fastest. The candidates of one item, and the best
//! schedule so far, are measured together by [`crate::trials`]: each is
//! compiled (one that does not compile or run is skipped and counted; one
//! that loses the device is, and the device is reopened), run once and
//! compared with the interpreter (a wrong one is reported and never chosen),
//! then all that pass are timed warm with their runs interleaved (median of
//! `--runs` after `--warmups`; one over 4x the best is timed no further).
//! The search stops trying candidates when the time budget is spent; the
//! heuristic and the default schedules (the baseline: the optimizing
//! passes off) are always measured, together, the same way. The figures
//! printed at the end (the winner against the heuristic and the default)
//! come from one last measurement of the three together, logged as it is
//! taken, so their ratios compare like with like; it has no cut-off, so each
//! figure is the median of all `--runs`, as `texprc bench` times.

use crate::cache::{self, Cache};
use crate::cmd::run::open_gpu;
use crate::codes;
use crate::common::{Defines, Failure, Source, frontend, read_source};
use crate::trials::{Outcome, Trials};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use texpr::{Options, Schedule, ScheduleChoice, Strategy, Target};
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

fn show(o: &Outcome) -> String {
    match o {
        Outcome::Time(t) => {
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            let wall = match t.gpu() {
                Some(_) => format!(" (wall {:.3} ms)", ms(t.wall())),
                None => String::new(),
            };
            let cut = match t.cut {
                true => format!(
                    " (warm, {} run(s): too slow to time further)",
                    t.samples.len()
                ),
                false => String::new(),
            };
            format!("{:.3} ms{wall}{cut}", ms(t.primary()))
        }
        Outcome::Failed(why) => format!("skipped, failed to compile or run: {why}"),
        Outcome::Wrong(why) => format!("WRONG, differs from the interpreter: {why}"),
    }
}

pub fn run(args: Args) -> Result<(), Failure> {
    let started = Instant::now();
    let budget = Duration::from_secs_f64(args.budget_s.max(0.0));
    let src = read_source(&args.file)?;
    let program = frontend(&src, &args.defines)?;
    let gpu = open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&src, d))?;
    let target = gpu.target().clone();
    let key = cache::key(&program, &gpu);
    let (heuristic, baseline, candidates) =
        schedules(&program, &target).map_err(|d| Failure::new(&src, d))?;
    let opts = Options {
        target: target.clone(),
        overrides: args.defines.defines.clone(),
        schedule: ScheduleChoice::Default,
    };
    let device = cache::device_name(gpu.info());
    let mut t = Trials::new(&program, gpu, opts, args.warmups, args.runs)
        .map_err(|e| Failure::about(&src, Diagnostic::error(codes::EVAL, e)))?;
    if let Some(n) = t.sampled() {
        eprintln!(
            "checking {n} sampled elements per output against the interpreter ({} operations)",
            texpr_opt::cost::flops(&program)
        );
    }
    eprintln!("tuning {} on {device}", src.name);

    // The heuristic and the default, timed together.
    let both = [
        ScheduleChoice::Given(heuristic.clone()),
        ScheduleChoice::Given(baseline.clone()),
    ];
    let [heur, default] = outcomes(t.compare(&both, None));
    eprintln!(
        "heuristic schedule ({}): {}",
        heuristic.to_string().trim_end().replace('\n', "; "),
        show(&heur)
    );
    eprintln!("default schedule: {}", show(&default));

    let best = starting_point([(&heuristic, &heur), (&baseline, &default)]);
    let deadline = started + budget;
    let start = Start {
        best,
        all_default: all_default(&heuristic),
    };
    let (best, tried, out_of_time) = search(&mut t, &candidates, start, deadline);
    let total: usize = candidates.iter().map(|(_, c)| c.len()).sum();

    let Some((winner, searched_ms)) = best else {
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
    eprintln!("{}", summary(&t, (tried, total), started, out_of_time));

    let theirs = [heuristic, baseline];
    report(
        &mut t,
        (&winner, searched_ms),
        &theirs,
        (&device, &target),
        key,
    )
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

/// The heuristic's schedule, the baseline's and every item's candidates,
/// as `texpr::choose` and `texpr::candidates` give them for `target`.
type Schedules = (Schedule, Schedule, Vec<(String, Vec<Strategy>)>);

fn schedules(program: &Program, target: &Target) -> Result<Schedules, Vec<Diagnostic>> {
    let optimized = texpr::optimize(program, target)?;
    let choose = |c: ScheduleChoice| texpr::choose(&optimized, target, &c).map(|c| c.schedule);
    let heuristic = choose(ScheduleChoice::Heuristic)?;
    let baseline = choose(ScheduleChoice::Default)?;
    Ok((heuristic, baseline, texpr::candidates(&optimized, target)))
}

/// Times the winner, the heuristic and the default together, stores the
/// winner in the cache with its time, and prints it as a schedule file with
/// the figures as comments.
fn report(
    t: &mut Trials,
    (winner, searched_ms): (&Schedule, f64),
    [heuristic, baseline]: &[Schedule; 2],
    (device, target): (&str, &Target),
    key: cache::CacheKey,
) -> Result<(), Failure> {
    let verdict = [
        ScheduleChoice::Given(winner.clone()),
        ScheduleChoice::Given(heuristic.clone()),
        ScheduleChoice::Given(baseline.clone()),
    ];
    // No cut-off: each figure is the median of all its runs, as `bench` times.
    let [won, heur, default] = outcomes(t.compare_uncut(&verdict));
    eprintln!(
        "timed together once more: tuned {}, heuristic {}, default {}",
        show(&won),
        show(&heur),
        show(&default)
    );
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

/// The search's starting point: the heuristic's schedule, else the
/// default's (whichever of the two measured faster; the heuristic's on a tie).
fn starting_point(measured: [(&Schedule, &Outcome); 2]) -> Option<(Schedule, f64)> {
    let mut best: Option<(Schedule, f64)> = None;
    for (s, o) in measured {
        if let Some(ms) = o.ms()
            && best.as_ref().is_none_or(|b| ms < b.1)
        {
            best = Some((s.clone(), ms));
        }
    }
    best
}

/// Every item of `heuristic` at its default strategy, on the optimized
/// program.
fn all_default(heuristic: &Schedule) -> Schedule {
    Schedule {
        items: heuristic
            .items
            .iter()
            .map(|(n, _)| (n.clone(), Strategy::Default))
            .collect(),
        ..Schedule::default()
    }
}

/// Where the search starts: the best so far, and where candidates start
/// when the best is the baseline (which skips the optimizing passes, so
/// its items are not the optimized program's).
struct Start {
    best: Option<(Schedule, f64)>,
    all_default: Schedule,
}

/// Stores the winner in the schedule cache.
fn store(key: cache::CacheKey, winner: &Schedule, ms: f64, target: &Target) -> Result<(), Failure> {
    let mut cache = Cache::open_default();
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

/// The `N` outcomes `measured` (of choices timed together without a
/// deadline, so all are tried).
fn outcomes<const N: usize>(measured: Vec<Option<Outcome>>) -> [Outcome; N] {
    let mut measured = measured.into_iter();
    std::array::from_fn(|_| {
        measured
            .next()
            .flatten()
            .unwrap_or_else(|| Outcome::Failed("not tried".into()))
    })
}

/// Coordinate descent from `best`: per item, its candidates (with the other
/// items as in the best so far) timed together with the best so far, whose
/// time is updated. Returns the best, the candidates tried and whether the
/// deadline cut the search short.
fn search(
    t: &mut Trials,
    candidates: &[(String, Vec<Strategy>)],
    start: Start,
    deadline: Instant,
) -> (Option<(Schedule, f64)>, usize, bool) {
    let Start {
        mut best,
        all_default,
    } = start;
    let total: usize = candidates.iter().map(|(_, c)| c.len()).sum();
    let mut tried = 0;
    for (item, strategies) in candidates {
        let base = match &best {
            Some((b, _)) if b.optimize => b.clone(),
            _ => all_default.clone(),
        };
        let incumbent = best.is_some() as usize;
        let mut choices: Vec<ScheduleChoice> = Vec::new();
        if let Some((b, _)) = &best {
            choices.push(ScheduleChoice::Given(b.clone()));
        }
        for s in strategies {
            let mut cand = base.clone();
            cand.set(item, s.clone());
            choices.push(ScheduleChoice::Given(cand));
        }
        let outcomes = t.compare(&choices, Some(deadline));
        // The best so far, timed again beside the candidates.
        let again = outcomes.first().and_then(|o| o.as_ref()?.ms());
        if let (Some(b), 1, Some(ms)) = (&mut best, incumbent, again) {
            b.1 = ms;
        }
        for ((s, choice), o) in strategies
            .iter()
            .zip(&choices[incumbent..])
            .zip(&outcomes[incumbent..])
        {
            let Some(o) = o else {
                return (best, tried, true);
            };
            tried += 1;
            if let (Some(ms), ScheduleChoice::Given(cand)) = (o.ms(), choice)
                && best.as_ref().is_none_or(|b| ms < b.1)
            {
                best = Some((cand.clone(), ms));
            }
            let best_ms = best
                .as_ref()
                .map(|b| format!("{:.3} ms", b.1))
                .unwrap_or_else(|| "none".into());
            eprintln!(
                "[{tried}/{total}] {item}: {s}  {}  (best {best_ms})",
                show(o)
            );
        }
    }
    (best, tried, false)
}

fn no_source() -> Source {
    Source {
        name: "<cache>".into(),
        text: String::new(),
    }
}
