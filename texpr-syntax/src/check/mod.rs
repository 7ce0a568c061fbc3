//! The checker: surface AST to typed IR, with every error reported as a coded diagnostic.
//!
//! [`check`] resolves names, substitutes `param`s, evaluates sizes, types every
//! expression (coercing unsuffixed integer literals, making broadcasts
//! explicit), proves every index in bounds with [`texpr_ir::linear`], and checks
//! level placement with [`texpr_ir::levels`]. It keeps going after an error: a
//! failed sub-expression yields `Reported`, which its parents pass on silently,
//! so one run reports every independent mistake once.
//!
//! [`texpr_ir::verify()`] re-checks the same invariants of any [`Program`], for
//! the optimizer to run after each pass. Codes are listed in
//! [`texpr_ir::codes`].

mod calls;
mod canon;
mod expr;
mod items;
mod iterate;
mod iterate_expr;
mod layouts;
mod lits;
mod operands;
mod reads;
mod scope;
mod strip;
mod terms;
#[cfg(test)]
mod tests;
mod update;

pub use canon::canonicalize;
pub use scope::item_names;
pub use strip::{strip_expr_spans, strip_spans};

use crate::ast::File;
use levels::LevelCtx;
use scope::Scopes;
use texpr_ir::Diagnostic;
use texpr_ir::{self as ir, Program, VarInfo};
use texpr_ir::{MAX_NESTING, codes, levels};

/// Checks a parsed file; `overrides` are `-D NAME=VALUE` param values (the
/// last one for a name wins).
pub fn check(file: &File, overrides: &[(String, i64)]) -> Result<Program, Vec<Diagnostic>> {
    let mut c = Checker::default();
    c.collect_top(file);
    c.check_overrides(file, overrides);
    for item in &file.items {
        c.item(item, overrides);
    }
    c.require_outputs(file);
    c.name_made_globals();
    if c.diags.iter().any(|d| d.is_error()) {
        // In source order; diagnostics without a span (overrides) first.
        c.diags.sort_by_key(|d| d.primary_span().map(|s| s.start));
        return Err(c.diags);
    }
    Ok(Program {
        params: c.params,
        inputs: c.inputs,
        globals: c.globals,
        outputs: c.outputs,
        vars: c.vars,
        loops: c.loops,
        states: c.states,
        names: Default::default(),
    })
}

/// Parses and checks `src`: the typed program, or every diagnostic found.
pub fn frontend(src: &str, overrides: &[(String, i64)]) -> Result<Program, Vec<Diagnostic>> {
    let (file, diags) = crate::parse(src);
    if diags.iter().any(|d| d.is_error()) {
        return Err(diags);
    }
    check(&file, overrides)
}

/// Marks a failure whose diagnostic is already recorded; parents of a failed
/// node fail silently, so one mistake is reported once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reported;

pub(crate) type CResult<T> = Result<T, Reported>;

/// The checker's state while it walks one file.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    diags: Vec<Diagnostic>,
    scopes: Scopes,
    vars: Vec<VarInfo>,
    params: Vec<(String, i64)>,
    inputs: Vec<ir::Input>,
    globals: Vec<ir::Global>,
    outputs: Vec<ir::Output>,
    levels: LevelCtx,
    depth: usize,
    too_deep_reported: bool,
    loops: Vec<ir::Loop>,
    states: Vec<ir::State>,
    /// The loop whose block is being checked.
    within: Option<ir::LoopId>,
    /// Names the current block has bound so far (popped at its end).
    block_names: usize,
    /// The upper term of each `reduce` variable of dependent steps in scope.
    uppers: std::collections::BTreeMap<ir::VarId, ir::Term>,
    /// Globals and states whose names the checker made (or must change).
    made_globals: Vec<usize>,
    made_states: Vec<usize>,
}

impl Checker {
    /// Records a diagnostic and returns the failure marker.
    fn err(&mut self, d: Diagnostic) -> Reported {
        self.diags.push(d);
        Reported
    }

    /// Records a diagnostic when there is one.
    fn report(&mut self, d: Option<Diagnostic>) {
        self.diags.extend(d);
    }

    /// Runs `f` one nesting level deeper, failing past [`MAX_NESTING`].
    fn nested<T>(
        &mut self,
        span: texpr_ir::Span,
        f: impl FnOnce(&mut Self) -> CResult<T>,
    ) -> CResult<T> {
        if self.depth >= MAX_NESTING {
            if self.too_deep_reported {
                return Err(Reported);
            }
            self.too_deep_reported = true;
            return Err(self.err(
                Diagnostic::error(codes::TOO_DEEP, "expression nested too deeply")
                    .with_primary(span, format!("more than {MAX_NESTING} levels deep here"))
                    .with_note("split the expression with `let`"),
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }
}
