//! Integration tests: one binary for the whole pipeline.
mod runtime;
mod differential;
mod tolerance;
mod check;
mod gpu_limits;
mod codegen;
mod block;
mod fuzz;
mod parse;
mod shaders;
mod examples;
