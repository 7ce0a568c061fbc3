//! The shapes a user's sequential solvers take, unrolled into top-level
//! `let`s, on well-conditioned inputs: a heat-3d stencil (7 points, 0.125
//! weights), a triangular solve (`(b - sum) / diag`) and a Cholesky
//! factorisation (`sqrt(a - sum)`, `(a - sum) / l`). Over 48 to 100 steps
//! their bounds stay sound, specified, finite and a small multiple of the
//! values' scale.

use crate::bounds::*;
use texpr_interp::Value;

/// A deterministic value in [-1, 1) for position `k`.
fn r(k: usize) -> f32 {
    ((k * 7919 + 104_729) % 2000) as f32 / 1000.0 - 1.0
}

fn f64s(xs: &[f32]) -> Vec<f64> {
    xs.iter().map(|&v| v as f64).collect()
}

/// polybench's heat-3d on a periodic `s`-cube: each step adds to every
/// point 0.125 times the second difference along each axis.
#[test]
fn a_heat_3d_stencil_keeps_tight_bounds_over_100_steps() {
    let (s, steps) = (8, 100);
    let mut src = format!("param S = {s}\ninput a: f32[S * S * S]\n");
    let mut prev = "a".to_string();
    for k in 0..steps {
        let at = |z: &str, y: &str, x: &str| format!("{prev}[({z}) * S * S + ({y}) * S + {x}]");
        let c = at("z", "y", "x");
        let diff = |lo: String, hi: String| format!("0.125 * ({hi} - 2.0 * {c} + {lo})");
        let dx = diff(at("z", "y", "(x + S - 1) % S"), at("z", "y", "(x + 1) % S"));
        let dy = diff(at("z", "(y + S - 1) % S", "x"), at("z", "(y + 1) % S", "x"));
        let dz = diff(at("(z + S - 1) % S", "y", "x"), at("(z + 1) % S", "y", "x"));
        src += &format!(
            "let t{k} = compute S |z| compute S |y| compute S |x| {dx} + {dy} + {dz} + {c}\n"
        );
        prev = format!("t{k}");
    }
    src += &format!("output out = compute S * S * S |i| {prev}[i]\n");
    let p = program(&src);
    let ins = inputs(&p);
    let (got, bounds) = reference(&p, &ins, 0);
    let x = ins[0].as_f32().unwrap();
    let mut a = f64s(x);
    let at = |z: usize, y: usize, x: usize| ((z % s) * s + y % s) * s + x % s;
    for _ in 0..steps {
        let mut next = vec![0.0; a.len()];
        for (z, y, x) in (0..s * s * s).map(|i| (i / (s * s), i / s % s, i % s)) {
            let c = a[at(z, y, x)];
            let d = |lo: usize, hi: usize| 0.125 * (a[hi] - 2.0 * c + a[lo]);
            next[at(z, y, x)] = d(at(z, y, x + s - 1), at(z, y, x + 1))
                + d(at(z, y + s - 1, x), at(z, y + 1, x))
                + d(at(z + s - 1, y, x), at(z + 1, y, x))
                + c;
        }
        a = next;
    }
    // The centre's error enters with weight 1 - 3 * 0.25 and the
    // neighbours' with 6 * 0.125: an average, so the bound grows by the
    // step's own rounding, under an ulp of the inputs' scale per step (a
    // bound adding weights' magnitudes, 2.5 per step, reached 1e33).
    let most = steps as f64 * EPS * input_scale(x);
    assert_sound_and_tight("heat", &got, &bounds, &a, most);
}

