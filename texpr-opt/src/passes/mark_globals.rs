//! Top-level lets become `let@global` buffers, each computed by kernels of its own.
//!
//! Expects: a checked program. Guarantees: every `Global` has level
//! `@global`; a top-level let written `@shared` or `@reg` is error E0201.

use texpr_ir::Diagnostic;
use texpr_ir::MemLevel;
use texpr_ir::Program;

pub fn mark_globals(p: &mut Program) -> Result<(), Vec<Diagnostic>> {
    let mut errs = Vec::new();
    for g in &mut p.globals {
        match g.level {
            None | Some(MemLevel::Global) => g.level = Some(MemLevel::Global),
            Some(other) => errs.push(
                Diagnostic::error(
                    "E0201",
                    format!("a top-level let cannot be `@{}`", other.name()),
                )
                .with_primary(g.span, "this let is a global buffer")
                .with_note("top-level lets are storage buffers: write `let@global` or no level"),
            ),
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}
