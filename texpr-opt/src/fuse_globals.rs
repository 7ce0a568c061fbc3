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
use std::collections::BTreeSet;
use texpr_syntax::ast::ElemTy;
use texpr_syntax::ir::{Expr, ExprKind, Program, Scalar, Ty, VecRef};
use texpr_syntax::{Diagnostic, Span};

/// The `fuse_globals` pass. Linear in the program's size apart from the
/// fused expressions themselves: who reads each global is found once and
/// kept up to date, and the fused globals are removed together at the end.
pub fn fuse_globals(p: &mut Program, _cx: &PassCtx<'_>) -> Result<(), Vec<Diagnostic>> {
    let mut readers = readers_of_globals(p);
    let mut fused = vec![false; p.globals.len()];
    for g in 0..p.globals.len() {
        if !try_fuse(p, g, &readers[g]) {
            continue;
        }
        fused[g] = true;
        // Its readers now read what it read.
        let moved = std::mem::take(&mut readers[g]);
        let mut read = BTreeSet::new();
        globals_read(&p.globals[g].value, &mut read);
        for h in read {
            let merged: BTreeSet<usize> = readers[h].iter().chain(&moved).copied().collect();
            readers[h] = merged.into_iter().collect();
        }
    }
    remove_globals(p, &fused);
    Ok(())
}

/// For each global, the items that read it (globals by index, then outputs
/// numbered from `p.globals.len()`), in order.
fn readers_of_globals(p: &Program) -> Vec<Vec<usize>> {
    let mut readers = vec![Vec::new(); p.globals.len()];
    for k in 0..p.globals.len() + p.outputs.len() {
        let mut read = BTreeSet::new();
        globals_read(root(p, k), &mut read);
        for g in read {
            readers[g].push(k);
        }
    }
    readers
}

/// The globals `e` reads.
fn globals_read(e: &Expr, out: &mut BTreeSet<usize>) {
    match &e.kind {
        ExprKind::Index {
            vec: VecRef::Global(g),
            ..
        }
        | ExprKind::Whole(VecRef::Global(g)) => {
            out.insert(*g as usize);
        }
        _ => e.children().for_each(|c| globals_read(c, out)),
    }
}

/// Fuses global `g` into its `readers` (leaving it unread), if the rules allow.
fn try_fuse(p: &mut Program, g: usize, readers: &[usize]) -> bool {
    let value = &p.globals[g].value;
    if has_reduce(value) || has_levels(value) {
        return false;
    }
    let v = VecRef::Global(g as u32);
    let mut reads = 0u64;
    for &k in readers {
        let root = root(p, k);
        match element_reads(p, root, v, value.ty.len) {
            Some(r) if !has_levels(root) => reads = reads.saturating_add(r),
            _ => return false,
        }
    }
    if !worth_inlining(reads, value, 4) {
        return false;
    }
    let value = value.clone();
    let vars = p.vars.len();
    let mut fused = Vec::with_capacity(readers.len());
    for &k in readers {
        let old = std::mem::replace(root_mut(p, k), placeholder());
        let new = replace_reads(p, &old, v, &value);
        *root_mut(p, k) = old;
        match new {
            Ok(new) if depth(&new) <= MAX_DEPTH => fused.push(new),
            _ => {
                // Leave the program as it was (no fresh variables either).
                p.vars.truncate(vars);
                return false;
            }
        }
    }
    for (&k, new) in readers.iter().zip(fused) {
        *root_mut(p, k) = new;
    }
    true
}

/// What stands in an item's root while the root is rewritten.
fn placeholder() -> Expr {
    Expr {
        kind: ExprKind::Const(Scalar::I32(0)),
        ty: Ty::scalar(ElemTy::I32),
        span: Span::DUMMY,
    }
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
    crate::subst::map_vec_refs(p, &|v| match v {
        VecRef::Global(x) => {
            debug_assert!(!removed[x as usize], "a read of a removed global");
            VecRef::Global(new_index[x as usize])
        }
        v => v,
    });
}
