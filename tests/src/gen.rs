//! A seeded generator of well-typed TExpr programs, written as surface source.
//!
//! [`program`] returns source text (so a failure prints readably and the
//! parser and checker are exercised too). Programs use every form: `compute`
//! (nested, with transpose, reversal and truncation index maps), `reduce` with
//! each operator, `let` at every level and at the top, guarded reads with
//! out-of-range offsets, broadcasting, casts, `select` over comparisons,
//! `f32`, `f16` (with [`program`]), `i32` and `u32` vectors of odd sizes, params and several outputs;
//! a quarter of the outputs carry hand-written levels ([`levels`]); conditions
//! with `&&`, `||` and `!`; `reduce` counts over an enclosing index; and a
//! third of the programs a loop (`iterate`, [`loops`]: one or two states, a
//! few steps, its block's `let`s, sometimes a loop inside), and scalars
//! computed by an `iterate` inside an expression.
//!
//! Values stay finite and comparable with the interpreter: float magnitudes are
//! kept bounded (clamped arguments for `exp`, `sin`, `cos`, `pow` and products),
//! `log`/`sqrt`/`rsqrt` see non-negative arguments, divisors are at least 1 in
//! magnitude, conditions and float-to-int casts read exact values only, so a
//! last-bit difference cannot flip them.

mod elem;
mod expr;
mod levels;
mod loops;
mod rng;
mod term;

pub use elem::E;
pub use rng::Rng;

use std::fmt::Write as _;

use expr::{Env, Gen, VecInfo};

/// Lengths of inputs and outputs: small and odd ones mostly, a few larger.
const SIZES: [u64; 16] = [1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 64, 100, 128, 257, 1000];

/// The source of program number `seed` (the same text for the same seed),
/// with `f16` values among the others: for a target with `shader_f16`.
pub fn program(seed: u64) -> String {
    generate(seed, true)
}

/// Program number `seed` of the programs without `f16` (for a target
/// without `shader_f16`, such as a browser's).
pub fn program_without_f16(seed: u64) -> String {
    generate(seed, false)
}

fn generate(seed: u64, f16: bool) -> String {
    let mut g = Gen::new(seed, f16);
    let mut out = format!("// generated program, seed {seed}\n");
    let env = declare_inputs(&mut g, &mut out);
    let mut env = declare_globals(&mut g, &mut out, env);
    if g.rng.chance(0.35) {
        g.loop_item(&mut out, &mut env, 0, true);
    }
    let n_out = 1 + g.rng.below(3);
    for k in 0..n_out {
        let ty = (g.elem(), pick_size(&mut g.rng));
        let e = match g.rng.chance(0.25) {
            true => g.leveled(ty, &env),
            false => g.expr(ty, &env, 4),
        };
        if g.rng.chance(0.5) {
            let _ = writeln!(out, "output o{k}: {}[{}] = {e}", ty.0.name(), ty.1);
        } else {
            let _ = writeln!(out, "output o{k} = {e}");
        }
    }
    out
}

fn pick_size(rng: &mut Rng) -> u64 {
    // Bias towards small sizes: the test runs thousands of programs.
    let k = rng.below(SIZES.len() as u64) as usize;
    let j = rng.below(SIZES.len() as u64) as usize;
    SIZES[k.min(j)]
}

/// Params and 1 to 4 inputs; a param names one input's length.
fn declare_inputs(g: &mut Gen, out: &mut String) -> Env {
    let mut env = Env::default();
    let n = 1 + g.rng.below(4);
    for k in 0..n {
        let elem = g.elem();
        let len = pick_size(&mut g.rng);
        let name = format!("x{k}");
        if k == 0 && g.rng.chance(0.5) {
            let _ = writeln!(out, "param N = {len}");
            let _ = writeln!(out, "input {name}: {}[N]", elem.name());
            env.params.push(("N".to_string(), len));
        } else {
            let _ = writeln!(out, "input {name}: {}[{len}]", elem.name());
        }
        env.vecs.push(VecInfo {
            name,
            elem,
            len,
            exact: true,
        });
    }
    env
}

/// Zero to two top-level lets, each readable by later items.
fn declare_globals(g: &mut Gen, out: &mut String, mut env: Env) -> Env {
    let n = g.rng.below(3);
    for k in 0..n {
        let ty = (g.elem(), pick_size(&mut g.rng));
        let e = g.expr(ty, &env, 3);
        let name = format!("t{k}");
        let level = if g.rng.chance(0.3) { "@global" } else { "" };
        let _ = writeln!(out, "let{level} {name} = {e}");
        let exact = !ty.0.is_float();
        env.vecs.push(VecInfo {
            name,
            elem: ty.0,
            len: ty.1,
            exact,
        });
    }
    env
}
