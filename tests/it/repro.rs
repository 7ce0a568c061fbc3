//! The programs NVIDIA's Vulkan driver (580.159, H100) got wrong or lost the
//! device on (`tests/data/repro/nvidia/`, issue 14), as ordinary GPU tests.
//!
//! Each runs under the heuristic and the default schedule and must give the
//! values computed here in plain Rust from the same inputs (and the
//! interpreter's). They pass on lavapipe; on an NVIDIA GPU they are the
//! regression tests of integer `max`/`min` folds seeded with `i32::MIN`
//! (`max(acc, -x)` lost the first element) and of a kernel with 64 copies of
//! a 64-element register array.

use std::path::PathBuf;

use texpr::ScheduleChoice;
use texpr_interp::Value;
use texpr_interp::accuracy::check_outputs;
use texpr_ir::Program;
use texpr_tests::golden::repo_root;
use texpr_tests::gpu::{gpu, run_program_with};

fn repro_dir() -> PathBuf {
    repo_root().join("tests/data/repro/nvidia")
}

fn program(name: &str) -> Program {
    let src = std::fs::read_to_string(repro_dir().join(name)).unwrap();
    texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{name}: {d:?}"))
}

/// The `.npy` file of an `i32` input.
fn npy_i32(name: &str) -> Vec<i32> {
    let bytes = std::fs::read(repro_dir().join(name)).unwrap();
    npyz::NpyFile::new(&bytes[..])
        .unwrap()
        .into_vec::<i32>()
        .unwrap()
}

/// Runs `p` under the heuristic and the default schedule and checks every
/// output against `want` (exactly for integers, within `1e-5` relative for
/// floats) and against the interpreter.
fn run_both(name: &str, p: &Program, inputs: &[Value], want: &[Value]) {
    let Some(gpu) = gpu() else { return };
    let interp = texpr_interp::accuracy::reference(p, inputs).unwrap();
    for (o, (w, i)) in want.iter().zip(&interp).enumerate() {
        assert_close(&format!("{name}: interpreter output {o}"), &i.value, w);
    }
    for choice in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
        let (got, _) = run_program_with(gpu, p, inputs, &choice)
            .unwrap_or_else(|e| panic!("{name} ({choice:?}): {e}"));
        for (o, (g, w)) in got.iter().zip(want).enumerate() {
            assert_close(&format!("{name} ({choice:?}): output {o}"), g, w);
        }
        let bad = check_outputs(p, &got, &interp);
        assert!(bad.is_empty(), "{name} ({choice:?}): {bad:?}");
    }
}

fn assert_close(what: &str, got: &Value, want: &Value) {
    match (got.as_f32(), want.as_f32()) {
        (Some(g), Some(w)) => {
            assert_eq!(g.len(), w.len(), "{what}");
            for (k, (a, b)) in g.iter().zip(w).enumerate() {
                let tol = 1e-5 * b.abs().max(1.0);
                assert!((a - b).abs() <= tol, "{what}[{k}]: {a} != {b}");
            }
        }
        _ => assert_eq!(got, want, "{what}"),
    }
}

/// `reduce OP n |i| body(i)` on `i32`, in index order.
fn fold_i32(n: usize, max: bool, body: impl Fn(usize) -> i32) -> i32 {
    let vals = (0..n).map(body);
    match max {
        true => vals.max().unwrap(),
        false => vals.min().unwrap(),
    }
}

