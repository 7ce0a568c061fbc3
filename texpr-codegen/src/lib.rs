//! Kernel planning and WGSL emission for scheduled TExpr; naga validation; the wgpu runtime.
//!
//! - [`emit`]: a scheduled program to a [`Module`] (WGSL validated by naga,
//!   buffers, kernels with bindings and dispatch).
//! - [`compile`]: the optimizer (schedule as [`Options::schedule`] says) then [`emit`]; [`compile_source`]: the
//!   front end first.
//! - [`translate()`]: a module to SPIR-V, MSL, HLSL or GLSL.
//!
//! Compiling source text with options, and reading the kernels and the buffer
//! plan (running them is in [`runtime`], feature `runtime`):
//!
//! ```
//! use texpr_codegen::{BufferRole, Options, ScheduleChoice, compile_source};
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
//! println!("{}", texpr_syntax::print::program(&compiled.scheduled));
//! ```
//!
//! Error codes (E0300-E0399):
//! - E0301 an item root that is not a `compute@grid`
//! - E0302 an index map on a grid other than a truncation `{k < L -> k}`
//! - E0303 a `let@shared` off the grid body's spine, or `let@global` in an expression
//! - E0304 a node without a level (not scheduled)
//! - E0305 a grid too large for a dispatch even folded into x / y / z
//! - E0310 workgroup memory over the limit
//! - E0311 invocations per workgroup over the limit
//! - E0312 workgroup size x over the limit
//! - E0313 storage buffers per kernel over the limit
//! - E0314 a buffer over the storage binding size limit
//! - E0315 a buffer over the buffer size limit
//! - E0316 more loop iterations per invocation than the device runs
//! - E0317 a `reduce@subgroup` on a device without subgroup operations
//! - E0318 function memory per invocation (arrays, register vectors) over the device's budget
//! - E0319 statements added by unrolling over the device's budget
//! - E0390 internal: naga rejects the generated WGSL (message and shader in notes)
//! - E0391 internal: a barrier or subgroup operation in non-uniform control flow
//! - E0392 internal: an unbound variable or vector while emitting
//! - E0393 a naga backend failed to translate the module

pub mod buffers;
pub mod checks;
pub mod dispatch;
pub mod emit;
pub mod plan;
pub mod shape;
pub mod term;
pub mod translate;
pub mod validate;
pub mod wgsl;

pub use emit::{KernelStats, emit, emit_with_stats};
pub use plan::{Access, Binding, BufferId, BufferPlan, BufferRole, Kernel, Module};
pub use texpr_opt::{Combine, DeviceLimits, Schedule, ScheduleChoice, Strategy};
pub use translate::{Target, Translated, translate};

use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;

/// What to compile for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub limits: DeviceLimits,
    /// `-D NAME=VALUE` param overrides.
    pub overrides: Vec<(String, i64)>,
    /// Which schedule: the default one, the heuristic's (the default), or a given one.
    pub schedule: ScheduleChoice,
}

/// A compiled program: the scheduled TExpr and its kernel plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    pub scheduled: Program,
    pub module: Module,
}

/// The optimizer with the schedule `opts` chooses, then [`emit`].
pub fn compile(program: &Program, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let scheduled = texpr_opt::optimize(program, &opts.limits, &opts.schedule)?;
    let module = emit(&scheduled, &opts.limits)?;
    Ok(Compiled { scheduled, module })
}

/// Parses, checks and compiles TExpr source.
pub fn compile_source(src: &str, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let program = texpr_syntax::frontend(src, &opts.overrides)?;
    compile(&program, opts)
}

#[cfg(feature = "runtime")]
pub mod runtime;

#[cfg(test)]
mod tests;
