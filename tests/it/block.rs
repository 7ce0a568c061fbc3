//! Block-matrix layer: golden files for every example (passes, stages, DOT, plan), error goldens,
//! distributed runs against the dense reference on odd grids, and GPU runs.

use std::path::Path;
use texpr_block::air::parse;
use texpr_block::driver::run::{Backend, job, run_cli, run_in_process};
use texpr_block::driver::{BlockOptions, Emit, plan};
use texpr_block::exec::device::heuristic;
use texpr_block::exec::{RandomSource, eval_dense, max_rel_diff, random_inputs};
use texpr_block::graph::{GridConfig, Policy, build, prune, schedule};
use texpr_block::passes::{Env, optimize};
use texpr_tests::golden;

fn examples() -> Vec<(String, String)> {
    golden::inputs("examples/blocks", "air")
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn cli(name: &str, src: &str, f: impl FnOnce(&mut BlockOptions)) -> String {
    let mut args = BlockOptions::new(name, src);
    f(&mut args);
    run_cli(&args).unwrap_or_else(|d| panic!("{}", texpr_ir::diag::render(name, src, &d)))
}

#[test]
fn example_goldens() {
    let ex = examples();
    assert!(ex.len() >= 4, "the four block examples exist");
    let dir = golden::repo_root().join("tests/data/block");
    let mut failures = Vec::new();
    for (stem, src) in &ex {
        for (emit, ext) in [
            (Emit::Passes, "passes"),
            (Emit::Stages, "stages"),
            (Emit::Dot, "dot"),
            (Emit::Plan, "plan"),
        ] {
            let out = cli(stem, src, |a| a.emit = vec![emit]);
            if let Err(m) = golden::compare(&dir.join(format!("{stem}.{ext}")), &out) {
                failures.push(m);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn error_goldens() {
    golden::run_dir(
        "tests/data/block/errors",
        "air",
        "err",
        |path: &Path, src: &str| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            match parse(src, &[]) {
                Ok(_) => "no error\n".to_string(),
                Err(d) => texpr_ir::diag::render(&name, src, &d),
            }
        },
    );
}

#[test]
fn examples_run_on_odd_grids_and_match_the_dense_reference() {
    for (stem, src) in examples() {
        for grid in [(1, 1), (2, 2), (1, 3), (3, 2)] {
            let out = cli(&stem, &src, |a| {
                a.grid = grid;
                a.run = true;
                a.check = true;
            });
            assert!(out.contains("): ok\n"), "{stem} on {grid:?}: {out}");
        }
    }
}

#[test]
fn unfused_programs_give_the_same_results() {
    for (stem, src) in examples() {
        let out = cli(&stem, &src, |a| {
            a.fuse = false;
            a.grid = (3, 2);
            a.run = true;
            a.check = true;
        });
        assert!(out.contains("): ok\n"), "{stem}: {out}");
    }
}

#[test]
fn each_distinct_kernel_is_compiled_once() {
    let (_, src) = examples()
        .into_iter()
        .find(|(s, _)| s == "gemm_bias_relu")
        .unwrap();
    let out = cli("gemm", &src, |a| {
        a.defines = vec![("M".into(), 8), ("K".into(), 8), ("N".into(), 8)];
        a.run = true;
    });
    // 16 shards, all 2x2 tiles with a full K panel: one kernel on each rank
    assert!(out.contains("ran 16 shards and "), "{out}");
    assert!(
        out.contains("on a 2x2 grid (4 ranks as threads) with 1 distinct kernels per rank"),
        "{out}"
    );
}

#[test]
fn bytes_moved_grow_with_the_grid() {
    let (_, src) = examples()
        .into_iter()
        .find(|(s, _)| s == "gemm_bias_relu")
        .unwrap();
    let p = optimize(&parse(&src, &[]).unwrap(), &mut Env::new()).unwrap();
    let moved = |pq: (usize, usize)| {
        let g = prune(&build(&p, GridConfig::new(pq.0, pq.1)).unwrap());
        schedule(&g, pq.0 * pq.1, Policy::Greedy)
            .sent
            .iter()
            .sum::<u64>()
    };
    assert_eq!(moved((1, 1)), 0);
    assert!(moved((2, 2)) > 0);
}

#[test]
fn gpu_runs_match_the_dense_reference() {
    let Some(gpu) = texpr_tests::gpu::gpu() else {
        return;
    };
    for (stem, src) in examples() {
        let defines: Vec<(String, u64)> = match stem.as_str() {
            "gemm_bias_relu" => vec![
                ("M".into(), 70),
                ("K".into(), 50),
                ("N".into(), 60),
                ("T".into(), 16),
            ],
            // Slices on its tile boundaries: no params to change.
            "views" => vec![],
            _ => vec![("T".into(), 4)],
        };
        let mut args = BlockOptions::new(&stem, &src);
        args.defines = defines;
        let planned = plan(&args).unwrap();
        let job = job(&args, &planned).unwrap();
        let backend = Backend {
            gpu: Some(gpu),
            pick: &heuristic,
        };
        let source = RandomSource { seed: 5 };
        let outcome = run_in_process(&job, &source, backend)
            .unwrap_or_else(|d| panic!("{stem}: {d}\n{}", d.notes.join("\n")));
        let inputs = random_inputs(&planned.p, 5);
        let want = eval_dense(&planned.p, &inputs).unwrap();
        let got = outcome.gathered.result.as_ref().unwrap();
        let diff = max_rel_diff(&want, got).unwrap();
        assert!(
            diff <= texpr_block::driver::tolerance(&planned.p) * 10.0,
            "{stem}: diff {diff}"
        );
        // every distinct block body compiled once per rank, reused by its other shards
        let g = &planned.g;
        let mut shards = 0;
        for r in 0..4 {
            let mut distinct: Vec<&texpr_block::stage::Kernel> = Vec::new();
            for n in &g.nodes {
                if let texpr_block::graph::NodeKind::BlockShard { kernel, rank, .. } = &n.kind
                    && rank.0 == r
                {
                    shards += 1;
                    if !distinct.contains(&kernel) {
                        distinct.push(kernel);
                    }
                }
            }
            let stats = outcome.gathered.stats[r];
            assert_eq!(stats.kernels as usize, distinct.len(), "{stem} rank {r}");
        }
        let ran: u64 = outcome.gathered.stats.iter().map(|s| s.shards).sum();
        assert_eq!(ran as usize, shards, "{stem}");
        if stem == "gemm_bias_relu" {
            // 5 x 4 tiles of 16 (ragged at the bottom and right): at most 4 kernel variants
            assert_eq!(shards, 20);
            let most = outcome.gathered.stats.iter().map(|s| s.kernels).max();
            assert!(most <= Some(4), "{most:?} kernels");
        }
    }
}

#[test]
fn emit_texpr_shows_each_body_and_its_schedule() {
    let (_, src) = examples()
        .into_iter()
        .find(|(s, _)| s == "gemm_bias_relu")
        .unwrap();
    let out = cli("gemm", &src, |a| {
        a.defines = vec![("M".into(), 64), ("K".into(), 64), ("N".into(), 64)];
        a.tile = Some(32);
        a.emit = vec![Emit::Texpr];
    });
    // 2x2 tiles of 32, all alike: one body, then the optimizer's scheduled form of it
    assert_eq!(out.matches("// kernel k").count(), 1, "{out}");
    assert!(
        out.starts_with("// kernel k0\ninput a: f32[2048]\n"),
        "{out}"
    );
    let scheduled = out
        .split("// scheduled\n")
        .nth(1)
        .expect("a scheduled body");
    assert!(scheduled.contains("compute@grid"), "{scheduled}");
    assert!(scheduled.contains("reduce@thread"), "{scheduled}");
}

#[test]
fn views_on_one_rank_make_no_copies() {
    // transpose, slice and reverse are read in place by the kernels that use
    // them (an index map over the tile); on one rank no tile moves at all.
    let (_, src) = examples()
        .into_iter()
        .find(|(s, _)| s == "views")
        .expect("examples/blocks/views.air");
    let mut args = BlockOptions::new("views", &src);
    args.grid = (1, 1);
    let planned = plan(&args).unwrap();
    assert_eq!(planned.g.count("TensorCopy"), 0);
    assert!(
        planned.g.count("TensorView") > 0,
        "the views are in the graph"
    );
    let text =
        texpr_block::driver::plan_text(&planned.g, &planned.plan, planned.cfg, planned.scheduler);
    assert!(!text.contains(" copy n"), "{text}");
    let out = cli("views", &src, |a| {
        a.grid = (1, 1);
        a.run = true;
        a.check = true;
    });
    assert!(out.contains("shards and 0 copies on a 1x1 grid"), "{out}");
    assert!(out.contains("): ok\n"), "{out}");
    // On 2x2 only other ranks' tiles are copied: one copy per remote tile read.
    let mut args = BlockOptions::new("views", &src);
    args.grid = (2, 2);
    let planned = plan(&args).unwrap();
    for n in &planned.g.nodes {
        if let texpr_block::graph::NodeKind::TensorCopy { panel, .. } = &n.kind {
            assert_eq!(panel.rows.1 - panel.rows.0, 1, "single tiles: {panel:?}");
            assert_eq!(panel.cols.1 - panel.cols.0, 1, "single tiles: {panel:?}");
        }
    }
}

#[test]
fn check_holds_every_element_to_its_own_bound() {
    use texpr_block::driver::run::check;
    use texpr_block::exec::reference::dense_reference;
    let (_, src) = examples()
        .into_iter()
        .find(|(s, _)| s == "reductions")
        .unwrap();
    let p = parse(&src, &[]).unwrap();
    let inputs = random_inputs(&p, 7);
    let exact = eval_dense(&p, &inputs).unwrap();
    // The dense CPU reference is one allowed evaluation: it passes, every element compared.
    let out = check(&p, &inputs, &exact, false).unwrap();
    assert!(
        out.starts_with("check: 63 of 63 elements compared"),
        "{out}"
    );
    assert!(out.ends_with(": ok\n"), "{out}");
    // One element moved by a little more than its own tolerance fails.
    let want = dense_reference(&p, &inputs).unwrap();
    let k = 17;
    let tol = texpr_interp::accuracy::tolerance(want.bounds[k], true).unwrap();
    let mut bad = exact.clone();
    bad.data[k] = want.value.as_f32().unwrap()[k] + (3.0 * tol) as f32 + 1e-6;
    let err = check(&p, &inputs, &bad, false).unwrap_err();
    assert_eq!(err.code, "E0544", "{err:?}");
    assert!(err.message.contains("1 of 63"), "{}", err.message);
    // A NaN in an input leaves elements unspecified: not compared, not passed.
    let mut nan = inputs.clone();
    nan[0].data[3] = f32::NAN;
    let got = eval_dense(&p, &nan).unwrap();
    let err = check(&p, &nan, &got, false).unwrap_err();
    assert_eq!(err.code, "E0548", "{err:?}");
    let out = check(&p, &nan, &got, true).unwrap();
    assert!(out.contains("--allow-unchecked"), "{out}");
}

#[test]
fn a_sum_is_checked_against_its_tiles_partials() {
    // The reference stores what the block bodies store (each tile's column
    // sums, each tile's sum, the partials): the bound is a tile side's chain
    // and the partials', not one chain of all 512^2 elements.
    use texpr_block::exec::reference::dense_reference;
    let big = "func s {\n  %a = input : f32[512x512, 128x128]\n  %s = sum %a\n  ret %s\n}\n";
    let p = parse(big, &[]).unwrap();
    let mut inputs = random_inputs(&p, 3);
    let want = dense_reference(&p, &inputs).unwrap();
    let magnitudes: f64 = inputs[0].data.iter().map(|x| f64::from(x.abs())).sum();
    let eps = f64::from(f32::EPSILON) / 2.0;
    let whole_chain = (512.0 * 512.0 - 1.0) * eps * magnitudes;
    let tol = texpr_interp::accuracy::tolerance(want.bounds[0], true).unwrap();
    assert!(
        tol > 0.0 && tol < whole_chain / 100.0,
        "{tol} vs {whole_chain}"
    );
    // Under 1e-4 of the sum of magnitudes (values in [-1, 1) cancel: the sum
    // itself is some 90, its tolerance about 4)...
    assert!(tol < 1e-4 * magnitudes, "{tol} vs {magnitudes}");
    // ... and of the sum itself where nothing cancels.
    for x in &mut inputs[0].data {
        *x = x.abs();
    }
    let want = dense_reference(&p, &inputs).unwrap();
    let tol = texpr_interp::accuracy::tolerance(want.bounds[0], true).unwrap();
    let sum = f64::from(want.value.as_f32().unwrap()[0]);
    assert!(tol < 1e-4 * sum, "{tol} vs {sum}");
    let src = "func s {\n  %a = input : f32[64x64, 16x16]\n  %s = sum %a\n  ret %s\n}\n";
    let out = cli("s", src, |a| {
        a.run = true;
        a.check = true;
    });
    assert!(out.contains("check: 1 of 1 elements compared"), "{out}");
}

#[test]
fn the_benchmark_programs_plan() {
    // tools/scalapack's programs, which the Cholesky sitting and
    // BENCHMARKS.md run on their own .npy inputs (random ones are not
    // positive definite): each plans into its tile tasks.
    let programs = golden::inputs("tools/scalapack", "air");
    assert!(programs.len() >= 2);
    for p in programs {
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&p).unwrap();
        let out = cli(&stem, &src, |a| a.emit = vec![Emit::Stages]);
        assert!(out.contains("task potrf (1, 1)"), "{stem}: {out}");
    }
}

#[test]
fn a_program_whose_result_is_an_input_or_a_view_of_one_plans_and_runs() {
    // No task computes anything: the result is the input's tiles (copied to
    // the ranks that own the result's tiles where a view moves them).
    use texpr_block::driver::Scheduler;
    let programs = [
        (
            "ident",
            "func ident {\n  %a = input : f32[6x10, 2x3]\n  ret %a\n}\n",
            false,
        ),
        (
            "tview",
            "func tview {\n  %a = input : f32[10x6, 3x2]\n  %t = transpose %a\n  ret %t\n}\n",
            true,
        ),
        (
            "rnd",
            "func rnd {\n  %a = random 4 : f32[6x10, 2x3]\n  ret %a\n}\n",
            false,
        ),
    ];
    for (name, src, transposed) in programs {
        for scheduler in [Scheduler::Greedy, Scheduler::CriticalPath] {
            for grid in [(1, 1), (2, 2), (2, 3)] {
                let mut args = BlockOptions::new(name, src);
                args.grid = grid;
                args.scheduler = scheduler;
                let planned = plan(&args).unwrap();
                let job = job(&args, &planned).unwrap();
                let backend = Backend {
                    gpu: None,
                    pick: &heuristic,
                };
                let source = RandomSource { seed: 9 };
                let what = format!("{name} on {grid:?} by {scheduler:?}");
                let outcome = run_in_process(&job, &source, backend)
                    .unwrap_or_else(|d| panic!("{what}: {d}"));
                let got = outcome.gathered.result.expect("the result is gathered");
                let inputs = random_inputs(&planned.p, 9);
                let want = match inputs.first() {
                    Some(a) => a.clone(),
                    None => eval_dense(&planned.p, &inputs).unwrap(),
                };
                assert_eq!((got.rows, got.cols), (6, 10), "{what}");
                for i in 0..6 {
                    for j in 0..10 {
                        let w = if transposed {
                            want.data[j + i * want.rows]
                        } else {
                            want.data[i + j * want.rows]
                        };
                        assert_eq!(got.data[i + j * 6], w, "{what}: ({i}, {j})");
                    }
                }
            }
        }
        let out = cli(name, src, |a| {
            a.grid = (2, 3);
            a.run = true;
            a.check = true;
        });
        assert!(out.contains("check: 60 of 60 elements compared"), "{out}");
    }
}
