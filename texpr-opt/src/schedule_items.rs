//! Scheduling every item root: the chosen [`Strategy`] for unscheduled
//! roots, completion of the user's schedule for the rest.
//!
//! Expects: a checked program with globals marked (see `globals`).
//! Guarantees: every item root is a `compute@grid` and every `compute`,
//! `reduce` and `let` below it has a level (see `strategy` and `fill`).
//! A strategy may add globals (a multi-pass reduction's partial results).

use crate::fill::{fill_levels, has_structure};
use crate::heuristic::heuristic;
use crate::pipeline::PassCtx;
use crate::schedule::{ScheduleChoice, Strategy};
use crate::strategy::{Item, apply};
use std::collections::BTreeMap;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;

pub fn schedule_items(p: &mut Program, cx: &PassCtx<'_>) -> Result<(), Vec<Diagnostic>> {
    let schedule = match cx.choice {
        ScheduleChoice::Default => None,
        ScheduleChoice::Heuristic => Some(heuristic(p, cx.limits)),
        ScheduleChoice::Given(s) => Some(s.clone()),
    };
    if let Some(s) = &schedule {
        crate::strategy::check_names(p, s)?;
    }
    // The last strategy named for an item wins, as `Schedule::get` finds it.
    let named: BTreeMap<String, Strategy> = schedule
        .iter()
        .flat_map(|s| s.items.iter().cloned())
        .collect();
    let mut items: Vec<Item> = (0..p.globals.len()).map(Item::Global).collect();
    items.extend((0..p.outputs.len()).map(Item::Output));
    let mut errs = Vec::new();
    // Strategies may insert globals before an item: walk from the back so
    // the positions still to visit stay valid.
    for item in items.into_iter().rev() {
        let root = item.root(p).clone();
        let strategy = named
            .get(item.name(p))
            .cloned()
            .unwrap_or(Strategy::Default);
        let done = if has_structure(&root) {
            fill_levels(p, &root, cx.limits).map(|e| *item.root_mut(p) = e)
        } else {
            apply(p, item, &strategy, cx.limits)
        };
        if let Err(mut e) = done {
            errs.append(&mut e);
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}
