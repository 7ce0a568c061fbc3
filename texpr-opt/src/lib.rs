//! The optimizer: typed TExpr to scheduled TExpr, mapped onto grid,
//! workgroup and thread levels for a [`Target`](texpr_target::Target).
//!
//! One pipeline ([`pipeline`]) with three verbs: [`optimize`] (the passes
//! in [`passes`]), [`choose`] (a [`Schedule`], one [`Strategy`] per item,
//! from a [`ScheduleChoice`]) and [`apply`] (the strategies in
//! [`schedule`]). Every scheduled program means what the checked one
//! means, as the interpreter evaluates it.
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
//! - E0211 a strategy that does not fit the item's shape (or an item whose
//!   levels the source writes, under any strategy but `default`)
//! - E0212 sizes that do not divide as a strategy needs
//! - E0213 a strategy's workgroup wider than the device allows
//! - E0214 (no longer given: a strategy's loops are counted once, by code
//!   generation, E0316, which `choose` consults)
//! - E0215 `combine=subgroup` on a device without subgroup operations
//! - E0216 a strategy needing more workgroup memory than the device has
//! - E0220 (warning) an item falling back from its tuned strategy, which no
//!   longer fits, to the heuristic's
//! - E0299 internal: the verifier rejects the program after a pass (debug builds)

pub mod cost;
pub mod optimized;
pub mod passes;
pub mod pipeline;
#[cfg(any(test, feature = "testing"))]
pub mod samples;
pub mod schedule;

pub use optimized::Optimized;
pub use pipeline::{PASSES, apply, choose, optimize, schedule};
pub use schedule::{
    Chosen, Combine, Schedule, ScheduleChoice, Staging, Strategy, Verdict, accept_all,
};

#[cfg(test)]
mod tests;
