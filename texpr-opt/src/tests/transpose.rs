//! `transpose`: the shape it takes (both ways of writing a transpose, and
//! what is not one), the kernel it writes, and its refusals.

use super::{cpu, heuristic, scheduled};
use crate::schedule::shape::{Shape, classify, strides, transposed};
use crate::schedule::{Schedule, ScheduleChoice, Strategy};
use texpr_interp::{eval, random_inputs};
use texpr_ir::{Expr, ExprKind, Program};
use texpr_target::Target;

fn program(src: &str) -> Program {
    texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:#?}"))
}

fn root(p: &Program) -> &Expr {
    &p.outputs[0].value
}

/// The example's form: the map lays a row-by-row copy out transposed.
const MAPPED: &str = "param M = 24\nparam N = 40\ninput x: f32[M * N]\noutput out: f32[N * M] = compute M {k -> k % M * N + k / M} |r| compute N |c| x[r * N + c]\n";

/// The plain form: an elementwise function of a transposed read and a
/// direct one.
const PLAIN: &str = "input a: f32[960]\ninput b: f32[960]\noutput y = compute 40 |r| compute 24 |c| a[c * 40 + r] * 2.0 + b[r * 24 + c] + a[c * 40 + r]\n";

#[test]
fn transposed_items_are_recognised_in_both_forms() {
    let p = program(MAPPED);
    let t = transposed(root(&p)).expect("the example is a transpose");
    // The result is N x M: its rows are the inner compute's `c`.
    assert_eq!((t.tiled.m, t.tiled.n, t.reads.len()), (40, 24, 1));
    assert_eq!(p.var(t.tiled.i).name, "c");
    assert!(matches!(classify(root(&p)), Shape::Transpose(_)));
    let p = program(PLAIN);
    let t = transposed(root(&p)).expect("a plain transpose");
    // The same read twice is staged once; `b` is read in place.
    assert_eq!((t.tiled.m, t.tiled.n, t.reads.len()), (40, 24, 1));
    let ExprKind::Index { index, .. } = &t.reads[0].kind else {
        panic!("a read")
    };
    assert_eq!(strides(index, t.tiled.i, t.tiled.j), Some((1, 40)));
}

#[test]
fn other_items_are_not_transposes() {
    for src in [
        // Read row by row: coalesced already.
        "input x: f32[64]\noutput o = compute 8 |i| compute 8 |j| x[i * 8 + j]\n",
        // A map that reverses, not transposes.
        "input x: f32[64]\noutput o = compute 8 {k -> 63 - k} |i| compute 8 |j| x[i * 8 + j]\n",
        // A transposed read inside a reduction: a contraction.
        "input x: f32[64]\noutput o = compute 8 |i| compute 8 |j| reduce 8 |k| x[j * 8 + k] * x[k * 8 + i]\n",
        // Not affine in the result's indices.
        "input x: f32[64]\noutput o = compute 8 |i| compute 8 |j| x[(j * 8 + i) / 2]\n",
        // A transposed read of a `let` of the element: not in scope for a block.
        "input x: f32[64]\noutput o = compute 8 |i| compute 8 |j| let v = compute 64 |q| x[q] * 2.0 in v[j * 8 + i]\n",
        // One row: nothing to transpose.
        "input x: f32[8]\noutput o = compute 1 |i| compute 8 |j| x[j + i]\n",
    ] {
        let p = program(src);
        assert!(transposed(root(&p)).is_none(), "{src}");
    }
}

/// `p` under `out: STRATEGY` means what `p` means, bit for bit.
fn same_meaning(p: &Program, item: &str, s: &str, target: &Target) -> Program {
    let mut sched = Schedule::default();
    sched.set(item, s.parse().unwrap());
    let q = scheduled(p, target, &ScheduleChoice::Given(sched))
        .unwrap_or_else(|d| panic!("{s}: {d:#?}"));
    let inputs = random_inputs(p, 3);
    let bits = |vs: Vec<texpr_interp::Value>| vs.iter().map(|v| v.bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(eval(&q, &inputs).unwrap()),
        bits(eval(p, &inputs).unwrap()),
        "{s}"
    );
    let text = texpr_ir::print::program(&q);
    let back = texpr_syntax::frontend(&text, &[]).unwrap_or_else(|d| panic!("{text}\n{d:#?}"));
    assert_eq!(
        bits(eval(&back, &inputs).unwrap()),
        bits(eval(p, &inputs).unwrap())
    );
    q
}

#[test]
fn the_kernel_stages_padded_blocks_and_keeps_the_meaning() {
    let p = program(PLAIN);
    for s in [
        "transpose tile=8 rows=2",
        "transpose tile=16 rows=4",
        "transpose tile=32 rows=8",
    ] {
        let q = same_meaning(&p, "y", s, &Target::default());
        let text = texpr_ir::print::program(&q);
        let tile: u64 = s["transpose tile=".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // One staged block (the repeated read once), `tile` rows of `tile + 1`.
        assert_eq!(text.matches("let@shared").count(), 1, "{text}");
        assert!(
            text.contains(&format!("compute@thread {} |", tile * (tile + 1))),
            "{text}"
        );
        // 40 x 24 fits 8 x 8 blocks; 16 and 32 overhang and pad.
        assert_eq!(text.contains("padded("), tile != 8, "{text}");
    }
    let p = program(MAPPED);
    same_meaning(&p, "out", "transpose tile=8 rows=4", &cpu(false));
}

#[test]
fn the_heuristic_offers_transposes_first_on_gpus_only() {
    let p = program(MAPPED);
    let gpu = heuristic(&p, &Target::default());
    assert_eq!(gpu.get("out"), Strategy::Transpose { tile: 8, rows: 2 });
    let cands = super::candidates(&p, &cpu(false));
    let (_, cpu_cands) = &cands[0];
    assert!(cpu_cands.contains(&Strategy::Transpose { tile: 8, rows: 2 }));
    assert!(matches!(cpu_cands[0], Strategy::Coarsen { .. }));
}

#[test]
fn misfits_are_refused_with_codes() {
    let refused = |src: &str, s: &str, target: &Target| {
        let mut sched = Schedule::default();
        sched.set("o", s.parse().unwrap());
        let d = scheduled(&program(src), target, &ScheduleChoice::Given(sched)).unwrap_err();
        (d[0].code, d[0].message.clone())
    };
    let t = "input x: f32[64]\noutput o = compute 8 |i| compute 8 |j| x[j * 8 + i]\n";
    let copy = "input x: f32[64]\noutput o = compute 8 |i| compute 8 |j| x[i * 8 + j]\n";
    assert_eq!(
        refused(copy, "transpose tile=8 rows=2", &Target::default()).0,
        "E0211"
    );
    let (code, why) = refused(t, "transpose tile=8 rows=3", &Target::default());
    assert_eq!(code, "E0212", "{why}");
    let mut small = Target::default();
    small.limits.max_workgroup_storage_bytes = 1024;
    let (code, why) = refused(t, "transpose tile=16 rows=4", &small);
    assert_eq!(code, "E0216", "{why}");
    assert!(why.contains("1088 bytes of workgroup memory"), "{why}");
}
