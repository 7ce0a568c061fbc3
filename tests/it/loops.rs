//! Loops (`iterate`), conditions and `reduce` counts over enclosing indices,
//! end to end: each program checks, prints back to itself (before and after
//! scheduling), and on the GPU matches the interpreter with the default
//! schedule and the heuristic's.

use texpr::{Options, ScheduleChoice, Target, compile};
use texpr_interp::eval;
use texpr_syntax::frontend;
use texpr_tests::gpu::{check_program_with, gpu};
use texpr_tests::round_trip::assert_prints_back;

/// A program's name, its source, and the `-D` values it runs at.
type Case = (&'static str, &'static str, &'static [(&'static str, i64)]);

/// Programs a loop's user writes, each with the `-D` values it runs at.
const PROGRAMS: &[Case] = &[
    (
        "jacobi1d",
        "param N = 37\nparam T = 5\ninput a0: f32[N]\n\
         output a = iterate T from a0 |a, t| {\n\
             let b = compute N |i| select(i > 0 && i < N - 1, ((a[i - 1] else 0.0) + a[i] + (a[i + 1] else 0.0)) / 3.0, a[i])\n\
             yield compute N |i| select(i > 0 && i < N - 1, ((b[i - 1] else 0.0) + b[i] + (b[i + 1] else 0.0)) / 3.0, b[i])\n\
         }",
        &[],
    ),
    // Swapped states (each next value a copy), and the step in terms and values.
    (
        "swap",
        "param N = 20\nparam T = 3\ninput x: f32[N]\ninput y: f32[N]\n\
         let (a, b) = iterate T from (x, y) |a, b| (b, compute N |i| a[(i + 1) % N])\n\
         output s = compute N |i| a[i] - b[i]",
        &[],
    ),
    (
        "step",
        "param N = 16\nparam T = 6\ninput x: f32[N]\n\
         output u = iterate T from x |u, t| compute N |i| u[(i + t) % N] * 0.5 + f32(t) + x[i]",
        &[],
    ),
    // One `let` the next value of two states: the second takes a copy.
    (
        "shared_next",
        "param N = 8\ninput x: f32[N]\n\
         let (p, q) = iterate 4 from (x, x) |p, q| {\n\
             let s = compute N |i| p[i] + q[i] * 0.25\n\
             yield (s, s)\n\
         }\n\
         output o = compute N |i| p[i] * q[i]",
        &[],
    ),
    // A loop inside a loop's step, reading the outer state and step.
    (
        "nested",
        "param N = 12\ninput x: f32[N]\n\
         output o = iterate 3 from x |o, t| {\n\
             let w = iterate 4 from o |w, k| compute N |i| w[i] * 0.5 + o[(i + k) % N] + f32(t)\n\
             yield compute N |i| w[i] - o[i]\n\
         }",
        &[],
    ),
    // A final state read by a later item and as a later loop's start.
    (
        "chained_loops",
        "param N = 10\ninput x: f32[N]\n\
         let a = iterate 3 from x |a| compute N |i| a[i] + 1.0\n\
         let b = iterate 2 from a |b| compute N |i| b[(i + 1) % N] * a[i]\n\
         output o = compute N |i| a[i] + b[i]",
        &[],
    ),
    // A scalar sum in a step (a strategy with a partials buffer, per step).
    (
        "normalise",
        "param N = 300\ninput x: f32[N]\n\
         output u = iterate 3 from x |u| {\n\
             let s = reduce N |i| u[i] * u[i]\n\
             yield compute N |i| u[i] / sqrt(s[0] + 1.0)\n\
         }",
        &[],
    ),
    // Integer states.
    (
        "collatz",
        "param N = 32\ninput x: i32[N]\n\
         output c = iterate 7 from x |c| compute N |i| select(c[i] % 2 == 0, c[i] / 2, 3 * c[i] + 1)",
        &[],
    ),
    // Triangular sums and folds that may be empty (their identity), a
    // select computing only the branch it picks.
    (
        "triangular",
        "param N = 24\ninput x: f32[N]\ninput m: i32[N]\n\
         output s = compute N |i| reduce i + 1 |k| x[i - k]\n\
         output mx = compute N |i| reduce max i |k| x[k]\n\
         output mn = compute N |i| reduce min N - 1 - i |k| m[i + 1 + k]\n\
         output pick = compute N |i| select(i % 3 == 0 && !(i == 9), reduce i |k| x[k] * x[i - 1 - k], x[i])",
        &[],
    ),
];

