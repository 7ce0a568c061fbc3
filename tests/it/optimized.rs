//! Optimized schedules on the GPU: every strategy the heuristic or a user
//! picks for the examples computes what the interpreter computes.

use texpr::{Schedule, ScheduleChoice};
use texpr_runtime::Gpu;
use texpr_tests::gpu::{RunError, check_program_with, gpu, run_source};

fn example(name: &str, defines: &[(&str, i64)]) -> texpr_ir::Program {
    let path = texpr_tests::golden::repo_root().join(format!("examples/{name}.te"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ov: Vec<(String, i64)> = defines.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    texpr_syntax::frontend(&src, &ov).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn pinned(text: &str) -> ScheduleChoice {
    ScheduleChoice::Given(text.parse::<Schedule>().expect("a schedule"))
}

#[test]
fn heuristic_schedules_of_the_examples_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let cases: &[(&str, &[(&str, i64)])] = &[
        ("matmul", &[("M", 64), ("N", 64), ("K", 48)]),
        (
            "batched_matmul",
            &[("BATCH", 2), ("M", 32), ("N", 32), ("K", 16)],
        ),
        ("softmax", &[("R", 100), ("C", 64)]),
        ("layernorm", &[("R", 70), ("C", 96)]),
        ("matvec", &[("M", 300), ("N", 40)]),
        ("sum", &[("N", 1 << 16)]),
        ("dot", &[("N", 1 << 15)]),
        ("max", &[("N", 12288)]),
        ("saxpy", &[("N", 100_000)]),
        ("transpose", &[("M", 48), ("N", 80)]),
        ("conv1d", &[("N", 10_000)]),
        ("stencil2d", &[("H", 40), ("W", 72)]),
        ("attention", &[("S", 16), ("T", 32), ("D", 8)]),
    ];
    for (name, defs) in cases {
        let p = example(name, defs);
        check_program_with(gpu, &p, 3, &ScheduleChoice::Heuristic)
            .unwrap_or_else(|e| panic!("{name} (heuristic): {e}"));
    }
}

#[test]
fn pinned_tiles_rows_and_passes_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let cases = [
        (
            "matmul",
            "c: tile group=4x8 reg=4x2",
            &[("M", 64), ("N", 32), ("K", 24)][..],
        ),
        (
            "matmul",
            "c: tile group=2x2 reg=8x8",
            &[("M", 32), ("N", 64), ("K", 8)][..],
        ),
        (
            "matmul",
            "c: tile group=1x1 reg=1x1",
            &[("M", 5), ("N", 3), ("K", 7)][..],
        ),
        (
            "matmul",
            "c: tile group=4x8 reg=2x2 shared=8",
            &[("M", 64), ("N", 32), ("K", 24)][..],
        ),
        (
            "matmul",
            "c: tile group=16x16 reg=4x4 shared=16",
            &[("M", 128), ("N", 64), ("K", 48)][..],
        ),
        // Sizes that do not divide into blocks: padded, edge rows and
        // columns recomputed, padding not written.
        (
            "matmul",
            "c: tile group=4x8 reg=4x2",
            &[("M", 50), ("N", 37), ("K", 24)][..],
        ),
        (
            "matmul",
            "c: tile group=8x4 reg=2x4 shared=6",
            &[("M", 33), ("N", 70), ("K", 18)][..],
        ),
        // Four reduction steps per register load: A's rows read as vec4s
        // along K, B's as vec4s along N; padded blocks; a K (6) that is
        // not a multiple of 4 steps two at a time, with scalar reads.
        (
            "matmul",
            "c: tile group=8x8 reg=8x8 kstep=4",
            &[("M", 128), ("N", 64), ("K", 32)][..],
        ),
        (
            "matmul",
            "c: tile group=4x8 reg=4x2 kstep=4",
            &[("M", 50), ("N", 37), ("K", 24)][..],
        ),
        // On a CPU device the A rows are loaded once per subgroup and
        // broadcast (two runs a lane here); padded rows and columns.
        (
            "matmul",
            "c: tile group=8x8 reg=16x4 kstep=4",
            &[("M", 200), ("N", 72), ("K", 20)][..],
        ),
        (
            "matmul",
            "c: tile group=2x2 reg=2x2 kstep=2",
            &[("M", 8), ("N", 12), ("K", 6)][..],
        ),
        (
            "batched_matmul",
            "c: tile group=4x4 reg=2x4 kstep=4",
            &[("BATCH", 3), ("M", 16), ("N", 32), ("K", 12)][..],
        ),
        // A batch of products: one workgroup's blocks within one batch.
        (
            "batched_matmul",
            "c: tile group=4x4 reg=2x4",
            &[("BATCH", 3), ("M", 16), ("N", 32), ("K", 12)][..],
        ),
        (
            "batched_matmul",
            "c: tile group=4x2 reg=2x2 shared=4",
            &[("BATCH", 5), ("M", 8), ("N", 12), ("K", 8)][..],
        ),
        ("softmax", "y: rows group=16", &[("R", 33), ("C", 128)][..]),
        // A workgroup per query, its scores and their exponentials shared.
        (
            "attention",
            "out: wide_rows group=64",
            &[("S", 9), ("T", 256), ("D", 64)][..],
        ),
        (
            "attention",
            "out: wide_rows group=16",
            &[("S", 5), ("T", 48), ("D", 32)][..],
        ),
        // The row's folds combined by subgroups, then across them.
        (
            "attention",
            "out: wide_rows group=32 combine=subgroup",
            &[("S", 6), ("T", 96), ("D", 32)][..],
        ),
        (
            "softmax",
            "y: wide_rows group=64 combine=subgroup",
            &[("R", 7), ("C", 512)][..],
        ),
        (
            "matvec",
            "y: wide_rows group=24 combine=subgroup",
            &[("M", 5), ("N", 96)][..],
        ),
        // A workgroup per row, the row's elements interleaved.
        (
            "softmax",
            "y: wide_rows group=64",
            &[("R", 33), ("C", 1024)][..],
        ),
        (
            "layernorm",
            "y: wide_rows group=32",
            &[("R", 9), ("C", 768)][..],
        ),
        (
            "matvec",
            "y: wide_rows group=128",
            &[("M", 40), ("N", 2048)][..],
        ),
        (
            "matvec",
            "y: wide_rows group=100",
            &[("M", 5), ("N", 700)][..],
        ),
        (
            "sum",
            "total: multipass parts=64 group=8",
            &[("N", 4096)][..],
        ),
        (
            "saxpy",
            "out: coarsen group=32 per_thread=7",
            &[("N", 1001)][..],
        ),
        // Eight at a time where the device loads wide (lavapipe), with a
        // guarded tail.
        (
            "saxpy",
            "out: coarsen group=16 per_thread=16",
            &[("N", 1000)][..],
        ),
        (
            "chain",
            "y: coarsen group=32 per_thread=8",
            &[("N", 4096)][..],
        ),
    ];
    for (name, sched, defs) in cases {
        let p = example(name, defs);
        check_program_with(gpu, &p, 5, &pinned(sched))
            .unwrap_or_else(|e| panic!("{name} ({sched}): {e}"));
    }
}

/// Coarsened elementwise kernels eight elements at a time where the device
/// loads wide (lavapipe: `vec4<u64>` loads and stores) against the
/// interpreter: a scalar broadcast and reads eight apart, and reads four
/// apart (four at a time instead); the examples above add a guarded tail.
#[test]
fn wide_elementwise_kernels_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    for (len, off) in [(1016, 8), (1020, 4)] {
        let src = format!(
            "input x: f32[1024]\ninput a: f32[1]\n\
             output y = compute {len} |i| max(x[i], x[i + {off}]) * 0.5 - a[0]\n"
        );
        let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{src}: {d:?}"));
        check_program_with(gpu, &p, 5, &pinned("y: coarsen group=8 per_thread=16"))
            .unwrap_or_else(|e| panic!("{src}: {e}"));
    }
}

