//! Folds too long for one invocation of llvmpipe (over its 65,535 loop
//! iterations), where they used to be refused (E0316) or left to the
//! default schedule: under an epilogue (`(reduce N |i| x[i]) / f32(N)`) and
//! with a vector body (a histogram), at 2^17 to 2^20 terms. The heuristic
//! splits each into parts: `gridstride` for the scalar folds, `multipass`
//! for the vector ones (the epilogue applied after the final pass, the
//! vector folded element by element), and the GPU agrees with the
//! interpreter.

use texpr::{Options, ScheduleChoice, Strategy, Target, compile};
use texpr_ir::Program;
use texpr_tests::gpu::{check_program_with, gpu};

/// `(name, output)`: each over `input x: f32[N]`.
const FOLDS: [(&str, &str); 5] = [
    ("mean", "output m = (reduce N |i| x[i]) / f32(N)"),
    (
        "root mean square",
        "output m = sqrt((reduce N |i| x[i] * x[i]) / f32(N))",
    ),
    (
        "histogram",
        "output h = reduce N |i| compute 8 |b| select(i32(x[i] * 4.0 + 4.0) == b, 1.0, 0.0)",
    ),
    (
        "normalised histogram",
        "output h = (reduce N |i| compute 8 |b| select(i32(x[i] * 4.0 + 4.0) == b, 1.0, 0.0)) * (1.0 / f32(N))",
    ),
    (
        "integer count in a float epilogue",
        "output c = f32(reduce N |i| select(x[i] > 0.0, 1, 0)) * 0.5",
    ),
];

fn program(output: &str, n: u64) -> Program {
    let src = format!("param N = {n}\ninput x: f32[N]\n{output}\n");
    texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{src}: {d:?}"))
}

/// Whether `s` splits a fold into parts: `gridstride` for a scalar body,
/// `multipass` for a vector one.
fn split(s: &Strategy, output: &str) -> bool {
    match s {
        Strategy::GridStride { .. } => !output.contains("compute 8"),
        Strategy::MultiPass { .. } => output.contains("compute 8"),
        _ => false,
    }
}

/// The heuristic's strategy for the program's one item on `target`.
fn heuristic_strategy(p: &Program, target: &Target) -> Strategy {
    let opts = Options {
        target: target.clone(),
        overrides: Vec::new(),
        schedule: ScheduleChoice::Heuristic,
    };
    let c = compile(p, &opts).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let (_, s) = c.schedule.items.last().unwrap().clone();
    s
}

#[test]
fn long_folds_under_epilogues_and_with_vector_bodies_are_split_on_llvmpipe() {
    let llvmpipe = Target::builtin("llvmpipe").unwrap();
    for (name, output) in FOLDS {
        for n in [1 << 17, 1 << 18, 1 << 20] {
            let p = program(output, n);
            let s = heuristic_strategy(&p, &llvmpipe);
            assert!(split(&s, output), "{name} at {n}: {s}");
        }
        // The default schedule folds in one invocation, which the device
        // would cut short: refused, never run.
        let p = program(output, 1 << 20);
        let opts = Options {
            target: llvmpipe.clone(),
            overrides: Vec::new(),
            schedule: ScheduleChoice::Default,
        };
        let err = compile(&p, &opts).err().unwrap_or_else(|| panic!("{name}"));
        assert!(err.iter().any(|d| d.code == "E0316"), "{name}: {err:?}");
    }
}

#[test]
fn long_folds_under_epilogues_and_with_vector_bodies_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    for (name, output) in FOLDS {
        for n in [1 << 17, 1 << 20] {
            let p = program(output, n);
            let s = heuristic_strategy(&p, gpu.target());
            assert!(split(&s, output), "{name} at {n}: {s}");
            check_program_with(gpu, &p, 5, &ScheduleChoice::Heuristic)
                .unwrap_or_else(|e| panic!("{name} at {n}: {e:?}"));
        }
    }
}
