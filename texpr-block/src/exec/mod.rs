//! Execution of block programs: the dense reference and tiled execution.

pub mod dense;

pub use dense::{Matrix, eval_dense, max_rel_diff, random_inputs};
