//! `reduce lse` on the GPU against the interpreter: every kind of fold the
//! code generator writes (the thread loops fold online, one `exp` per term),
//! softmax and attention after the `shift_lse` rewrite under the default
//! schedule, the heuristic and each row strategy, and long 1-D folds by
//! multiple passes and grid-stride partials.

use super::folds::CASES;
use texpr::{Options, Schedule, ScheduleChoice, compile};
use texpr_tests::gpu::{check_program_with, gpu};

fn choice(sched: &str) -> ScheduleChoice {
    match sched {
        "" => ScheduleChoice::Default,
        "heuristic" => ScheduleChoice::Heuristic,
        s => ScheduleChoice::Given(s.parse::<Schedule>().unwrap()),
    }
}

/// The fold cases of `folds.rs` as `lse` folds of `f32` terms up to 50 in
/// magnitude (whose `exp` would overflow).
fn lse_cases() -> Vec<(String, String, String)> {
    CASES
        .iter()
        .map(|(kind, src, sched)| {
            let src = src
                .replace("{T}", "f32")
                .replace("{NEG}", "50.0 * ")
                .replace("reduce@group 64", "reduce@group lse 64")
                .replace("{OP}", "lse");
            (kind.to_string(), src, sched.to_string())
        })
        .collect()
}

#[test]
fn lse_folds_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    for (label, src, sched) in lse_cases() {
        if sched.contains("subgroup") && !gpu.target().subgroups() {
            continue;
        }
        let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{label}: {d:?}"));
        if let Err(e) = check_program_with(gpu, &p, 7, &choice(&sched)) {
            panic!("{label}: {e}\n{src}");
        }
    }
}

/// An invocation's loop keeps a running max and sum: one `exp` per term
/// read, and a single `log` at the end.
#[test]
fn a_thread_loop_folds_online_with_one_exp_per_term() {
    let src = "input x: f32[999]\noutput o: f32[1] = reduce lse 999 |i| x[i]";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let c = compile(&p, &Options::default()).unwrap();
    let wgsl = &c.module.wgsl;
    let reads = wgsl.matches("b0_x[").count();
    assert!(reads >= 1);
    assert_eq!(wgsl.matches("exp(").count(), reads, "{wgsl}");
    assert_eq!(wgsl.matches("log(").count(), 1, "{wgsl}");
    assert!(
        wgsl.contains("var acc_m_") && wgsl.contains("var acc_s_"),
        "{wgsl}"
    );
}

/// Softmax and attention: the rewrite applies under every schedule, and the
/// GPU matches the interpreter running the original program.
#[test]
fn softmax_and_attention_match_the_interpreter_under_each_schedule() {
    let Some(gpu) = gpu() else { return };
    let root = texpr_tests::golden::repo_root();
    let cases = [
        (
            "softmax",
            "R=24 C=128",
            ["", "heuristic", "y: rows group=8", "y: wide_rows group=32"],
        ),
        (
            "attention",
            "S=12 T=40 D=8",
            ["", "heuristic", "out: rows group=4", "out: default"],
        ),
    ];
    for (name, sizes, scheds) in cases {
        let src = std::fs::read_to_string(root.join(format!("examples/{name}.te"))).unwrap();
        let overrides: Vec<(String, i64)> = sizes
            .split(' ')
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap();
                (k.to_string(), v.parse().unwrap())
            })
            .collect();
        let p = texpr_syntax::frontend(&src, &overrides).unwrap();
        for sched in scheds {
            let c = compile(
                &p,
                &Options {
                    schedule: choice(sched),
                    ..Options::default()
                },
            )
            .unwrap_or_else(|d| panic!("{name} {sched}: {d:?}"));
            let text = texpr_ir::print::program(&c.scheduled);
            assert!(
                text.contains(" lse ") && !text.contains(" max "),
                "{name} {sched}:\n{text}"
            );
            for seed in [1, 2] {
                if let Err(e) = check_program_with(gpu, &p, seed, &choice(sched)) {
                    panic!("{name} under `{sched}`: {e}");
                }
            }
        }
    }
}

/// A long 1-D fold (2^20 terms) by multiple passes and by grid-stride
/// partials (the heuristic's choice on lavapipe).
#[test]
fn a_long_lse_fold_matches_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let src = "input x: f32[1048576]\noutput y: f32[1] = reduce lse 1048576 |i| 20.0 * x[i]";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    for sched in [
        "heuristic",
        "y: multipass parts=1024 group=64 combine=tree",
        "y: gridstride groups=16 group=64",
    ] {
        if let Err(e) = check_program_with(gpu, &p, 3, &choice(sched)) {
            panic!("{sched}: {e}");
        }
    }
}
