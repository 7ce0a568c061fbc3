//! Every program in examples/ parses, checks, carries a comment header, its
//! interpreted result on random inputs matches an independent plain-Rust
//! reference, and on the GPU it matches the interpreter on every element
//! (none left uncompared as unspecified or ill-conditioned).

use crate::solver_refs;
use std::collections::BTreeMap;
use texpr_interp::{eval, random_inputs};

/// Param values by name, as the checker saw them.
type Params = BTreeMap<String, i64>;

/// One example: its file, small `-D` sizes, its reference, and its longest reduction.
struct Case {
    name: &'static str,
    defines: &'static [(&'static str, i64)],
    reference: fn(&Params, &[Vec<f64>]) -> Vec<f64>,
    reduce_len: fn(&Params) -> usize,
}

fn p(params: &Params, name: &str) -> usize {
    params[name] as usize
}

const CASES: &[Case] = &[
    Case {
        name: "saxpy",
        // Whole eights: llvmpipe's heuristic takes its wide path (two
        // inputs read eight at a time); `chain` keeps a ragged size.
        defines: &[("N", 1024)],
        reference: saxpy,
        reduce_len: |_| 1,
    },
    Case {
        name: "chain",
        defines: &[("N", 1000)],
        reference: chain,
        reduce_len: |_| 1,
    },
    Case {
        name: "dot",
        defines: &[("N", 1000)],
        reference: dot,
        reduce_len: |q| p(q, "N"),
    },
    Case {
        name: "sum",
        defines: &[("N", 1000)],
        reference: sum,
        reduce_len: |q| p(q, "N"),
    },
    Case {
        name: "max",
        defines: &[("N", 1000)],
        reference: max,
        reduce_len: |_| 1,
    },
    Case {
        name: "softmax",
        defines: &[("R", 5), ("C", 13)],
        reference: softmax,
        reduce_len: |q| p(q, "C"),
    },
    Case {
        name: "layernorm",
        defines: &[("R", 4), ("C", 33)],
        reference: layernorm,
        reduce_len: |q| p(q, "C"),
    },
    Case {
        name: "matvec",
        defines: &[("M", 9), ("N", 17)],
        reference: matvec,
        reduce_len: |q| p(q, "N"),
    },
    Case {
        name: "matmul",
        defines: &[("M", 7), ("N", 5), ("K", 9)],
        reference: matmul,
        reduce_len: |q| p(q, "K"),
    },
    Case {
        name: "matmul_f16",
        defines: &[("M", 7), ("N", 5), ("K", 33)],
        reference: matmul_f16,
        reduce_len: |q| p(q, "K"),
    },
    Case {
        name: "mlp_f16",
        defines: &[("T", 3), ("D", 8), ("H", 20)],
        reference: mlp_f16,
        reduce_len: |q| p(q, "H").max(p(q, "D")),
    },
    Case {
        name: "batched_matmul",
        defines: &[("BATCH", 3), ("M", 4), ("N", 5), ("K", 6)],
        reference: batched_matmul,
        reduce_len: |q| p(q, "K"),
    },
    Case {
        name: "transpose",
        defines: &[("M", 7), ("N", 5)],
        reference: transpose,
        reduce_len: |_| 1,
    },
    Case {
        name: "conv1d",
        defines: &[("N", 50), ("K", 5)],
        reference: conv1d,
        reduce_len: |q| p(q, "K"),
    },
    Case {
        name: "stencil2d",
        defines: &[("H", 7), ("W", 11)],
        reference: stencil2d,
        reduce_len: |_| 4,
    },
    Case {
        name: "attention",
        defines: &[("S", 6), ("T", 9), ("D", 8)],
        reference: attention,
        reduce_len: |q| p(q, "T") + p(q, "D"),
    },
    Case {
        name: "jacobi2d",
        defines: &[("N", 9), ("T", 7)],
        reference: jacobi2d,
        reduce_len: |q| 10 * p(q, "T"),
    },
    Case {
        name: "heat3d",
        defines: &[("N", 6), ("T", 5)],
        reference: heat3d,
        reduce_len: |q| 20 * p(q, "T"),
    },
    Case {
        name: "adi",
        defines: &[("N", 10), ("T", 2)],
        reference: |q, x| solver_refs::adi(p(q, "N"), p(q, "T"), &x[0]),
        reduce_len: |q| p(q, "N") * p(q, "N") * p(q, "T"),
    },
    Case {
        name: "cholesky",
        defines: &[("N", 11)],
        reference: cholesky,
        reduce_len: |q| 8 * p(q, "N"),
    },
    Case {
        name: "cumsum",
        defines: &[("T", 7), ("N", 9)],
        reference: cumsum,
        reduce_len: |q| p(q, "T"),
    },
    Case {
        name: "trisolv",
        defines: &[("N", 13)],
        reference: trisolv,
        reduce_len: |q| 8 * p(q, "N"),
    },
    Case {
        name: "cholesky_right",
        defines: &[("N", 11)],
        reference: cholesky,
        reduce_len: |q| 8 * p(q, "N"),
    },
    Case {
        name: "lu",
        defines: &[("N", 12)],
        reference: |q, x| solver_refs::lu(p(q, "N"), &x[0]),
        reduce_len: |q| 8 * p(q, "N"),
    },
    Case {
        name: "ludcmp",
        defines: &[("N", 10)],
        reference: |q, x| solver_refs::ludcmp(p(q, "N"), &x[0], &x[1]),
        reduce_len: |q| 16 * p(q, "N"),
    },
    Case {
        name: "floyd_warshall",
        defines: &[("N", 14)],
        reference: |q, x| solver_refs::floyd_warshall(p(q, "N"), &x[0]),
        reduce_len: |q| 2 * p(q, "N"),
    },
];

