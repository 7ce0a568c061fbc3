//! Execution of block programs: the dense reference, tiled execution, and distributed runs over ranks.
//!
//! A distributed run ([`Job`]) runs every rank with the same executor
//! ([`rank::run_rank`]): its tiles live on its own [`device`] for the whole
//! run, its tasks run in plan order, and every byte between ranks moves as
//! a message of the run's [`comm::CommPlan`] over a [`transport`]: threads
//! of one process ([`threads::run_threads`]) or MPI processes (feature `mpi`).

pub mod comm;
pub mod dense;
pub mod device;
pub mod gather;
pub mod job;
pub mod local_part;
pub mod outbox;
pub mod panels;
pub mod partials;
pub mod random;
pub mod rank;
pub mod reference;
pub mod residual;
pub mod runner;
pub mod source;
pub mod stats;
pub mod threads;
pub mod tiled;
pub mod transport;

pub use dense::{Matrix, eval_dense, max_rel_diff, random_inputs};
pub use gather::Gathered;
pub use job::Job;
pub use local_part::LocalPart;
pub use outbox::RankError;
pub use rank::{RankOutcome, run_rank};
pub use runner::{InterpRunner, KernelRunner};
pub use source::{DenseSource, RandomSource, TileSource};
pub use stats::RankStats;
pub use threads::{RunOutcome, run_threads};
pub use tiled::{Tiles, run_tiled};

#[cfg(test)]
mod tests;