/// Wide folds (`wide.rs`) against the interpreter on lavapipe: folds along
/// rows of a multiple of 8 read eight elements a load (matvec, layernorm's
/// two folds, softmax's fold and output loop, whose output goes eight a
/// store, a `max` fold, a product of two wide rows, a row read at an
/// offset of 8), and rows of 60 or a read an inner loop moves keep scalar
/// loads; the fold order is unchanged, so the results are the interpreter's.
#[test]
fn wide_folds_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let cases = [
        ("matvec", "y: rows group=8", &[("M", 40), ("N", 64)][..]),
        ("layernorm", "y: rows group=4", &[("R", 16), ("C", 64)][..]),
        ("layernorm", "y: rows group=4", &[("R", 16), ("C", 60)][..]),
        // Rows read and outputs stored eight at a time, or not (C = 60).
        ("softmax", "y: rows group=4", &[("R", 16), ("C", 64)][..]),
        ("softmax", "y: rows group=8", &[("R", 24), ("C", 72)][..]),
        ("softmax", "y: rows group=4", &[("R", 16), ("C", 60)][..]),
    ];
    for (name, sched, defs) in cases {
        let p = example(name, defs);
        check_program_with(gpu, &p, 5, &pinned(sched))
            .unwrap_or_else(|e| panic!("{name} ({sched}): {e}"));
    }
    let src = "input a: f32[2048]\ninput b: f32[2056]\n\
               output y = compute 32 |r| let v = reduce 64 |j| compute 2 |k| b[r * 64 + j + k] in \
               (reduce max 64 |j| a[r * 64 + j] * b[r * 64 + j + 8]) + v[1]\n";
    let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    check_program_with(gpu, &p, 5, &pinned("y: rows group=8"))
        .unwrap_or_else(|e| panic!("{src}: {e}"));
}

