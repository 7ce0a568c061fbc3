//! Every candidate strategy of every example, at small sizes, means what the
//! unscheduled program means (the interpreter is the judge), verifies, and
//! prints as text that checks back.

use super::{candidates, cpu, heuristic, scheduled as optimize};
use crate::schedule::shape::{Shape, classify};
use crate::schedule::{Schedule, ScheduleChoice, Strategy};
use texpr_interp::{Data, Value, eval, random_inputs};
use texpr_ir::Program;
use texpr_target::Target;

/// The examples at sizes the interpreter runs quickly, with odd sizes where
/// padding matters.
pub(crate) fn examples() -> Vec<(&'static str, Program)> {
    type Example<'a> = (&'a str, &'a str, &'a [(&'a str, i64)]);
    let ex: &[Example<'_>] = &[
        (
            "matmul",
            include_str!("../../../examples/matmul.te"),
            &[("M", 32), ("N", 16), ("K", 8)],
        ),
        (
            "matmul_odd",
            include_str!("../../../examples/matmul.te"),
            &[("M", 12), ("N", 6), ("K", 5)],
        ),
        (
            "batched_matmul",
            include_str!("../../../examples/batched_matmul.te"),
            &[("BATCH", 2), ("M", 8), ("N", 8), ("K", 4)],
        ),
        (
            "softmax",
            include_str!("../../../examples/softmax.te"),
            &[("R", 67), ("C", 9)],
        ),
        (
            "layernorm",
            include_str!("../../../examples/layernorm.te"),
            &[("R", 33), ("C", 16)],
        ),
        (
            "matvec",
            include_str!("../../../examples/matvec.te"),
            &[("M", 70), ("N", 12)],
        ),
        (
            "sum",
            include_str!("../../../examples/sum.te"),
            &[("N", 8192)],
        ),
        (
            "dot",
            include_str!("../../../examples/dot.te"),
            &[("N", 4096)],
        ),
        (
            "max",
            include_str!("../../../examples/max.te"),
            &[("N", 2048)],
        ),
        (
            "mean",
            "param N = 8192\ninput x: f32[N]\noutput m = (reduce N |i| x[i]) / f32(N)\n",
            &[],
        ),
        (
            "histogram",
            "param N = 4096\ninput x: f32[N]\noutput h = sqrt(reduce N |i| compute 8 |b| select(i32(x[i] * 4.0 + 4.0) == b, 1.0, 0.0)) + 1.0\n",
            &[],
        ),
        (
            "saxpy",
            include_str!("../../../examples/saxpy.te"),
            &[("N", 1000)],
        ),
        (
            "transpose",
            include_str!("../../../examples/transpose.te"),
            &[("M", 24), ("N", 40)],
        ),
        (
            "conv1d",
            include_str!("../../../examples/conv1d.te"),
            &[("N", 777)],
        ),
        (
            "stencil2d",
            include_str!("../../../examples/stencil2d.te"),
            &[("H", 20), ("W", 36)],
        ),
        (
            "attention",
            include_str!("../../../examples/attention.te"),
            &[("S", 8), ("T", 16), ("D", 4)],
        ),
    ];
    ex.iter()
        .map(|(name, src, ov)| {
            let ov: Vec<(String, i64)> = ov.iter().map(|(k, v)| (k.to_string(), *v)).collect();
            let p = texpr_syntax::frontend(src, &ov).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            (*name, p)
        })
        .collect()
}

/// Equal, or within a relative `1e-4` of the largest magnitude (reductions
/// in another order round differently).
fn close(want: &[Value], got: &[Value]) -> Result<(), String> {
    for (w, g) in want.iter().zip(got) {
        match (&w.data, &g.data) {
            (Data::F32(a), Data::F32(b)) => {
                let scale = a.iter().fold(1f32, |m, x| m.max(x.abs()));
                for (k, (x, y)) in a.iter().zip(b).enumerate() {
                    if (x - y).abs() > 1e-4 * scale {
                        return Err(format!("element {k}: {x} vs {y}"));
                    }
                }
            }
            (a, b) if a == b => {}
            _ => return Err("values differ".into()),
        }
    }
    Ok(())
}

pub(crate) fn check(name: &str, p: &Program, s: &Program, what: &str) {
    texpr_ir::verify(s).unwrap_or_else(|e| panic!("{name} {what}: {e:#?}"));
    let text = texpr_ir::print::program(s);
    texpr_syntax::frontend(&text, &[])
        .unwrap_or_else(|e| panic!("{name} {what} does not check back: {e:#?}\n{text}"));
    let inputs = random_inputs(p, 7);
    let want = eval(p, &inputs).unwrap();
    let got = eval(s, &inputs).unwrap_or_else(|e| panic!("{name} {what}: {e:?}\n{text}"));
    if let Err(e) = close(&want, &got) {
        panic!("{name} {what} changed meaning: {e}\n{text}");
    }
    // Sampled elements are exactly those of the whole evaluation (through
    // grids, tiles' index maps and padding).
    let picks: Vec<Vec<u64>> = s
        .outputs
        .iter()
        .map(|o| {
            let n = o.value.ty.len;
            let mut ks: Vec<u64> = (0..n).step_by((n as usize / 7).max(1)).collect();
            ks.push(n - 1);
            ks
        })
        .collect();
    let sampled = texpr_interp::eval_elements(s, &inputs, &picks)
        .unwrap_or_else(|e| panic!("{name} {what}: {e:?}"));
    for ((whole, part), ks) in got.iter().zip(&sampled).zip(&picks) {
        for (j, &k) in ks.iter().enumerate() {
            assert_eq!(
                whole.data.get(k as usize),
                part.data.get(j),
                "{name} {what}: element {k}"
            );
        }
    }
}

#[test]
fn every_candidate_of_every_example_means_the_same() {
    let mut tried = 0;
    let mut combines = std::collections::BTreeSet::new();
    for limits in [Target::default(), cpu(true)] {
        for (name, p) in examples() {
            for (item, cands) in candidates(&p, &limits) {
                assert!(!cands.is_empty(), "{name}: `{item}` has no candidate");
                for c in cands {
                    if let Strategy::MultiPass { combine, .. } = c {
                        combines.insert((limits.subgroups(), combine));
                    }
                    let mut s = Schedule::default();
                    s.set(&item, c.clone());
                    let q = optimize(&p, &limits, &ScheduleChoice::Given(s))
                        .unwrap_or_else(|e| panic!("{name} {item}: {c}: {e:#?}"));
                    check(name, &p, &q, &format!("{item}: {c}"));
                    tried += 1;
                }
            }
            let h = optimize(&p, &limits, &ScheduleChoice::Heuristic).unwrap();
            check(name, &p, &h, "heuristic");
        }
    }
    assert!(tried > 200, "only {tried} candidates");
    // Every combine is drawn; subgroups only where the device has them.
    use crate::schedule::Combine::{Serial, Subgroup, Tree};
    let want = [
        (false, Serial),
        (false, Tree),
        (true, Serial),
        (true, Tree),
        (true, Subgroup),
    ];
    assert_eq!(combines.into_iter().collect::<Vec<_>>(), want);
}

/// The fold item and the partials global (if any) of `sum` under `text`.
fn sum_under(text: &str, limits: &Target) -> Result<Program, Vec<texpr_ir::Diagnostic>> {
    let ex = examples();
    let p = &ex.iter().find(|(n, _)| *n == "sum").unwrap().1;
    let q = optimize(p, limits, &ScheduleChoice::Given(text.parse().unwrap()))?;
    check("sum", p, &q, text);
    Ok(q)
}

#[test]
fn workgroup_combines_write_one_partial_per_workgroup() {
    let limits = cpu(true);
    // 8192 terms, 256 parts in groups of 64: 4 partials.
    for (combine, level) in [
        ("tree", "reduce@group 64"),
        ("subgroup", "reduce@subgroup 64"),
    ] {
        let q = sum_under(
            &format!("total: multipass parts=256 group=64 combine={combine}"),
            &limits,
        )
        .unwrap();
        assert_eq!(q.globals.len(), 1, "{combine}");
        assert_eq!(q.globals[0].name, "total_partials");
        assert_eq!(q.globals[0].value.ty.len, 4, "{combine}");
        let text = texpr_ir::print::program(&q);
        assert!(text.contains(level), "{combine}: {text}");
        assert!(
            text.contains("reduce@thread 4 |"),
            "{combine}: the fold of 4 partials\n{text}"
        );
    }
    // The serial combine: 256 partials, as before.
    let q = sum_under("total: multipass parts=256 group=64", &limits).unwrap();
    assert_eq!(q.globals[0].value.ty.len, 256);
    // One workgroup: no partials global, the item is the workgroup's reduction.
    let q = sum_under(
        "total: multipass parts=64 group=64 combine=subgroup",
        &limits,
    )
    .unwrap();
    assert!(q.globals.is_empty());
    let text = texpr_ir::print::program(&q);
    assert!(
        text.contains("compute@grid 1 |") && text.contains("reduce@subgroup 64 |"),
        "{text}"
    );
}

#[test]
fn subgroup_combine_needs_subgroups() {
    let errs = sum_under(
        "total: multipass parts=256 group=64 combine=subgroup",
        &Target::default(),
    )
    .unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].code, "E0215");
    assert!(errs[0].message.contains("subgroup"), "{}", errs[0].message);
    assert!(
        sum_under(
            "total: multipass parts=256 group=64 combine=tree",
            &Target::default()
        )
        .is_ok()
    );
}

