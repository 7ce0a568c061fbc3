//! The default schedule as an ordered list of passes.
//!
//! 1. `mark_globals` — top-level lets become `let@global` buffers.
//! 2. `schedule_items` — every item root is distributed over grid / group /
//!    thread (`distribute`, using element extraction `elem`), or the user's
//!    partial schedule is completed and checked (`fill`).
//!
//! [`run_passes`] calls a hook after each pass, so tests can verify or dump
//! the program in the middle of the pipeline.

use crate::globals::mark_globals;
use crate::limits::DeviceLimits;
use crate::schedule_items::schedule_items;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;

/// One pass: a name and the rewrite.
pub type Pass = fn(&mut Program, &DeviceLimits) -> Result<(), Vec<Diagnostic>>;

/// The passes of the default schedule, in order.
pub const PASSES: &[(&str, Pass)] = &[
    ("mark_globals", |p, _| mark_globals(p)),
    ("schedule_items", schedule_items),
];

/// Runs every pass on a copy of `p`, calling `after(name, program)` after each.
pub fn run_passes(
    p: &Program,
    limits: &DeviceLimits,
    mut after: impl FnMut(&str, &Program),
) -> Result<Program, Vec<Diagnostic>> {
    let mut p = p.clone();
    for (name, pass) in PASSES {
        pass(&mut p, limits)?;
        after(name, &p);
    }
    Ok(p)
}

/// Turns any checked program into a scheduled one that means the same.
pub fn default_schedule(p: &Program, limits: &DeviceLimits) -> Result<Program, Vec<Diagnostic>> {
    run_passes(p, limits, |_, _| {})
}
