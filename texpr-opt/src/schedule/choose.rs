//! Choosing a schedule: the one place where a [`ScheduleChoice`] becomes a
//! [`Schedule`] that names every item of the program it applies to.
//!
//! - `Default`: the baseline, `optimize = off`, every item `default`.
//! - `Heuristic`: each item's first candidate ([`super::heuristic`]) that
//!   fits the item, the target and code generation (the [`Verdict`]); an
//!   item none fits gets `default`. Then each loop whose steps are small
//!   ([`loop_offer`]) and whose kernel code generation accepts runs whole
//!   in one workgroup: its items `loop`.
//! - `Given` (a pinned schedule): as given, unnamed items `default`; names
//!   that are not items are E0210, and a strategy that does not fit is the
//!   error [`super::apply`] or code generation reports.
//! - `Tuned` (a schedule measured before): each item keeps its strategy if
//!   it still fits; otherwise that item alone falls back to its heuristic
//!   candidates, then `default`, with one warning (E0220) naming the item,
//!   the strategy and why it no longer fits.

use super::apply::{Verdict, check_names};
use super::data::{Schedule, ScheduleChoice, Strategy};
use super::heuristic::{item_candidates, loop_offer};
use super::in_loop::fusable;
use super::trial::Trial;
use crate::optimized::Optimized;
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;
use texpr_ir::{Item, Program};
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
            let mut s = every_item(&o.optimized, true, |it| {
                heuristic_item(&mut trial, it, target, verdict, None)
            });
            whole_loops(&mut trial, &mut s, target, verdict);
            s
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

/// Each loop the heuristic offers to run whole in one workgroup
/// ([`loop_offer`]) and code generation accepts so: its items `loop`.
fn whole_loops(trial: &mut Trial<'_>, s: &mut Schedule, target: &Target, verdict: Verdict<'_>) {
    let p = trial.program();
    for (l, items) in fusable(p) {
        let Some(offer) = loop_offer(p, &items, target) else {
            continue;
        };
        if trial.fits_loop(l, &items, &offer, target, verdict).is_ok() {
            for it in items {
                s.set(it.name(p), offer.clone());
            }
        }
    }
}

/// `loop group=W` for `item` when it is an item of a loop that may run
/// whole in one workgroup: first when the heuristic offers it, else last.
fn with_loop(p: &Program, item: Item, target: &Target, mut cands: Vec<Strategy>) -> Vec<Strategy> {
    let Item::Global(x) = item else {
        return cands;
    };
    let loops = fusable(p);
    let Some((_, items)) = loops.iter().find(|(l, _)| p.globals[x].within == Some(*l)) else {
        return cands;
    };
    match loop_offer(p, items, target) {
        Some(offer) => cands.insert(0, offer),
        None => {
            let w = target.limits.max_group_width().clamp(1, 256);
            cands.push(Strategy::Loop { group: w });
        }
    }
    cands
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
            let cands = with_loop(p, it, target, item_candidates(it.root(p), target))
                .into_iter()
                .filter(|s| trial.fits(it, s, target, verdict).is_ok())
                .collect();
            (it.name(p).to_string(), cands)
        })
        .collect()
}