#[test]
fn the_heuristic_picks_the_strategy_the_shape_calls_for() {
    let limits = cpu(true);
    let want = [
        ("matmul", "c", "tile"),
        ("batched_matmul", "c", "tile"),
        ("softmax", "y", "rows"),
        ("layernorm", "y", "rows"),
        // Scalar folds too short for a device-sized grid: the small one.
        ("sum", "total", "gridstride"),
        ("mean", "m", "gridstride"),
        ("histogram", "h", "multipass"),
        ("saxpy", "out", "coarsen"),
    ];
    let ex = examples();
    for (name, item, kind) in want {
        let p = &ex.iter().find(|(n, _)| *n == name).unwrap().1;
        let s = heuristic(p, &limits);
        let got = s.get(item).to_string();
        assert!(got.starts_with(kind), "{name}: {got}");
    }
}

#[test]
fn shapes_are_recognised() {
    let ex = examples();
    let root = |n: &str| {
        ex.iter().find(|(m, _)| *m == n).unwrap().1.outputs[0]
            .value
            .clone()
    };
    let matmul = root("matmul");
    let Shape::Contraction { tiled, k } = classify(&matmul) else {
        panic!("matmul")
    };
    assert_eq!((tiled.batch_len(), tiled.m, tiled.n, k), (1, 32, 16, 8));
    let batched = root("batched_matmul");
    let Shape::Contraction { tiled, k } = classify(&batched) else {
        panic!("batched_matmul")
    };
    assert_eq!((tiled.batch_len(), tiled.m, tiled.n, k), (2, 8, 8, 4));
    let softmax = root("softmax");
    let Shape::RowReduction { rows, c, k } = classify(&softmax) else {
        panic!("softmax")
    };
    assert_eq!((rows.r, c, k), (67, 9, 9));
    let sum = root("sum");
    assert!(matches!(classify(&sum), Shape::Fold(f) if f.n == 8192 && !f.has_epilogue(&sum)));
    let mean = root("mean");
    assert!(matches!(classify(&mean), Shape::Fold(f) if f.n == 8192 && f.has_epilogue(&mean)));
    let histogram = root("histogram");
    assert!(matches!(classify(&histogram), Shape::Fold(f) if f.n == 4096 && f.body.ty.len == 8));
    // Two folds under one epilogue are no single fold.
    let two = texpr_syntax::frontend(
        "input x: f32[64]\noutput t = (reduce 64 |i| x[i]) + (reduce 64 |i| x[i] * x[i])\n",
        &[],
    )
    .unwrap();
    assert!(matches!(
        classify(&two.outputs[0].value),
        Shape::Elementwise { len: 1, .. }
    ));
    let saxpy = root("saxpy");
    assert!(matches!(
        classify(&saxpy),
        Shape::Elementwise { len: 1000, .. }
    ));
}

