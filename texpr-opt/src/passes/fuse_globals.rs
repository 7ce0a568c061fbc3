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
//!   and no written level, and it is no loop state's initial or next value;
//! - every item reading it (later globals and outputs) has no written level
//!   and reads `G` only by element reads `G[t]` provably in bounds (or a whole
//!   read when `G` has length 1) — a whole read, such as an output that is a
//!   copy of `G`, keeps it;
//! - the cost rule of [`super::recompute`] holds with factor 4 over all readers:
//!   `R * E <= 4 * W`, `R` the element reads (weighted by the loops around
//!   each, and by the steps of the `iterate` loops a reader runs in and `G`
//!   does not: fused there, `G` is recomputed every step), `E` the work of
//!   one element and `W` of the whole vector. Fusion
//!   also saves a store and a load per element and a kernel launch, which
//!   the rule does not count;
//! - no reading item nests deeper than [`super::recompute::MAX_DEPTH`] after it.
//!
//! A global read by nothing is removed. Globals are visited in order, so a
//! chain `t1 -> t2 -> y` of elementwise kernels becomes one kernel.

use super::recompute::{MAX_DEPTH, element_reads, replace_reads, worth_inlining};
use std::collections::BTreeSet;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Expr, ExprKind, Item, Program, Scalar, VecRef, build};

/// The `fuse_globals` pass. Linear in the program's size apart from the
/// fused expressions themselves: who reads each global is found once and
/// kept up to date, and the fused globals are removed together at the end.
pub fn fuse_globals(p: &mut Program) -> Result<(), Vec<Diagnostic>> {
    let items = p.items();
    let mut readers = readers_of_globals(p, &items);
    let mut fused = vec![false; p.globals.len()];
    // A global reads only earlier ones, all decided before it: fusing it
    // changes no reader list still to be used.
    for g in 0..p.globals.len() {
        fused[g] = try_fuse(p, g, &std::mem::take(&mut readers[g]));
    }
    remove_globals(p, &fused);
    Ok(())
}

/// For each global, the items that read it, in order.
fn readers_of_globals(p: &Program, items: &[Item]) -> Vec<Vec<Item>> {
    let mut readers = vec![Vec::new(); p.globals.len()];
    for &item in items {
        for g in globals_read(item.root(p)) {
            readers[g].push(item);
        }
    }
    readers
}

/// The globals `e` reads.
fn globals_read(e: &Expr) -> BTreeSet<usize> {
    let mut read = BTreeSet::new();
    e.walk(|x| match &x.kind {
        ExprKind::Index {
            vec: VecRef::Global(g),
            ..
        }
        | ExprKind::Whole(VecRef::Global(g)) => {
            read.insert(*g as usize);
        }
        _ => {}
    });
    read
}

/// Fuses global `g` into its `readers` (leaving it unread), if the rules allow.
fn try_fuse(p: &mut Program, g: usize, readers: &[Item]) -> bool {
    let value = &p.globals[g].value;
    if value.has_reduce() || value.has_levels() || p.held_by_state(g) {
        return false;
    }
    let v = VecRef::Global(g as u32);
    let within = p.globals[g].within;
    let mut reads = 0u64;
    for &item in readers {
        let root = item.root(p);
        // A reader in a loop `g` is outside recomputes it every step.
        let runs = p.runs_within(p.loop_of(item), within);
        match element_reads(p, root, v, value.ty.len) {
            Some(r) if !root.has_levels() => reads = reads.saturating_add(r.saturating_mul(runs)),
            _ => return false,
        }
    }
    if !worth_inlining(reads, value, 4) {
        return false;
    }
    let value = value.clone();
    let vars = p.vars.len();
    let mut fused = Vec::with_capacity(readers.len());
    for &item in readers {
        // The root stands aside while it is rewritten (no clone of it).
        let old = std::mem::replace(item.root_mut(p), build::konst(Scalar::I32(0)));
        let new = replace_reads(p, &old, v, &value);
        *item.root_mut(p) = old;
        match new {
            Ok(new) if new.depth() <= MAX_DEPTH => fused.push(new),
            _ => {
                // Leave the program as it was (no fresh variables either).
                p.vars.truncate(vars);
                return false;
            }
        }
    }
    for (&item, new) in readers.iter().zip(fused) {
        *item.root_mut(p) = new;
    }
    true
}

/// Removes the globals marked `removed` (which nothing reads any more) and
/// renumbers every reference to the others.
fn remove_globals(p: &mut Program, removed: &[bool]) {
    if !removed.contains(&true) {
        return;
    }
    let mut new_index = Vec::with_capacity(removed.len());
    let mut next = 0u32;
    for &r in removed {
        new_index.push(next);
        next += u32::from(!r);
    }
    let mut k = 0;
    p.globals.retain(|_| {
        k += 1;
        !removed[k - 1]
    });
    p.map_vec_refs(|v| match v {
        VecRef::Global(x) => {
            debug_assert!(!removed[x as usize], "a read of a removed global");
            VecRef::Global(new_index[x as usize])
        }
        v => v,
    });
}
