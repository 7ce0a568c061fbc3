//! Work and traffic of a program, as its meaning defines them (not as a
//! schedule performs them): the figures `texprc bench` divides by time.
//!
//! - [`flops`]: arithmetic operations the unscheduled program performs — one
//!   per element of every elementwise operation and builtin (`fma` counts 2),
//!   one per element folded by a `reduce`; reads, constants and casts count 0.
//!   `compute n |i| e` does `n` times the work of `e`. A matmul `M x K x N`
//!   counts `2 M N K`. A `reduce` whose count depends on an index counts the
//!   middle of its count's range (exact for a count linear in one variable:
//!   a triangle is half its square); an item in a loop counts once per step.
//!   A `select` counts the operand it picks (the language computes no
//!   other): by its condition's share of the index points where the
//!   condition is over indices (`texpr_ir::share`), else the
//!   costlier; a `let`'s value counts where its body reads it.
//! - [`min_bytes`]: the bytes a step-by-step implementation must move: every
//!   input read once and every output written once, and every loop state
//!   read and written once per step (a step's values do not stay on chip).

use texpr_ir::share::{Extents, read_share, share};
use texpr_ir::{Expr, ExprKind, Func, Program};

/// Arithmetic operations of the whole program (globals and outputs).
pub fn flops(p: &Program) -> u64 {
    let ex = Extents::of(p);
    let globals = (p.globals.iter())
        .map(|g| expr_flops(p, &ex, &g.value) * p.runs_within(g.within, None) as f64);
    let outputs = p.outputs.iter().map(|o| expr_flops(p, &ex, &o.value));
    // Counted in f64 (a triangle's mean count is a half); `as` saturates.
    globals.chain(outputs).sum::<f64>().round() as u64
}

/// Bytes of the inputs plus the outputs, plus each loop state twice a step
/// (4 bytes an element).
pub fn min_bytes(p: &Program) -> u64 {
    let inputs: u64 = p.inputs.iter().map(|i| i.ty.len).sum();
    let outputs: u64 = p.outputs.iter().map(|o| o.value.ty.len).sum();
    let states = p.states.iter().map(|s| {
        let steps = p.runs_within(Some(s.of), None);
        let steps = if p.loops[s.of as usize].count == 0 {
            0
        } else {
            steps
        };
        2u64.saturating_mul(s.ty.len).saturating_mul(steps)
    });
    let states = states.fold(0u64, u64::saturating_add);
    4u64.saturating_mul(inputs.saturating_add(outputs).saturating_add(states))
}

/// The steps a `reduce` runs on average: `n`, or for a count over indices
/// the middle of its range (its ends clamped to `0..=n`).
fn mean_steps(p: &Program, n: u64, steps: Option<&texpr_ir::Term>) -> f64 {
    let clamp = |x: i64| x.clamp(0, n as i64) as f64;
    match steps.and_then(|t| texpr_ir::term::range(p, t)) {
        Some((lo, hi)) => (clamp(lo) + clamp(hi)) / 2.0,
        None => n as f64,
    }
}