/// Operands staged in workgroup memory, with an epilogue on the
/// accumulators and a third operand read per step that is not staged.
#[test]
fn staged_tiles_with_epilogues_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let src = "param M = 48\nparam N = 32\nparam K = 40\n\
        input a: f32[M * K]\ninput b: f32[K * N]\ninput w: f32[K]\ninput bias: f32[N]\n\
        output c = compute M |i| compute N |j| \
        max(reduce K |k| a[i * K + k] * b[k * N + j] * w[k] + bias[j], 0.0)\n";
    let p = texpr_syntax::frontend(src, &[]).expect("checks");
    for sched in [
        "c: tile group=4x4 reg=3x2 shared=8",
        "c: tile group=8x8 reg=2x4 shared=5",
        "c: tile group=2x8 reg=1x1 shared=40",
        "c: tile group=8x8 reg=4x4 shared=8",
        "c: tile group=5x3 reg=2x3",
        "c: tile group=4x4 reg=2x8",
    ] {
        check_program_with(gpu, &p, 9, &pinned(sched)).unwrap_or_else(|e| panic!("{sched}: {e}"));
    }
    // An epilogue reading a vector along the tile's rows, eight rows an
    // invocation: on llvmpipe, which loads rows eight at a time, the
    // invocation's elements are not one step of the row variable each.
    let src = "param M = 64\nparam N = 16\nparam K = 24\n\
        input a: f32[M * K]\ninput b: f32[K * N]\ninput rb: f32[M]\n\
        output c = compute M |i| compute N |j| \
        max(reduce K |k| a[i * K + k] * b[k * N + j] + rb[i], 0.0) + rb[i]\n";
    let p = texpr_syntax::frontend(src, &[]).expect("checks");
    for sched in ["c: tile group=4x4 reg=8x2", "c: tile group=2x8 reg=8x1"] {
        check_program_with(gpu, &p, 9, &pinned(sched)).unwrap_or_else(|e| panic!("{sched}: {e}"));
    }
}

