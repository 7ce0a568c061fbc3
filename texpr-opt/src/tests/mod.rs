//! The optimizer's unit tests: the default schedule ([`default`]), the
//! passes ([`passes`]) and the strategies ([`strategies`]), with the
//! shorthands over the three verbs they share.

mod chains;
mod choose;
mod contraction;
mod default;
mod in_loop;
mod passes;
mod staging;
mod strategies;
mod transpose;

use crate::schedule::choose::candidates as fitting;
use crate::{ScheduleChoice, accept_all, apply, choose, optimize};
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_target::Target;

/// A CPU adapter with lavapipe's invocation limits and loop budget (and its
/// subgroups, when asked).
pub fn cpu(subgroups: bool) -> Target {
    let mut t = Target::default();
    t.limits.max_invocations_per_workgroup = 1024;
    t.limits.max_workgroup_size = [1024, 1024, 64];
    t.limits.max_loop_iterations = Some(65_535);
    t.features.subgroup_size = subgroups.then_some((8, 8));
    t.profile.kind = texpr_target::DeviceKind::Cpu;
    t
}

/// The baseline schedule of `p`.
pub fn default_schedule(p: &Program, target: &Target) -> Result<Program, Vec<Diagnostic>> {
    crate::schedule(p, target, &ScheduleChoice::Default)
}

/// `p` scheduled as `choice` says, without code generation's verdict.
pub fn scheduled(
    p: &Program,
    target: &Target,
    choice: &ScheduleChoice,
) -> Result<Program, Vec<Diagnostic>> {
    crate::schedule(p, target, choice)
}

/// The three verbs, calling `after` after every pass the choice runs and
/// after `apply` (a baseline schedule runs no optimizing pass).
pub fn run_passes(
    p: &Program,
    target: &Target,
    choice: &ScheduleChoice,
    mut after: impl FnMut(&str, &Program),
) -> Result<Program, Vec<Diagnostic>> {
    crate::pipeline::run_with(p, target, choice, &accept_all, &mut after)
}

/// The program as scheduling sees it (after every pass).
pub fn prepare(p: &Program) -> Result<Program, Vec<Diagnostic>> {
    optimize(p, &Target::default()).map(|o| o.optimized)
}

/// The heuristic's schedule of `p` on `target`.
pub fn heuristic(p: &Program, target: &Target) -> crate::Schedule {
    let o = optimize(p, target).expect("the passes run");
    choose(&o, target, &ScheduleChoice::Heuristic, &accept_all)
        .expect("the heuristic chooses")
        .schedule
}

/// Every item's fitting candidates, as `texprc tune` sees them.
pub fn candidates(p: &Program, target: &Target) -> Vec<(String, Vec<crate::Strategy>)> {
    let o = optimize(p, target).expect("the passes run");
    fitting(&o, target, &accept_all)
}

/// The scheduled program of `o` under `s` (for tests that inspect one).
#[allow(dead_code)]
pub fn applied(
    p: &Program,
    target: &Target,
    s: &crate::Schedule,
) -> Result<Program, Vec<Diagnostic>> {
    apply(&optimize(p, target)?, target, s)
}
