//! Block layer: `--check` with teeth. A run that loses one tile's part of a
//! sum fails the check of the partials, even where the whole sum stays
//! within its bound (the fault injected through `Job::fault`, which only
//! the library reaches).

use texpr_block::driver::run::{Backend, check, check_run, full_inputs, job, run_in_process};
use texpr_block::driver::{BlockOptions, plan};
use texpr_block::exec::RandomSource;
use texpr_block::exec::device::heuristic;
use texpr_block::exec::partials::Fault;

const BACKEND: Backend<'static> = Backend {
    gpu: None,
    pick: &heuristic,
};

/// Each tile's exact sum of `a` (column-major `rows x rows`, tiles of `t`), by tile.
fn tile_sums(a: &[f32], rows: usize, t: usize) -> Vec<((u64, u64), f64)> {
    let n = rows / t;
    let mut out = Vec::new();
    for tj in 0..n {
        for ti in 0..n {
            let mut s = 0.0f64;
            for j in tj * t..(tj + 1) * t {
                for i in ti * t..(ti + 1) * t {
                    s += f64::from(a[i + j * rows]);
                }
            }
            out.push(((ti as u64, tj as u64), s));
        }
    }
    out
}

#[test]
fn a_run_that_drops_one_tile_of_a_sum_fails_the_check_of_its_partials() {
    let src = "func s {\n  %a = input : f32[512x512, 64x64]\n  %s = sum %a\n  ret %s\n}\n";
    let mut args = BlockOptions::new("s", src);
    args.grid = (2, 2);
    args.check = true;
    let planned = plan(&args).unwrap();
    let source = RandomSource { seed: args.seed };
    let inputs = full_inputs(&planned.p, &source).unwrap();
    // A correct run passes both checks.
    let job_ok = job(&args, &planned).unwrap();
    let ok = run_in_process(&job_ok, &source, BACKEND).unwrap();
    let out = check_run(&planned, &inputs, &ok.gathered, false).unwrap();
    assert!(out.contains("1 of 1 elements compared"), "{out}");
    assert!(
        out.contains("check of the partials: 64 steps and 3 reduces of sums"),
        "{out}"
    );
    assert!(out.ends_with(": ok\n"), "{out}");
    // The whole sum's tolerance (every order of 262,144 terms).
    let whole = texpr_block::exec::reference::dense_reference(&planned.p, &inputs).unwrap();
    let tol = texpr_interp::accuracy::tolerance(whole.bounds[0], true).unwrap();
    // The tile whose part is the smallest above a unit: well above its own
    // rounding (a tile's tolerance is some 0.1), below the whole sum's.
    let (tile, part) = tile_sums(&inputs[0].data, 512, 64)
        .into_iter()
        .filter(|(_, s)| s.abs() > 1.0)
        .min_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .unwrap();
    assert!(part.abs() < tol, "tile {tile:?}'s part {part} vs {tol}");
    let mut lossy = job(&args, &planned).unwrap();
    lossy.fault = Some(Fault::DropTile {
        op: planned.q.find("s").unwrap(),
        src_tile: tile,
    });
    let lost = run_in_process(&lossy, &source, BACKEND).unwrap();
    let got = lost.gathered.result.as_ref().unwrap();
    let moved = f64::from(got.data[0] - ok.gathered.result.as_ref().unwrap().data[0]);
    assert!(
        (moved + part).abs() < 1e-3 * part.abs().max(1.0),
        "{moved} vs {part}"
    );
    // The result alone still passes: the lost part is within its bound...
    let alone = check(&planned.p, &inputs, got, false).unwrap();
    assert!(alone.ends_with(": ok\n"), "{alone}");
    // ... and the partials do not.
    let err = check_run(&planned, &inputs, &lost.gathered, false).unwrap_err();
    assert_eq!(err.code, "E0544", "{err:?}");
    let at = format!("after adding tile ({}, {})", tile.0, tile.1);
    assert!(err.message.contains(&at), "{}", err.message);
}

#[test]
fn the_partials_of_row_and_column_sums_and_means_are_checked_on_every_grid() {
    let src = "func m {\n  %a = input : f32[9x7, 2x3]\n  %r = sum_rows %a\n  %c = mean_cols %a\n  %t = mean %a\n  %x = add %r, %t\n  %y = add %x, %c\n  ret %y\n}\n";
    for grid in [(1, 1), (2, 2), (3, 2)] {
        let mut args = BlockOptions::new("m", src);
        args.grid = grid;
        args.check = true;
        let planned = plan(&args).unwrap();
        let source = RandomSource { seed: 5 };
        let inputs = full_inputs(&planned.p, &source).unwrap();
        let j = job(&args, &planned).unwrap();
        let ran = run_in_process(&j, &source, BACKEND).unwrap();
        let out = check_run(&planned, &inputs, &ran.gathered, false).unwrap();
        assert!(out.contains("check of the partials"), "{grid:?}: {out}");
        // Each of the three reductions loses its first tile (0, 0).
        for name in ["r", "c", "t"] {
            let mut lossy = job(&args, &planned).unwrap();
            lossy.fault = Some(Fault::DropTile {
                op: planned.q.find(name).unwrap(),
                src_tile: (0, 0),
            });
            let lost = run_in_process(&lossy, &source, BACKEND).unwrap();
            let err = check_run(&planned, &inputs, &lost.gathered, false).unwrap_err();
            assert_eq!(err.code, "E0544", "%{name} on {grid:?}: {err:?}");
            assert!(
                err.message.contains("after adding tile (0, 0)"),
                "%{name} on {grid:?}: {}",
                err.message
            );
        }
    }
}
