//! No infinity or NaN is a WGSL constant expression in any emitted shader
//! (Tint, Chromium's WGSL compiler, rejects such a module; naga accepts
//! it): every non-finite value reaches a kernel as a run-time value,
//! `bitcast<f32>(BITS | runtime_zero)` (`texpr-codegen/src/kir/build.rs`),
//! and `emit` checks every kernel's constant expressions
//! (`texpr-codegen/src/finite.rs`, E0394). Here: every example and programs
//! writing `inf` and `-inf`, folding `max`/`min`/`lse` over data that may be
//! empty, and guarding reads with `else -inf`, at sizes that take the
//! heuristic's strategies (rows, wide rows, multipass, grid strides, tiles),
//! compile for every built-in target under the heuristic schedule, and at
//! small sizes (as the differential tests shrink them: one invocation of the
//! default schedule folds a whole reduction) under the default schedule;
//! three run on the GPU against the interpreter.

use texpr::{Options, ScheduleChoice, compile};
use texpr_ir::Program;
use texpr_target::Target;
use texpr_tests::gpu::{check_program_with, gpu};
use texpr_tests::needs;
use texpr_tests::sched::small_sizes;

/// Programs whose kernels hold infinities: (name, source).
const PROGRAMS: &[(&str, &str)] = &[
    (
        "moved",
        "input x: f32[300]\n\
         output a = compute 300 |i| select(x[i] > 0.0, x[i], -inf)\n\
         output b = compute 300 |i| select(x[i] < 0.5, inf, x[i])\n\
         output c = fill(-inf, 8)\n\
         output d = compute 4 |i| let v = [1.0, inf, -inf, 2.0] in v[i]",
    ),
    (
        "guarded_window",
        "input x: f32[1000]\n\
         output m = compute 1000 |i| reduce max 5 |j| (x[i + j - 2] else -inf)\n\
         output n = compute 1000 |i| reduce min 5 |j| (x[i + j - 2] else inf)",
    ),
    (
        "empty_rows",
        "param R = 64\nparam C = 512\ninput x: f32[R * C]\n\
         output m = compute R |r| reduce max C |c| (x[r * C + c - 16 * C] else -inf)",
    ),
    (
        "masked_fold",
        "param N = 1048576\ninput x: f32[N]\n\
         output m = reduce max N |i| select(x[i] > 0.5, x[i], -inf)\n\
         output l = reduce lse N |i| select(x[i] > 0.5, x[i], -inf)",
    ),
    (
        "causal_softmax",
        "param S = 128\ninput s: f32[S * S]\n\
         output y = compute S |i| compute S |j| exp(select(j <= i, s[i * S + j], -inf) \
         - (reduce lse S |k| select(k <= i, s[i * S + k], -inf)))",
    ),
    (
        "masked_matmul",
        "param M = 128\nparam N = 128\nparam K = 128\ninput a: f32[M * K]\ninput b: f32[K * N]\n\
         output c = compute M |i| compute N |j| max(reduce K |k| a[i * K + k] * b[k * N + j], -inf)",
    ),
];

fn program(name: &str, src: &str) -> Program {
    texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{name}: {d:#?}"))
}

/// Every built-in target.
fn targets() -> Vec<Target> {
    (Target::BUILTINS.iter())
        .map(|name| Target::builtin(name).unwrap())
        .collect()
}

/// The spellings of the kernel's run-time zero after a non-finite value's
/// bits: named, or written into its one use.
const RUNTIME_ZERO: [&str; 2] = ["u | runtime_zero_", "u | (wid.x & 0u))"];

/// Every occurrence of a non-finite `f32` bit pattern in a bitcast is a
/// run-time value: or'ed with the kernel's run-time zero (`wid.x & 0u`).
fn non_finite_bitcasts_are_run_time(wgsl: &str) -> Result<(), String> {
    let mut rest = wgsl;
    while let Some(at) = rest.find("bitcast<f32>(0x") {
        let tail = &rest[at + "bitcast<f32>(0x".len()..];
        let bits = u32::from_str_radix(&tail[..8], 16).map_err(|e| e.to_string())?;
        if !f32::from_bits(bits).is_finite()
            && !RUNTIME_ZERO.iter().any(|z| tail[8..].starts_with(z))
        {
            return Err(format!(
                "a constant non-finite value: {}",
                &rest[at..at + 30]
            ));
        }
        rest = tail;
    }
    Ok(())
}

#[test]
fn every_example_and_infinity_compiles_for_every_builtin_target() {
    let examples = texpr_tests::golden::inputs("examples", "te")
        .into_iter()
        .map(|path| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        });
    let ours = PROGRAMS.iter().map(|(n, s)| (n.to_string(), s.to_string()));
    let mut spelled = 0;
    for (name, src) in examples.chain(ours) {
        let sized = [
            (ScheduleChoice::Default, small_sizes(&src)),
            (ScheduleChoice::Heuristic, Vec::new()),
        ];
        for (schedule, overrides) in sized {
            let p = texpr_syntax::frontend(&src, &overrides)
                .unwrap_or_else(|d| panic!("{name} {overrides:?}: {d:#?}"));
            for target in targets() {
                let opts = Options {
                    target: target.clone(),
                    overrides: Vec::new(),
                    schedule: schedule.clone(),
                };
                let at = format!("{name} for {} ({schedule:?})", target.name);
                if needs::lacks(&p, &target) {
                    let got = compile(&p, &opts).map(drop);
                    needs::refusal(&at, &target, got).unwrap_or_else(|e| panic!("{e}"));
                    continue;
                }
                // `emit` runs the check (E0394) on every kernel.
                let c = compile(&p, &opts).unwrap_or_else(|d| panic!("{at}: {d:#?}"));
                non_finite_bitcasts_are_run_time(&c.module.wgsl)
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                spelled += c.module.wgsl.contains("wid.x & 0u") as usize;
            }
        }
    }
    // The programs with infinities spell them at run time (the vector
    // literal of `moved` goes to a constant buffer instead).
    assert!(
        spelled >= PROGRAMS.len() * 6 - 6,
        "runtime zeros in {spelled} modules"
    );
}

