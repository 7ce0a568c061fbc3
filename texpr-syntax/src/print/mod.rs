//! The canonical printer of the surface AST ([`file()`], `texprc fmt`): text
//! that parses back to the same tree, up to spans. The typed IR's printer is
//! `texpr_ir::print`.

mod file;

pub use file::{WIDTH, file, file_with_comments, format_source};
