//! Kernel planning and WGSL emission for scheduled TExpr; naga validation; the wgpu runtime.

pub mod plan;

pub use plan::{Access, Binding, BufferId, BufferPlan, BufferRole, Kernel, Module};
#[cfg(feature = "runtime")]
pub mod runtime;