/// Staged tiles padded against bank conflicts (`pad=P`, a `strided` layout
/// of the blocks), filled with `vec4` loads (`vec4=on`), those loads one
/// block ahead (`prefetch=on`), among them the
/// classic 128x128 block with 8x8 per invocation: non-square results whose
/// blocks overhang (reads wrap), an epilogue fused on the accumulators, a
/// transposed operand (filled one element at a time) and a batch.
#[test]
fn padded_vec4_staged_tiles_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let cases = [
        (
            "matmul",
            "c: tile group=16x16 reg=8x8 shared=8 pad=1 vec4=on",
            &[("M", 160), ("N", 136), ("K", 24)][..],
        ),
        (
            "matmul",
            "c: tile group=16x16 reg=4x4 shared=16 pad=4 vec4=on",
            &[("M", 64), ("N", 96), ("K", 32)][..],
        ),
        // Double-buffered through registers: the next block loaded while
        // the current one computes.
        (
            "matmul",
            "c: tile group=16x16 reg=8x8 shared=8 pad=1 vec4=on prefetch=on",
            &[("M", 160), ("N", 136), ("K", 40)][..],
        ),
        (
            "batched_matmul",
            "c: tile group=2x2 reg=2x2 shared=4 vec4=on prefetch=on",
            &[("BATCH", 3), ("M", 8), ("N", 16), ("K", 12)][..],
        ),
        (
            "matmul",
            "c: tile group=4x8 reg=2x2 shared=8 pad=1",
            &[("M", 50), ("N", 37), ("K", 24)][..],
        ),
        (
            "matmul",
            "c: tile group=8x8 reg=4x4 shared=16 pad=2 vec4=on",
            &[("M", 40), ("N", 30), ("K", 48)][..],
        ),
        (
            "batched_matmul",
            "c: tile group=4x4 reg=2x2 shared=8 pad=1 vec4=on",
            &[("BATCH", 3), ("M", 16), ("N", 16), ("K", 16)][..],
        ),
    ];
    for (name, sched, defs) in cases {
        let p = example(name, defs);
        check_program_with(gpu, &p, 5, &pinned(sched))
            .unwrap_or_else(|e| panic!("{name} ({sched}): {e}"));
    }
    let src = "param M = 72\nparam N = 40\nparam K = 32\n\
        input a: f32[M * K]\ninput at: f32[K * M]\ninput b: f32[K * N]\ninput bias: f32[N]\n\
        output c = compute M |i| compute N |j| \
        max((reduce K |k| (a[i * K + k] + at[k * M + i]) * b[k * N + j]) + bias[j], 0.0)\n";
    let p = texpr_syntax::frontend(src, &[]).expect("checks");
    for sched in [
        "c: tile group=8x8 reg=4x4 shared=8 pad=1 vec4=on",
        "c: tile group=16x16 reg=8x8 shared=8 pad=1 vec4=on",
        "c: tile group=8x8 reg=4x4 shared=8 pad=1 vec4=on prefetch=on",
    ] {
        check_program_with(gpu, &p, 9, &pinned(sched)).unwrap_or_else(|e| panic!("{sched}: {e}"));
    }
}

/// What the GPU profile (`nvidia`, an H100) picks for every example, pinned
/// and run on this device: the schedules the next GPU will run compute what
/// the interpreter computes.
#[test]
fn the_gpu_profiles_heuristic_schedules_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let nvidia = texpr::Target::builtin("nvidia").expect("a built-in target");
    let cases: &[(&str, &[(&str, i64)])] = &[
        ("matmul", &[("M", 256), ("N", 256), ("K", 32)]),
        (
            "batched_matmul",
            &[("BATCH", 2), ("M", 128), ("N", 128), ("K", 16)],
        ),
        ("softmax", &[("R", 12), ("C", 2048)]),
        ("layernorm", &[("R", 10), ("C", 1024)]),
        ("matvec", &[("M", 40), ("N", 1024)]),
        ("sum", &[("N", 1 << 20)]),
        ("dot", &[("N", 1 << 18)]),
        ("max", &[("N", 300_000)]),
        ("saxpy", &[("N", 100_000)]),
        ("transpose", &[("M", 96), ("N", 160)]),
        ("conv1d", &[("N", 10_000)]),
        ("stencil2d", &[("H", 40), ("W", 72)]),
        ("attention", &[("S", 12), ("T", 256), ("D", 64)]),
    ];
    for (name, defs) in cases {
        let p = example(name, defs);
        let o = texpr::optimize(&p, &nvidia).expect("the passes run");
        let chosen = texpr::choose(&o, &nvidia, &ScheduleChoice::Heuristic)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let sched = chosen.schedule.to_string();
        check_program_with(gpu, &p, 6, &ScheduleChoice::Given(chosen.schedule))
            .unwrap_or_else(|e| panic!("{name} ({sched}): {e}"));
    }
}

