//! WGSL emission for a scheduled program: one module, one entry point per kernel.

pub mod ctx;
pub mod elem;
pub mod index;
pub mod kernel;
pub mod lit;
pub mod module;
pub mod ops;
pub mod vec4;
pub mod writer;
