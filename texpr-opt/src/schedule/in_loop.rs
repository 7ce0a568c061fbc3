//! `loop group=W`: an item of a loop's block computed by one workgroup of
//! `W` invocations, each `T = ceil(L / W)` consecutive elements:
//! `compute@grid 1 {k < L -> k} |g| compute@group W |l| compute@thread T |t| ELEM(E, (l*T + t) % L)`
//! (the map and `% L` only when `W*T != L`; every item of the loop so has
//! exactly `W` invocations, those past the item's end recomputing an
//! element whose write the map drops).
//!
//! When every item of a loop takes it with one `W` ([`mark_loops`]), code
//! generation runs the loop whole in one kernel of that workgroup, the
//! steps separated by barriers (`Loop::group`). Expects an item of a loop's
//! block; E0211 otherwise.

use super::data::Strategy;
use super::fail::Fail;
use super::grid::{compute_at, grid_over, index, wrapped};
use texpr_ir::index::elem::elem;
use texpr_ir::term::{add, mul, var};
use texpr_ir::{Expr, Item, Level, LoopId, Program};

/// `root`, an item of a loop's block, on one workgroup of `w` invocations.
pub fn in_loop(p: &mut Program, root: &Expr, w: u64) -> Result<Expr, Fail> {
    let len = root.ty.len;
    let t = len.div_ceil(w);
    let raw = w * t;
    if raw > i32::MAX as u64 {
        return Err(Fail::sizes(format!(
            "{raw} padded elements overflow i32 indices"
        )));
    }
    let span = root.span;
    let g = index(p, "g", 1, span);
    let l = index(p, "l", w, span);
    let tv = index(p, "t", t, span);
    let idx = wrapped(add(mul(var(l), t), var(tv)), len, raw);
    let body = elem(p, root, &idx).map_err(|d| Fail::sizes(d.message))?;
    let inner = match t {
        1 => body,
        _ => compute_at(Level::Thread, t, tv, body),
    };
    let group = compute_at(Level::Group, w, l, inner);
    Ok(grid_over(p, g, 1, len, raw, group))
}

/// E0211 unless `item` is computed in a loop's every step.
pub fn in_a_loop(p: &Program, item: Item) -> Result<LoopId, Fail> {
    match item {
        Item::Global(x) => p.globals[x].within,
        Item::Output(_) => None,
    }
    .ok_or_else(|| Fail::shape("not an item of a loop's block: `loop` runs one in each step"))
}

/// The loops that may run whole in one workgroup: in no loop, with no
/// loop inside; with the items of each (its block's globals, in order).
pub fn fusable(p: &Program) -> Vec<(LoopId, Vec<Item>)> {
    (0..p.loops.len() as LoopId)
        .filter(|&l| p.loops[l as usize].within.is_none())
        .filter(|&l| p.loops.iter().all(|o| o.within != Some(l)))
        .map(|l| {
            let items = (p.globals.iter().enumerate())
                .filter(|(_, g)| g.within == Some(l))
                .map(|(x, _)| Item::Global(x))
                .collect();
            (l, items)
        })
        .collect()
}

/// Marks each loop [`fusable`] whose every item `strategy` gives `loop
/// group=W` (one `W`) to run whole in one workgroup of `W` invocations
/// (`Loop::group`), and unmarks every other loop.
pub fn mark_loops(p: &mut Program, strategy: impl Fn(&Program, Item) -> Strategy) {
    for lp in &mut p.loops {
        lp.group = None;
    }
    for (l, items) in fusable(p) {
        let groups: Vec<Option<u64>> = (items.iter())
            .map(|&it| match strategy(p, it) {
                Strategy::Loop { group } => Some(group),
                _ => None,
            })
            .collect();
        if let Some(&Some(w)) = groups.first()
            && groups.iter().all(|g| *g == Some(w))
        {
            p.loops[l as usize].group = Some(w);
        }
    }
}
