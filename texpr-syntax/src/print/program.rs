//! Printer for the typed IR: surface text that checks back to an equal program.

use crate::ir::Program;

/// Prints a typed (possibly scheduled) program as surface text.
pub fn program(_p: &Program) -> String {
    String::new()
}
