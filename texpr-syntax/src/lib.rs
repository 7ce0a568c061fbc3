//! TExpr front end: lexer, parser, canonical printer, checker and the typed IR.
//!
//! This crate knows nothing of GPUs. Entry points:
//! - [`parse()`] text into an [`ast::File`] plus diagnostics;
//! - [`check()`] a file into an [`ir::Program`] (the typed IR) or diagnostics;
//! - [`frontend`] both at once;
//! - [`print`] either tree back as canonical source text.

pub mod ast;
pub mod check;
pub mod lexer;
pub mod parse;
pub mod print;

#[cfg(test)]
mod ir_tests;

pub use check::{check, frontend};
pub use parse::parse;