/// A staged tile folds each block's steps straight into the one set of
/// accumulators its invocation keeps (R x R registers, not twice that), with
/// and without prefetching.
#[test]
fn staged_tiles_keep_one_set_of_accumulators() {
    let p = example("matmul", &[("M", 32), ("N", 32), ("K", 64)]);
    let accumulators = |sched: &str| {
        let opts = texpr::Options {
            target: texpr::Target::default(),
            schedule: pinned(sched),
            ..Default::default()
        };
        let wgsl = texpr::compile(&p, &opts).expect("compiles").module.wgsl;
        wgsl.matches("var acc_").count()
    };
    for sched in [
        "c: tile group=4x4 reg=2x2 shared=8",
        "c: tile group=4x4 reg=2x2 shared=8 pad=1 vec4=on prefetch=on",
        "c: tile group=8x8 reg=4x4 shared=8 pad=1 vec4=on",
    ] {
        let reg: usize = sched
            .split_whitespace()
            .find_map(|w| w.strip_prefix("reg="))
            .and_then(|r| r.split_once('x'))
            .map(|(a, b)| a.parse::<usize>().unwrap() * b.parse::<usize>().unwrap())
            .expect("a register tile");
        assert_eq!(accumulators(sched), reg, "{sched}");
    }
}

/// What the GPU profile's heuristic picks for large contractions (the padded
/// `vec4` staged 128x128 block with 8x8 per invocation, and 64x64 blocks
/// for a batch of smaller ones), pinned and run on this device.
#[test]
fn the_gpu_profiles_staged_tiles_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    type Case<'a> = (&'a str, &'a [(&'a str, i64)], &'a str);
    let cases: [Case<'_>; 2] = [
        (
            "matmul",
            &[("M", 256), ("N", 384), ("K", 64)],
            "tile group=16x16 reg=8x8 shared=8 pad=1 vec4=on",
        ),
        (
            "batched_matmul",
            &[("BATCH", 2), ("M", 128), ("N", 128), ("K", 32)],
            "tile group=16x16 reg=4x4 shared=16 pad=1 vec4=on",
        ),
    ];
    for (name, defs, want) in cases {
        let p = example(name, defs);
        let o = texpr::optimize(&p, &texpr::Target::default()).expect("the passes run");
        let chosen = texpr::choose(&o, &texpr::Target::default(), &ScheduleChoice::Heuristic)
            .expect("the heuristic chooses");
        assert_eq!(chosen.schedule.get("c").to_string(), want, "{name}");
        check_program_with(gpu, &p, 4, &ScheduleChoice::Given(chosen.schedule))
            .unwrap_or_else(|e| panic!("{name} ({want}): {e}"));
    }
}

/// `multipass ... combine=tree|subgroup` (one partial per workgroup; one
/// kernel when `parts == group`) on the folds. Without subgroups on the
/// device, `combine=subgroup` is refused with E0215.
#[test]
fn pinned_workgroup_combines_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let subgroups = gpu.target().subgroups();
    if gpu.info().name.contains("llvmpipe") {
        assert!(subgroups, "lavapipe has subgroups: {}", gpu.info().name);
    }
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, i64)]);
    let cases: &[Case<'_>] = &[
        (
            "sum",
            "total: multipass parts=256 group=64",
            &[("N", 1 << 16)],
        ),
        (
            "sum",
            "total: multipass parts=128 group=128",
            &[("N", 1 << 16)],
        ),
        (
            "sum",
            "total: multipass parts=96 group=24",
            &[("N", 96 * 7)],
        ),
        ("max", "m: multipass parts=512 group=32", &[("N", 12288)]),
        ("dot", "out: multipass parts=64 group=64", &[("N", 1 << 15)]),
        (
            "dot",
            "out: multipass parts=1024 group=256",
            &[("N", 1 << 15)],
        ),
    ];
    let mut ran = 0;
    for (name, sched, defs) in cases {
        let p = example(name, defs);
        for combine in ["tree", "subgroup"] {
            let sched = format!("{sched} combine={combine}");
            match check_program_with(gpu, &p, 5, &pinned(&sched)) {
                Ok(_) => ran += 1,
                Err(RunError::Compile(e)) if !subgroups && combine == "subgroup" => {
                    assert!(e.contains("E0215"), "{name} ({sched}): {e}");
                }
                Err(e) => panic!("{name} ({sched}): {e}"),
            }
        }
    }
    assert!(ran >= cases.len());
}

