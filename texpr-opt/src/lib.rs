//! Scheduling: maps typed TExpr onto grid, workgroup and thread levels (scheduled TExpr).

pub mod limits;

pub use limits::DeviceLimits;
