//! Execution of block programs: the dense reference, kernel runners, tiled and distributed execution.

pub mod dense;
pub mod distributed;
pub mod gpu;
pub mod runner;
pub mod tiled;

pub use dense::{Matrix, eval_dense, max_rel_diff, random_inputs};
pub use distributed::{RunReport, run_plan};
pub use runner::{InterpRunner, KernelRunner, check_kernel};
pub use tiled::{Tiles, run_tiled};
