//! Updates in place, `x with [k] = e` as a loop state's result: the state
//! keeps every element but the `len(e)` from `k` on. Each program prints
//! back to itself (before and after scheduling) and on the GPU matches the
//! interpreter with the default schedule and the heuristic's, every element
//! compared; a state so updated lives in one buffer that each step writes
//! only `len(e)` elements of, and the meaning is the one docs/language.md
//! gives.

use texpr::{Options, ScheduleChoice, compile};
use texpr_interp::eval;
use texpr_syntax::frontend;
use texpr_tests::gpu::{assert_matches_everywhere, from_host, gpu, to_host};
use texpr_tests::round_trip::assert_prints_back;

/// A row a step from a block's `let`, beside a state updated one element a
/// step from a fold over the whole state as the step began (also run in
/// one workgroup, `loop_in_group.rs`).
pub const ROWS: &str = "param R = 16\nparam C = 24\ninput A: f32[R * C]\n\
    let (S, seen) = iterate R from (fill(0.0, R * C), fill(0.0, R)) |S, seen, t| {\n\
        let row = compute C |j| (S[(t - 1) * C + j] else 1.0) * 0.5 + A[t * C + j]\n\
        let total = reduce R * C |q| S[q]\n\
        yield (S with [t * C] = row, seen with [t] = total)\n\
    }\n\
    output out = compute R * C |q| S[q] + seen[q / C]";

/// Programs that update their states in place.
const PROGRAMS: &[(&str, &str)] = &[
    // A prefix sum, one element a step, reading the one before.
    (
        "prefix_sum",
        "param N = 300\ninput x: f32[N]\n\
         output s = iterate N from fill(0.0, N) |s, k| s with [k] = (s[k - 1] else 0.0) + x[k]",
    ),
    // Backward substitution: the element written runs from the end.
    (
        "back_substitution",
        "param N = 40\ninput U0: f32[N * N]\ninput b: f32[N]\n\
         output x = iterate N from b |x, k|\n    \
             x with [N - 1 - k] = (b[N - 1 - k] - (reduce N |p| select(p > N - 1 - k, U0[(N - 1 - k) * N + p] / f32(N) * x[p], 0.0))) / 2.0",
    ),
    // A row a step from a block's `let`, read after the loop; a `let` after
    // it in the block still reads the state as the step began.
    ("rows", ROWS),
    // An in-place state beside one that is rewritten whole, the step unread
    // by the update (a constant place), and a loop of no steps.
    (
        "mixed",
        "param N = 32\ninput x: f32[N]\n\
         let (a, m) = iterate 5 from (x, fill(0.0, 4)) |a, m| (compute N |i| a[(i + 1) % N] * 0.5, m with [2] = a[0] + m[2])\n\
         let z = iterate 0 from x |z, t| z with [t] = 7.0\n\
         output o = compute N |i| a[i] + m[i % 4] + z[i]",
    ),
    // A loop inside a step, updating in place the outer loop's row.
    (
        "nested",
        "param N = 12\ninput x: f32[N * N]\n\
         output M = iterate N from x |M, t| {\n\
             let r = iterate 3 from (compute N |j| M[t * N + j]) |r, s| r with [s] = r[s] + f32(s)\n\
             yield M with [t * N] = r\n\
         }",
    ),
];

fn source(name: &str) -> &'static str {
    PROGRAMS.iter().find(|p| p.0 == name).map(|p| p.1).unwrap()
}

fn options(choice: ScheduleChoice) -> Options {
    Options {
        schedule: choice,
        ..Default::default()
    }
}

#[test]
fn updates_in_place_print_back_to_themselves() {
    for &(name, src) in PROGRAMS {
        let p = frontend(src, &[]).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        assert_prints_back(name, &p, &Options::default());
    }
}

