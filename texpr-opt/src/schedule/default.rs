//! The default strategy: one element of an item per invocation.
//!
//! Expects: a checked item root `E` of length `L` with no grid- or
//! group-level node and no `let@shared` (thread levels may be present).
//! Guarantees: one output element per invocation,
//! `compute@grid G {k < L -> k} |g| compute@group W |l| ELEM(E, (g*W + l) % L)`
//! with `W = min(L, the device's invocations per workgroup and x size)` and
//! `G = ceil(L / W)`; without the map and the `% L` when `W` divides `L`.
//! The `% L` keeps every read of the padded invocations provably in bounds and
//! the truncating map discards their elements, so the result checks and means
//! the same as `E`. E0205 when the padded length overflows `i32` indices.

use super::grid::{compute_at, grid_over, index, lane, wrapped};
use texpr_ir::Diagnostic;
use texpr_ir::Level;
use texpr_ir::index::elem::elem;
use texpr_ir::{Expr, Program};
use texpr_target::Target;

/// The workgroup size the default schedule uses for an item of length `len`.
pub fn group_size(len: u64, target: &Target) -> u64 {
    let cap = target.limits.max_group_width().max(1);
    len.min(cap).max(1)
}

/// `root` distributed one element per invocation.
pub fn distribute(p: &mut Program, root: &Expr, target: &Target) -> Result<Expr, Diagnostic> {
    let len = root.ty.len;
    let w = group_size(len, target);
    let g_n = len.div_ceil(w);
    if g_n * w > i32::MAX as u64 {
        return Err(Diagnostic::error(
            "E0205",
            format!(
                "cannot distribute {len} elements: padded to {} they overflow i32 indices",
                g_n * w
            ),
        )
        .with_primary(root.span, "this value is too long to schedule"));
    }
    let g = index(p, "g", g_n, root.span);
    let l = index(p, "l", w, root.span);
    let idx = wrapped(lane(g, w, l), len, g_n * w);
    let body = elem(p, root, &idx)?;
    let group = compute_at(Level::Group, w, l, body).at(root.span);
    Ok(grid_over(p, g, g_n, len, g_n * w, group))
}
