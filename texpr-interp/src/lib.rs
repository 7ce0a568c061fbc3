//! The reference interpreter: evaluates any typed TExpr program on the CPU with WGSL semantics.
//!
//! The interpreter defines what a program means (docs/language.md, "Meaning"):
//! every optimisation must leave its result unchanged and every GPU result is
//! compared with it. Levels are ignored, so a scheduled program means the same
//! as the program it was scheduled from.
//!
//! - [`eval`] runs a program on input vectors and returns its outputs;
//! - [`footprint`] bounds the memory and operations of an evaluation before it starts;
//! - [`random_inputs`] makes deterministic test inputs for a program;
//! - [`Value`] / [`Data`] are the vectors going in and out;
//! - [`accuracy`] says how close another evaluation (the GPU's) must be;
//! - [`EvalError`] says why a run failed (wrong inputs, or a malformed
//!   program that the checker would have rejected).

pub mod accuracy;
mod columns;
mod error;
mod eval;
mod eval_lanes;
mod eval_lanes_loops;
mod eval_lazy;
mod eval_loop;
mod eval_read;
mod eval_vector;
mod footprint;
mod index;
mod random;
mod scalar;
#[cfg(test)]
mod scalar_tests;
mod shadow;
mod value;

pub use error::EvalError;
pub use eval::{eval, eval_by_element, eval_elements};
pub use footprint::{Footprint, footprint};
pub use index::eval_term;
pub use random::random_inputs;
pub use scalar::Sc;
pub use value::{Data, Value};
