//! Elementwise fusion across kernels: a top-level `let` whose value is a
//! pure elementwise or index computation is recomputed by the items that
//! read it, and disappears from the program (one kernel and one buffer fewer).
//!
//! Expects: a checked, unscheduled program (globals marked). Guarantees: the
//! interpreter gives bit-identical results; globals stay in dependency order
//! and every `VecRef::Global` is renumbered after a removal.
//!
//! A global `G` is fused when:
//! - its value holds no `reduce` (recomputing it would repeat a reduction)
//!   and no written level;
//! - every item reading it (later globals and outputs) has no written level
//!   and reads `G` only by element reads `G[t]` provably in bounds (or a whole
//!   read when `G` has length 1) — a whole read, such as an output that is a
//!   copy of `G`, keeps it;
//! - the cost rule of [`crate::inline`] holds with factor 4 over all readers:
//!   `R * E <= 4 * W`, `R` the element reads (weighted by the loops around
//!   each), `E` the work of one element and `W` of the whole vector. Fusion
//!   also saves a store and a load per element and a kernel launch, which
//!   the rule does not count;
//! - no reading item nests deeper than [`crate::inline::MAX_DEPTH`] after it.
//!
//! A global read by nothing is removed. Globals are visited in order, so a
//! chain `t1 -> t2 -> y` of elementwise kernels becomes one kernel.

use crate::inline::{
    MAX_DEPTH, depth, element_reads, has_levels, has_reduce, replace_reads, worth_inlining,
};
use crate::pipeline::PassCtx;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Expr, Program, VecRef};

/// The `fuse_globals` pass.
pub fn fuse_globals(p: &mut Program, _cx: &PassCtx<'_>) -> Result<(), Vec<Diagnostic>> {
    let mut g = 0;
    while g < p.globals.len() {
        if !try_fuse(p, g) {
            g += 1;
        }
    }
    Ok(())
}

/// Fuses global `g` into its readers and removes it, if the rules allow.
fn try_fuse(p: &mut Program, g: usize) -> bool {
    let value = p.globals[g].value.clone();
    if has_reduce(&value) || has_levels(&value) {
        return false;
    }
    let v = VecRef::Global(g as u32);
    let readers: Vec<usize> = (g + 1..p.globals.len() + p.outputs.len()).collect();
    let mut reads = 0u64;
    let mut reading = Vec::new();
    for &k in &readers {
        let root = root(p, k);
        match element_reads(p, root, v, value.ty.len) {
            Some(0) => {}
            Some(r) if !has_levels(root) => {
                reads = reads.saturating_add(r);
                reading.push(k);
            }
            _ => return false,
        }
    }
    if !worth_inlining(reads, &value, 4) {
        return false;
    }
    let mut q = p.clone();
    for &k in &reading {
        let old = root(&q, k).clone();
        match replace_reads(&mut q, &old, v, &value) {
            Ok(new) if depth(&new) <= MAX_DEPTH => *root_mut(&mut q, k) = new,
            _ => return false,
        }
    }
    q.globals.remove(g);
    remove_global_refs(&mut q, g);
    *p = q;
    true
}

fn root(p: &Program, k: usize) -> &Expr {
    match k.checked_sub(p.globals.len()) {
        None => &p.globals[k].value,
        Some(o) => &p.outputs[o].value,
    }
}

fn root_mut(p: &mut Program, k: usize) -> &mut Expr {
    match k.checked_sub(p.globals.len()) {
        None => &mut p.globals[k].value,
        Some(o) => &mut p.outputs[o].value,
    }
}

/// After global `at` is removed: every reference to a later global moves
/// down by one (no reference to `at` itself may remain).
pub(crate) fn remove_global_refs(p: &mut Program, at: usize) {
    let at = at as u32;
    crate::subst::map_vec_refs(p, &|v| match v {
        VecRef::Global(x) if x > at => VecRef::Global(x - 1),
        v => {
            debug_assert_ne!(v, VecRef::Global(at), "a read of a removed global");
            v
        }
    });
}
