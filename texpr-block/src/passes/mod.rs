//! The pass pipeline over block programs, with an environment the passes share.

pub mod annotate;
pub mod broadcast;
pub mod cse;
pub mod dce;
pub mod env;
pub mod fuse_elementwise;
pub mod fuse_epilogue;
pub mod pipeline;
pub mod rewrite;
pub mod stats;

#[cfg(test)]
mod tests;

pub use env::{Env, EnvValue};
pub use pipeline::{PASSES, Stages, optimize, run};
