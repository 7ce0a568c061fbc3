//! The kernel IR's passes, run in order on every kernel lowering builds
//! (`lower/item.rs::finish`, which `emit`, the optimizer's verdict and
//! `--emit kir` all go through), one pass a file: a rewrite,
//! `fn(&mut Kernel, &Target) -> Result<bool, Vec<Diagnostic>>` (whether it
//! changed the kernel), or a check, `fn(&Kernel, &Target) -> Result<(),
//! Vec<Diagnostic>>`. What a pass decides comes from the kernel (the
//! schedule's choices lowering wrote into it) and the [`Target`], never
//! from a device's kind.
//!
//! [`PASSES`] is the order. [`run`] verifies the kernel ([`verify`]) after
//! lowering and after each rewrite that changed it, in every build profile
//! (a check cannot change it): a pass that breaks an invariant is an
//! internal error (E0398) naming it. A pass's own errors (a budget
//! exceeded) are collected and the passes after it still run, so that one
//! compile reports every limit a kernel exceeds.
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

/// What a check returns: its errors, if any.
pub type Outcome = Result<(), Vec<Diagnostic>>;

/// What a rewrite returns: whether it changed the kernel, or its errors.
pub type Rewritten = Result<bool, Vec<Diagnostic>>;

/// A pass over one kernel.
#[derive(Clone, Copy, Debug)]
pub enum Pass {
    /// Rewrites the kernel (verified after, when it changed it).
    Rewrite(fn(&mut Kernel, &Target) -> Rewritten),
    /// Reads it only.
    Check(fn(&Kernel, &Target) -> Outcome),
}

/// Every pass, in the order [`run`] runs them.
pub const PASSES: &[(&str, Pass)] = &[
    ("spell_nonfinite", Pass::Rewrite(spell_nonfinite)),
    ("order_bindings", Pass::Rewrite(order_bindings)),
    ("check_workgroup", Pass::Check(check_workgroup)),
    ("check_loops", Pass::Check(check_loops)),
    ("check_bindings", Pass::Check(check_bindings)),
];

/// The pass named `name`.
pub fn by_name(name: &str) -> Option<Pass> {
    PASSES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// Runs every pass on `k` in order, verifying it first and after each
/// rewrite that changed it.
pub fn run(k: &mut Kernel, target: &Target) -> Outcome {
    run_with(k, target, PASSES, &mut |_, _| {})
}

/// Runs `passes` on `k` in order, verifying `k` before the first and after
/// each rewrite that changed it, and calling `after(name, k)` after each
/// pass.
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
        let outcome = match pass {
            Pass::Rewrite(rewrite) => match rewrite(k, target) {
                Ok(false) => Ok(()),
                changed => {
                    checked(k, name)?;
                    changed.map(|_| ())
                }
            },
            Pass::Check(check) => check(k, target),
        };
        if let Err(e) = outcome {
            errs.extend(e);
        }
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