/// The old spelling of an infinity, a constant bitcast, is what the check
/// rejects: a shader that writes one fails `validate` with E0394.
#[test]
fn a_constant_infinity_in_a_kernel_is_an_internal_error() {
    let p = program(PROGRAMS[0].0, PROGRAMS[0].1);
    let c = compile(&p, &Options::default()).unwrap();
    let features = texpr_target::Features::default();
    texpr_codegen::validate::validate(&c.module.wgsl, &features).unwrap();
    // Each non-finite value's bits without the run-time zero.
    let mut constant = String::new();
    let mut rest = c.module.wgsl.as_str();
    while let Some(at) = rest.find("u | ") {
        let (head, tail) = rest.split_at(at + 1);
        constant += head;
        let close = match tail.strip_prefix(" | (wid.x & 0u)") {
            Some(after) => after,
            None if tail.starts_with(" | runtime_zero_") => &tail[tail.find(')').unwrap()..],
            None => tail,
        };
        rest = close;
    }
    constant += rest;
    assert_ne!(constant, c.module.wgsl);
    let err = texpr_codegen::validate::validate(&constant, &features).unwrap_err();
    assert_eq!(err.code, "E0394", "{err:#?}");
    assert!(
        err.notes[0].contains("bitcast<f32>(0x"),
        "{:?}",
        err.notes[0]
    );
}

/// Infinities written, guarded and masked, on the GPU against the
/// interpreter: every element of `moved` compared (a moved infinity is
/// specified); in `guarded_window` the four elements per output whose
/// window reaches past the ends fold a `-inf` and are unspecified, the rest
/// compared; in `empty_rows` (at 24 rows) the 16 rows folded from nothing
/// but `-inf` are unspecified, the other 8 compared.
#[test]
fn infinities_run_on_the_gpu_as_the_interpreter_says() {
    if gpu().is_none() {
        return;
    }
    let empty_rows = PROGRAMS[2].1.replace("param R = 64", "param R = 24");
    let cases = [
        (
            PROGRAMS[0].0,
            PROGRAMS[0].1.to_string(),
            vec![(300, 0), (300, 0), (8, 0), (4, 0)],
        ),
        (
            PROGRAMS[1].0,
            PROGRAMS[1].1.to_string(),
            // A guard's `-inf` (`inf`) is max's (min's) identity: absorbed,
            // so every window is specified, the edges included.
            vec![(1000, 0), (1000, 0)],
        ),
        // A row all guards folds to max's identity, `-inf`, exactly: compared.
        ("empty_rows", empty_rows, vec![(24, 0)]),
    ];
    for (name, src, want) in cases {
        let p = program(name, &src);
        for schedule in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
            let Some(gpu) = gpu() else { return };
            let checks = check_program_with(gpu, &p, 3, &schedule)
                .unwrap_or_else(|e| panic!("{name} ({schedule:?}): {e}"));
            let counts: Vec<(usize, usize)> = (checks.outputs.iter())
                .map(|(_, c)| (c.compared, c.unspecified))
                .collect();
            assert_eq!(counts, want, "{name} ({schedule:?}): compared, unspecified");
        }
    }
}
