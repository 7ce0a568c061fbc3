//! `coarsen group=W per_thread=T`: each invocation computes `T` consecutive
//! elements of an item, `W` invocations a workgroup:
//! `compute@grid G {k < L -> k} |g| compute@group W |l| compute@thread T |t| ELEM(E, (g*W+l)*T+t % L)`
//! (the map and `% L` only when `G*W*T != L`). Any item; what elementwise
//! items want (code generation writes aligned runs of 4 as `vec4`).

use super::fail::Fail;
use super::grid::{compute_at, grid_over, index, lane, wrapped};
use texpr_ir::Level;
use texpr_ir::index::elem::elem;
use texpr_ir::term::{add, mul, var};
use texpr_ir::{Expr, Program};

pub fn coarsen(p: &mut Program, root: &Expr, w: u64, t: u64) -> Result<Expr, Fail> {
    let len = root.ty.len;
    let threads = len.div_ceil(t);
    let w = w.min(threads);
    let g_n = threads.div_ceil(w);
    let raw = g_n * w * t;
    if raw > i32::MAX as u64 {
        return Err(Fail::sizes(format!(
            "{raw} padded elements overflow i32 indices"
        )));
    }
    let span = root.span;
    let g = index(p, "g", g_n, span);
    let l = index(p, "l", w, span);
    let tv = index(p, "t", t, span);
    let idx = wrapped(add(mul(lane(g, w, l), t), var(tv)), len, raw);
    let body = elem(p, root, &idx).map_err(|d| Fail::sizes(d.message))?;
    let inner = match t {
        1 => body,
        _ => compute_at(Level::Thread, t, tv, body),
    };
    let group = compute_at(Level::Group, w, l, inner);
    Ok(grid_over(p, g, g_n, len, raw, group))
}
