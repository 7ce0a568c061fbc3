//! Scheduling: maps typed TExpr onto grid, workgroup and thread levels (scheduled TExpr).
//!
//! [`default_schedule`] turns any checked program into a scheduled one (every
//! `compute`, `reduce` and `let` has a level) that the interpreter evaluates
//! to the same result. The passes are listed in [`pipeline`].
//!
//! Error codes (E0200-E0299):
//! - E0201 a top-level let written `@shared` or `@reg`
//! - E0202 a `compute@group`/`reduce@group` wider than the device allows
//! - E0203 a level out of order or a let level in the wrong place
//! - E0204 an unleveled node between a grid and group-level work
//! - E0205 an item too long to distribute with 32-bit indices
//! - E0206 a `compute@grid` nested in another grid (not supported)
//! - E0207 index arithmetic too large to schedule (deeply nested index maps)
//! - E0210 a schedule naming something that is not an item
//! - E0211 a strategy that does not fit the item's shape
//! - E0212 sizes that do not divide as a strategy needs
//! - E0213 a strategy's workgroup wider than the device allows
//! - E0214 a strategy needing more loop iterations per invocation than the device runs
//! - E0215 `combine=subgroup` on a device without subgroup operations
//! - E0216 a strategy needing more workgroup memory than the device has

pub mod cost;
pub mod distribute;
pub mod elem;
pub mod fill;
pub mod fuse_globals;
pub mod globals;
pub mod heuristic;
pub mod inline;
pub mod pipeline;
pub mod recompute;
#[cfg(any(test, feature = "testing"))]
pub mod samples;
pub mod schedule;
pub mod schedule_items;
pub mod simplify;
pub mod simplify_pass;
pub mod strategy;
pub mod subst;
pub mod threads;

pub use pipeline::{PASSES, PassCtx, default_schedule, optimize, prepare, run_passes};
pub use schedule::{Combine, Schedule, ScheduleChoice, Strategy};

#[cfg(test)]
mod pass_tests;
#[cfg(test)]
mod strategy_tests;
#[cfg(test)]
mod tests;
