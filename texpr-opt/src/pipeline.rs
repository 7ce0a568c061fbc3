//! The optimizer as one pipeline with three verbs:
//!
//! 1. [`optimize`]: the passes of [`PASSES`], in order, for a target (whose
//!    limits fusion respects), giving the program before and after the
//!    optimizing ones ([`Optimized`]);
//! 2. [`choose`]: a [`ScheduleChoice`] to a [`Schedule`] naming every item
//!    (the only place a schedule is chosen: `texprc` compile, run, bench
//!    and tune all come here, through `texpr::choose`);
//! 3. [`apply`]: the schedule carried out, giving the scheduled program.
//!
//! In debug builds (tests included) the IR verifier runs after every pass
//! and after `apply` on a program it accepted before them; a program a pass
//! leaves that it rejects is an internal error (E0299).
//! [`optimize_with`] and [`apply_with`] call a hook after each pass
//! (`texprc compile --dump-after PASS`).

use crate::optimized::Optimized;
use crate::passes::{fuse_globals, inline, mark_globals, shift_lse, simplify};
use crate::schedule::apply::{Verdict, accept_all, apply_all};
pub use crate::schedule::choose::choose;
use crate::schedule::data::{Schedule, ScheduleChoice};
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_target::Target;

/// One pass: the rewrite, for the target the program is compiled for (most
/// passes do not read it; `fuse_globals` keeps kernels within its limits).
pub type PassFn = fn(&mut Program, &Target) -> Result<(), Vec<Diagnostic>>;

/// A pass of the pipeline.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    pub name: &'static str,
    /// Skipped by the baseline schedule.
    pub optimizing: bool,
    pub run: PassFn,
}

/// The passes before scheduling, in order.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "mark_globals",
        optimizing: false,
        run: |p, _| mark_globals(p),
    },
    Pass {
        name: "shift_lse",
        optimizing: false,
        run: |p, _| shift_lse(p),
    },
    Pass {
        name: "simplify",
        optimizing: true,
        run: |p, _| simplify(p),
    },
    Pass {
        name: "inline",
        optimizing: true,
        run: |p, _| inline(p),
    },
    Pass {
        name: "fuse_globals",
        optimizing: true,
        run: fuse_globals,
    },
];

/// The program as the passes that change rounding (not meaning) leave it,
/// when they change it: what a device runs in place of `p` in real
/// arithmetic, for the interpreter's tolerance
/// (`texpr_interp::accuracy::reference_rewritten`). Today `shift_lse`.
pub fn rounding_rewrite(p: &Program) -> Option<Program> {
    let mut q = p.clone();
    shift_lse(&mut q).ok()?;
    (q != *p).then_some(q)
}

/// The name of the last step, [`apply`], for hooks and `--dump-after`.
pub const APPLY: &str = "apply";

/// Every step's name, in order (for `--dump-after`).
pub fn pass_names() -> Vec<&'static str> {
    PASSES.iter().map(|p| p.name).chain([APPLY]).collect()
}

/// The passes of [`PASSES`] on a copy of `p`, compiled for `target`.
pub fn optimize(p: &Program, target: &Target) -> Result<Optimized, Vec<Diagnostic>> {
    optimize_with(p, target, &mut |_, _| {})
}

/// [`optimize`], calling `after(name, program)` after each pass.
pub fn optimize_with(
    p: &Program,
    target: &Target,
    after: &mut dyn FnMut(&str, &Program),
) -> Result<Optimized, Vec<Diagnostic>> {
    let mut q = p.clone();
    let mut baseline = None;
    let check = verifies(p);
    for pass in PASSES {
        if pass.optimizing && baseline.is_none() {
            baseline = Some(q.clone());
        }
        (pass.run)(&mut q, target)?;
        if check {
            verified(pass.name, &q)?;
        }
        after(pass.name, &q);
    }
    Ok(Optimized {
        baseline: baseline.unwrap_or_else(|| q.clone()),
        optimized: q,
    })
}

/// The program `s` applies to, scheduled as `s` says.
pub fn apply(o: &Optimized, target: &Target, s: &Schedule) -> Result<Program, Vec<Diagnostic>> {
    apply_with(o, target, s, &mut |_, _| {})
}

/// [`apply`], calling `after(APPLY, program)` once it is done.
pub fn apply_with(
    o: &Optimized,
    target: &Target,
    s: &Schedule,
    after: &mut dyn FnMut(&str, &Program),
) -> Result<Program, Vec<Diagnostic>> {
    let mut q = o.program(s.optimize).clone();
    let check = verifies(&q);
    apply_all(&mut q, s, target)?;
    if check {
        verified(APPLY, &q)?;
    }
    after(APPLY, &q);
    Ok(q)
}

/// All three verbs with the optimizer's own checks only (no code
/// generation's verdict): for callers and tests without a code generator.
pub fn schedule(
    p: &Program,
    target: &Target,
    choice: &ScheduleChoice,
) -> Result<Program, Vec<Diagnostic>> {
    run_with(p, target, choice, &accept_all, &mut |_, _| {})
}

/// All three verbs, calling `after(name, program)` after every step the
/// chosen schedule runs (the baseline runs no optimizing pass), `apply`
/// last: what `texprc compile --dump-after` shows.
pub fn run_with(
    p: &Program,
    target: &Target,
    choice: &ScheduleChoice,
    verdict: Verdict<'_>,
    after: &mut dyn FnMut(&str, &Program),
) -> Result<Program, Vec<Diagnostic>> {
    let mut seen: Vec<(&'static str, Program)> = Vec::new();
    let o = optimize_with(p, target, &mut |name, q| {
        let pass = PASSES.iter().find(|x| x.name == name).expect("a pass");
        seen.push((pass.name, q.clone()));
    })?;
    let chosen = choose(&o, target, choice, verdict)?;
    for (name, q) in &seen {
        let optimizing = PASSES.iter().any(|x| x.name == *name && x.optimizing);
        if chosen.schedule.optimize || !optimizing {
            after(name, q);
        }
    }
    apply_with(&o, target, &chosen.schedule, after)
}

/// Whether, in a debug build, the passes' output is verified: when the
/// verifier accepts their input (a hand-built program it rejects is the
/// later stages' to report, not the passes').
fn verifies(p: &Program) -> bool {
    cfg!(debug_assertions) && texpr_ir::verify(p).is_ok()
}

/// E0299 when the verifier rejects `p` after `pass`.
fn verified(pass: &str, p: &Program) -> Result<(), Vec<Diagnostic>> {
    texpr_ir::verify(p).map_err(|errs| {
        let mut d = Diagnostic::error(
            "E0299",
            format!("internal error: the program does not verify after `{pass}`"),
        );
        for e in errs {
            d = d.with_note(format!("{}: {}", e.code, e.message));
        }
        vec![d]
    })
}
