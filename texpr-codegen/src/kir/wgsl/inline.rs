//! Which values the WGSL printer may write into their one use: a
//! candidate's use must stand in its own block (not a loop's bounds or an
//! `if`'s condition), and a read of an assigned variable must reach its use
//! before any assignment to the variable.

use super::*;

/// Finds, for each inlining candidate, whether its one use allows moving it:
/// the use must be a statement of the block that defines it (not a loop's
/// bounds or an `if`'s condition) or another candidate defined in that block.
#[derive(Default)]
pub(super) struct PlaceUses;

impl PlaceUses {
    pub(super) fn block(&mut self, k: &Kernel, b: &Block, candidate: &mut [bool]) {
        // The values defined in this block, in order.
        let defined: std::collections::BTreeSet<u32> = (b.stmts.iter())
            .filter_map(|s| match s {
                Stmt::Let(v) => Some(v.0),
                _ => None,
            })
            .collect();
        // A candidate read anywhere but here stays a `let`.
        let mut ok_here: std::collections::BTreeSet<u32> = Default::default();
        for s in &b.stmts {
            match s {
                Stmt::Let(v) => {
                    for o in k.value(*v).op.operands() {
                        if defined.contains(&o.0) {
                            ok_here.insert(o.0);
                        }
                    }
                }
                Stmt::Var(..) | Stmt::Assign(..) | Stmt::Store(..) | Stmt::Coop(_) => {
                    for o in s.operands() {
                        if defined.contains(&o.0) {
                            ok_here.insert(o.0);
                        }
                    }
                }
                Stmt::Loop(l) => self.block(k, &l.body, candidate),
                Stmt::If(i) => {
                    self.block(k, &i.then, candidate);
                    if let Some(e) = &i.els {
                        self.block(k, e, candidate);
                    }
                }
                Stmt::Barrier | Stmt::StorageBarrier => {}
            }
        }
        for &d in &defined {
            if candidate[d as usize] && !ok_here.contains(&d) {
                candidate[d as usize] = false;
            }
        }
    }
}

/// Demotes each inlined read of a variable (`reads`) whose value would be
/// written after an assignment to the variable: the end of its chain of
/// inlined uses (the statement it is finally written into) must come
/// before any statement between its definition and that end that assigns
/// the variable (nested ones included).
pub(super) fn keep_reads_unassigned(k: &Kernel, b: &Block, reads: &[bool], inline: &mut [bool]) {
    // Where each value defined here is defined, and the statement using it.
    let mut at: std::collections::BTreeMap<u32, usize> = Default::default();
    let mut user: std::collections::BTreeMap<u32, usize> = Default::default();
    for (i, s) in b.stmts.iter().enumerate() {
        let ops = match s {
            Stmt::Let(v) => {
                at.insert(v.0, i);
                k.value(*v).op.operands()
            }
            Stmt::Loop(l) => {
                keep_reads_unassigned(k, &l.body, reads, inline);
                Vec::new()
            }
            Stmt::If(x) => {
                keep_reads_unassigned(k, &x.then, reads, inline);
                if let Some(e) = &x.els {
                    keep_reads_unassigned(k, e, reads, inline);
                }
                Vec::new()
            }
            s => s.operands(),
        };
        for o in ops {
            user.entry(o.0).or_insert(i);
        }
    }
    for (&v, &def) in &at {
        if !(reads[v as usize] && inline[v as usize]) {
            continue;
        }
        let Op::ReadVar(x) = k.values[v as usize].op else {
            continue;
        };
        // The statement the chain of inlined values ends in.
        let mut end = user.get(&v).copied().unwrap_or(def);
        while let Stmt::Let(u) = &b.stmts[end]
            && inline[u.0 as usize]
            && let Some(&next) = user.get(&u.0)
        {
            end = next;
        }
        let assigns = |s: &Stmt| {
            let mut hit = false;
            let mut check = |s: &Stmt| hit |= matches!(s, Stmt::Assign(y, ..) if *y == x);
            check(s);
            match s {
                Stmt::Loop(l) => l.body.walk(&mut check),
                Stmt::If(i) => {
                    i.then.walk(&mut check);
                    if let Some(e) = &i.els {
                        e.walk(&mut check);
                    }
                }
                _ => {}
            }
            hit
        };
        if b.stmts[def + 1..end].iter().any(assigns) {
            inline[v as usize] = false;
        }
    }
}

/// Variables some statement assigns.
pub fn assigned_vars(k: &Kernel) -> std::collections::BTreeSet<VarId> {
    let mut out = std::collections::BTreeSet::new();
    k.body.walk(&mut |s| {
        if let Stmt::Assign(x, ..) = s {
            out.insert(*x);
        }
    });
    out
}

/// Whether memory `m` does not change while `k` runs.
pub fn fixed_mem(k: &Kernel, m: Mem, assigned: &std::collections::BTreeSet<VarId>) -> bool {
    match m {
        Mem::Buffer(b) => k.bindings[b as usize].access == Access::Read,
        Mem::Private(_) => true,
        Mem::Shared(_) => false,
        Mem::Var(x) => !assigned.contains(&x),
    }
}
