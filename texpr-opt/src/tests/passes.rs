//! Tests of the optimizing passes (`simplify`, `inline`, `fuse_globals`): on
//! every sample and example each pass keeps the interpreter's result bit for
//! bit and the program verifies after every pass; targeted tests show the
//! fusion happens where the cost rule allows and not where it forbids.
//! (The same checks on generated programs live in `tests/it/schedules.rs`.)

use super::strategies::examples;
use super::{cpu, prepare, run_passes, scheduled};
use crate::passes::{fuse_globals, inline, simplify};
use crate::pipeline::{APPLY, PASSES, PassFn};
use crate::samples;
use crate::schedule::ScheduleChoice;
use texpr_interp::accuracy::{check_outputs, reference_rewritten};
use texpr_interp::{Value, eval, random_inputs};
use texpr_ir::{Expr, ExprKind, Program};
use texpr_target::Target;

/// Bit patterns of every output, so NaNs and signed zeros compare exactly.
fn bits(vs: &[Value]) -> Vec<Vec<u32>> {
    vs.iter().map(Value::bits).collect()
}

fn programs() -> Vec<(String, Program)> {
    let mut all: Vec<(String, Program)> = samples::all()
        .into_iter()
        .map(|(n, p)| (n.to_string(), p))
        .collect();
    all.extend(examples().into_iter().map(|(n, p)| (n.to_string(), p)));
    all.push(("chain".into(), chain()));
    all
}

fn src(text: &str) -> Program {
    texpr_syntax::frontend(text, &[]).unwrap_or_else(|e| panic!("{text}: {e:#?}"))
}