/// `coarsen` keeps one invocation's copies of an element within the
/// profile's budget: a cheap element (`a * x + y`) takes 16 per invocation
/// on a CPU, a 5-point stencil (four guarded reads) only 4.
#[test]
fn coarsening_is_bounded_by_the_cost_of_an_element() {
    let limits = cpu(true);
    let stencil = texpr_syntax::frontend(
        "param H = 64\nparam W = 64\ninput u: f32[H * W]\n\
         output out: f32[H * W] = compute H |r| compute W |c|\n\
         let up = u[(r - 1) * W + c] else 0.0 in\n\
         let down = u[(r + 1) * W + c] else 0.0 in\n\
         let left = select(c > 0, u[r * W + c - 1] else 0.0, 0.0) in\n\
         let right = select(c < W - 1, u[r * W + c + 1] else 0.0, 0.0) in\n\
         0.25 * (up + down + left + right)\n",
        &[],
    )
    .unwrap();
    let saxpy = &examples()
        .into_iter()
        .find(|(n, _)| *n == "saxpy")
        .unwrap()
        .1;
    let per_thread = |p: &Program, item: &str| match heuristic(p, &limits).get(item) {
        Strategy::Coarsen { per_thread, .. } => per_thread,
        other => panic!("{item}: {other}"),
    };
    assert_eq!(per_thread(&stencil, "out"), 4);
    assert_eq!(per_thread(saxpy, "out"), 16);
    let Shape::Elementwise { cost, .. } = classify(&stencil.outputs[0].value) else {
        panic!("the stencil is elementwise");
    };
    assert!((32..=64).contains(&cost), "stencil element cost {cost}");
}

