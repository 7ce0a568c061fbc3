//! `iterate` inside an expression: a loop of one invocation over scalar
//! states, its count a size or a term over enclosing indices. Each program
//! checks, prints back to itself (before and after scheduling), compiles its
//! loop into the kernel that reads it (no dispatch per step), and on the GPU
//! matches the interpreter with the default schedule and the heuristic's,
//! every element compared.

use texpr::{Options, ScheduleChoice, Target, compile};
use texpr_interp::eval;
use texpr_syntax::frontend;
use texpr_tests::gpu::{assert_matches_everywhere, gpu};
use texpr_tests::round_trip::assert_prints_back;

/// Programs a user of per-element recurrences writes.
const PROGRAMS: &[(&str, &str)] = &[
    // A prefix product, each element running its own count (i + 1 steps).
    (
        "prefix",
        "param N = 200\ninput x: f32[N]\n\
         output y = compute N |i| iterate i + 1 from 1.0 |p, t| p * (1.0 + x[t] / f32(N))",
    ),
    // A second-order recurrence (two states), the result the first.
    (
        "second_order",
        "param N = 300\ninput x: f32[N]\n\
         output y = compute N |i| iterate i from (x[0], 0.0) |a, b, t| (0.5 * a - 0.25 * b + x[t] / f32(N), a)",
    ),
    // A recurrence along each row of a matrix (a tridiagonal sweep's forward
    // half), with the row's coefficients from a loop of its own.
    (
        "rows",
        "param N = 64\ninput a: f32[N * N]\n\
         let p = compute N |j| iterate j from 0.0 |c| -0.25 / (0.25 * c + 1.5)\n\
         output q = compute N |i| compute N |j|\n    \
             iterate j from 1.0 |r, k| (a[i * N + k] - 0.25 * r) / (0.25 * p[k] + 1.5)",
    ),
    // Inside a reduce, a select's branch and a let's body; integer states; no step.
    (
        "placed",
        "param N = 48\ninput x: f32[N * N]\n\
         output s = compute N |i| reduce N |j| select(j > i, iterate 3 from x[i * N + j] |v| v * 0.5 + 1.0, x[i * N + j])\n\
         output c = compute N |i| f32(iterate i from 0i |k, t| k + t % 3)\n\
         output z = compute N |i| let w = x[i] * 2.0 in iterate 0 from w |v| v + 1.0",
    ),
    // A loop inside a loop's next value, reading the outer step.
    (
        "nested",
        "param N = 40\ninput x: f32[N]\n\
         output y = compute N |i| iterate 4 from x[i] |u, t| u + (iterate t from 0.0 |w, s| w + x[(i + s) % N] / 16.0)",
    ),
    // Backwards along a row, reading a matrix computed by another loop.
    (
        "back_substitution",
        "param N = 50\ninput d: f32[N * N]\n\
         let q = compute N |i| compute N |j| iterate j + 1 from 0.0 |r, k| 0.5 * r + d[i * N + k]\n\
         output v = compute N |i| compute N |j| iterate N - 1 - j from 1.0 |w, s| 0.5 * w + q[i * N + N - 1 - s]",
    ),
];

fn source(name: &str) -> &'static str {
    PROGRAMS.iter().find(|p| p.0 == name).map(|p| p.1).unwrap()
}

fn options(choice: ScheduleChoice) -> Options {
    Options {
        target: Target::builtin("wgpu-default").unwrap(),
        schedule: choice,
        ..Default::default()
    }
}

#[test]
fn loops_in_expressions_print_back_to_themselves() {
    for &(name, src) in PROGRAMS {
        let p = frontend(src, &[]).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        assert_prints_back(name, &p, &options(ScheduleChoice::Default));
    }
}

/// A loop inside an expression is a loop in the kernel that computes the
/// item: one kernel and one dispatch per output, however many steps.
#[test]
fn a_loop_in_an_expression_runs_inside_its_kernel() {
    for steps in [1, 10, 1000] {
        let src = format!(
            "input x: f32[64]\noutput y = compute 64 |i| iterate {steps} from x[i] |v| v * 0.5 + 1.0"
        );
        let p = frontend(&src, &[]).unwrap();
        for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
            let c = compile(&p, &options(choice)).unwrap();
            let m = &c.module;
            assert_eq!((m.kernels.len(), m.dispatch_count()), (1, 1), "{m}");
            assert!(m.loops.is_empty(), "{m}");
            assert!(m.wgsl.contains("for ("), "{}", m.wgsl);
        }
    }
}

/// A global computed by loops is worth its buffer: read `N` times per
/// element, fusing it into its reader would run its loop per read.
#[test]
fn a_global_computed_by_a_loop_is_not_recomputed_per_read() {
    let p = frontend(source("back_substitution"), &[]).unwrap();
    for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
        let c = compile(&p, &options(choice)).unwrap();
        let names: Vec<&str> = c
            .module
            .kernels
            .iter()
            .map(|k| k.entry_point.as_str())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().any(|n| n.ends_with("_q")), "{names:?}");
    }
}

/// The meaning, by the interpreter: the states all take their next values
/// at once, the value is the first state's, a count over an index runs
/// `max(count, 0)` steps, and the step is the loop's index.
#[test]
fn loops_in_expressions_mean_what_the_docs_say() {
    let run = |src: &str| {
        let p = frontend(src, &[]).unwrap_or_else(|e| panic!("{e:?}"));
        let inputs = texpr_interp::random_inputs(&p, 7);
        let out = eval(&p, &inputs).unwrap();
        (inputs, out)
    };
    // Three simultaneous swaps leave the second value first.
    let (_, out) = run("output o = compute 1 |i| iterate 3 from (1.0, 2.0) |a, b| (b, a)");
    assert_eq!(out[0].to_f64(), vec![2.0]);
    // The step counts 0, 1, ...: 0 + 1 + 2 + 3 + 4.
    let (_, out) = run("output c = compute 1 |i| iterate 5 from 0i |s, t| s + t");
    assert_eq!(out[0].to_f64(), vec![10.0]);
    // Counts below 0 run no step; others one step each.
    let (_, out) = run("output y = compute 5 |i| iterate i - 2 from 5.0 |v| v + 1.0");
    assert_eq!(out[0].to_f64(), vec![5.0, 5.0, 5.0, 6.0, 7.0]);
    // The prefix product is the running product of its factors.
    let (inputs, out) = run(source("prefix"));
    let x = inputs[0].to_f64();
    let mut p = 1.0f32;
    for (i, got) in out[0].to_f64().into_iter().enumerate() {
        p *= 1.0 + x[i] as f32 / 200.0;
        assert_eq!(got, p as f64, "element {i}");
    }
}

#[test]
fn loops_in_expressions_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    for &(name, src) in PROGRAMS {
        let p = frontend(src, &[]).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        assert_matches_everywhere(gpu, name, &p);
    }
}