/// Forward substitution `x_k = (b_k - sum_j<k L_kj x_j) / L_kk` on a
/// diagonally dominant lower-triangular `L`, one unknown per step.
#[test]
fn a_triangular_solve_keeps_tight_bounds_over_64_steps() {
    let n = 64;
    let mut src = format!("param N = {n}\ninput L: f32[N * N]\ninput b: f32[N]\n");
    src += "let d0 = b[0] / L[0]\nlet x0 = compute N |i| select(i == 0, d0[0], 0.0)\n";
    for k in 1..n {
        let (prev, sum) = (
            k - 1,
            format!("reduce {k} |j| L[{k} * N + j] * x{}[j]", k - 1),
        );
        src += &format!("let d{k} = (b[{k}] - ({sum})) / L[{k} * N + {k}]\n");
        src += &format!("let x{k} = compute N |i| select(i == {k}, d{k}[0], x{prev}[i])\n");
    }
    src += &format!("output y = compute N |i| x{}[i]\n", n - 1);
    let l: Vec<f32> = (0..n * n)
        .map(|k| match (k / n, k % n) {
            (i, j) if i == j => 2.0 + r(k).abs(),
            (i, j) if j < i => r(k) / n as f32,
            _ => 0.0,
        })
        .collect();
    let b: Vec<f32> = (0..n).map(|k| r(k + n * n)).collect();
    let (lf, bf) = (f64s(&l), f64s(&b));
    let mut want = vec![0.0; n];
    for k in 0..n {
        let sum: f64 = (0..k).map(|j| lf[k * n + j] * want[j]).sum();
        want[k] = (bf[k] - sum) / lf[k * n + k];
    }
    let p = program(&src);
    let (got, bounds) = reference(&p, &[Value::f32(l), Value::f32(b)], 0);
    let most = 4.0 * n as f64 * EPS * scale(&want);
    assert_sound_and_tight("x", &got, &bounds, &want, most);
}

/// Cholesky `A = L L^T` column by column on a diagonally dominant
/// symmetric `A`: `L_jj = sqrt(A_jj - sum_k<j L_jk^2)`, then
/// `L_rj = (A_rj - sum_k<j L_rk L_jk) / L_jj` below it.
#[test]
fn a_cholesky_factorisation_keeps_tight_bounds_over_48_steps() {
    let n = 48;
    let mut src = format!("param N = {n}\ninput A: f32[N * N]\n");
    src += "let d0 = sqrt(A[0])\nlet c0 = compute N |r| A[r * N] / d0[0]\n";
    src += "let l0 = compute N |r| compute N |c| \
            select(c == 0, select(r == 0, d0[0], c0[r]), 0.0)\n";
    for j in 1..n {
        let p = j - 1;
        let dot = |row: &str| format!("reduce {j} |k| l{p}[{row} * N + k] * l{p}[{j} * N + k]");
        src += &format!(
            "let d{j} = sqrt(A[{j} * N + {j}] - ({}))\n",
            dot(&j.to_string())
        );
        src += &format!(
            "let c{j} = compute N |r| (A[r * N + {j}] - ({})) / d{j}[0]\n",
            dot("r")
        );
        src += &format!(
            "let l{j} = compute N |r| compute N |c| select(c == {j}, \
             select(r == {j}, d{j}[0], select(r > {j}, c{j}[r], 0.0)), l{p}[r * N + c])\n"
        );
    }
    src += &format!("output y = compute N * N |i| l{}[i]\n", n - 1);
    let a: Vec<f32> = (0..n * n)
        .map(|k| match (k / n, k % n) {
            (i, j) if i == j => n as f32 + 1.0,
            (i, j) => r(i.max(j) * n + i.min(j)),
        })
        .collect();
    let af = f64s(&a);
    let mut want = vec![0.0; n * n];
    for j in 0..n {
        let dot = |r: usize, w: &[f64]| (0..j).map(|k| w[r * n + k] * w[j * n + k]).sum::<f64>();
        let d = (af[j * n + j] - dot(j, &want)).sqrt();
        want[j * n + j] = d;
        for r in j + 1..n {
            want[r * n + j] = (af[r * n + j] - dot(r, &want)) / d;
        }
    }
    let p = program(&src);
    let (got, bounds) = reference(&p, &[Value::f32(a)], 0);
    let most = 4.0 * n as f64 * EPS * scale(&want);
    assert_sound_and_tight("L", &got, &bounds, &want, most);
}
