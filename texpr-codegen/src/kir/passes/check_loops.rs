//! `check_loops`: the loop iterations one invocation runs, every loop's
//! trips times the runs of the block it stands in (an upper bound: an `if`
//! counts as taken), within the target's `max_loop_iterations` (E0316,
//! llvmpipe's loop limiter; pointing at the item). Without that limit the
//! pass checks nothing.
//!
//! A check: it changes nothing.

use super::Outcome;
use crate::kir::{Block, Kernel, Stmt};
use texpr_ir::Diagnostic;
use texpr_target::Target;

/// Loop iterations one invocation of `k` runs at most, all loops together.
pub fn loop_iterations(k: &Kernel) -> u64 {
    iterations(&k.body, 1)
}

/// The iterations of the loops in `b`, a block run `runs` times.
fn iterations(b: &Block, runs: u64) -> u64 {
    let mut total = 0u64;
    for s in &b.stmts {
        let inner = match s {
            Stmt::Loop(l) => {
                let trips = runs.saturating_mul(l.trips);
                trips.saturating_add(iterations(&l.body, trips))
            }
            Stmt::If(i) => {
                let els = i.els.as_ref().map_or(0, |e| iterations(e, runs));
                iterations(&i.then, runs).saturating_add(els)
            }
            _ => 0,
        };
        total = total.saturating_add(inner);
    }
    total
}

pub fn check_loops(k: &Kernel, target: &Target) -> Outcome {
    let Some(max) = target.limits.max_loop_iterations else {
        return Ok(());
    };
    let n = loop_iterations(k);
    if n <= max {
        return Ok(());
    }
    Err(vec![
        Diagnostic::error(
            "E0316",
            format!(
                "kernel `{}` runs up to {n} loop iterations in one invocation; the device stops an invocation's loops after {max}",
                k.name
            ),
        )
        .with_primary(k.spans.item, format!("{n} sequential iterations per invocation"))
        .with_note("Mesa's llvmpipe (lavapipe) leaves every loop early past this budget, and the results would be silently wrong")
        .with_note("spread the work over more invocations (e.g. split a long `reduce` into a `compute` of partial reductions), or use a smaller size"),
    ])
}
