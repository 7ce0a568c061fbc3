//! The suite's unrolled chains: the loop examples' steps written out as
//! top-level `let`s, one per step (as programs were written before the
//! language had `iterate`), so the heuristic meets long chains of small
//! items, each a matrix-wide step with its step number a constant.
//!
//! Each generator takes the size `N` (and `T` for the stencil) and writes a
//! program whose steps are the loop example's body with the step number and
//! the previous state substituted, so it computes what the example computes,
//! bit for bit (the tests below hold each to that in the interpreter). A fold
//! over the step number (`reduce k |p|`) is `0.0` at step 0, as the empty
//! fold the loop runs there.

/// The unrolled programs: (suite name, the loop example it unrolls).
pub const CHAINS: &[(&str, &str)] = &[
    ("cholesky_unrolled", "cholesky"),
    ("cholesky_right_unrolled", "cholesky_right"),
    ("lu_unrolled", "lu"),
    ("ludcmp_unrolled", "ludcmp"),
    ("floyd_warshall_unrolled", "floyd_warshall"),
    ("jacobi2d_unrolled", "jacobi2d"),
];

/// The source of unrolled chain `name` at the sizes `defines` (`N`, and
/// `T` for `jacobi2d_unrolled`); `None` for a name not in [`CHAINS`] or a
/// size missing or below 1.
pub fn source(name: &str, defines: &[(String, i64)]) -> Option<String> {
    let size = |p: &str| {
        let v = defines.iter().rev().find(|(k, _)| k == p)?.1;
        usize::try_from(v).ok().filter(|v| *v >= 1)
    };
    let lines = match name {
        "cholesky_unrolled" => cholesky(size("N")?),
        "cholesky_right_unrolled" => cholesky_right(size("N")?),
        "lu_unrolled" => lu(size("N")?),
        "ludcmp_unrolled" => ludcmp(size("N")?),
        "floyd_warshall_unrolled" => floyd_warshall(size("N")?),
        "jacobi2d_unrolled" => jacobi2d(size("N")?, size("T")?),
        _ => return None,
    };
    let example = CHAINS.iter().find(|(n, _)| *n == name)?.1;
    let mut text = format!("// {name}: examples/{example}.te with its steps unrolled into lets\n");
    for line in lines {
        text.push_str(&line);
        text.push('\n');
    }
    Some(text)
}

/// `(reduce k |p| BODY)`, or `0.0` at step 0 (the empty fold).
fn fold(k: usize, body: &str) -> String {
    match k {
        0 => "0.0".to_string(),
        _ => format!("(reduce {k} |p| {body})"),
    }
}

/// The name of step `k`'s result: `last` for the final step, else `PREFIXk`.
fn step(prefix: &str, k: usize, steps: usize, last: &str) -> (String, &'static str) {
    match k + 1 == steps {
        true => (last.to_string(), "output"),
        false => (format!("{prefix}{k}"), "let"),
    }
}

/// `examples/cholesky.te` (left-looking: step `k` finds column `k`).
fn cholesky(n: usize) -> Vec<String> {
    let mut out = vec![
        format!("param N = {n}"),
        "input M: f32[N * N]".into(),
        "let A = compute N |i| compute N |j| (reduce N |p| M[i * N + p] * M[j * N + p]) / f32(N) + select(i == j, 1.0, 0.0)".into(),
        "let L_init = fill(0.0, N * N)".into(),
    ];
    let mut prev = "L_init".to_string();
    for k in 0..n {
        let (name, kw) = step("L", k, n, "L");
        let diag = fold(k, &format!("{prev}[{k} * N + p] * {prev}[{k} * N + p]"));
        let col = fold(k, &format!("{prev}[i * N + p] * {prev}[{k} * N + p]"));
        out.push(format!(
            "let d{k} = compute 1 |_| sqrt(A[{k} * N + {k}] - {diag})"
        ));
        out.push(format!(
            "{kw} {name} = compute N |i| compute N |j| let below = (A[i * N + {k}] - {col}) / d{k}[0] in \
             select(j == {k} && i > {k}, below, select(j == {k} && i == {k}, d{k}[0], {prev}[i * N + j]))"
        ));
        prev = name;
    }
    out
}

/// `examples/cholesky_right.te` (right-looking: step `k` updates the
/// trailing lower triangle).
fn cholesky_right(n: usize) -> Vec<String> {
    let mut out = vec![
        format!("param N = {n}"),
        "input M: f32[N * N]".into(),
        "let A = compute N |i| compute N |j| select(j <= i, (reduce N |p| M[i * N + p] * M[j * N + p]) / f32(N) + select(i == j, 1.0, 0.0), 0.0)".into(),
    ];
    let mut prev = "A".to_string();
    for k in 0..n {
        let (name, kw) = step("S", k, n, "L");
        let s = |t: &str| format!("{prev}[{t}]");
        out.push(format!(
            "{kw} {name} = compute N |i| compute N |j| select(j == {k} && i >= {k}, {} / sqrt({}), \
             select(j > {k} && i >= j, {} - {} * {} / {}, {}))",
            s(&format!("i * N + {k}")),
            s(&format!("{k} * N + {k}")),
            s("i * N + j"),
            s(&format!("i * N + {k}")),
            s(&format!("j * N + {k}")),
            s(&format!("{k} * N + {k}")),
            s("i * N + j"),
        ));
        prev = name;
    }
    out
}

