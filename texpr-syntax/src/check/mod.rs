//! The checker: surface AST to typed IR, with every error reported as a coded diagnostic.

use crate::ast::File;
use crate::diag::Diagnostic;
use crate::ir::Program;

/// Checks a parsed file; `overrides` are `-D NAME=VALUE` param values.
pub fn check(_file: &File, _overrides: &[(String, i64)]) -> Result<Program, Vec<Diagnostic>> {
    Err(vec![Diagnostic::error(
        "E0100",
        "checker not implemented yet",
    )])
}

/// Parses and checks `src`: the typed program, or every diagnostic found.
pub fn frontend(src: &str, overrides: &[(String, i64)]) -> Result<Program, Vec<Diagnostic>> {
    let (file, diags) = crate::parse(src);
    if diags.iter().any(|d| d.is_error()) {
        return Err(diags);
    }
    check(&file, overrides)
}
