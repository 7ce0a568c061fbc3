//! Integration tests: one binary for the whole pipeline.
mod baselines;
mod block;
mod check;
mod codegen;
mod differential;
mod docs;
mod examples;
mod fuzz;
mod gpu_limits;
mod nonfinite;
mod optimized;
mod parse;
mod runtime;
mod schedules;
mod shaders;
mod tolerance;
