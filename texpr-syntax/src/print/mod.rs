//! Canonical printers: [`file`] for the surface AST (`texprc fmt`), [`program`]
//! for the typed IR (scheduled or not). Both print text that parses back to
//! the same tree, up to spans.

mod file;

pub use file::{WIDTH, file, file_with_comments, format_source};