#[test]
fn misfitting_strategies_are_coded_errors() {
    let ex = examples();
    let p = &ex.iter().find(|(n, _)| *n == "matmul").unwrap().1;
    let limits = Target::default();
    let run = |text: &str| {
        let s: Schedule = text.parse().unwrap();
        optimize(p, &limits, &ScheduleChoice::Given(s))
            .err()
            .unwrap_or_default()
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>()
    };
    assert_eq!(run("nothing: default"), ["E0210"]);
    assert_eq!(run("c: multipass parts=4 group=1"), ["E0211"]);
    // 32 x 16 in 6x6 blocks: padded to 36 x 18.
    assert!(run("c: tile group=2x2 reg=3x3").is_empty());
    assert_eq!(run("c: tile group=32x32 reg=1x1"), ["E0213"]);
    assert!(run("c: tile group=2x2 reg=2x2").is_empty());
    assert_eq!(run("c: tile group=2x2 reg=2x2 shared=3"), ["E0212"]);
    assert!(run("c: tile group=2x2 reg=2x2 shared=4").is_empty());
    // The example's K is 8: runs of 4 fit, of 3 or 1 do not.
    assert!(run("c: tile group=2x2 reg=2x2 kstep=4").is_empty());
    assert_eq!(run("c: tile group=2x2 reg=2x2 kstep=3"), ["E0212"]);
    assert_eq!(run("c: tile group=2x2 reg=2x2 kstep=1"), ["E0212"]);
    assert_eq!(run("c: tile group=2x2 reg=2x2 shared=4 kstep=4"), ["E0211"]);
    let mut tight = Target::default();
    tight.limits.max_workgroup_storage_bytes = 256;
    let s: Schedule = "c: tile group=4x4 reg=2x2 shared=8".parse().unwrap();
    let codes: Vec<_> = optimize(p, &tight, &ScheduleChoice::Given(s))
        .unwrap_err()
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["E0216"]);
    let _ = Strategy::Default;
}

#[test]
fn a_staged_tile_fills_workgroup_memory_once_per_block_of_steps() {
    let ex = examples();
    let p = &ex.iter().find(|(n, _)| *n == "matmul").unwrap().1;
    let limits = Target::default();
    let s: Schedule = "c: tile group=4x4 reg=2x2 shared=4".parse().unwrap();
    let q = optimize(p, &limits, &ScheduleChoice::Given(s)).unwrap();
    check("matmul", p, &q, "staged");
    let text = texpr_ir::print::program(&q);
    // K = 8 in blocks of 4: two blocks, each staging an 8 x 4 block of `a`
    // and a 4 x 8 block of `b` (4x4 invocations, 2x2 registers each).
    assert!(text.contains("reduce@thread 2 |kb|"), "{text}");
    assert_eq!(text.matches("let@shared").count(), 2, "{text}");
    assert_eq!(text.matches("compute@thread 32 |x").count(), 2, "{text}");
    assert!(text.contains("reduce@thread 4 |kk|"), "{text}");
}

