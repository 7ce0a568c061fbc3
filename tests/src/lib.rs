//! Shared helpers for the integration tests: golden files, the test GPU,
//! headless Chromium and program generators.

pub mod browser;
pub mod r#gen;
pub mod golden;
pub mod gpu;
pub mod needs;
pub mod npm;
pub mod round_trip;
pub mod sched;