fn source(name: &str) -> String {
    let path = texpr_tests::golden::repo_root()
        .join("examples")
        .join(format!("{name}.te"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_example_file_has_a_case() {
    let files = texpr_tests::golden::inputs("examples", "te");
    let mut names: Vec<String> = files
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut cases: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    cases.sort();
    assert_eq!(names, cases);
}

#[test]
fn every_example_opens_with_a_comment_header() {
    for case in CASES {
        let src = source(case.name);
        let first = src.lines().next().unwrap_or("");
        let prefix = format!("// {}: ", case.name);
        assert!(
            first.starts_with(&prefix),
            "{}.te must open with `{prefix}...`",
            case.name
        );
    }
}

#[test]
fn every_example_checks_at_its_default_sizes() {
    for case in CASES {
        let src = source(case.name);
        if let Err(diags) = texpr_syntax::frontend(&src, &[]) {
            panic!(
                "{}",
                texpr_ir::diag::render(&format!("{}.te", case.name), &src, &diags)
            );
        }
    }
}

#[test]
fn every_example_is_canonically_formatted() {
    for case in CASES {
        let src = source(case.name);
        let canonical = texpr_syntax::print::format_source(&src).expect("parses");
        assert_eq!(
            src, canonical,
            "{}.te: run `texprc fmt examples/{0}.te`",
            case.name
        );
    }
}

#[test]
fn every_example_matches_its_reference() {
    for case in CASES {
        for seed in [1, 2] {
            check_case(case, seed);
        }
    }
}

/// Every example at its case's sizes, under the default and the heuristic
/// schedule, on the GPU: every element of its output compared with the
/// interpreter and within its bound. An example is a program whose every
/// element the language specifies, so a check that skipped some would
/// vouch for less than it says.
#[test]
fn every_example_on_the_gpu_compares_every_element() {
    use texpr::ScheduleChoice;
    use texpr_tests::gpu::{check_program_with, gpu};
    if gpu().is_none() {
        return;
    }
    let mut failures = Vec::new();
    for case in CASES {
        let (file, prog) = checked(case);
        for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
            let Some(gpu) = gpu() else { return };
            let found = check_program_with(gpu, &prog, 1, &choice)
                .map_err(|e| e.to_string())
                .and_then(|checks| {
                    checks.require_all_compared()?;
                    match checks.compared() {
                        0 => Err("nothing compared".to_string()),
                        _ => Ok(()),
                    }
                });
            if let Err(e) = found {
                failures.push(format!("{file} ({choice:?}): {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The case's program at its sizes, and its file name.
fn checked(case: &Case) -> (String, texpr_ir::Program) {
    let src = source(case.name);
    let defines: Vec<(String, i64)> = case
        .defines
        .iter()
        .map(|&(n, v)| (n.to_string(), v))
        .collect();
    let file = format!("{}.te", case.name);
    let prog = texpr_syntax::frontend(&src, &defines)
        .unwrap_or_else(|d| panic!("{}", texpr_ir::diag::render(&file, &src, &d)));
    (file, prog)
}

fn check_case(case: &Case, seed: u64) {
    let (file, prog) = checked(case);
    let params: Params = prog.params.iter().cloned().collect();
    let inputs = random_inputs(&prog, seed);
    let outputs = eval(&prog, &inputs).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert_eq!(outputs.len(), 1, "{file}: one output");
    let as_f64: Vec<Vec<f64>> = inputs.iter().map(|v| v.to_f64()).collect();
    let want = (case.reference)(&params, &as_f64);
    let got = outputs[0].to_f64();
    assert_eq!(got.len(), want.len(), "{file}: output length");
    let mut tol = 4.0 * f32::EPSILON as f64 * ((case.reduce_len)(&params) as f64 + 4.0);
    // A result rounded to f16 from a sum the reference takes in f64 may
    // land on the other side of a rounding boundary: one f16 ulp (2^-10
    // of the value), and as much again for an f16 value rounded on the way.
    if outputs[0].elem() == texpr_ir::ElemTy::F16 {
        tol += 2.0 * f64::from(half::f16::EPSILON);
    }
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let err = (g - w).abs();
        assert!(
            err <= tol * w.abs().max(1.0),
            "{file} seed {seed}: out[{k}] = {g}, reference {w}"
        );
    }
}

fn saxpy(_: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    x[1].iter()
        .zip(&x[2])
        .map(|(xi, yi)| x[0][0] * xi + yi)
        .collect()
}

fn chain(_: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    x[0].iter()
        .map(|xi| ((xi * 2.0 + 1.0) * 0.5 - 0.25) * xi)
        .collect()
}

fn dot(_: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    vec![x[0].iter().zip(&x[1]).map(|(a, b)| a * b).sum()]
}

fn sum(_: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    vec![x[0].iter().sum()]
}

fn max(_: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    vec![x[0].iter().copied().fold(f64::NEG_INFINITY, f64::max)]
}

fn softmax(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let mut out = Vec::new();
    for row in x[0].chunks(p(q, "C")) {
        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        out.extend(row.iter().map(|v| (v - m).exp() / s));
    }
    out
}

fn layernorm(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let c = p(q, "C");
    let (gamma, beta) = (&x[1], &x[2]);
    let mut out = Vec::new();
    for row in x[0].chunks(c) {
        let mean = row.iter().sum::<f64>() / c as f64;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / c as f64;
        let inv = 1.0 / (var + 1e-5).sqrt();
        out.extend((0..c).map(|j| (row[j] - mean) * inv * gamma[j] + beta[j]));
    }
    out
}

fn matvec(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let n = p(q, "N");
    x[0].chunks(n)
        .map(|row| row.iter().zip(&x[1]).map(|(a, b)| a * b).sum())
        .collect()
}

/// `c = a b` for row-major `a` (m x k) and `b` (k x n).
fn matmul_ref(a: &[f64], b: &[f64], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
        }
    }
    c
}

fn matmul(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    matmul_ref(&x[0], &x[1], p(q, "M"), p(q, "N"), p(q, "K"))
}

/// `x` rounded to binary16, as `f16(...)` rounds it.
fn half(x: f64) -> f64 {
    f64::from(half::f16::from_f64(x))
}

fn matmul_f16(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let c = matmul_ref(&x[0], &x[1], p(q, "M"), p(q, "N"), p(q, "K"));
    c.into_iter().map(half).collect()
}

fn mlp_f16(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let (t, d, h) = (p(q, "T"), p(q, "D"), p(q, "H"));
    let (xs, w1, b1, w2, b2) = (&x[0], &x[1], &x[2], &x[3], &x[4]);
    let mut hidden = matmul_ref(xs, w1, t, h, d);
    for (k, v) in hidden.iter_mut().enumerate() {
        *v = half((*v + b1[k % h]).max(0.0));
    }
    let mut y = matmul_ref(&hidden, w2, t, d, h);
    for (k, v) in y.iter_mut().enumerate() {
        *v = half(*v + b2[k % d]);
    }
    y
}

fn batched_matmul(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let (m, n, k) = (p(q, "M"), p(q, "N"), p(q, "K"));
    let a = x[0].chunks(m * k);
    a.zip(x[1].chunks(k * n))
        .flat_map(|(a, b)| matmul_ref(a, b, m, n, k))
        .collect()
}

fn transpose(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let (m, n) = (p(q, "M"), p(q, "N"));
    let mut out = vec![0.0; m * n];
    for r in 0..m {
        for c in 0..n {
            out[c * m + r] = x[0][r * n + c];
        }
    }
    out
}

fn conv1d(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let (n, k) = (p(q, "N") as i64, p(q, "K") as i64);
    let pad = k / 2;
    let at = |i: i64| {
        if (0..n).contains(&i) {
            x[0][i as usize]
        } else {
            0.0
        }
    };
    (0..n)
        .map(|i| (0..k).map(|j| x[1][j as usize] * at(i + j - pad)).sum())
        .collect()
}

fn stencil2d(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let (h, w) = (p(q, "H") as i64, p(q, "W") as i64);
    let at = |r: i64, c: i64| {
        let inside = (0..h).contains(&r) && (0..w).contains(&c);
        if inside {
            x[0][(r * w + c) as usize]
        } else {
            0.0
        }
    };
    let mut out = Vec::new();
    for r in 0..h {
        for c in 0..w {
            out.push(0.25 * (at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1)));
        }
    }
    out
}

fn attention(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let (t, d) = (p(q, "T"), p(q, "D"));
    let (keys, vals) = (&x[1], &x[2]);
    let mut out = Vec::new();
    for qi in x[0].chunks(d) {
        let scores: Vec<f64> = keys
            .chunks(d)
            .map(|kj| qi.iter().zip(kj).map(|(a, b)| a * b).sum::<f64>() / (d as f64).sqrt())
            .collect();
        let m = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = scores.iter().map(|s| (s - m).exp()).collect();
        let z: f64 = e.iter().sum();
        out.extend((0..d).map(|c| (0..t).map(|j| e[j] * vals[j * d + c]).sum::<f64>() / z));
    }
    out
}

/// One Jacobi sweep of the 5-point stencil over the interior of an n x n grid.
fn jacobi_sweep(a: &[f64], n: usize) -> Vec<f64> {
    let mut b = a.to_vec();
    for i in 1..n.saturating_sub(1) {
        for j in 1..n - 1 {
            let at = |r: usize, c: usize| a[r * n + c];
            b[i * n + j] =
                0.2 * (at(i, j) + at(i, j - 1) + at(i, j + 1) + at(i + 1, j) + at(i - 1, j));
        }
    }
    b
}

fn jacobi2d(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let n = p(q, "N");
    let mut a = x[0].clone();
    for _ in 0..p(q, "T") {
        a = jacobi_sweep(&jacobi_sweep(&a, n), n);
    }
    a
}

/// One step of the 7-point heat update over the interior of an n^3 grid.
fn heat_sweep(a: &[f64], n: usize) -> Vec<f64> {
    let mut b = a.to_vec();
    let at = |i: usize, j: usize, k: usize| a[(i * n + j) * n + k];
    for i in 1..n.saturating_sub(1) {
        for j in 1..n - 1 {
            for k in 1..n - 1 {
                let c = at(i, j, k);
                b[(i * n + j) * n + k] = 0.125 * (at(i + 1, j, k) - 2.0 * c + at(i - 1, j, k))
                    + 0.125 * (at(i, j + 1, k) - 2.0 * c + at(i, j - 1, k))
                    + 0.125 * (at(i, j, k + 1) - 2.0 * c + at(i, j, k - 1))
                    + c;
            }
        }
    }
    b
}

fn heat3d(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let n = p(q, "N");
    let mut a = x[0].clone();
    for _ in 0..p(q, "T") {
        a = heat_sweep(&heat_sweep(&a, n), n);
    }
    a
}

fn cholesky(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let n = p(q, "N");
    let m = &x[0];
    let a = |i: usize, j: usize| {
        (0..n).map(|p| m[i * n + p] * m[j * n + p]).sum::<f64>() / n as f64
            + if i == j { 1.0 } else { 0.0 }
    };
    let mut l = vec![0.0; n * n];
    for k in 0..n {
        let d = (a(k, k) - (0..k).map(|p| l[k * n + p] * l[k * n + p]).sum::<f64>()).sqrt();
        l[k * n + k] = d;
        for i in k + 1..n {
            l[i * n + k] = (a(i, k) - (0..k).map(|p| l[i * n + p] * l[k * n + p]).sum::<f64>()) / d;
        }
    }
    l
}

fn cumsum(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let (t, n) = (p(q, "T"), p(q, "N"));
    let mut s = x[0].clone();
    for k in n..t * n {
        s[k] += s[k - n];
    }
    s
}

fn trisolv(q: &Params, x: &[Vec<f64>]) -> Vec<f64> {
    let n = p(q, "N");
    let l = |i: usize, j: usize| match j.cmp(&i) {
        std::cmp::Ordering::Less => x[0][i * n + j] / n as f64,
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Greater => 0.0,
    };
    let mut sol = vec![0.0; n];
    for k in 0..n {
        sol[k] = (x[1][k] - (0..k).map(|p| l(k, p) * sol[p]).sum::<f64>()) / l(k, k);
    }
    sol
}
