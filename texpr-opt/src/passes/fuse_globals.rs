//! Elementwise fusion across kernels: a top-level `let` whose value is a
//! pure elementwise or index computation is recomputed by the items that
//! read it, and disappears from the program (one kernel and one buffer fewer).
//!
//! Expects: a checked, unscheduled program (globals marked) and the target
//! it is compiled for. Guarantees: the interpreter gives bit-identical
//! results; globals stay in dependency order and every `VecRef::Global` is
//! renumbered after a removal; no item binds more storage buffers than the
//! target allows unless it did so as written.
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
//!   one element and `W` of the whole vector, and `G` is written at most
//!   [`super::recompute::MAX_COPIES`] times. Fusion also saves a store and a
//!   load per element and a kernel launch, which the rule does not count;
//! - every reader still binds at most the target's storage buffers per
//!   stage once `G` is fused into it ([`buffers`]: fusion merges what the
//!   two items read; every other limit of a kernel belongs to the strategy
//!   that schedules it and is code generation's verdict on it);
//! - no reading item nests deeper than [`super::recompute::MAX_DEPTH`] after it.
//!
//! A global read by nothing is removed.
//!
//! Globals are decided last to first, so every reader of `G` is final when
//! `G` is decided: a reader fused away has handed its reads of `G` to its own
//! readers, multiplied by its copies. `R` then counts every element of `G`
//! the fused program computes, so the rule bounds the whole chain: in a chain
//! of `let`s that each read the previous one three times per element, the
//! last one is fused into its reader (3 reads), the one before too (9 reads
//! per element of the reader, over 4: kept), and so on, in runs of two. A
//! chain `t1 -> t2 -> y` of elementwise kernels, each read once, becomes one
//! kernel.

use super::recompute::{Amp, MAX_DEPTH, element_reads, recompute, replace_reads};
use std::collections::BTreeSet;
use texpr_ir::Diagnostic;
use texpr_ir::{Expr, ExprKind, Item, Program, Scalar, VecRef, build};
use texpr_target::Target;

/// The `fuse_globals` pass. Linear in the program's size apart from the
/// fused expressions themselves (which the cost rule bounds): who reads each
/// global is found once and kept up to date, and the fused globals are
/// removed together at the end.
pub fn fuse_globals(p: &mut Program, target: &Target) -> Result<(), Vec<Diagnostic>> {
    let max_buffers = u64::from(target.limits.max_storage_buffers_per_stage);
    let mut readers = readers_of_globals(p);
    let mut fused = vec![false; p.globals.len()];
    for g in (0..p.globals.len()).rev() {
        let of_g: Vec<Item> = std::mem::take(&mut readers[g]).into_iter().collect();
        if !try_fuse(p, g, &of_g, max_buffers) {
            continue;
        }
        fused[g] = true;
        // G's reads of earlier globals now stand in G's readers.
        for h in globals_read(&p.globals[g].value) {
            readers[h].remove(&Item::Global(g));
            readers[h].extend(of_g.iter().copied());
        }
    }
    remove_globals(p, &fused);
    Ok(())
}

/// For each global, the items that read it.
fn readers_of_globals(p: &Program) -> Vec<BTreeSet<Item>> {
    let mut readers = vec![BTreeSet::new(); p.globals.len()];
    for item in p.items() {
        for g in globals_read(item.root(p)) {
            readers[g].insert(item);
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

/// The storage buffers a kernel computing `root` binds at least: the
/// inputs and globals it reads, the buffer it writes, and its vector
/// literals (code generation keeps short ones in the shader; counting every
/// distinct one keeps this an upper bound of what the item itself binds).
pub fn buffers(root: &Expr) -> u64 {
    let mut vecs = BTreeSet::new();
    let mut literals = BTreeSet::new();
    root.walk(|x| match &x.kind {
        ExprKind::Index { vec, .. } | ExprKind::Whole(vec) if !matches!(vec, VecRef::Local(_)) => {
            vecs.insert(*vec);
        }
        ExprKind::VecLit(vals) if vals.len() > 1 => {
            literals.insert((x.ty.elem as u8, vals.iter().map(bits).collect::<Vec<_>>()));
        }
        _ => {}
    });
    (vecs.len() + literals.len()) as u64 + 1
}

fn bits(s: &Scalar) -> u32 {
    match *s {
        Scalar::F32(x) => x.to_bits(),
        Scalar::F16(x) => u32::from(x.to_bits()),
        Scalar::I32(x) => x as u32,
        Scalar::U32(x) => x,
    }
}

/// Fuses global `g` into its `readers` (leaving it unread), if the rules allow.
fn try_fuse(p: &mut Program, g: usize, readers: &[Item], max_buffers: u64) -> bool {
    let value = &p.globals[g].value;
    if value.has_loop() || value.has_levels() || p.held_by_state(g) {
        return false;
    }
    let v = VecRef::Global(g as u32);
    let within = p.globals[g].within;
    let mut reads = super::recompute::Reads::default();
    for &item in readers {
        let root = item.root(p);
        // A reader in a loop `g` is outside recomputes it every step.
        let runs = p.runs_within(p.loop_of(item), within);
        match element_reads(p, root, v, value.ty.len) {
            Some(r) if !root.has_levels() => {
                let weighted = r.weighted.saturating_mul(runs);
                reads.weighted = reads.weighted.saturating_add(weighted);
                reads.sites = reads.sites.saturating_add(r.sites);
            }
            _ => return false,
        }
    }
    // The readers are final and G's value holds no fused global yet.
    if recompute(reads, value, Amp::ONE, 4).is_none() {
        return false;
    }
    let value = value.clone();
    let vars = p.vars.len();
    let mut fused = Vec::with_capacity(readers.len());
    for &item in readers {
        // The root stands aside while it is rewritten (no clone of it).
        let old = std::mem::replace(item.root_mut(p), build::konst(Scalar::I32(0)));
        let new = replace_reads(p, &old, v, &value);
        let before = buffers(&old);
        *item.root_mut(p) = old;
        match new {
            Ok(new) if new.depth() <= MAX_DEPTH && buffers(&new) <= max_buffers.max(before) => {
                fused.push(new)
            }
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
