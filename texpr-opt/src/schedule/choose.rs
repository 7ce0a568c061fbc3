//! Choosing a schedule: the one place where a [`ScheduleChoice`] becomes a
//! [`Schedule`] that names every item of the program it applies to.
//!
//! - `Default`: the baseline, `optimize = off`, every item `default`.
//! - `Heuristic`: each item's first candidate ([`super::heuristic`]) that
//!   fits the item, the target and code generation (the [`Verdict`]); an
//!   item none fits gets `default`.
//! - `Given` (a pinned schedule): as given, unnamed items `default`; names
//!   that are not items are E0210, and a strategy that does not fit is the
//!   error [`super::apply`] or code generation reports.
//! - `Tuned` (a schedule measured before): each item keeps its strategy if
//!   it still fits; otherwise that item alone falls back to its heuristic
//!   candidates, then `default`, with one warning (E0220) naming the item,
//!   the strategy and why it no longer fits.

use super::apply::{Verdict, check_names};
use super::data::{Schedule, ScheduleChoice, Strategy};
use super::heuristic::item_candidates;
use super::trial::Trial;
use crate::optimized::Optimized;
use std::collections::BTreeMap;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Item, Program};
use texpr_target::Target;

/// A schedule and the warnings choosing it gave (E0220 fallbacks).
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    pub schedule: Schedule,
    pub warnings: Vec<Diagnostic>,
}

/// The schedule `choice` gives for `o` on `target` (see the module docs).
pub fn choose(
    o: &Optimized,
    target: &Target,
    choice: &ScheduleChoice,
    verdict: Verdict<'_>,
) -> Result<Chosen, Vec<Diagnostic>> {
    let mut warnings = Vec::new();
    let schedule = match choice {
        ScheduleChoice::Default => every_item(&o.baseline, false, |_| Strategy::Default),
        ScheduleChoice::Heuristic => {
            let mut trial = Trial::new(&o.optimized);
            every_item(&o.optimized, true, |it| {
                heuristic_item(&mut trial, it, target, verdict, None)
            })
        }
        ScheduleChoice::Given(s) => {
            let p = o.program(s.optimize);
            check_names(p, s)?;
            let by_item = s.by_item();
            every_item(p, s.optimize, |it| named(&by_item, it.name(p)))
        }
        ScheduleChoice::Tuned(s) => {
            let p = o.program(s.optimize);
            let (by_item, mut trial) = (s.by_item(), Trial::new(p));
            every_item(p, s.optimize, |it| {
                let tuned = named(&by_item, it.name(p));
                match trial.fits(it, &tuned, target, verdict) {
                    Ok(()) => tuned,
                    Err(why) => {
                        let used = heuristic_item(&mut trial, it, target, verdict, Some(&tuned));
                        warnings.push(fallback(p, it, &tuned, &used, &why));
                        used
                    }
                }
            })
        }
    };
    Ok(Chosen { schedule, warnings })
}

/// A schedule naming every item of `p`, in order, with `strategy`'s choice.
fn every_item(p: &Program, optimize: bool, mut strategy: impl FnMut(Item) -> Strategy) -> Schedule {
    Schedule {
        optimize,
        items: p
            .items()
            .into_iter()
            .map(|it| (it.name(p).to_string(), strategy(it)))
            .collect(),
    }
}

/// The strategy `by_item` names for `item`, else `default`.
fn named(by_item: &BTreeMap<&str, &Strategy>, item: &str) -> Strategy {
    by_item
        .get(item)
        .map_or(Strategy::Default, |s| (*s).clone())
}

/// The first of `item`'s candidates (other than `skip`) that fits, else `default`.
fn heuristic_item(
    trial: &mut Trial<'_>,
    item: Item,
    target: &Target,
    verdict: Verdict<'_>,
    skip: Option<&Strategy>,
) -> Strategy {
    let root = item.root(trial.program());
    if root.has_structure() {
        return Strategy::Default;
    }
    item_candidates(root, target)
        .into_iter()
        .filter(|c| Some(c) != skip)
        .find(|c| trial.fits(item, c, target, verdict).is_ok())
        .unwrap_or(Strategy::Default)
}

/// E0220: `item`'s tuned strategy no longer fits; it uses `used` instead.
fn fallback(
    p: &Program,
    item: Item,
    tuned: &Strategy,
    used: &Strategy,
    why: &[Diagnostic],
) -> Diagnostic {
    let name = item.name(p);
    let reason = why.first().map_or("it does not compile".to_string(), |d| {
        format!("{}: {}", d.code, d.message)
    });
    Diagnostic::warning(
        "E0220",
        format!("`{name}` falls back from the tuned `{tuned}` to `{used}`"),
    )
    .with_primary(item.span(p), "this item")
    .with_note(format!("the tuned strategy no longer fits: {reason}"))
}

/// Every item of the optimized program that scheduling may choose for (no
/// levels written), with the candidates that fit, best guess first: what
/// `texprc tune` measures and the schedule tests draw from.
pub fn candidates(
    o: &Optimized,
    target: &Target,
    verdict: Verdict<'_>,
) -> Vec<(String, Vec<Strategy>)> {
    let p = &o.optimized;
    let mut trial = Trial::new(p);
    p.items()
        .into_iter()
        .filter(|it| !it.root(p).has_structure())
        .map(|it| {
            let cands = item_candidates(it.root(p), target)
                .into_iter()
                .filter(|s| trial.fits(it, s, target, verdict).is_ok())
                .collect();
            (it.name(p).to_string(), cands)
        })
        .collect()
}
