//! The optimizer as an ordered list of passes.
//!
//! 1. `mark_globals` — top-level lets become `let@global` buffers.
//! 2. `simplify` (optimizing) — index terms simplified, exact expression
//!    identities folded (`simplify_pass`).
//! 3. `inline` (optimizing) — expression `let`s recomputed per element where
//!    that is no dearer than storing them (`inline`).
//! 4. `fuse_globals` (optimizing) — elementwise top-level lets fused into
//!    the items that read them (`fuse_globals`).
//! 5. `schedule_items` — every item root is mapped onto grid / group /
//!    thread by its [`Strategy`](crate::schedule::Strategy) (`strategy`), or
//!    the user's partial schedule is completed and checked (`fill`).
//!
//! Passes marked `optimizing` run only when a schedule other than
//! [`ScheduleChoice::Default`] is asked for: the default schedule is the
//! baseline the optimizer is measured against.
//!
//! [`run_passes`] calls a hook after each pass, so tests can verify or dump
//! the program in the middle of the pipeline (`texprc compile --dump-after`).

use crate::fuse_globals::fuse_globals;
use crate::globals::mark_globals;
use crate::inline::inline_lets;
use crate::schedule::ScheduleChoice;
use crate::schedule_items::schedule_items;
use crate::simplify_pass::simplify_program;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;
use texpr_target::Target;

/// What every pass may read.
#[derive(Clone, Copy, Debug)]
pub struct PassCtx<'a> {
    pub target: &'a Target,
    pub choice: &'a ScheduleChoice,
}

/// One pass: the rewrite.
pub type PassFn = fn(&mut Program, &PassCtx<'_>) -> Result<(), Vec<Diagnostic>>;

/// A pass of the pipeline.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    pub name: &'static str,
    /// Skipped for the default schedule.
    pub optimizing: bool,
    /// Runs before scheduling (its output is what schedules name items of).
    pub before_scheduling: bool,
    pub run: PassFn,
}

/// The passes, in order.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "mark_globals",
        optimizing: false,
        before_scheduling: true,
        run: |p, _| mark_globals(p),
    },
    Pass {
        name: "simplify",
        optimizing: true,
        before_scheduling: true,
        run: simplify_program,
    },
    Pass {
        name: "inline",
        optimizing: true,
        before_scheduling: true,
        run: inline_lets,
    },
    Pass {
        name: "fuse_globals",
        optimizing: true,
        before_scheduling: true,
        run: fuse_globals,
    },
    Pass {
        name: "schedule_items",
        optimizing: false,
        before_scheduling: false,
        run: schedule_items,
    },
];

/// The names of the passes, in order (for `--dump-after`).
pub fn pass_names() -> Vec<&'static str> {
    PASSES.iter().map(|p| p.name).collect()
}

/// Runs the pipeline on a copy of `p`, calling `after(name, program)` after each pass.
pub fn run_passes(
    p: &Program,
    target: &Target,
    choice: &ScheduleChoice,
    mut after: impl FnMut(&str, &Program),
) -> Result<Program, Vec<Diagnostic>> {
    let cx = PassCtx { target, choice };
    let mut p = p.clone();
    for pass in PASSES {
        if pass.optimizing && *choice == ScheduleChoice::Default {
            continue;
        }
        (pass.run)(&mut p, &cx)?;
        after(pass.name, &p);
    }
    Ok(p)
}

/// The program as scheduling sees it: every pass before `schedule_items`
/// (the items a [`Schedule`](crate::schedule::Schedule) names are its items).
pub fn prepare(p: &Program, target: &Target) -> Result<Program, Vec<Diagnostic>> {
    let choice = ScheduleChoice::Heuristic;
    let cx = PassCtx {
        target,
        choice: &choice,
    };
    let mut p = p.clone();
    for pass in PASSES.iter().filter(|p| p.before_scheduling) {
        (pass.run)(&mut p, &cx)?;
    }
    Ok(p)
}

/// Optimizes and schedules `p` as `choice` says.
pub fn optimize(
    p: &Program,
    target: &Target,
    choice: &ScheduleChoice,
) -> Result<Program, Vec<Diagnostic>> {
    run_passes(p, target, choice, |_, _| {})
}

/// Turns any checked program into a scheduled one that means the same, one
/// element per invocation (the baseline).
pub fn default_schedule(p: &Program, target: &Target) -> Result<Program, Vec<Diagnostic>> {
    optimize(p, target, &ScheduleChoice::Default)
}
