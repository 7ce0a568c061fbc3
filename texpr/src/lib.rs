//! TExpr in one call: the front end, the optimizer and the code generator
//! behind [`compile`] and [`compile_source`].
//!
//! The layers below each do one job (`texpr-syntax` text to typed IR,
//! `texpr-opt` typed IR to scheduled IR, `texpr-codegen` scheduled IR to
//! WGSL and kernels, `texpr-target` what a device allows); this crate is
//! where they meet, so that none of them depends on another's internals.
//!
//! Compiling source text with options, and reading the kernels and the buffer
//! plan (running them is in `texpr_runtime`):
//!
//! ```
//! use texpr::{BufferRole, Options, ScheduleChoice, compile_source};
//!
//! let src = "param N = 1000\ninput x: f32[N]\noutput y = compute N |i| exp(x[i]) * 2.0";
//! let opts = Options { overrides: vec![("N".into(), 4096)], ..Options::default() };
//! let compiled = compile_source(src, &opts).expect("compiles");
//! let module = &compiled.module;
//! assert!(module.wgsl.contains("@compute"));
//! let kernel = &module.kernels[0];
//! assert_eq!(kernel.workgroup_size, [256, 1, 1]);
//! assert_eq!(kernel.dispatch, [4, 1, 1]); // the heuristic: 4 elements per invocation
//!
//! // The baseline schedule: one element per invocation.
//! let base = Options { schedule: ScheduleChoice::Default, ..opts.clone() };
//! assert_eq!(compile_source(src, &base).unwrap().module.kernels[0].dispatch, [16, 1, 1]);
//! assert_eq!(module.buffers[0].role, BufferRole::Input(0));
//! assert_eq!(module.buffers[1].len, 4096);
//! println!("{}", texpr_ir::print::program(&compiled.scheduled));
//! ```

pub use texpr_codegen::{
    Access, Binding, BufferId, BufferPlan, BufferRole, Kernel, Language, Module, Translated,
    translate,
};
pub use texpr_opt::schedule::text::syntax as schedule_syntax;
pub use texpr_opt::{
    Chosen, Combine, Optimized, Schedule, ScheduleChoice, Staging, Strategy, optimize,
};
pub use texpr_target::{DeviceLimits, Target};

use texpr_ir::Diagnostic;
use texpr_ir::Program;

/// What to compile for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The device: limits, features and profile.
    pub target: Target,
    /// `-D NAME=VALUE` param overrides.
    pub overrides: Vec<(String, i64)>,
    /// Which schedule: the default one, the heuristic's (the default), or a given one.
    pub schedule: ScheduleChoice,
}

/// A compiled program: the schedule used, the scheduled TExpr, its kernel
/// plan, and the warnings choosing the schedule gave (E0220: an item that
/// fell back from a tuned strategy).
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    pub schedule: Schedule,
    pub scheduled: Program,
    pub module: Module,
    pub warnings: Vec<Diagnostic>,
}

/// The optimizer's three verbs (optimize, choose, apply) with the schedule
/// `opts` asks for, then code generation.
pub fn compile(program: &Program, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let optimized = optimize(program, &opts.target)?;
    let chosen = choose(&optimized, &opts.target, &opts.schedule)?;
    let scheduled = texpr_opt::apply(&optimized, &opts.target, &chosen.schedule)?;
    let module = texpr_codegen::emit(&scheduled, &opts.target)?;
    Ok(Compiled {
        schedule: chosen.schedule,
        scheduled,
        module,
        warnings: chosen.warnings,
    })
}

/// The schedule `choice` gives for `optimized` on `target`, each candidate
/// judged by the optimizer and by code generation (the kernels it would
/// write must pass the target's checks): `texpr_opt::choose` with code
/// generation's verdict.
pub fn choose(
    optimized: &Optimized,
    target: &Target,
    choice: &ScheduleChoice,
) -> Result<Chosen, Vec<Diagnostic>> {
    texpr_opt::choose(optimized, target, choice, &verdict(target))
}

/// Every item's candidate strategies that the optimizer and code generation
/// accept on `target`, best guess first (what `texprc tune` measures).
pub fn candidates(optimized: &Optimized, target: &Target) -> Vec<(String, Vec<Strategy>)> {
    texpr_opt::schedule::choose::candidates(optimized, target, &verdict(target))
}

/// Code generation's verdict on scheduled items for `target`
/// (`texpr_codegen::check_items`), for the optimizer's `Verdict`.
pub fn verdict(
    target: &Target,
) -> impl Fn(&Program, &[String]) -> Result<(), Vec<Diagnostic>> + '_ {
    move |p, items| texpr_codegen::check_items(p, target, items)
}

/// Parses, checks and compiles TExpr source.
pub fn compile_source(src: &str, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let program = texpr_syntax::frontend(src, &opts.overrides)?;
    compile(&program, opts)
}

#[cfg(test)]
mod compose_tests;
#[cfg(test)]
mod tests;
