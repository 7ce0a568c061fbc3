//! Work and traffic of a program, as its meaning defines them (not as a
//! schedule performs them): the figures `texprc bench` divides by time.
//!
//! - [`flops`]: arithmetic operations the unscheduled program performs — one
//!   per element of every elementwise operation and builtin (`fma` counts 2),
//!   one per element folded by a `reduce`; reads, constants and casts count 0.
//!   `compute n |i| e` does `n` times the work of `e`. A matmul `M x K x N`
//!   counts `2 M N K`.
//! - [`min_bytes`]: the bytes any implementation must move: every input read
//!   once and every output written once.

use texpr_syntax::ir::{Expr, ExprKind, Func, Program};

/// Arithmetic operations of the whole program (globals and outputs).
pub fn flops(p: &Program) -> u64 {
    let roots = p
        .globals
        .iter()
        .map(|g| &g.value)
        .chain(p.outputs.iter().map(|o| &o.value));
    roots.map(expr_flops).fold(0u64, u64::saturating_add)
}

/// Bytes of the inputs plus the outputs (4 bytes an element).
pub fn min_bytes(p: &Program) -> u64 {
    let inputs: u64 = p.inputs.iter().map(|i| i.ty.len).sum();
    let outputs: u64 = p.outputs.iter().map(|o| o.value.ty.len).sum();
    4 * (inputs + outputs)
}

fn expr_flops(e: &Expr) -> u64 {
    let len = e.ty.len;
    match &e.kind {
        ExprKind::Compute { n, body, .. } => n.saturating_mul(expr_flops(body)),
        ExprKind::Reduce { n, body, .. } => {
            n.saturating_mul(expr_flops(body).saturating_add(body.ty.len))
        }
        ExprKind::Let { value, body, .. } => expr_flops(value).saturating_add(expr_flops(body)),
        ExprKind::Index { .. }
        | ExprKind::Whole(_)
        | ExprKind::IndexVar(_)
        | ExprKind::Const(_)
        | ExprKind::Fill(_)
        | ExprKind::VecLit(_) => 0,
        ExprKind::Broadcast(arg) | ExprKind::Cast(arg) => expr_flops(arg),
        ExprKind::Unary(_, arg) => len.saturating_add(expr_flops(arg)),
        ExprKind::Binary(_, a, b) => len
            .saturating_add(expr_flops(a))
            .saturating_add(expr_flops(b)),
        ExprKind::Call(func, args) => {
            let own = if *func == Func::Fma { 2 * len } else { len };
            args.iter().map(expr_flops).fold(own, u64::saturating_add)
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
}
