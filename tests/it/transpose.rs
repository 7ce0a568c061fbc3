//! The `transpose` strategy: examples/transpose.te under it matches the
//! interpreter on the GPU at square, non-square and overhanging sizes, for
//! both tiles the profiles offer; the heuristic picks it for transposed
//! items on a GPU; items of another shape are refused with E0211, tiles
//! that do not divide into rows with E0212.

use texpr::{Schedule, ScheduleChoice, Strategy, Target};
use texpr_tests::golden::repo_root;
use texpr_tests::gpu::gpu;
use texpr_tests::sched::check_with;

fn example(overrides: &[(&str, i64)]) -> texpr_ir::Program {
    let src = std::fs::read_to_string(repo_root().join("examples/transpose.te")).unwrap();
    let ov: Vec<(String, i64)> = overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    texpr_syntax::frontend(&src, &ov).unwrap_or_else(|d| panic!("{d:#?}"))
}

fn pinned(text: &str) -> ScheduleChoice {
    ScheduleChoice::Given(text.parse::<Schedule>().unwrap())
}

#[test]
fn the_transpose_example_matches_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    // Square, non-square (a 64 x 96 result) and overhanging both tiles.
    for sizes in [
        [("M", 64), ("N", 64)],
        [("M", 96), ("N", 64)],
        [("M", 37), ("N", 24)],
    ] {
        let p = example(&sizes);
        let inputs = texpr_interp::random_inputs(&p, 7);
        let want = texpr_interp::accuracy::reference(&p, &inputs).unwrap();
        for s in ["transpose tile=32 rows=8", "transpose tile=16 rows=4"] {
            let out = check_with(gpu, &p, &inputs, &want, &pinned(&format!("out: {s}")))
                .unwrap_or_else(|e| panic!("{sizes:?} under `{s}`: {e}"));
            let text = texpr_ir::print::program(&out.scheduled);
            assert!(text.contains("let@shared"), "{sizes:?} `{s}`:\n{text}");
        }
    }
}

#[test]
fn the_gpu_heuristic_transposes_through_shared_memory() {
    let p = example(&[("M", 256), ("N", 128)]);
    for target in [Target::default(), Target::builtin("nvidia").unwrap()] {
        let o = texpr::optimize(&p, &target).unwrap();
        let chosen = texpr::choose(&o, &target, &ScheduleChoice::Heuristic).unwrap();
        assert_eq!(
            chosen.schedule.get("out"),
            Strategy::Transpose { tile: 32, rows: 8 },
            "{}",
            target.name
        );
    }
}

#[test]
fn other_shapes_and_undivided_tiles_are_refused() {
    let refused = |src: &str, sched: &str| {
        let p = texpr_syntax::frontend(src, &[]).unwrap();
        let opts = texpr::Options {
            target: Target::default(),
            overrides: Vec::new(),
            schedule: pinned(sched),
        };
        let Err(d) = texpr::compile(&p, &opts) else {
            panic!("`{sched}` compiled")
        };
        d.into_iter()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // A 2D copy read row by row: nothing to transpose.
    let copy = "input x: f32[64]\noutput o = compute 8 |i| compute 8 |j| x[i * 8 + j]\n";
    let e = refused(copy, "o: transpose tile=8 rows=2");
    assert!(
        e.starts_with("E0211: cannot schedule `o` as `transpose tile=8 rows=2`"),
        "{e}"
    );
    // A transposed read, but 3 rows do not divide a tile of 8.
    let t = "input x: f32[64]\noutput o = compute 8 |i| compute 8 |j| x[j * 8 + i]\n";
    let e = refused(t, "o: transpose tile=8 rows=3");
    assert!(e.starts_with("E0212: "), "{e}");
    assert!(e.contains("does not divide into 3 rows"), "{e}");
}
