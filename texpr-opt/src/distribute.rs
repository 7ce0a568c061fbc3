//! The default distribution of an unscheduled item root over the grid.
//!
//! Expects: a checked item root `E` of length `L` with no grid- or
//! group-level node and no `let@shared` (thread levels may be present).
//! Guarantees: one output element per invocation,
//! `compute@grid G {k < L -> k} |g| compute@group W |l| ELEM(E, (g*W + l) % L)`
//! with `W = min(L, the device's invocations per workgroup and x size)` and
//! `G = ceil(L / W)`; without the map and the `% L` when `W` divides `L`.
//! The `% L` keeps every read of the padded invocations provably in bounds and
//! the truncating map discards their elements, so the result checks and means
//! the same as `E`.

use crate::elem::elem;
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::{Level, TermOp};
use texpr_syntax::ir::term::{bin, constant, var};
use texpr_syntax::ir::{Expr, ExprKind, IndexMap, Program, Ty, VarKind};
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
    let g = p.fresh_var("g", VarKind::Index { extent: g_n }, root.span);
    let l = p.fresh_var("l", VarKind::Index { extent: w }, root.span);
    let linear = bin(
        TermOp::Add,
        bin(TermOp::Mul, var(g), constant(w as i64)),
        var(l),
    );
    let padded = !len.is_multiple_of(w);
    let idx = if padded {
        bin(TermOp::Rem, linear, constant(len as i64))
    } else {
        linear
    };
    let body = elem(p, root, &idx)?;
    let elem_ty = root.ty.elem;
    let group = Expr {
        kind: ExprKind::Compute {
            level: Some(Level::Group),
            n: w,
            var: l,
            map: None,
            body: Box::new(body),
        },
        ty: Ty::new(elem_ty, w),
        span: root.span,
    };
    let map = padded.then(|| {
        let k = p.fresh_var("k", VarKind::Index { extent: len }, root.span);
        IndexMap::truncate(k, len)
    });
    Ok(Expr {
        kind: ExprKind::Compute {
            level: Some(Level::Grid),
            n: g_n,
            var: g,
            map,
            body: Box::new(group),
        },
        ty: root.ty,
        span: root.span,
    })
}
