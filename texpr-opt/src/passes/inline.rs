//! Producer-consumer fusion of expression `let`s: `let v = VALUE in BODY`
//! becomes `BODY` with every read `v[t]` replaced by `ELEM(VALUE, t)` (see
//! [`texpr_ir::index::elem`]) when recomputing is no dearer than storing.
//!
//! Expects: a checked, unscheduled program (items holding any written level
//! are left alone, as are `let`s with a level). Guarantees: the interpreter
//! gives bit-identical results (each inlined element is the same scalar
//! expression, folds in the same order); every read stays provably in bounds.
//!
//! When a `let` is inlined (the rules are in [`super::recompute`]):
//! - every read of `v` in `BODY` can be recomputed ([`element_reads`]); any
//!   other whole read keeps the `let`;
//! - the cost rule holds along the chain ([`recompute`]): one step is
//!   `R * E <= F * W`, `R` the reads per evaluation of the `let`, with
//!   `F = 1` when `VALUE` holds a `reduce` (inlining may never repeat a
//!   reduction: softmax's `let m = reduce max ...`, read by every element of
//!   its row, stays) and `F = 4` when it does not (an elementwise value may
//!   be recomputed up to four times per element on average, which saves its
//!   storage: a `let` at an item's root is an array every invocation fills
//!   whole); and the steps multiply: `VALUE`'s operations, which inlining
//!   inside `VALUE` may already have recomputed, stay within `F` times their
//!   work as written and [`MAX_COPIES`] copies. A dead `let` (`R = 0`)
//!   disappears.
//! - Every inlined copy gets fresh variables, so no two binders share a
//!   name; a copy that would nest the item deeper than [`MAX_DEPTH`] or grow
//!   an index term past [`texpr_ir::index::elem::MAX_TERM_SIZE`] keeps the `let`.
//!
//! [`element_reads`]: super::recompute::element_reads
//! [`recompute`]: super::recompute::recompute
//! [`MAX_COPIES`]: super::recompute::MAX_COPIES
//!
//! `let`s are visited bottom-up, so an inner `let` is decided first: an
//! outer one counts the reads the inlining in its body left (reads that
//! inlined consumers multiplied), and knows what the inlining in its value
//! did to the value's operations ([`Amp`]). The pass is linear in the item
//! apart from the copies the rule allows.

use super::recompute::{Amp, MAX_DEPTH, element_reads, recompute, replace_reads};
use texpr_ir::Diagnostic;
use texpr_ir::{Expr, ExprKind, Program, VecRef};

/// The `inline` pass: every profitable expression `let` of every unleveled item.
pub fn inline(p: &mut Program) -> Result<(), Vec<Diagnostic>> {
    for item in p.items() {
        let root = item.root(p).clone();
        if root.has_levels() {
            continue;
        }
        let (new, _) = inline_in(p, &root);
        if new != root && new.depth() <= MAX_DEPTH {
            *item.root_mut(p) = new;
        }
    }
    Ok(())
}

/// `e` with its profitable `let`s inlined, and what that did to its
/// operations.
fn inline_in(p: &mut Program, e: &Expr) -> (Expr, Amp) {
    // Each child's amplification, in order (a `let`: its value's, its body's).
    let mut amps = Vec::with_capacity(2);
    let new = e.map_children(|c| {
        let (x, amp) = inline_in(p, c);
        amps.push(amp);
        x
    });
    let all = amps.iter().fold(Amp::ONE, |a, b| a.max(*b));
    if let ExprKind::Let {
        level: None,
        var,
        value,
        body,
    } = &new.kind
    {
        let v = VecRef::Local(*var);
        let factor = if value.has_loop() { 1 } else { 4 };
        if let Some(r) = element_reads(p, body, v, value.ty.len)
            && let Some(after) = recompute(r, value, amps[0], factor)
            && let Ok(b) = replace_reads(p, body, v, value)
        {
            return (b, amps[1].max(after));
        }
    }
    (new, all)
}
