//! What an evaluation will cost before it starts: the bytes of the vectors
//! it holds at once and the element operations it performs, from the
//! program's types alone (`texprc eval` refuses a program over its budgets).
//!
//! - **Bytes**: the inputs, every global and every output (all kept to the
//!   end), plus, for the item whose evaluation needs most, every vector-valued
//!   node inside it (each node holds at most one value at a time; a `compute`
//!   with an index map also holds its raw result). Elements are 4 bytes. An
//!   upper bound: nodes the evaluator computes one element at a time count whole.
//! - **Operations**: one per element each node produces, weighted by the trip
//!   counts of the `compute`s and `reduce`s around it (a `reduce` of
//!   dependent steps by its largest count) and of the loops (`iterate`)
//!   around its item; a state's initial value counts one copy per run of
//!   its loop, and a state is held like a global. A `select` counts its
//!   condition and the operand it picks, as the evaluator computes them: a
//!   condition over index variables by its share of their points
//!   (`texpr_ir::share`), a condition on data by the costlier
//!   operand; a `let`'s value counts where its body reads it.
//!
//! Both saturate at `u64::MAX`.

use texpr_ir::share::{Extents, read_share, share};
use texpr_ir::{Expr, ExprKind, Func, Program};

/// An evaluation's cost, as [`footprint`] bounds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes held at once, at most.
    pub bytes: u64,
    /// Element operations.
    pub ops: u64,
}

/// The cost of evaluating `p` (see the module doc).
pub fn footprint(p: &Program) -> Footprint {
    let roots = || {
        p.globals
            .iter()
            .map(|g| &g.value)
            .chain(p.outputs.iter().map(|o| &o.value))
    };
    let inputs = p
        .inputs
        .iter()
        .map(|i| i.ty.len)
        .fold(0, u64::saturating_add);
    let states = p
        .states
        .iter()
        .map(|s| s.ty.len)
        .fold(0, u64::saturating_add);
    let kept = roots()
        .map(|e| e.ty.len)
        .fold(inputs.saturating_add(states), u64::saturating_add);
    let transient = roots().map(|e| held(e, true)).max().unwrap_or(0);
    // How many times each loop runs its body in all.
    let mut runs = vec![1u64; p.loops.len()];
    for (l, lp) in p.loops.iter().enumerate() {
        let outer = lp.within.map_or(1, |w| runs[w as usize]);
        runs[l] = outer.saturating_mul(lp.count);
    }
    let times = |within: Option<u32>| within.map_or(1, |l| runs[l as usize]) as f64;
    let ex = Extents::of(p);
    let globals = p
        .globals
        .iter()
        .map(|g| times(g.within) * ops(&g.value, &ex));
    let outputs = p.outputs.iter().map(|o| ops(&o.value, &ex));
    let inits = p.states.iter().map(|s| {
        let lp = &p.loops[s.of as usize];
        times(lp.within) * s.ty.len as f64
    });
    Footprint {
        bytes: kept.saturating_add(transient).saturating_mul(4),
        // Counted in f64 (a share is a fraction); `as` saturates.
        ops: globals.chain(outputs).chain(inits).sum::<f64>().ceil() as u64,
    }
}

/// Elements of the vectors inside `e` that may be held at once (`root`: `e`
/// itself is counted as kept).
fn held(e: &Expr, root: bool) -> u64 {
    let own = match &e.kind {
        ExprKind::Compute {
            n,
            map: Some(_),
            body,
            ..
        } => n.saturating_mul(body.ty.len).saturating_add(e.ty.len),
        _ if e.ty.len > 1 => e.ty.len,
        _ => 0,
    };
    let own = if root {
        own.saturating_sub(e.ty.len)
    } else {
        own
    };
    e.children()
        .map(|c| held(c, false))
        .fold(own, u64::saturating_add)
}