/// One workgroup per row: softmax, layernorm (a `let` whose value divides
/// a reduction), matvec (the row is one reduction) and attention (vector
/// `let`s, shared), with the row's elements interleaved across the
/// invocations.
#[test]
fn wide_rows_split_each_row_across_a_workgroup() {
    let limits = cpu(true);
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, i64)]);
    let cases: [Case<'_>; 4] = [
        (
            "attention",
            include_str!("../../../examples/attention.te"),
            &[("S", 3), ("T", 64), ("D", 32)],
        ),
        (
            "softmax",
            include_str!("../../../examples/softmax.te"),
            &[("R", 5), ("C", 64)],
        ),
        (
            "layernorm",
            include_str!("../../../examples/layernorm.te"),
            &[("R", 3), ("C", 96)],
        ),
        (
            "matvec",
            include_str!("../../../examples/matvec.te"),
            &[("M", 7), ("N", 128)],
        ),
    ];
    for (name, src, ov) in cases {
        let ov: Vec<(String, i64)> = ov.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let p = texpr_syntax::frontend(src, &ov).unwrap();
        let item = &p.outputs[0].name;
        for (w, combine) in [(1, "tree"), (8, "tree"), (16, "subgroup"), (32, "tree")] {
            let strategy = format!("wide_rows group={w} combine={combine}");
            let s: Schedule = format!("{item}: {strategy}").parse().unwrap();
            let q = optimize(&p, &limits, &ScheduleChoice::Given(s))
                .unwrap_or_else(|e| panic!("{name} {w}: {e:#?}"));
            check(name, &p, &q, &strategy);
            let text = texpr_ir::print::program(&q);
            let level = if combine == "tree" {
                "group"
            } else {
                "subgroup"
            };
            if w > 1 {
                // Softmax's row fold is an lse (`shift_lse`).
                let tree = [
                    format!("reduce@{level} {w} |"),
                    format!("reduce@{level} lse {w} |"),
                ];
                assert!(tree.iter().any(|t| text.contains(t)), "{text}");
            }
        }
    }
    // `combine=subgroup` needs subgroups; `serial` is no combine of a row
    // (refused by the text form, and by the strategy when built otherwise).
    let p = texpr_syntax::frontend(include_str!("../../../examples/softmax.te"), &[]).unwrap();
    let s: Schedule = "y: wide_rows group=16 combine=subgroup".parse().unwrap();
    let e = optimize(&p, &cpu(false), &ScheduleChoice::Given(s)).unwrap_err();
    assert_eq!(e[0].code, "E0215", "{e:#?}");
    let err = "y: wide_rows group=16 combine=serial"
        .parse::<Schedule>()
        .unwrap_err();
    assert!(
        err.to_string().contains("takes `combine=tree|subgroup`"),
        "{err}"
    );
    let mut s = Schedule::default();
    s.set(
        "y",
        Strategy::WideRows {
            group: 16,
            combine: crate::schedule::Combine::Serial,
        },
    );
    let e = optimize(&p, &cpu(true), &ScheduleChoice::Given(s)).unwrap_err();
    assert_eq!(e[0].code, "E0211", "{e:#?}");
    // Rows that do not split across the workgroup are refused.
    let p = texpr_syntax::frontend(
        include_str!("../../../examples/softmax.te"),
        &[("R".into(), 4), ("C".into(), 60)],
    )
    .unwrap();
    let s: Schedule = "y: wide_rows group=16".parse().unwrap();
    let e = optimize(&p, &limits, &ScheduleChoice::Given(s)).unwrap_err();
    assert_eq!(e[0].code, "E0212");
    // A row whose shared `let`s do not fit the workgroup memory: attention's
    // two rows of 4096 scores and its four scalars (the max, the sum and
    // each one's tree) take 32784 bytes.
    let p = texpr_syntax::frontend(
        include_str!("../../../examples/attention.te"),
        &[("S".into(), 2), ("T".into(), 4096)],
    )
    .unwrap();
    let mut small = Target::default();
    small.limits.max_workgroup_storage_bytes = 32768;
    let s: Schedule = "out: wide_rows group=64".parse().unwrap();
    let e = optimize(&p, &small, &ScheduleChoice::Given(s.clone())).unwrap_err();
    assert_eq!(e[0].code, "E0216", "{e:#?}");
    small.limits.max_workgroup_storage_bytes = 32784;
    assert!(optimize(&p, &small, &ScheduleChoice::Given(s)).is_ok());
}