#[test]
fn integer_max_min_of_negated_values() {
    let p = program("int_max_neg.te");
    let x = npy_i32("int_max_neg.x.npy");
    assert_eq!(x.len(), 16);
    let neg = |k: usize| x[k].wrapping_neg();
    let one = |v: i32| Value::i32(vec![v]);
    let want = vec![
        one(fold_i32(8, true, |i| neg((i * 5 + 8) % 2))),
        one(fold_i32(8, true, |i| neg(i % 2))),
        one(fold_i32(8, true, neg)),
        one(fold_i32(16, true, neg)),
        one(fold_i32(16, false, neg)),
        one(fold_i32(8, true, |i| x[i].wrapping_mul(x[i]))),
        one(fold_i32(8, true, |i| neg((i * 5 + 8) / 4))),
        one(fold_i32(8, true, |i| x[i].wrapping_abs())),
        one(fold_i32(5, true, neg)),
        one(fold_i32(4, true, neg)),
    ];
    // The H100 gave 89, 89, 93, 93, -94, ..., 93 for a, b, c, d, e, m.
    assert_eq!(want[2], one(94));
    assert_eq!(want[4], one(10));
    run_both("int_max_neg", &p, &[Value::i32(x)], &want);
}

#[test]
fn seed_1130_min_of_negated_max() {
    let p = program("seed1130.te");
    let inputs = texpr_interp::random_inputs(&p, 1);
    let x1 = inputs[1].as_i32().unwrap().to_vec();
    // t1 = reduce min 16 |i5| -(max(compute 31 |i6| x1[0], x1[(i5*6+9) % 3]))
    let t1: Vec<i32> = (0..31)
        .map(|_| {
            fold_i32(16, false, |i5| {
                x1[0].max(x1[(i5 * 6 + 9) % 3]).wrapping_neg()
            })
        })
        .collect();
    let t1_at = |k: i64| usize::try_from(k).ok().and_then(|k| t1.get(k)).copied();
    let o0_elem = fold_i32(64, false, |_| {
        fold_i32(5, true, |i12| t1_at(i12 as i64 - 4).unwrap_or(5))
    });
    let o1: Vec<i32> = (0..2)
        .map(|i14| {
            let term = t1[0].max(t1[(i14 * 3 + 1) % 31]);
            (0..13)
                .fold(0i32, |s, _| s.wrapping_add(term))
                .wrapping_abs()
        })
        .collect();
    let want = vec![Value::i32(vec![o0_elem; 3]), Value::i32(o1)];
    run_both("seed1130", &p, &inputs, &want);
}

#[test]
fn seed_3079_max_of_negated_values_in_a_workgroup_tree() {
    let p = program("seed3079.te");
    let inputs = texpr_interp::random_inputs(&p, 2);
    let x1 = inputs[1].as_i32().unwrap().to_vec();
    let x2 = inputs[2].as_i32().unwrap().to_vec();
    // o0: reduce 1 |i1| compute 13 {reversed} |i2| (... in reduce 1 |i7| x1[i1])
    let o0 = vec![x1[0]; 13];
    let lane = fold_i32(8, true, |i10| x2[(i10 * 5 + 8) % 2].wrapping_neg());
    let sum = (0..64).fold(0i32, |s, _| s.wrapping_add(lane));
    let want = vec![Value::i32(o0), Value::i32(vec![sum; 31])];
    run_both("seed3079", &p, &inputs, &want);
}

/// The reduced program that lost the H100: 64 copies of a 64-element array
/// in function memory. It now compiles within the per-invocation budgets
/// (see `budgets.rs`) and gives the right values.
#[test]
fn register_arrays_of_seed_3499() {
    let p = program("register_arrays_device_lost.te");
    let inputs = texpr_interp::random_inputs(&p, 1);
    let x1 = inputs[1].as_f32().unwrap().to_vec();
    // v7 (every element alike) at step i6, read at i6 + 60 (else -1.5).
    let v7 = |i6: i64| match i6 - 1 {
        k @ 0..=2 => x1[k as usize],
        _ => 0.0,
    };
    let read = |i6: i64| if i6 + 60 < 64 { v7(i6) } else { -1.5 };
    let denom = (-1.5f32).abs() + 1.0;
    let v5 = (0..257).fold(0.0f32, |s, i6| s + read(i6) / denom);
    let clamp = v5.clamp(-2.0, 2.0);
    let prod = (0..4).fold(1.0f32, |s, _| s * clamp);
    let want = vec![Value::f32(vec![prod.tanh(); 64])];
    run_both("register_arrays_device_lost", &p, &inputs, &want);
}