/// The meaning, by the interpreter: the elements from the place on take
/// the value's, the rest keep theirs, every result of a step is computed
/// from the state as the step began, and the place is a term of the step.
#[test]
fn updates_in_place_mean_what_the_docs_say() {
    let run = |src: &str| {
        let p = frontend(src, &[]).unwrap_or_else(|e| panic!("{e:?}"));
        let inputs = texpr_interp::random_inputs(&p, 5);
        let out = eval(&p, &inputs).unwrap();
        (inputs, out)
    };
    let (_, out) = run(
        "output y = iterate 3 from [1.0, 2.0, 3.0, 4.0, 5.0] |y, t| y with [t + 1] = [10.0, 20.0]",
    );
    // t = 0: [1, 10, 20, 4, 5]; t = 1: [1, 10, 10, 20, 5]; t = 2: [1, 10, 10, 10, 20].
    assert_eq!(out[0].to_f64(), vec![1.0, 10.0, 10.0, 10.0, 20.0]);
    // Both results see the state as the step began: a swap through updates.
    let (_, out) = run(
        "output (a, b) = iterate 1 from ([1.0, 2.0], [3.0, 4.0]) |a, b| (a with [0] = b[1], b with [1] = a[0])",
    );
    assert_eq!(
        (out[0].to_f64(), out[1].to_f64()),
        (vec![4.0, 2.0], vec![3.0, 1.0])
    );
    let (inputs, out) = run(source("prefix_sum"));
    let mut sum = 0.0f32;
    for (k, (x, got)) in inputs[0].to_f64().iter().zip(out[0].to_f64()).enumerate() {
        sum += *x as f32;
        assert_eq!(got, sum as f64, "element {k}");
    }
}

#[test]
fn updates_in_place_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    for &(name, src) in PROGRAMS {
        let p = frontend(src, &[]).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        assert_matches_everywhere(gpu, name, &p);
    }
}

/// A state updated in place is one buffer, copied from its initial value
/// once, where a state rewritten whole alternates between two. When the
/// update reads none of the elements it writes and nothing after it in
/// the step reads the state, its kernel writes them there itself: one
/// dispatch a step by default (the prefix sum reads `s[k - 1]` and writes
/// `s[k]`). Otherwise a kernel of one invocation per element written
/// copies the update in at the end of the step: two dispatches a step
/// (the same sum reading `s[k]` too).
#[test]
fn a_state_updated_in_place_is_one_buffer_written_a_few_elements_a_step() {
    // trisolv's step reads `x[p]` for `p` below `k` (a `reduce` of `k`
    // steps) and writes `x[k]`: its kernel writes it, no copy follows.
    let path = texpr_tests::golden::repo_root().join("examples/trisolv.te");
    let trisolv = std::fs::read_to_string(path).unwrap();
    let p = frontend(&trisolv, &[]).unwrap();
    let c = compile(&p, &options(ScheduleChoice::Default)).unwrap();
    assert!(
        (c.module.kernels.iter()).all(|k| !k.entry_point.ends_with("_update")),
        "{}",
        c.module
    );
    let overlapping = source("prefix_sum").replace("x[k]", "x[k] + s[k] * 0.0");
    for (src, direct) in [(source("prefix_sum"), true), (overlapping.as_str(), false)] {
        let p = frontend(src, &[]).unwrap();
        let c = compile(&p, &options(ScheduleChoice::Default)).unwrap();
        let m = &c.module;
        let states: Vec<&str> = (m.buffers.iter())
            .filter(|b| matches!(b.role, texpr::BufferRole::State(_)))
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(states, ["s_state"], "{m}");
        let names: Vec<&str> = m.kernels.iter().map(|k| k.entry_point.as_str()).collect();
        assert!(
            names.iter().any(|n| n.ends_with("_s_state_init")),
            "{names:?}"
        );
        let update = (m.kernels.iter()).find(|k| k.entry_point.ends_with("_s_state_update"));
        let per_step = match (direct, update) {
            (true, None) => 1,
            (false, Some(u)) => {
                let invocations: u32 = u.workgroup_size.iter().chain(&u.dispatch).product();
                assert_eq!(invocations, 1, "one element a step: {m}");
                2
            }
            _ => panic!("direct {direct}: {names:?}"),
        };
        let lp = &m.loops[0];
        assert_eq!((lp.count, lp.kernels.len()), (300, per_step), "{m}");
        assert_eq!(m.dispatch_count(), 2 + per_step as u64 * 300 + 1, "{m}");
        let Some(gpu) = gpu() else { return };
        let values = texpr_interp::random_inputs(&p, 9);
        let host: Vec<_> = values.iter().map(to_host).collect();
        let r = gpu.run(m, &host).unwrap();
        assert_eq!(r.dispatches, m.dispatch_count());
        let want = eval(&p, &values).unwrap();
        assert_eq!(from_host(&r.outputs[0]).to_f64(), want[0].to_f64());
    }
}