/// `gridstride`: the CPU heuristic's first choice for long folds, with or
/// without an arithmetic epilogue (one contiguous run per invocation); a
/// fold too short for the grid, a `chunk` that does not divide the sweeps
/// and a root that is no scalar fold are coded errors; the scheduled
/// program means what the source means.
#[test]
fn gridstride_takes_long_scalar_folds() {
    let limits = cpu(true);
    for out in [
        "reduce 1048576 |i| x[i]",
        "(reduce max 1048576 |i| x[i]) * 0.5",
    ] {
        let src = format!("input x: f32[1048576]\noutput o = {out}\n");
        let p = texpr_syntax::frontend(&src, &[]).unwrap();
        let got = heuristic(&p, &limits).get("o").to_string();
        // Too short for 16 workgroups to sweep 4096 quads each: the
        // small grid (2 x 16 invocations, 8192 quads each).
        assert_eq!(got, "gridstride groups=2 group=16 chunk=8192", "{out}");
        // Eight terms a sweep, one `vec4<u64>` load, where the device has
        // 64-bit integers.
        let mut wide = limits.clone();
        wide.features.int64 = true;
        let got = heuristic(&p, &wide).get("o").to_string();
        assert_eq!(
            got,
            "gridstride groups=2 group=16 chunk=4096 width=8 loads=wide"
        );
        let gpu = Target::builtin("nvidia").unwrap();
        assert!(!heuristic(&p, &gpu).get("o").to_string().contains("width"));
    }
    let p = texpr_syntax::frontend(
        "input x: i32[1000]\noutput o = reduce min 1000 |i| x[i] - 7\n",
        &[],
    )
    .unwrap();
    let run = |text: &str| {
        let s: Schedule = text.parse().unwrap();
        match optimize(&p, &limits, &ScheduleChoice::Given(s)) {
            Ok(q) => {
                check("gridstride", &p, &q, text);
                Vec::new()
            }
            Err(d) => d.iter().map(|d| d.code).collect::<Vec<_>>(),
        }
    };
    assert!(run("o: gridstride groups=3 group=8 chunk=5").is_empty());
    assert!(run("o: gridstride groups=3 group=8 chunk=5 width=8").is_empty());
    assert_eq!(run("o: gridstride groups=8 group=16 width=8"), ["E0212"]);
    assert!(run("o: gridstride groups=2 group=8 combine=tree").is_empty());
    assert_eq!(run("o: gridstride groups=8 group=32"), ["E0212"]);
    assert_eq!(run("o: gridstride groups=2 group=8 chunk=7"), ["E0212"]);
    let ex = examples();
    let matmul = &ex.iter().find(|(n, _)| *n == "matmul").unwrap().1;
    let s: Schedule = "c: gridstride groups=2 group=8".parse().unwrap();
    let codes: Vec<_> = optimize(matmul, &limits, &ScheduleChoice::Given(s))
        .unwrap_err()
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["E0211"]);
}