/// Element operations to evaluate `e` once.
fn ops(e: &Expr, ex: &Extents) -> f64 {
    let len = e.ty.len as f64;
    let ops = |e: &Expr| ops(e, ex);
    match &e.kind {
        ExprKind::Compute { n, map, body, .. } => {
            let permute = map.as_ref().map_or(0, |m| m.len);
            *n as f64 * ops(body) + permute as f64
        }
        ExprKind::Reduce { n, body, .. } => *n as f64 * (ops(body) + body.ty.len as f64),
        ExprKind::Iterate {
            n, states, parts, ..
        } => {
            let (inits, nexts) = parts.split_at(states.len());
            let step = nexts.iter().map(ops).sum::<f64>() + states.len() as f64;
            inits.iter().map(ops).sum::<f64>() + *n as f64 * step
        }
        ExprKind::Let {
            var, value, body, ..
        } => read_share(*var, body, ex) * ops(value) + ops(body),
        ExprKind::Call(Func::Select, args) if args.len() == 3 => {
            let (a, b) = (ops(&args[1]), ops(&args[2]));
            let picked = match share(&args[0], ex) {
                Some(s) => s * a + (1.0 - s) * b,
                None => a.max(b),
            };
            len + ops(&args[0]) + picked
        }
        _ => e.children().map(ops).fold(len, |a, b| a + b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"))
    }

    #[test]
    fn bytes_count_inputs_outputs_and_inner_vectors() {
        let p = program("input x: f32[100]\noutput y = compute 100 |i| x[i] * 2.0");
        assert_eq!(footprint(&p).bytes, 4 * 200);
        let p = program(
            "input x: f32[100]\noutput y = compute 10 |i| (let v = compute 10 |j| x[i*10 + j] in v * v)",
        );
        // x, y, and inside: each body's `let` (10), `v * v` (10) and its operands (10 + 10).
        assert_eq!(
            footprint(&p).bytes,
            4 * (100 + 100 + 10 + 10 + 10 + 10 + 10)
        );
    }

    #[test]
    fn ops_grow_with_trip_counts() {
        let small = program("input x: f32[8]\noutput s = reduce 8 |i| x[i]");
        let large = program("input x: f32[8]\noutput s = reduce 2147483647 |i| x[i % 8]");
        assert_eq!(footprint(&small).ops, 8 * 2);
        assert!(
            footprint(&large).ops > 4_000_000_000,
            "{:?}",
            footprint(&large)
        );
    }

    #[test]
    fn a_select_bills_the_operand_it_picks() {
        // The diagonal (64 of 4096 elements) picks a 64-term dot product;
        // evaluating it everywhere would be 1,069,056 operations.
        let picked = "param N = 64\ninput a: f32[N * N]\noutput y = compute N |i| compute N |j| \
                      select(i == j, reduce N |k| a[i * N + k] * a[k * N + j], a[i * N + j])";
        // Per element: the select (1), its condition (3), 1/64 of the
        // reduce (64 x 4) and 63/64 of a read.
        assert_eq!(footprint(&program(picked)).ops, 4096 * 8 + 4032);
        // Cholesky's form: a `let` read only by the operand picked on the
        // diagonal (the read of `d` counts 1 where the read of `a` did).
        let by_let = "param N = 64\ninput a: f32[N * N]\noutput y = compute N |i| compute N |j| \
                      let d = reduce N |k| a[i * N + k] * a[k * N + j] in select(i == j, d, a[i * N + j])";
        assert_eq!(footprint(&program(by_let)).ops, 4096 * 9);
    }

    #[test]
    fn a_huge_program_saturates_instead_of_overflowing() {
        let p = program(
            "param N = 2147483647\ninput x: f32[1]\n\
             output y = compute N |i| reduce N |j| reduce N |k| x[0]",
        );
        let f = footprint(&p);
        assert_eq!(f.ops, u64::MAX);
        assert!(f.bytes >= 4 * 2147483647);
    }
}
