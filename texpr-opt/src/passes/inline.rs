//! Producer-consumer fusion of expression `let`s: `let v = VALUE in BODY`
//! becomes `BODY` with every read `v[t]` replaced by `ELEM(VALUE, t)` (see
//! [`crate::index::elem`]) when recomputing is no dearer than storing.
//!
//! Expects: a checked, unscheduled program (items holding any written level
//! are left alone, as are `let`s with a level). Guarantees: the interpreter
//! gives bit-identical results (each inlined element is the same scalar
//! expression, folds in the same order); every read stays provably in bounds.
//!
//! When a `let` is inlined (the rules are in [`super::recompute`]):
//! - every read of `v` in `BODY` can be recomputed ([`element_reads`]); any
//!   other whole read keeps the `let`;
//! - the cost rule `R * E <= F * W` holds ([`worth_inlining`]), `R` the reads
//!   per evaluation of the `let`, with `F = 1` when `VALUE` holds a `reduce` (inlining
//!   may never repeat a reduction: softmax's `let m = reduce max ...`, read by
//!   every element of its row, stays) and `F = 4` when it does not (an
//!   elementwise value may be recomputed up to four times per element on
//!   average, which saves its storage: a `let` at an item's root is an array
//!   every invocation fills whole). A dead `let` (`R = 0`) disappears.
//! - Every inlined copy gets fresh variables, so no two binders share a
//!   name; a copy that would nest the item deeper than [`MAX_DEPTH`] or grow
//!   an index term past [`crate::index::elem::MAX_TERM_SIZE`] keeps the `let`.
//!
//! [`element_reads`]: super::recompute::element_reads
//! [`worth_inlining`]: super::recompute::worth_inlining
//!
//! `let`s are visited bottom-up, so an inner `let` is decided first and an
//! outer one counts the reads the inner inlining left.

use super::recompute::{MAX_DEPTH, element_reads, replace_reads, worth_inlining};
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Expr, ExprKind, Program, VecRef};

/// The `inline` pass: every profitable expression `let` of every unleveled item.
pub fn inline(p: &mut Program) -> Result<(), Vec<Diagnostic>> {
    for item in p.items() {
        let root = item.root(p).clone();
        if root.has_levels() {
            continue;
        }
        let new = inline_in(p, &root);
        if new != root && new.depth() <= MAX_DEPTH {
            *item.root_mut(p) = new;
        }
    }
    Ok(())
}

fn inline_in(p: &mut Program, e: &Expr) -> Expr {
    let new = e.map_children(|c| inline_in(p, c));
    if let ExprKind::Let {
        level: None,
        var,
        value,
        body,
    } = &new.kind
    {
        let v = VecRef::Local(*var);
        if let Some(r) = element_reads(p, body, v, value.ty.len)
            && worth_inlining(r, value, if value.has_reduce() { 1 } else { 4 })
            && let Ok(b) = replace_reads(p, body, v, value)
        {
            return b;
        }
    }
    new
}