/// `A = A0 + N I`, the matrix the LU examples factor.
const DOMINANT: &str =
    "let A = compute N |i| compute N |j| A0[i * N + j] + select(i == j, f32(N), 0.0)";

/// `examples/lu.te` (right-looking, no pivoting).
fn lu(n: usize) -> Vec<String> {
    let mut out = vec![
        format!("param N = {n}"),
        "input A0: f32[N * N]".into(),
        DOMINANT.into(),
    ];
    let mut prev = "A".to_string();
    for k in 0..n {
        let (name, kw) = step("S", k, n, "LU");
        let s = |t: &str| format!("{prev}[{t}]");
        let (ij, ik, kj, kk) = (
            s("i * N + j"),
            s(&format!("i * N + {k}")),
            s(&format!("{k} * N + j")),
            s(&format!("{k} * N + {k}")),
        );
        out.push(format!(
            "{kw} {name} = compute N |i| compute N |j| select(i > {k} && j > {k}, {ij} - {ik} * {kj} / {kk}, \
             select(i > {k} && j == {k}, {ik} / {kk}, {ij}))"
        ));
        prev = name;
    }
    out
}

/// `examples/ludcmp.te` (PolyBench's `lu` steps, then forward and back
/// substitution).
fn ludcmp(n: usize) -> Vec<String> {
    let mut out = vec![
        format!("param N = {n}"),
        "input A0: f32[N * N]".into(),
        "input b: f32[N]".into(),
        DOMINANT.into(),
    ];
    let mut prev = "A".to_string();
    for k in 0..n {
        let name = format!("S{k}");
        let row = fold(k, &format!("{prev}[{k} * N + p] * {prev}[p * N + j]"));
        let col = fold(k, &format!("{prev}[i * N + p] * {prev}[p * N + {k}]"));
        out.push(format!(
            "let u{k} = compute N |j| {prev}[{k} * N + j] - {row}"
        ));
        out.push(format!(
            "let {name} = compute N |i| compute N |j| select(i == {k} && j >= {k}, u{k}[j], \
             select(j == {k} && i > {k}, ({prev}[i * N + {k}] - {col}) / u{k}[{k}], {prev}[i * N + j]))"
        ));
        prev = name;
    }
    let lu = prev;
    out.push("let y_init = fill(0.0, N)".into());
    let mut y = "y_init".to_string();
    for k in 0..n {
        let sum = fold(k, &format!("{lu}[{k} * N + p] * {y}[p]"));
        out.push(format!(
            "let y{k} = compute N |i| select(i == {k}, b[{k}] - {sum}, {y}[i])"
        ));
        y = format!("y{k}");
    }
    out.push("let x_init = fill(0.0, N)".into());
    let mut x = "x_init".to_string();
    for t in 0..n {
        let (name, kw) = step("x", t, n, "x");
        let sum = fold(t, &format!("{lu}[i * N + N - 1 - p] * {x}[N - 1 - p]"));
        out.push(format!(
            "{kw} {name} = compute N |i| select(i == N - 1 - {t}, ({y}[i] - {sum}) / {lu}[i * N + i], {x}[i])"
        ));
        x = name;
    }
    out
}

/// `examples/floyd_warshall.te` (step `k` lets paths pass through `k`).
fn floyd_warshall(n: usize) -> Vec<String> {
    let mut out = vec![
        format!("param N = {n}"),
        "input W: f32[N * N]".into(),
        "let D0 = compute N |i| compute N |j| select(i == j, 0.0, abs(W[i * N + j]) + 1.0)".into(),
    ];
    let mut prev = "D0".to_string();
    for k in 0..n {
        let (name, kw) = step("S", k, n, "D");
        out.push(format!(
            "{kw} {name} = compute N |i| compute N |j| min({prev}[i * N + j], {prev}[i * N + {k}] + {prev}[{k} * N + j])"
        ));
        prev = name;
    }
    out
}

