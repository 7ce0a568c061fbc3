//! The shape of one kernel: an item root `compute@grid G [MAP] |g| BODY`.
//!
//! Codegen maps exactly this form: the root is a grid-level compute whose
//! index map, if any, is the truncation `{k < L -> k}` (padding) or a digit
//! permutation of the whole raw result or of a padded one (tiling, see
//! `texpr_opt::digits`): the kernel writes each computed element at its
//! inverse image, padding not at all. Anything
//! else is E0301 (root not a grid compute) or E0302 (another grid index
//! map). Every node must carry a level (E0304).

use texpr_opt::digits::Layout;
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::Level;
use texpr_syntax::ir::{Expr, ExprKind, TermKind, VarId};

#[derive(Debug)]
pub struct Shape<'e> {
    /// Workgroups in the grid.
    pub groups: u64,
    pub grid_var: VarId,
    /// Elements one workgroup computes (the grid body's length).
    pub per_group: u64,
    /// Elements written: `groups * per_group`, or the truncation length.
    pub len: u64,
    /// Where raw element `p` goes: `perm.inverse_term(p)` (tiled layouts;
    /// a padded one sends padding to `len` or past it).
    pub perm: Option<Layout>,
    pub body: &'e Expr,
}

pub fn shape(root: &Expr) -> Result<Shape<'_>, Diagnostic> {
    let ExprKind::Compute {
        level: Some(Level::Grid),
        n,
        var,
        map,
        body,
    } = &root.kind
    else {
        return Err(
            Diagnostic::error("E0301", "this item is not scheduled onto a grid")
                .with_primary(root.span, "expected `compute@grid n |g| ...` here")
                .with_note("run the default schedule first, or write the levels yourself"),
        );
    };
    let raw = n * body.ty.len;
    let mut perm = None;
    let len = match map {
        None => raw,
        Some(m) if m.term.kind == TermKind::Var(m.var) && m.len <= raw => m.len,
        Some(m) if m.len <= raw && Layout::recognize(&m.term, m.var, m.len, raw).is_some() => {
            perm = Layout::recognize(&m.term, m.var, m.len, raw);
            m.len
        }
        Some(m) => {
            return Err(Diagnostic::error(
                "E0302",
                "the code generator cannot map this index map on a grid",
            )
            .with_primary(
                m.term.span.to(root.span),
                "only `{k < L -> k}` (truncation) or a digit permutation (tiling, padded or not) is supported on `compute@grid`",
            ));
        }
    };
    check_levels(body)?;
    Ok(Shape {
        groups: *n,
        grid_var: *var,
        per_group: body.ty.len,
        len,
        perm,
        body,
    })
}

/// E0304 for the first `compute`, `reduce` or `let` without a level.
fn check_levels(e: &Expr) -> Result<(), Diagnostic> {
    match e.find(|x| x.takes_level() && x.level().is_none()) {
        Some(x) => Err(Diagnostic::error("E0304", "this program is not scheduled")
            .with_primary(x.span, "this node has no level")),
        None => Ok(()),
    }
}
