//! Scheduling every item root: the chosen [`Strategy`] for unscheduled
//! roots, completion of the user's schedule for the rest.
//!
//! Expects: a checked program with globals marked (see `globals`).
//! Guarantees: every item root is a `compute@grid` and every `compute`,
//! `reduce` and `let` below it has a level (see `strategy` and `fill`).
//! A strategy may add globals (a multi-pass reduction's partial results).

use crate::fill::fill_levels;
use crate::heuristic::heuristic;
use crate::pipeline::PassCtx;
use crate::schedule::{ScheduleChoice, Strategy};
use crate::strategy::apply;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;

pub fn schedule_items(p: &mut Program, cx: &PassCtx<'_>) -> Result<(), Vec<Diagnostic>> {
    let schedule = match cx.choice {
        ScheduleChoice::Default => None,
        ScheduleChoice::Heuristic => Some(heuristic(p, cx.target)),
        ScheduleChoice::Given(s) => Some(s.clone()),
    };
    if let Some(s) = &schedule {
        crate::strategy::check_names(p, s)?;
    }
    let items = p.items();
    let mut errs = Vec::new();
    // Strategies may insert globals before an item: walk from the back so
    // the positions still to visit stay valid.
    for item in items.into_iter().rev() {
        let root = item.root(p).clone();
        let strategy = schedule
            .as_ref()
            .map_or(Strategy::Default, |s| s.get(item.name(p)));
        let done = if root.has_structure() {
            fill_levels(p, &root, cx.target).map(|e| *item.root_mut(p) = e)
        } else {
            apply(p, item, &strategy, cx.target)
        };
        if let Err(mut e) = done {
            errs.append(&mut e);
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}