/// Three elementwise kernels in a row.
fn chain() -> Program {
    src("param N = 100
input x: f32[N]
let t1 = compute N |i| x[i] * 2.0
let t2 = compute N |i| t1[i] + 1.0
output y = compute N |i| t2[i] * t2[i]
")
}

const OURS: [&str; 3] = ["simplify", "inline", "fuse_globals"];

/// The pipeline (heuristic schedule) verifies after every pass, and after
/// each pass before scheduling the interpreter's result is unchanged bit for
/// bit; but `shift_lse`, which changes rounding, not meaning: its result is
/// within the tolerance of the original's, and the later passes keep it bit
/// for bit.
#[test]
fn every_pass_verifies_and_keeps_the_result_on_samples_and_examples() {
    for limits in [Target::default(), cpu(false)] {
        for (name, p) in programs() {
            let inputs = random_inputs(&p, 11);
            let mut want = bits(&eval(&p, &inputs).unwrap());
            let mut seen = Vec::new();
            run_passes(&p, &limits, &ScheduleChoice::Heuristic, |pass, q| {
                seen.push(pass.to_string());
                if let Err(e) = texpr_ir::verify(q) {
                    panic!(
                        "{name}: after `{pass}` the verifier says {e:#?}\n{}",
                        texpr_ir::print::program(q)
                    );
                }
                let before = pass != APPLY;
                if before {
                    let got = eval(q, &inputs).unwrap_or_else(|e| panic!("{name} {pass}: {e:?}"));
                    if pass == "shift_lse" {
                        let r = reference_rewritten(&p, q, &inputs).unwrap();
                        let bad = check_outputs(&p, &got, &r);
                        assert!(bad.is_empty(), "{name}: `shift_lse`: {}", bad[0]);
                        want = bits(&got);
                    }
                    assert_eq!(bits(&got), want, "{name}: `{pass}` changed the result");
                }
            })
            .unwrap_or_else(|e| panic!("{name}: {e:#?}"));
            for pass in OURS {
                assert!(
                    seen.iter().any(|s| s == pass),
                    "{name}: `{pass}` did not run"
                );
            }
        }
    }
}

/// Each pass alone, straight on the checked program, keeps the result and verifies.
#[test]
fn each_pass_alone_keeps_the_result() {
    let passes: [(&str, PassFn); 3] = [
        ("simplify", |p, _| simplify(p)),
        ("inline", |p, _| inline(p)),
        ("fuse_globals", fuse_globals),
    ];
    assert!(
        passes
            .iter()
            .all(|(n, _)| PASSES.iter().any(|x| x.name == *n && x.optimizing))
    );
    for (name, p) in programs() {
        let inputs = random_inputs(&p, 3);
        let want = bits(&eval(&p, &inputs).unwrap());
        for (pass, run) in passes {
            let mut q = p.clone();
            run(&mut q, &Target::default()).unwrap();
            texpr_ir::verify(&q).unwrap_or_else(|e| panic!("{name} {pass}: {e:#?}"));
            let got = eval(&q, &inputs).unwrap();
            assert_eq!(bits(&got), want, "{name}: `{pass}` changed the result");
            // The printed program checks back (names stay unique).
            let text = texpr_ir::print::program(&q);
            texpr_syntax::frontend(&text, &[])
                .unwrap_or_else(|e| panic!("{name} {pass}: {e:#?}\n{text}"));
        }
    }
}

/// The default schedule is the baseline: no optimizing pass runs (but
/// `shift_lse`, which every schedule gets).
#[test]
fn the_default_schedule_runs_no_optimizing_pass() {
    let mut seen = Vec::new();
    run_passes(
        &chain(),
        &Target::default(),
        &ScheduleChoice::Default,
        |n, _| seen.push(n.to_string()),
    )
    .unwrap();
    assert_eq!(seen, ["mark_globals", "shift_lse", APPLY]);
}

fn count(e: &Expr, f: &impl Fn(&Expr) -> bool) -> usize {
    let mut n = 0;
    e.walk(|x| n += usize::from(f(x)));
    n
}

fn lets(e: &Expr) -> usize {
    count(e, &|e| matches!(e.kind, ExprKind::Let { .. }))
}

fn reduces(e: &Expr) -> usize {
    count(e, &|e| matches!(e.kind, ExprKind::Reduce { .. }))
}

#[test]
fn an_elementwise_chain_becomes_one_kernel() {
    let limits = Target::default();
    let p = chain();
    assert_eq!(p.globals.len(), 2);
    let q = prepare(&p).unwrap();
    assert_eq!(q.globals.len(), 0, "{}", texpr_ir::print::program(&q));
    assert_eq!(q.outputs.len(), 1);
    let inputs = random_inputs(&p, 5);
    assert_eq!(
        bits(&eval(&q, &inputs).unwrap()),
        bits(&eval(&p, &inputs).unwrap())
    );
    // Scheduled and emitted, one item root is one kernel.
    let s = scheduled(&p, &limits, &ScheduleChoice::Heuristic).unwrap();
    assert_eq!(s.globals.len() + s.outputs.len(), 1);
}

/// Softmax keeps its `lse` let (the sum is gone: `shift_lse`), which is
/// read by every element and never inlined.
#[test]
fn softmax_keeps_its_reduce_lets() {
    let ex = examples();
    let p = &ex.iter().find(|(n, _)| *n == "softmax").unwrap().1;
    let q = prepare(p).unwrap();
    let y = &q.outputs[0].value;
    assert_eq!(lets(y), 1, "{}", texpr_ir::print::program(&q));
    assert_eq!(reduces(y), 1);
    // Attention (D = 4): `z` is gone, so `p` is read by the `D` products
    // alone, cheap enough to recompute; the scores (read by the lse and by
    // every product) and the lse stay.
    let p = &ex.iter().find(|(n, _)| *n == "attention").unwrap().1;
    let q = prepare(p).unwrap();
    let text = texpr_ir::print::program(&q);
    assert_eq!(lets(&q.outputs[0].value), 2, "{text}");
    assert!(
        text.contains("let scores") && text.contains("let m = reduce lse"),
        "{text}"
    );
}

#[test]
fn a_let_read_once_per_element_is_inlined_even_with_a_reduce() {
    let p = src("input a: f32[60]
input x: f32[6]
output y = compute 10 |i|
    let s = compute 10 |r| reduce 6 |k| a[r * 6 + k] * x[k] in
    s[i] * 2.0
");
    let q = prepare(&p).unwrap();
    // s is read by one element of each `compute 10 |i|` step: 10 reads of
    // 10 elements, no more work than storing it.
    assert_eq!(lets(&q.outputs[0].value), 0);
    assert_eq!(reduces(&q.outputs[0].value), 1);
    let inputs = random_inputs(&p, 1);
    assert_eq!(
        bits(&eval(&q, &inputs).unwrap()),
        bits(&eval(&p, &inputs).unwrap())
    );
}

#[test]
fn the_cost_rule_keeps_what_inlining_would_recompute() {
    // A scalar read by every element of a loop: recomputing it 50 times costs more.
    let p = src("input x: f32[50]
output y = let s = x[0] * x[1] + x[2] in compute 50 |i| x[i] * s
");
    assert_eq!(lets(&prepare(&p).unwrap().outputs[0].value), 1);
    // A reduce read by every element of its row stays (a local let and a global alike).
    let p = src("input x: f32[64]
let t = compute 8 |r| reduce 8 |j| x[r * 8 + j]
output y = compute 64 |i| x[i] / t[i / 8]
");
    let q = prepare(&p).unwrap();
    assert_eq!(q.globals.len(), 1, "a global holding a reduce stays");
    // An elementwise value read 3 times per element (a stencil) is recomputed.
    let p = src("input x: f32[66]
let t = compute 66 |i| x[i] * 3.0 - 1.0
output y = compute 64 |i| t[i] + t[i + 1] + t[i + 2]
");
    let q = prepare(&p).unwrap();
    assert_eq!(q.globals.len(), 0);
    // ... but not when every output element reads all of it.
    let p = src("input x: f32[64]
let t = compute 64 |i| x[i] * 3.0 - 1.0
output y = compute 64 |i| reduce 64 |j| t[j] * x[i]
");
    let q = prepare(&p).unwrap();
    assert_eq!(q.globals.len(), 1);
}

#[test]
fn whole_reads_and_uncertain_guards_keep_the_global() {
    // An output that is a copy of the global reads it whole.
    let p = src("input x: f32[16]
let t = compute 16 |i| x[i] + 1.0
output y = t
output z = compute 16 |i| t[i] * 2.0
");
    assert_eq!(prepare(&p).unwrap().globals.len(), 1);
    // A guarded read that may fall outside keeps it (its guard value matters).
    let p = src("input x: f32[16]
let t = compute 16 |i| x[i] + 1.0
output y = compute 16 |i| t[i + 1] else 0.0
");
    let q = prepare(&p).unwrap();
    assert_eq!(q.globals.len(), 1);
    // A global read by nothing is removed; later globals are renumbered.
    let p = src("input x: f32[16]
let dead = compute 16 |i| x[i] + 1.0
let r = reduce 16 |i| x[i]
output y = compute 16 |i| x[i] - r
");
    let q = prepare(&p).unwrap();
    assert_eq!(q.globals.len(), 1);
    assert_eq!(q.globals[0].name, "r");
    texpr_ir::verify(&q).unwrap();
    let inputs = random_inputs(&p, 2);
    assert_eq!(
        bits(&eval(&q, &inputs).unwrap()),
        bits(&eval(&p, &inputs).unwrap())
    );
}

#[test]
fn a_local_let_read_twice_per_element_is_inlined() {
    // samples::blocks' `mirrored`: `let t = compute 8 |i| x[i] * 2 in compute 8 |i| t[7 - i] + t[i]`.
    let p = samples::blocks();
    let q = prepare(&p).unwrap();
    let m = q.outputs.iter().find(|o| o.name == "mirrored").unwrap();
    assert_eq!(lets(&m.value), 0, "{}", texpr_ir::print::program(&q));
}

#[test]
fn simplify_folds_exact_identities_only() {
    let p = src("input x: f32[8]
input n: i32[8]
output a = compute 8 |i| x[i] * 1.0 + -0.0
output b = compute 8 |i| x[i] + 0.0
output c = compute 8 |i| -(-(x[(i * 4) / 4])) / 1.0 - 0.0
output d = compute 8 |i| (n[i] + 0) * 1 - 0
");
    let q = prepare(&p).unwrap();
    let text = texpr_ir::print::program(&q);
    let line = |o: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("output {o}")))
            .unwrap_or_else(|| panic!("{o} in {text}"))
            .to_string()
    };
    assert!(line("a").ends_with("|i| x[i]"), "{text}");
    assert!(
        line("b").ends_with("x[i] + 0.0"),
        "x + 0.0 is not an identity: {text}"
    );
    assert!(line("c").ends_with("|i| x[i]"), "{text}");
    assert!(line("d").ends_with("|i| n[i]"), "{text}");
    let inputs = random_inputs(&p, 9);
    assert_eq!(
        bits(&eval(&q, &inputs).unwrap()),
        bits(&eval(&p, &inputs).unwrap())
    );
}
