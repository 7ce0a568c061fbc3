//! The search for the fastest schedule of a program on a device.
//!
//! Coordinate descent over each item's candidates (`texpr::candidates`:
//! what the optimizer and code generation accept): start from the faster of
//! the heuristic schedule (`texpr::choose`, as `compile` and `run` choose
//! it) and the default one (the optimizing passes off); for each item in
//! turn, try each of its candidates with the other items fixed and keep the
//! fastest. The candidates of one item, and the best schedule so far, are
//! measured together by [`Trials`]: a candidate that does not compile or
//! run is skipped and counted, a wrong one is counted and never chosen.
//! The search stops trying candidates at its deadline; the heuristic and
//! the default are always measured ([`Tuner::baselines`]), and the verdict
//! ([`Tuner::verdict`]) times the winner beside them once more with no
//! cut-off, so their ratios compare like with like.

use crate::trials::{Outcome, Trials};
use std::time::Instant;
use texpr::{Options, Schedule, ScheduleChoice, Strategy};
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_runtime::Gpu;

/// Why a program cannot be tuned at all.
#[derive(Clone, Debug)]
pub enum TuneError {
    /// Choosing the heuristic or the default schedule failed.
    Schedule(Vec<Diagnostic>),
    /// The interpreter, which gives the reference results, failed.
    Reference(String),
}

/// One candidate tried by [`Tuner::search`], as it is measured.
#[derive(Debug)]
pub struct Trial<'o> {
    /// Candidates tried so far (this one included) and in all.
    pub tried: usize,
    pub total: usize,
    /// The item and the strategy tried for it.
    pub item: &'o str,
    pub strategy: &'o Strategy,
    pub outcome: &'o Outcome,
    /// The best time so far, in milliseconds.
    pub best_ms: Option<f64>,
}

/// What [`Tuner::search`] found.
#[derive(Clone, Debug)]
pub struct Found {
    /// The fastest schedule and its time in the search (milliseconds);
    /// `None` when no schedule compiled and matched the interpreter.
    pub best: Option<(Schedule, f64)>,
    /// Candidates tried, and in all.
    pub tried: usize,
    pub total: usize,
    /// Whether the deadline cut the search short.
    pub out_of_time: bool,
}

/// A program's tuning on one device: its trials, the heuristic and default
/// schedules and every item's candidates.
#[derive(Debug)]
pub struct Tuner<'a> {
    pub trials: Trials<'a>,
    pub heuristic: Schedule,
    pub baseline: Schedule,
    candidates: Vec<(String, Vec<Strategy>)>,
}

impl<'a> Tuner<'a> {
    /// Tuning of `program` (its params applied, `overrides` as given) on
    /// `gpu`, each candidate warmed `warmups` times and timed `runs` times.
    pub fn new(
        program: &'a Program,
        gpu: Gpu,
        overrides: Vec<(String, i64)>,
        (warmups, runs): (usize, usize),
    ) -> Result<Self, TuneError> {
        let target = gpu.target().clone();
        let optimized = texpr::optimize(program, &target).map_err(TuneError::Schedule)?;
        let choose = |c: ScheduleChoice| {
            texpr::choose(&optimized, &target, &c)
                .map(|c| c.schedule)
                .map_err(TuneError::Schedule)
        };
        let heuristic = choose(ScheduleChoice::Heuristic)?;
        let baseline = choose(ScheduleChoice::Default)?;
        let candidates = texpr::candidates(&optimized, &target);
        let opts = Options {
            target,
            overrides,
            schedule: ScheduleChoice::Default,
        };
        let trials =
            Trials::new(program, gpu, opts, warmups, runs).map_err(TuneError::Reference)?;
        Ok(Tuner {
            trials,
            heuristic,
            baseline,
            candidates,
        })
    }

    /// The heuristic's and the default's outcomes, timed together.
    pub fn baselines(&mut self) -> [Outcome; 2] {
        let both = [
            ScheduleChoice::Given(self.heuristic.clone()),
            ScheduleChoice::Given(self.baseline.clone()),
        ];
        outcomes(self.trials.compare(&both, None))
    }

    /// Coordinate descent from the faster of `baselines` (the heuristic's
    /// and the default's outcomes, as [`Self::baselines`] gave them) until
    /// `deadline`, calling `each` after every candidate.
    pub fn search(
        &mut self,
        baselines: &[Outcome; 2],
        deadline: Instant,
        each: &mut dyn FnMut(&Trial<'_>),
    ) -> Found {
        let mut best = starting_point([
            (&self.heuristic, &baselines[0]),
            (&self.baseline, &baselines[1]),
        ]);
        let all_default = all_default(&self.heuristic);
        let total: usize = self.candidates.iter().map(|(_, c)| c.len()).sum();
        let mut tried = 0;
        for (item, strategies) in &self.candidates {
            // The baseline skips the optimizing passes, so its items are not
            // the optimized program's: candidates start from all-default.
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
            let outcomes = self.trials.compare(&choices, Some(deadline));
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
                    return Found {
                        best,
                        tried,
                        total,
                        out_of_time: true,
                    };
                };
                tried += 1;
                if let (Some(ms), ScheduleChoice::Given(cand)) = (o.ms(), choice)
                    && best.as_ref().is_none_or(|b| ms < b.1)
                {
                    best = Some((cand.clone(), ms));
                }
                each(&Trial {
                    tried,
                    total,
                    item,
                    strategy: s,
                    outcome: o,
                    best_ms: best.as_ref().map(|b| b.1),
                });
            }
        }
        Found {
            best,
            tried,
            total,
            out_of_time: false,
        }
    }

    /// The winner, the heuristic and the default timed together once more,
    /// with no cut-off: each figure the median of all its runs.
    pub fn verdict(&mut self, winner: &Schedule) -> [Outcome; 3] {
        let choices = [
            ScheduleChoice::Given(winner.clone()),
            ScheduleChoice::Given(self.heuristic.clone()),
            ScheduleChoice::Given(self.baseline.clone()),
        ];
        outcomes(self.trials.compare_uncut(&choices))
    }
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
