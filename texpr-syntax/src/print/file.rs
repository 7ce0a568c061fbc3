//! Canonical printer for the surface AST.

use crate::ast::File;

/// Prints a file as canonical source text.
pub fn file(_f: &File) -> String {
    String::new()
}