/// `examples/jacobi2d.te`: `T` time steps of two sweeps each, `2 T` lets.
fn jacobi2d(n: usize, t: usize) -> Vec<String> {
    let mut out = vec![
        format!("param N = {n}"),
        format!("param T = {t}"),
        "input A0: f32[N * N]".into(),
    ];
    let mut prev = "A0".to_string();
    for s in 0..2 * t {
        let (name, kw) = step("S", s, 2 * t, "A");
        let at = |d: &str| format!("{prev}[{d}] else 0.0");
        out.push(format!(
            "{kw} {name} = compute N |i| compute N |j| let c = {prev}[i * N + j] in let w = {} in \
             let e = {} in let s = {} in let n = {} in \
             select(i > 0 && i < N - 1 && j > 0 && j < N - 1, 0.2 * (c + w + e + s + n), c)",
            at("i * N + j - 1"),
            at("i * N + j + 1"),
            at("(i + 1) * N + j"),
            at("(i - 1) * N + j"),
        ));
        prev = name;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use texpr_interp::{eval, random_inputs};
    use texpr_ir::Program;

    fn program(name: &str, text: &str, defines: &[(String, i64)]) -> Program {
        texpr_syntax::frontend(text, defines).unwrap_or_else(|d| {
            panic!("{}", texpr_ir::diag::render(name, text, &d));
        })
    }

    /// Every chain at small sizes computes what its loop example computes,
    /// bit for bit, on random inputs (the example read from `examples/`).
    #[test]
    fn every_chain_means_its_loop_example() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        for (chain, example) in CHAINS {
            let file = root.join("examples").join(format!("{example}.te"));
            let text = std::fs::read_to_string(&file).unwrap();
            for n in [2, 5] {
                let mut defines = vec![("N".to_string(), n)];
                if text.contains("param T") {
                    defines.push(("T".to_string(), 3));
                }
                let unrolled = source(chain, &defines).unwrap();
                let looped = program(example, &text, &defines);
                let chained = program(chain, &unrolled, &defines);
                let inputs = random_inputs(&looped, 7);
                let bits = |p: &Program| -> Vec<Vec<u64>> {
                    let out = eval(p, &inputs).unwrap_or_else(|e| panic!("{chain}: {e}"));
                    (out.iter())
                        .map(|v| v.to_f64().iter().map(|x| x.to_bits()).collect())
                        .collect()
                };
                let want = bits(&looped);
                assert!(want.iter().all(|o| !o.is_empty()), "{example}");
                assert_eq!(bits(&chained), want, "{chain} at N = {n}\n{unrolled}");
            }
        }
    }

    /// Every chain at small sizes runs on the GPU under the heuristic and
    /// the default schedule and matches the interpreter on every element
    /// (each within its bound, none left uncompared).
    #[test]
    fn every_chain_matches_the_interpreter_on_the_gpu() {
        use crate::values::{to_host, to_value};
        use texpr::{Options, ScheduleChoice};
        let Ok(gpu) = texpr_runtime::Gpu::open_from_env() else {
            let required = std::env::var("TEXPR_REQUIRE_GPU").is_ok_and(|v| v.trim() == "1");
            assert!(!required, "TEXPR_REQUIRE_GPU=1 but there is no GPU adapter");
            eprintln!("  (GPU test skipped: no adapter)");
            return;
        };
        for (chain, _) in CHAINS {
            let defines = vec![("N".to_string(), 6), ("T".to_string(), 2)];
            let text = source(chain, &defines).unwrap();
            let defines: Vec<_> = (defines.into_iter())
                .filter(|(k, _)| text.contains(&format!("param {k} ")))
                .collect();
            let p = program(chain, &text, &defines);
            let inputs = random_inputs(&p, 3);
            let host: Vec<_> = inputs.iter().map(to_host).collect();
            let want = texpr_interp::accuracy::reference(&p, &inputs).unwrap();
            for schedule in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
                let opts = Options {
                    target: gpu.target().clone(),
                    overrides: defines.clone(),
                    schedule,
                };
                let c = texpr::compile(&p, &opts).unwrap_or_else(|d| panic!("{chain}: {d:?}"));
                let ran = gpu
                    .run(&c.module, &host)
                    .unwrap_or_else(|e| panic!("{chain}: {e}"));
                let got: Vec<_> = ran.outputs.iter().map(to_value).collect();
                for r in texpr_interp::accuracy::check_report(&p, &got, &want) {
                    let checked =
                        r.unwrap_or_else(|m| panic!("{chain} ({:?}): {m}", opts.schedule));
                    assert!(
                        checked.all_compared() && checked.compared > 0,
                        "{chain}: {checked:?}"
                    );
                }
            }
        }
    }

    /// A chain has one step per `N` (two sweeps per `T` for the stencil),
    /// and no source without its sizes.
    #[test]
    fn chains_have_a_step_per_size() {
        let d = |pairs: &[(&str, i64)]| -> Vec<(String, i64)> {
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let lets = |name: &str, defines: &[(String, i64)]| {
            let text = source(name, defines).unwrap();
            text.lines()
                .filter(|l| l.starts_with("let ") || l.starts_with("output "))
                .count()
        };
        // `A`, then one step per column.
        assert_eq!(lets("lu_unrolled", &d(&[("N", 9)])), 10);
        assert_eq!(lets("floyd_warshall_unrolled", &d(&[("N", 4)])), 5);
        assert_eq!(lets("jacobi2d_unrolled", &d(&[("N", 9), ("T", 6)])), 12);
        assert!(source("lu_unrolled", &d(&[("T", 3)])).is_none());
        assert!(source("lu_unrolled", &d(&[("N", 0)])).is_none());
        assert!(source("lu", &d(&[("N", 3)])).is_none());
    }
}