/// The programs and the step counts each runs at besides its own.
fn steps() -> Vec<(&'static str, Vec<(String, i64)>)> {
    let mut out = Vec::new();
    for &(name, _, defines) in PROGRAMS {
        let d: Vec<(String, i64)> = defines.iter().map(|&(n, v)| (n.to_string(), v)).collect();
        out.push((name, d.clone()));
        if name == "jacobi1d" {
            // No step, one, an even number.
            for t in [0, 1, 4] {
                out.push((name, vec![("T".to_string(), t)]));
            }
        }
    }
    out
}

fn source(name: &str) -> &'static str {
    PROGRAMS.iter().find(|p| p.0 == name).map(|p| p.1).unwrap()
}

#[test]
fn loop_programs_print_back_to_themselves() {
    let target = Target::builtin("wgpu-default").unwrap();
    for (name, defines) in steps() {
        let p = frontend(source(name), &defines).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let opts = Options {
            target: target.clone(),
            overrides: defines.clone(),
            ..Default::default()
        };
        assert_prints_back(name, &p, &opts);
    }
}

#[test]
fn loop_programs_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    for (name, defines) in steps() {
        let p = frontend(source(name), &defines).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
            for seed in [1, 2] {
                if let Err(e) = check_program_with(gpu, &p, seed, &choice) {
                    panic!("{name} {defines:?} ({choice:?}, seed {seed}): {e}");
                }
            }
        }
    }
}

/// The meaning, by the interpreter: `T = 0` leaves the initial values;
/// states all take their next values at once; a loop's plan dispatches its
/// kernels once per step.
#[test]
fn loops_mean_what_the_docs_say() {
    let run = |src: &str, defines: &[(&str, i64)]| {
        let d: Vec<(String, i64)> = defines.iter().map(|&(n, v)| (n.to_string(), v)).collect();
        let p = frontend(src, &d).unwrap_or_else(|e| panic!("{e:?}"));
        let inputs = texpr_interp::random_inputs(&p, 7);
        let out = eval(&p, &inputs).unwrap();
        (inputs, out)
    };
    let (inputs, out) = run(source("jacobi1d"), &[("T", 0)]);
    assert_eq!(
        out[0].to_f64(),
        inputs[0].to_f64(),
        "no step: the initial value"
    );
    // A swap is simultaneous: after an odd number of swaps a holds y.
    let swap = "param N = 4\ninput x: f32[N]\ninput y: f32[N]\n\
                let (a, b) = iterate 3 from (x, y) |a, b| (b, a)\n\
                output o = compute N |i| a[i]";
    let (inputs, out) = run(swap, &[]);
    assert_eq!(out[0].to_f64(), inputs[1].to_f64());
    // Each step sees the step number: sum of t over 0..5 is 10.
    let count = "input x: i32[1]\noutput c = iterate 5 from x |c, t| compute 1 |_| c[0] + t";
    let (inputs, out) = run(count, &[]);
    assert_eq!(out[0].to_f64()[0], inputs[0].to_f64()[0] + 10.0);
    // An empty `reduce max` gives the identity.
    let empty = "input x: f32[3]\noutput m = compute 3 |i| reduce max i |k| x[k]";
    let (inputs, out) = run(empty, &[]);
    let x = inputs[0].to_f64();
    assert_eq!(
        out[0].to_f64(),
        vec![f64::NEG_INFINITY, x[0], x[0].max(x[1])]
    );

    let target = Target::builtin("wgpu-default").unwrap();
    let p = frontend(source("nested"), &[]).unwrap();
    let opts = Options {
        target,
        ..Default::default()
    };
    let c = compile(&p, &opts).unwrap();
    let m = &c.module;
    assert_eq!(m.loops.len(), 2, "{m}");
    // The inner loop's kernels run 4 times per outer step, 3 steps.
    let inner = &m.loops[1];
    assert_eq!((inner.count, inner.within), (4, Some(0)));
    let per_outer = m.loops[0].kernels.len() - inner.kernels.len();
    let want = 3 * (per_outer as u64 + 4 * inner.kernels.len() as u64)
        + (m.kernels.len() - m.loops[0].kernels.len()) as u64;
    assert_eq!(m.dispatch_count(), want, "{m}");
    assert_eq!(m.dispatches().count() as u64, want);
}
