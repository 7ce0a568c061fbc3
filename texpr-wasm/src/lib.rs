//! The compiler and the interpreter for JavaScript: the npm package `texpr`
//! (npm/, docs/npm.md) is this crate built for `wasm32-unknown-unknown` and
//! bound with wasm-bindgen.
//!
//! A thin layer over the `texpr` library and `texpr-interp`: [`options`]
//! reads the options object, [`compile`] compiles (WGSL, plan-json,
//! schedule, diagnostics as objects and as the CLI's text), [`interp`]
//! evaluates and compares a device's outputs with the interpreter's, and
//! `bindings` is the wasm-bindgen surface over them (typed arrays in and
//! out), reading what JavaScript passes through [`args`] (any value gives a
//! coded diagnostic, never a trap). Everything but `bindings` is plain Rust on JSON values and
//! `texpr_interp::Value`s, tested natively like the rest of the workspace.

pub mod args;
pub mod bindings;
pub mod codes;
pub mod compile;
pub mod diagnostics;
pub mod interp;
pub mod options;
