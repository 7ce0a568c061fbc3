//! TExpr front end: lexer, parser, canonical printer and checker.
//!
//! This crate knows nothing of GPUs. Entry points:
//! - [`parse()`] text into an [`ast::File`] plus diagnostics;
//! - [`check()`] a file into a [`texpr_ir::Program`] (the typed IR) or
//!   diagnostics;
//! - [`frontend`] both at once;
//! - [`print`](mod@print) a file back as canonical source text (the IR's
//!   printer is `texpr_ir::print`).

pub mod ast;
pub mod check;
mod lexer;
pub mod parse;
pub mod print;

#[cfg(test)]
mod ir_tests;

pub use check::{check, frontend};
pub use parse::parse;
