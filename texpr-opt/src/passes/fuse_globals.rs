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
//! - the cost rule of [`super::recompute`] holds with factor 4 over all readers:
//!   `R * E <= 4 * W`, `R` the element reads (weighted by the loops around
//!   each), `E` the work of one element and `W` of the whole vector. Fusion
//!   also saves a store and a load per element and a kernel launch, which
//!   the rule does not count;
//! - no reading item nests deeper than [`super::recompute::MAX_DEPTH`] after it.
//!
//! A global read by nothing is removed. Globals are visited in order, so a
//! chain `t1 -> t2 -> y` of elementwise kernels becomes one kernel.

use super::recompute::{MAX_DEPTH, element_reads, replace_reads, worth_inlining};
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Item, Program, VecRef};

/// The `fuse_globals` pass.
pub fn fuse_globals(p: &mut Program) -> Result<(), Vec<Diagnostic>> {
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
    if value.has_reduce() || value.has_levels() {
        return false;
    }
    let v = VecRef::Global(g as u32);
    let readers: Vec<Item> = p.items().into_iter().skip(g + 1).collect();
    let mut reads = 0u64;
    let mut reading = Vec::new();
    for &item in &readers {
        let root = item.root(p);
        match element_reads(p, root, v, value.ty.len) {
            Some(0) => {}
            Some(r) if !root.has_levels() => {
                reads = reads.saturating_add(r);
                reading.push(item);
            }
            _ => return false,
        }
    }
    if !worth_inlining(reads, &value, 4) {
        return false;
    }
    let mut q = p.clone();
    for &item in &reading {
        let old = item.root(&q).clone();
        match replace_reads(&mut q, &old, v, &value) {
            Ok(new) if new.depth() <= MAX_DEPTH => *item.root_mut(&mut q) = new,
            _ => return false,
        }
    }
    q.globals.remove(g);
    remove_global_refs(&mut q, g);
    *p = q;
    true
}

/// After global `at` is removed: every reference to a later global moves
/// down by one (no reference to `at` itself may remain).
pub(crate) fn remove_global_refs(p: &mut Program, at: usize) {
    let at = at as u32;
    p.map_vec_refs(|v| match v {
        VecRef::Global(x) if x > at => VecRef::Global(x - 1),
        v => {
            debug_assert_ne!(v, VecRef::Global(at), "a read of a removed global");
            v
        }
    });
}
