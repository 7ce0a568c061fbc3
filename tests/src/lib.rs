//! Shared helpers for the integration tests: golden files, the test GPU and program generators.

pub mod r#gen;
pub mod golden;
pub mod gpu;
pub mod sched;
