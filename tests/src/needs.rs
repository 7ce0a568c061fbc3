//! What a program needs of a target beyond what every target offers, for
//! the tests that compile each example for each built-in target: a target
//! that lacks it must refuse the program with a coded error (E0395 for
//! `f16` without `shader_f16`), which [`refusal`] checks, and a test that
//! names no target compiles it for [`default_target`].

use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_target::Target;

/// Whether `p` holds an `f16` value: an input, or a value an item computes
/// (code generation's own test, `emit::first_f16`).
pub fn uses_f16(p: &Program) -> bool {
    texpr_codegen::emit::first_f16(p, |_| true).is_some()
}

/// Whether `target` lacks a feature `p` needs, so that compiling `p` for
/// it is an error rather than a module.
pub fn lacks(p: &Program, target: &Target) -> bool {
    uses_f16(p) && !target.features.shader_f16
}

/// The target a test that names none compiles `p` for: the default
/// (`wgpu-default`), or, where `p` needs a feature the default lacks, the
/// first built-in target that has it.
pub fn default_target(p: &Program) -> Target {
    let fits = |t: &Target| !lacks(p, t);
    std::iter::once(Target::default())
        .chain(Target::BUILTINS.map(|t| Target::builtin(t).expect("a built-in")))
        .find(fits)
        .expect("some built-in target has every feature")
}

/// Checks what compiling `p` for a `target` that [`lacks`] a feature gave:
/// the coded refusal (E0395) and nothing else. Returns a failure message.
pub fn refusal(
    name: &str,
    target: &Target,
    got: Result<(), Vec<Diagnostic>>,
) -> Result<(), String> {
    match got {
        Err(ds) if !ds.is_empty() && ds.iter().all(|d| d.code == "E0395") => Ok(()),
        Err(ds) => Err(format!(
            "{name} for {}: expected E0395 (f16 without shader_f16), got {ds:#?}",
            target.name
        )),
        Ok(()) => Err(format!(
            "{name} for {}: compiled although the target lacks shader_f16",
            target.name
        )),
    }
}
