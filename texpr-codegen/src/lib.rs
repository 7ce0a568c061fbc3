//! Kernel planning and WGSL emission for scheduled TExpr; naga validation.
//! Running a plan on a device is `texpr-runtime`'s; this crate names no device API, so it
//! builds for `wasm32-unknown-unknown`.
//!
//! - [`emit`]: a scheduled program to a [`Module`] (WGSL validated by naga,
//!   buffers, kernels with bindings and dispatch), within a target's limits.
//! - [`translate()`]: a module to SPIR-V, MSL, HLSL or GLSL.
//!
//! This crate reads the scheduled IR and the target, nothing of the
//! optimizer: `texpr::compile` is the one call that schedules and emits.
//!
//! Error codes (E0300-E0399):
//! - E0301 an item root that is not a `compute@grid`
//! - E0302 a term index map on a grid (a grid maps only by a layout: truncation, `digits`, `padded`)
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
//! - E0320 a run of more dispatches than the runtime holds (`emit`)
//! - E0390 internal: naga rejects the generated WGSL (message and shader in notes)
//! - E0391 internal: a barrier or subgroup operation in non-uniform control flow
//! - E0392 internal: an unbound variable or vector while emitting
//! - E0393 a naga backend failed to translate the module
//! - E0394 internal: a constant expression of a kernel evaluates to an infinity or a NaN
//! - E0397 kernel IR text that does not read back (`kir::parse`)
//! - E0398 internal: a kernel that does not verify after lowering or a kir pass (`kir::passes`)

mod buffer_id;
mod buffers;
mod checks;
mod consteval;
mod dispatch;
pub mod emit;
mod finite;
mod grid;
mod in_place;
pub mod kir;
mod lower;
pub mod plan;
pub mod plan_json;
pub mod translate;
pub mod validate;

pub use emit::{KernelStats, check_items, emit, emit_with_stats, written_kernels};
pub use plan::{Access, Binding, BufferId, BufferPlan, BufferRole, Kernel, Module};
pub use texpr_target::{DeviceLimits, Target};
pub use translate::{Language, Translated, translate};
