//! `loop group=W`: a loop whose every item takes it runs whole in one
//! workgroup (`Loop::group`), one whose items do not all take it runs a
//! dispatch a step; the heuristic offers it to loops of small steps only,
//! and `tune`'s candidates hold it for every item of such a loop.

use super::{applied, candidates, cpu, heuristic, scheduled};
use crate::schedule::{Schedule, ScheduleChoice, Strategy};
use texpr_interp::{eval, random_inputs};
use texpr_syntax::frontend;

/// Jacobi-1d: two items a step, `N` elements each.
fn jacobi(n: i64) -> texpr_ir::Program {
    let src = "param N = 40\ninput a0: f32[N]\n\
               output a = iterate 5 from a0 |a, t| {\n\
                   let b = compute N |i| select(i > 0 && i < N - 1, ((a[i - 1] else 0.0) + a[i] + (a[i + 1] else 0.0)) / 3.0, a[i])\n\
                   yield compute N |i| select(i > 0 && i < N - 1, ((b[i - 1] else 0.0) + b[i] + (b[i + 1] else 0.0)) / 3.0, b[i]) + f32(t)\n\
               }";
    frontend(src, &[("N".into(), n)]).unwrap()
}

#[test]
fn a_loop_runs_whole_in_one_workgroup_when_every_item_takes_loop() {
    let p = jacobi(40);
    let target = cpu(false);
    let both: Schedule = "b: loop group=16\na_state_next: loop group=16\n"
        .parse()
        .unwrap();
    let q = applied(&p, &target, &both).unwrap();
    assert_eq!(q.loops[0].group, Some(16));
    texpr_ir::verify(&q).unwrap();
    // The same values: 40 elements on 16 invocations of 3 each, the padding dropped.
    let inputs = random_inputs(&p, 1);
    assert_eq!(eval(&q, &inputs).unwrap(), eval(&p, &inputs).unwrap());
    // One item alone, or two widths: a dispatch a step.
    for text in [
        "b: loop group=16\n",
        "b: loop group=16\na_state_next: loop group=32\n",
    ] {
        let s: Schedule = text.parse().unwrap();
        assert_eq!(
            applied(&p, &target, &s).unwrap().loops[0].group,
            None,
            "{text}"
        );
    }
}

#[test]
fn loop_outside_a_loop_is_e0211() {
    let p = frontend("input x: f32[8]\noutput y = compute 8 |i| x[i]", &[]).unwrap();
    let s: Schedule = "y: loop group=4".parse().unwrap();
    let codes: Vec<&str> = scheduled(&p, &cpu(false), &ScheduleChoice::Given(s))
        .unwrap_err()
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["E0211"]);
}

#[test]
fn the_heuristic_takes_loop_for_small_steps_only() {
    let target = cpu(false);
    let loop_of = |p: &texpr_ir::Program| {
        let s = heuristic(p, &target);
        (s.get("b"), s.get("a_state_next"))
    };
    // 40 elements a step: one an invocation.
    let small = Strategy::Loop { group: 256 };
    assert_eq!(loop_of(&jacobi(40)), (small.clone(), small.clone()));
    // 2 x 4096 elements a step: 32 an invocation, a dispatch a step.
    let (b, next) = loop_of(&jacobi(4096));
    assert!(b != small && next != small, "{b} {next}");
    // `tune` weighs it either way: last for the large loop.
    let cands = candidates(&jacobi(4096), &target);
    for (item, options) in cands.iter().filter(|(n, _)| n != "a") {
        assert_eq!(options.last(), Some(&small), "{item}");
    }
}