/// A `reduce@subgroup` written by hand (one sum per workgroup, a width that
/// is not a multiple of the subgroup size, vector bodies, `max` and `min`
/// on integers), through the front end and the GPU.
#[test]
fn hand_written_reduce_at_subgroup_matches_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    if !gpu.target().subgroups() {
        eprintln!("  (no subgroups on {}: skipped)", gpu.info().name);
        return;
    }
    let src = "input x: f32[4096]\n\
               input k: i32[1000]\n\
               output s: f32[64] = compute@grid 64 |g| reduce@subgroup 64 |l| x[g*64 + l] * 2.0\n\
               output v: f32[12] = compute@grid 4 |g| reduce@subgroup 100 |l| compute@thread 3 |j| x[g*300 + l*3 + j]\n\
               output m: i32[10] = compute@grid 10 |g| reduce@subgroup max 100 |l| k[g*100 + l]\n\
               output n: i32[10] = compute@grid 10 |g| reduce@subgroup min 100 |l| k[g*100 + l]\n\
               output p: f32[1] = compute@grid 1 |g| reduce@subgroup * 20 |l| 1.0 + x[l] / 64.0\n";
    run_source(gpu, src, &[], 11).unwrap_or_else(|e| panic!("{e}"));
}

/// `gridstride width=8` against the interpreter: eight terms a sweep, one
/// `vec4<u64>` load each where the device loads wide (lavapipe): float and
/// integer folds, reads of the same buffer at fixed indices beside the
/// sweep's (taken from their halves of a `u64`), an epilogue, a tail, and
/// every combine.
#[test]
fn wide_grid_strides_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let folds = [
        ("f32", "reduce 10008 |i| x[i]"),
        ("f32", "reduce max 10008 |i| -abs(x[i]) - x[5]"),
        ("f32", "(reduce 10008 |i| x[i] * y[i] + x[10003]) / 10008.0"),
        ("i32", "reduce min 10008 |i| min(x[i], -3)"),
    ];
    // Sweeps of 8 * 4 * 16 = 512: 19 and a tail of 280; of 8 * 2 * 8 =
    // 128: 78 and a tail of 24.
    let schedules = [
        "o: gridstride groups=4 group=16 chunk=19 width=8",
        "o: gridstride groups=4 group=16 width=8 combine=tree",
        "o: gridstride groups=2 group=8 chunk=3 width=8 combine=subgroup",
    ];
    check_folds(gpu, 10008, &folds, &schedules);
}

/// `gridstride` against the interpreter: sums, `max` and `min` over
/// integers and floats (on data that is all negative, so a fold seeded
/// with zero would show), a mean epilogue, sizes that are not a multiple of
/// 4 or of the grid's sweep (a tail folded by the final invocation), every
/// combine and the three orders (grid order, chunks, contiguous runs).
#[test]
fn pinned_grid_strides_match_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let folds = [
        ("f32", "reduce 10007 |i| x[i]"),
        ("f32", "(reduce 10007 |i| x[i]) / 10007.0"),
        ("f32", "reduce max 10007 |i| -abs(x[i]) - 1.0"),
        ("f32", "reduce min 10007 |i| -abs(x[i]) - 1.0"),
        ("i32", "reduce max 10007 |i| min(x[i], -3)"),
        ("i32", "reduce min 10007 |i| min(x[i], -3) / 2"),
        ("u32", "reduce max 10007 |i| x[i] % 1000"),
        ("f32", "reduce 10007 |i| x[i] * y[i]"),
    ];
    // 10007 terms in sweeps of 4 * 4 * 16 = 256: 39 sweeps and a tail of 23.
    let schedules = [
        "o: gridstride groups=4 group=16",
        "o: gridstride groups=4 group=16 chunk=39",
        "o: gridstride groups=4 group=16 chunk=13 combine=tree",
        "o: gridstride groups=4 group=16 chunk=3 combine=subgroup",
        "o: gridstride groups=1 group=8 chunk=312",
    ];
    check_folds(gpu, 10007, &folds, &schedules);
}

/// Each fold `o = FOLD` over inputs `x` and `y` of `n` elements of its type,
/// under each schedule (those with subgroups where the device has them),
/// against the interpreter.
fn check_folds(gpu: &Gpu, n: u64, folds: &[(&str, &str)], schedules: &[&str]) {
    let subgroups = gpu.target().subgroups();
    for (ty, fold) in folds {
        let src = format!("input x: {ty}[{n}]\ninput y: {ty}[{n}]\noutput o = {fold}\n");
        let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{src}: {d:?}"));
        for sched in schedules {
            if sched.contains("subgroup") && !subgroups {
                continue;
            }
            check_program_with(gpu, &p, 11, &pinned(sched))
                .unwrap_or_else(|e| panic!("{fold} ({sched}): {e}"));
        }
    }
}