fn expr_flops(p: &Program, ex: &Extents, e: &Expr) -> f64 {
    let len = e.ty.len as f64;
    let expr_flops = |e: &Expr| expr_flops(p, ex, e);
    match &e.kind {
        ExprKind::Compute { n, body, .. } => *n as f64 * expr_flops(body),
        ExprKind::Reduce { n, body, steps, .. } => {
            mean_steps(p, *n, steps.as_ref()) * (expr_flops(body) + body.ty.len as f64)
        }
        ExprKind::Let {
            var, value, body, ..
        } => read_share(*var, body, ex) * expr_flops(value) + expr_flops(body),
        ExprKind::Iterate {
            n,
            steps,
            states,
            parts,
            ..
        } => {
            let (inits, nexts) = parts.split_at(states.len());
            let step: f64 = nexts.iter().map(expr_flops).sum();
            inits.iter().map(expr_flops).sum::<f64>() + mean_steps(p, *n, steps.as_ref()) * step
        }
        ExprKind::Index { .. }
        | ExprKind::Whole(_)
        | ExprKind::IndexVar(_)
        | ExprKind::Const(_)
        | ExprKind::Fill(_)
        | ExprKind::VecLit(_) => 0.0,
        ExprKind::Broadcast(arg) | ExprKind::Cast(arg) => expr_flops(arg),
        ExprKind::Unary(_, arg) => len + expr_flops(arg),
        ExprKind::Binary(_, a, b) => len + expr_flops(a) + expr_flops(b),
        ExprKind::Call(Func::Select, args) if args.len() == 3 => {
            let (a, b) = (expr_flops(&args[1]), expr_flops(&args[2]));
            let picked = match share(&args[0], ex) {
                Some(s) => s * a + (1.0 - s) * b,
                None => a.max(b),
            };
            len + expr_flops(&args[0]) + picked
        }
        ExprKind::Call(func, args) => {
            let own = if *func == Func::Fma { 2.0 * len } else { len };
            own + args.iter().map(expr_flops).sum::<f64>()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"))
    }

    #[test]
    fn matmul_counts_two_mnk() {
        let p = program(
            "input a: f32[6]\ninput b: f32[12]\n\
             output c = compute 2 |i| compute 4 |j| reduce 3 |k| a[i*3 + k] * b[k*4 + j]",
        );
        assert_eq!(flops(&p), 2 * 2 * 4 * 3);
        assert_eq!(min_bytes(&p), 4 * (6 + 12 + 8));
    }

    #[test]
    fn elementwise_counts_per_element_and_fma_twice() {
        let p = program(
            "input x: f32[10]\noutput y = compute 10 |i| fma(x[i], 2.0, exp(x[i]))\noutput z = x + x * x",
        );
        // y: 10 * (fma 2 + exp 1); z: 10 (mul) + 10 (add).
        assert_eq!(flops(&p), 30 + 20);
    }

    #[test]
    fn loops_count_every_step_and_triangles_half_their_square() {
        // 5 steps of 8 additions; the state read and written each step.
        let p =
            program("input x: f32[8]\noutput y = iterate 5 from x |y| compute 8 |i| y[i] + 1.0");
        // 5 * 8 adds; the output `y` copies the final state (no flops).
        assert_eq!(flops(&p), 5 * 8);
        assert_eq!(min_bytes(&p), 4 * (8 + 8 + 2 * 8 * 5));
        // reduce i + 1 over i < 8: 1 + 2 + ... + 8 = 36 terms.
        let p = program("input x: f32[8]\noutput y = compute 8 |i| reduce i + 1 |k| x[k]");
        assert_eq!(flops(&p), 36);
    }

    #[test]
    fn a_select_counts_the_operand_it_picks() {
        // The diagonal (8 of 64 elements) picks a 16-term dot product (32
        // flops), the rest a read; the select itself counts 1 an element.
        let p = program(
            "input a: f32[64]\noutput y = compute 8 |i| compute 8 |j| \
             select(i == j, reduce 16 |k| a[i * 8 + k % 8] * a[k % 8], a[i * 8 + j])",
        );
        // The condition `i == j` counts 1 (a comparison) an element.
        assert_eq!(flops(&p), 8 * 32 + 64 + 64);
        // The same through a `let` read only where the select picks it.
        let p = program(
            "input a: f32[64]\noutput y = compute 8 |i| compute 8 |j| \
             let d = reduce 16 |k| a[i * 8 + k % 8] * a[k % 8] in select(i == j, d, a[i * 8 + j])",
        );
        assert_eq!(flops(&p), 8 * 32 + 64 + 64);
        // Cholesky's step folds column k's sums only (N^3 / 3 multiply-adds
        // in all), not every element's (N^4 / 2): with A = M M^T / N (2 N^3)
        // and each step's conditions and selects on every element (8 N^3),
        // about 10.5 N^3 at N = 64, where the N^4 of eager sums is 64 N^3.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cholesky.te");
        let src = std::fs::read_to_string(root).unwrap();
        let p = texpr_syntax::frontend(&src, &[("N".to_string(), 64)]).unwrap();
        let n3 = 64f64.powi(3);
        let f = flops(&p) as f64;
        assert!(f > 10.0 * n3 && f < 11.0 * n3, "{f} against N^3 = {n3}");
        // On data, the costlier operand.
        let p = program(
            "input a: f32[64]\noutput y = compute 64 |i| select(a[i] > 0.0, a[i] * 2.0 + 1.0, a[i])",
        );
        assert_eq!(flops(&p), 64 * (1 + 1 + 2));
    }
}
