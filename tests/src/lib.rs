//! Shared helpers for the integration tests: golden files and (later) program generators.

pub mod golden;
pub mod gpu;
pub mod r#gen;
