//! The kernel IR's passes, run in order on every kernel lowering builds
//! (`lower/item.rs::finish`, which `emit`, the optimizer's verdict and
//! `--emit kir` all go through), one pass a file, each
//! `fn(&mut Kernel, &Target) -> Result<(), Vec<Diagnostic>>`: what it
//! decides comes from the kernel (the schedule's choices lowering wrote
//! into it) and the [`Target`], never from a device's kind.
//!
//! [`PASSES`] is the order. [`run`] verifies the kernel ([`verify`]) before
//! the first pass and after each, in every build profile: a pass that
//! breaks an invariant is an internal error (E0398) naming it. A pass's
//! own errors (a budget exceeded) are collected and the passes after it
//! still run, so that one compile reports every limit a kernel exceeds.
//!
//! Each pass has filetests in `tests/data/kir/<pass>/` (kernel IR in,
//! kernel IR out; `tests/it/kir_passes.rs`).

mod check_bindings;
mod check_loops;
mod check_workgroup;
mod order_bindings;
mod spell_nonfinite;

pub use check_bindings::check_bindings;
pub use check_loops::{check_loops, loop_iterations};
pub use check_workgroup::{check_workgroup, workgroup_bytes};
pub use order_bindings::order_bindings;
pub use spell_nonfinite::{needs_runtime, spell_nonfinite};

use super::{Kernel, verify};
use texpr_ir::Diagnostic;
use texpr_target::Target;

/// What a pass returns: its errors, if any.
pub type Outcome = Result<(), Vec<Diagnostic>>;

/// A pass over one kernel.
pub type Pass = fn(&mut Kernel, &Target) -> Outcome;

/// Every pass, in the order [`run`] runs them.
pub const PASSES: &[(&str, Pass)] = &[
    ("spell_nonfinite", spell_nonfinite),
    ("order_bindings", order_bindings),
    ("check_workgroup", check_workgroup),
    ("check_loops", check_loops),
    ("check_bindings", check_bindings),
];

/// The pass named `name`.
pub fn by_name(name: &str) -> Option<Pass> {
    PASSES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// Runs every pass on `k` in order, verifying it before and after each.
pub fn run(k: &mut Kernel, target: &Target) -> Outcome {
    run_with(k, target, PASSES, &mut |_, _| {})
}

/// Runs `passes` on `k` in order, verifying `k` before the first and after
/// each, and calling `after(name, k)` after each (`--dump-after`'s hook).
/// Errors of the passes are collected; a kernel that does not verify stops
/// the run (E0398).
pub fn run_with(
    k: &mut Kernel,
    target: &Target,
    passes: &[(&str, Pass)],
    after: &mut dyn FnMut(&str, &Kernel),
) -> Outcome {
    checked(k, "lowering")?;
    let mut errs = Vec::new();
    for (name, pass) in passes {
        if let Err(e) = pass(k, target) {
            errs.extend(e);
        }
        checked(k, name)?;
        after(name, k);
    }
    match errs.is_empty() {
        true => Ok(()),
        false => Err(errs),
    }
}

/// E0398 when `k` does not verify after `stage`.
fn checked(k: &Kernel, stage: &str) -> Outcome {
    let errs = verify(k);
    if errs.is_empty() {
        return Ok(());
    }
    Err(vec![
        Diagnostic::error(
            "E0398",
            format!(
                "internal error: kernel `{}` does not verify after {stage}",
                k.name
            ),
        )
        .with_note(errs.join("; ")),
    ])
}
