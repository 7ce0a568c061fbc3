//! The grid root of one kernel: an item root `compute@grid G [MAP] |g| BODY`.
//!
//! Codegen maps exactly this form: the root is a grid-level compute whose
//! index map, if any, is a layout (`texpr_ir::Layout`): the
//! truncation `{k < L -> k}` (padding), or a digit permutation of the whole
//! raw result or of a padded one (tiling). The kernel writes each computed
//! element at its inverse image, padding not at all. Anything else is E0301
//! (root not a grid compute) or E0302 (a term map on a grid). Every node
//! must carry a level (E0304).

use texpr_ir::Diagnostic;
use texpr_ir::Level;
use texpr_ir::{Expr, ExprKind, Layout, MapKind, VarId};

#[derive(Debug)]
pub struct GridRoot<'e> {
    /// Workgroups in the grid.
    pub groups: u64,
    pub grid_var: VarId,
    /// Elements one workgroup computes (the grid body's length).
    pub per_group: u64,
    /// Elements written: `groups * per_group`, or the truncation length.
    pub len: u64,
    /// Where raw element `p` goes: `layout.inverse_term(p)` (a digit
    /// permutation, or a padded one that sends padding to `len` or past
    /// it); `None` for the identity or a truncation.
    pub perm: Option<&'e Layout>,
    pub body: &'e Expr,
}

pub fn grid_root(root: &Expr) -> Result<GridRoot<'_>, Diagnostic> {
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
    let (len, perm) = match map {
        None => (raw, None),
        Some(m) => match &m.kind {
            MapKind::Layout(Layout::Truncate) => (m.len, None),
            MapKind::Layout(l) => (m.len, Some(l)),
            MapKind::Term(t) => {
                return Err(Diagnostic::error(
                    "E0302",
                    "the code generator cannot map this index map on a grid",
                )
                .with_primary(
                    t.span.to(root.span),
                    "a grid's map must be a layout: `{k < L -> k}` (truncation), `digits(...)` or `padded(...)`",
                ));
            }
        },
    };
    check_levels(body)?;
    Ok(GridRoot {
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