/// `flash`: attention's row streams over its keys (no array of scores, the
/// query row in registers, the columns the fold's accumulators), a row's
/// columns split across `split` invocations and put back by a digit
/// layout; rows that do not stream and sizes that do not divide are coded
/// errors.
#[test]
fn flash_streams_attention_rows() {
    let limits = cpu(true);
    for (s, t, d) in [(8, 16, 4), (4, 64, 32), (16, 8, 8)] {
        let ov = [("S".into(), s), ("T".into(), t), ("D".into(), d)];
        let p =
            texpr_syntax::frontend(include_str!("../../../examples/attention.te"), &ov).unwrap();
        for (w, split) in [(1, 1), (4, 1), (8, 2), (16, 4), (4, 4)] {
            let strategy = format!("flash group={w} split={split}");
            let sched: Schedule = format!("out: {strategy}").parse().unwrap();
            let q = optimize(&p, &limits, &ScheduleChoice::Given(sched))
                .unwrap_or_else(|e| panic!("{s}x{t}x{d} {strategy}: {e:#?}"));
            check("attention", &p, &q, &strategy);
            let text = texpr_ir::print::program(&q);
            // The scores are never stored; the query row is, once.
            assert!(!text.contains("let@reg scores"), "{text}");
            assert!(
                text.contains(&format!("compute@thread {d} |u| q[")),
                "{text}"
            );
            assert_eq!(text.contains("digits("), split > 1 && d > split, "{text}");
        }
    }
    // An epilogue on the columns' fold (`G`, reading the column and a
    // scalar `let`), a vector `let` read by another (`p` by `w`), a `max`
    // fold kept (its sum is not of `exp(x - m)`), and keys the columns' fold
    // reads through a term, not the fold's variable alone.
    let src = "param R = 6\nparam T = 8\nparam C = 4\ninput x: f32[R * T]\ninput b: f32[C]\n\
        output y = compute R |r|\n\
        let p = compute T |j| x[r * T + j] * 0.5 in\n\
        let w = compute T |j| p[j] + p[(j + 1) % T] in\n\
        let m = reduce max T |j| w[j] in\n\
        let s = reduce T |j| p[j] in\n\
        compute C |c| (reduce T |j| w[(j + c) % T] * f32(c + 1) - m) / s + b[c]\n";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    for (w, split) in [(2, 1), (4, 2), (8, 4), (6, 1)] {
        let strategy = format!("flash group={w} split={split}");
        let sched: Schedule = format!("y: {strategy}").parse().unwrap();
        let q = optimize(&p, &limits, &ScheduleChoice::Given(sched))
            .unwrap_or_else(|e| panic!("epilogue {strategy}: {e:#?}"));
        check("epilogue", &p, &q, &strategy);
        let text = texpr_ir::print::program(&q);
        assert!(text.contains("let@reg acc"), "{text}");
        // With more than one column an invocation, nothing of the column's
        // term is worth a register: its reads move with the column, `c + 1`
        // is index arithmetic.
        assert_eq!(text.contains("let@reg h"), 4 / split == 1, "{text}");
        assert!(
            !text.contains("let@reg w =") && !text.contains("let@reg p ="),
            "{text}"
        );
    }
    let attention = |ov: &[(&str, i64)]| {
        let ov: Vec<(String, i64)> = ov.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        texpr_syntax::frontend(include_str!("../../../examples/attention.te"), &ov).unwrap()
    };
    let code = |p: &Program, s: &str| {
        let sched: Schedule = s.parse().unwrap();
        optimize(p, &limits, &ScheduleChoice::Given(sched)).unwrap_err()[0].code
    };
    let p = attention(&[("S", 6), ("T", 8), ("D", 4)]);
    assert_eq!(code(&p, "out: flash group=4"), "E0212"); // 6 rows, 4 a group
    assert_eq!(code(&p, "out: flash group=6 split=4"), "E0212"); // 4 in 6
    assert_eq!(code(&p, "out: flash group=8 split=8"), "E0212"); // 8 of 4 columns
    // Softmax's row ends in no fold; matvec's row is one.
    let softmax =
        texpr_syntax::frontend(include_str!("../../../examples/softmax.te"), &[]).unwrap();
    assert_eq!(code(&softmax, "y: flash group=8"), "E0211");
    let matvec = texpr_syntax::frontend(include_str!("../../../examples/matvec.te"), &[]).unwrap();
    let item = matvec.outputs[0].name.clone();
    assert_eq!(code(&matvec, &format!("{item}: flash group=8")), "E0211");
}

/// `mma` (on `nvidia`, which lists tensor cores) means what the program
/// means: the f16 examples at sizes of whole 64 x 64 blocks, each
/// contraction scheduled as `mma` by the heuristic, verify, print back and
/// evaluate to the source's values (the `let@mma` folds in source order).
#[test]
fn mma_blocks_mean_the_same() {
    let nvidia = Target::builtin("nvidia").unwrap();
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, i64)]);
    let cases: [Case; 2] = [
        (
            "matmul_f16",
            include_str!("../../../examples/matmul_f16.te"),
            &[("M", 64), ("N", 128), ("K", 48)],
        ),
        (
            "mlp_f16",
            include_str!("../../../examples/mlp_f16.te"),
            &[("T", 64), ("D", 64), ("H", 128)],
        ),
    ];
    for (name, src, defs) in cases {
        let ov: Vec<(String, i64)> = defs.iter().map(|&(k, v)| (k.to_string(), v)).collect();
        let p = texpr_syntax::frontend(src, &ov).unwrap();
        let h = optimize(&p, &nvidia, &ScheduleChoice::Heuristic).unwrap();
        let text = texpr_ir::print::program(&h);
        assert_eq!(
            text.matches("let@mma").count(),
            p.outputs.len() + p.globals.len(),
            "{name}:\n{text}"
        );
        check(name, &p, &h, "mma");
    }
}
