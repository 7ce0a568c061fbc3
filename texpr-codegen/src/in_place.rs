//! Which states updated in place (`State::at`) their update's kernel can
//! write directly, with no copy at the end of the step: the update is the
//! last item of its loop's step (nothing after it reads the state), the
//! loop runs a dispatch a step (not `loop group`), and every element of the
//! state the update reads lies outside the elements it writes, whatever
//! the step (`index - at` below 0 or at least the update's length, by the
//! index algebra's ranges, a `reduce` of dependent steps below its count).
//! Then no invocation reads an element another writes in the same
//! dispatch.

use std::collections::BTreeMap;
use texpr_ir::linear::term_range_within;
use texpr_ir::{Expr, ExprKind, Program, Term, VarId, VarKind, VecRef, term};

/// Whether state `s`'s update in place is written by its `next` global's
/// kernel directly into the state (see the module doc).
pub fn direct(p: &Program, s: usize) -> bool {
    let st = &p.states[s];
    let (Some(at), VecRef::Global(g)) = (&st.at, st.next) else {
        return false;
    };
    let g = g as usize;
    if p.loops[st.of as usize].group.is_some()
        || p.globals[g].within != Some(st.of)
        || p.loop_body(st.of).end != g + 1
    {
        return false;
    }
    let root = &p.globals[g].value;
    let len = root.ty.len as i64;
    disjoint(p, root, s as u32, (at, len))
}

/// Whether `root` reads state `s` only outside `at .. at + len`.
fn disjoint(p: &Program, root: &Expr, s: u32, (at, len): (&Term, i64)) -> bool {
    let mut uppers: BTreeMap<VarId, Term> = BTreeMap::new();
    root.walk(|e| {
        if let ExprKind::Reduce {
            var,
            steps: Some(t),
            ..
        } = &e.kind
        {
            uppers.insert(*var, term::sub(t.clone(), term::constant(1)));
        }
    });
    let extent = |v: VarId| match p.vars.get(v.0 as usize)?.kind {
        VarKind::Index { extent } => Some(extent),
        VarKind::Vector(_) => None,
    };
    let upper = |v: VarId| uppers.get(&v).cloned();
    let mut ok = true;
    root.walk(|e| match &e.kind {
        ExprKind::Whole(VecRef::State(x)) if *x == s => ok = false,
        ExprKind::Index {
            vec: VecRef::State(x),
            index,
            ..
        } if *x == s => {
            let from_at = term::sub(index.clone(), at.clone());
            match term_range_within(&from_at, &extent, &upper) {
                Ok((lo, hi)) if hi < 0 || lo >= len => {}
                _ => ok = false,
            }
        }
        _ => {}
    });
    ok
}
