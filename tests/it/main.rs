//! Integration tests: one binary for the whole pipeline.
mod baselines;
mod block;
mod check;
mod codegen;
mod device_loss;
mod differential;
mod examples;
mod folds;
mod fuzz;
mod gpu_limits;
mod optimized;
mod parse;
mod repro;
mod runtime;
mod schedules;
mod shaders;
mod tolerance;
