//! Schedules: what each item's root becomes on the grid, workgroups and
//! invocations, as data ([`data`], [`text`]), chosen ([`choose`]) and
//! carried out ([`apply`]).
//!
//! - [`shape`]: the typed matches of item roots that strategies take and
//!   the heuristic classifies (each shape recognised once);
//!   [`contraction`]: which 2D items are contractions worth tiling.
//! - [`prefs`] and [`heuristic`]: the candidates for an item, from the
//!   device profile's preference tables.
//! - One file per strategy: [`default`], [`coarsen`], [`rows`],
//!   [`wide_rows`], [`flash`], [`tile`] (block indexing, register tiles, staging,
//!   epilogue), [`multipass`], [`gridstride`], [`transpose`], [`in_loop`]
//!   (a loop's items on one workgroup, the loop in one dispatch); [`fill`]
//!   completes levels a user wrote.
//! - [`grid`]: the building blocks they share; [`fail`]: why a strategy
//!   does not fit (E0210-E0216); [`trial`]: trying strategies item by item
//!   without copying the program.
//!
//! Adding a strategy: a variant of [`data::Strategy`], its text form (a row
//! of [`text::FORMS`], arms in `from_form` and `Display`), a file with
//! `pub fn NAME(p, root, ...) -> Result<Expr, Fail>`, an arm in
//! [`apply::apply_strategy`], and the candidates the heuristic offers
//! ([`heuristic::item_candidates`] reading a new field of [`prefs::Prefs`]).

pub mod apply;
pub mod choose;
pub mod coarsen;
pub mod contraction;
pub mod data;
pub mod default;
pub mod fail;
pub mod fill;
pub mod flash;
pub mod grid;
pub mod gridstride;
pub mod heuristic;
pub mod in_loop;
pub mod mma;
pub mod multipass;
pub mod prefs;
pub mod rows;
pub mod shape;
pub mod text;
pub mod tile;
pub mod transpose;
pub mod trial;
pub mod wide_rows;

pub use apply::{Verdict, accept_all};
pub use choose::Chosen;
pub use data::{Combine, Schedule, ScheduleChoice, Staging, Strategy};
pub use text::ScheduleParseError;
