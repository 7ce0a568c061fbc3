//! WGSL emission for a scheduled program: one module, one entry point per kernel.

pub mod aligned;
pub mod cost;
pub mod ctx;
pub mod elem;
pub mod group;
pub mod index;
pub mod inline;
pub mod kernel;
pub mod lanes;
pub mod lets;
pub mod lit;
pub mod locals;
pub mod module;
pub mod online;
pub mod operand;
pub mod ops;
pub mod prefetch;
pub mod spill;
pub mod vec4;
pub mod wide;
pub mod writer;
