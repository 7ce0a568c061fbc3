//! The block layer's Cholesky factorization and triangular solves: `--check`
//! against the interpreter's bounds on 1, 4 and 6 ranks with several source
//! ranks (interpreter and GPU), the task graph's lookahead, and where a
//! factorization's tiles travel.

use texpr_block::driver::run::run_cli;
use texpr_block::driver::{BlockOptions, Device, plan};
use texpr_block::graph::NodeKind;
use texpr_block::stage::linalg::TileStep;
use texpr_tests::golden;

fn example(name: &str) -> String {
    std::fs::read_to_string(golden::repo_root().join(format!("examples/blocks/{name}.air")))
        .unwrap()
}

/// Ragged tiles (24 in tiles of 5) and a right-hand side of 7 columns in tiles of 3.
fn sized(a: &mut BlockOptions) {
    a.defines = vec![("N".into(), 24), ("K".into(), 48)];
    a.tile = Some(5);
}

fn checked(name: &str, grid: (usize, usize), source: (usize, usize), device: Device) -> String {
    run_checked(name, device, |a| {
        sized(a);
        a.grid = grid;
        a.source_rank = source;
    })
}

/// `name` run with `--check` on `device`, as `set` configures it.
fn run_checked(name: &str, device: Device, set: impl FnOnce(&mut BlockOptions)) -> String {
    let src = example(name);
    let mut a = BlockOptions::new(name, &src);
    set(&mut a);
    a.device = device;
    a.run = true;
    a.check = true;
    run_cli(&a).unwrap_or_else(|d| panic!("{name}: {}", texpr_ir::diag::render(name, &src, &d)))
}

#[test]
fn factorizations_and_solves_pass_check_on_1_4_and_6_ranks_from_several_sources() {
    let runs = [
        ((1, 1), (0, 0)),
        ((2, 2), (1, 0)),
        ((2, 2), (1, 1)),
        ((3, 2), (2, 1)),
        ((2, 3), (0, 2)),
    ];
    for name in ["cholesky", "spd_solve"] {
        let len = if name == "cholesky" { 24 * 24 } else { 24 * 3 };
        for (grid, source) in runs {
            let out = checked(name, grid, source, Device::Cpu);
            let all = format!("check: {len} of {len} elements compared");
            assert!(
                out.contains(&all) && out.contains("): ok\n"),
                "{name} {grid:?} {source:?}: {out}"
            );
        }
    }
}

#[test]
fn factorizations_and_solves_pass_check_on_the_gpu() {
    if texpr_tests::gpu::gpu().is_none() {
        return;
    }
    for name in ["cholesky", "spd_solve"] {
        let out = checked(name, (2, 2), (1, 1), Device::Gpu);
        assert!(out.contains("): ok\n"), "{name}: {out}");
    }
}

/// A 64x64 factorization in tiles of 8 on 2x2 ranks, as planned.
fn planned_cholesky() -> texpr_block::driver::Planned {
    let src = example("cholesky");
    let mut a = BlockOptions::new("cholesky", &src);
    a.defines = vec![("N".into(), 64), ("K".into(), 128)];
    a.tile = Some(8);
    a.grid = (2, 2);
    plan(&a).unwrap()
}

#[test]
fn the_plan_looks_ahead_the_next_panel_runs_before_the_trailing_update_ends() {
    let planned = planned_cholesky();
    let g = &planned.g;
    let when = |step: TileStep| -> Vec<(u64, u64, (u64, u64))> {
        planned
            .plan
            .steps
            .iter()
            .filter_map(|s| match g.kind(s.node) {
                NodeKind::BlockShard { work, tile, .. }
                    if *work == texpr_block::graph::node::Work::Linalg(step) =>
                {
                    Some((s.start, s.end, *tile))
                }
                _ => None,
            })
            .collect()
    };
    // While the trailing matrix is large (the first half of the 8 steps),
    // step k + 1's potrf overtakes step k's updates of other tiles.
    for k in 0..4u64 {
        let next = when(TileStep::Potrf)
            .into_iter()
            .find(|t| t.2 == (k + 1, k + 1))
            .unwrap();
        let last_update = when(TileStep::Update(k)).iter().map(|t| t.1).max().unwrap();
        assert!(
            next.0 < last_update,
            "step {}'s potrf starts at {} after step {k}'s updates end at {last_update}",
            k + 1,
            next.0
        );
    }
}

#[test]
fn a_factor_tile_goes_only_to_the_ranks_that_read_it() {
    // L(k, k) is read by trsm on its tile column; L(i, k) by the updates of
    // tile row i and tile column i. Each copy of a finished tile lands on a
    // rank owning one of those tiles, and no rank gets one it does not read.
    let planned = planned_cholesky();
    let g = &planned.g;
    let l = planned
        .q
        .regs()
        .find(|&r| planned.q.inst(r).name == "l")
        .unwrap();
    let succs = g.succs();
    let mut copies = 0;
    for (id, n) in g.nodes.iter().enumerate() {
        let NodeKind::TensorCopy { rank, panel, .. } = &n.kind else {
            continue;
        };
        if panel.reg != l {
            continue;
        }
        copies += 1;
        let readers: Vec<_> = succs[id]
            .iter()
            .copied()
            .filter_map(|s| match g.kind(s) {
                NodeKind::BlockShard { rank: r, tile, .. } => Some((*r, *tile)),
                _ => None,
            })
            .collect();
        assert!(!readers.is_empty(), "a copy nobody reads: {panel:?}");
        assert!(readers.iter().all(|(r, _)| r == rank), "{panel:?}");
        let (i, k) = (panel.rows.0, panel.cols.0);
        for (_, (ti, tj)) in readers {
            assert!(
                ti == i || tj == i || (i == k && tj == k),
                "L({i}, {k}) read by ({ti}, {tj})"
            );
        }
    }
    assert!(copies > 0);
}

#[test]
fn a_factor_too_large_for_forward_bounds_is_checked_by_its_residual() {
    // At order 96 forward bounds leave elements without a finite bound;
    // the residual A - L L^T is held to Cholesky's backward-error bound.
    let out = checked_at("cholesky", 96, 32, Device::Cpu);
    assert!(
        out.contains("check: 9216 of 9216 elements compared, each residual of A - L L^T")
            && out.contains("): ok\n"),
        "{out}"
    );
}

/// `name` at order `n` (K = 2n) in tiles of `tile` on 2x2 ranks, checked.
fn checked_at(name: &str, n: u64, tile: u64, device: Device) -> String {
    run_checked(name, device, |a| {
        a.defines = vec![("N".into(), n), ("K".into(), 2 * n)];
        a.tile = Some(tile);
        a.grid = (2, 2);
    })
}

#[test]
fn tiles_of_several_blocks_and_a_ragged_last_tile_pass_check() {
    // Tiles of 35 go by blocks of 32 and 3, and the last tile of 3 by
    // one block: within forward bounds (order 38), the solves compare
    // every element with the reference, which goes by the same blocks.
    let mut devices = vec![Device::Cpu];
    if texpr_tests::gpu::gpu().is_some() {
        devices.push(Device::Gpu);
    }
    for device in devices {
        let out = checked_at("spd_solve", 38, 35, device);
        assert!(
            out.contains("check: 114 of 114 elements compared") && out.contains("): ok\n"),
            "{device:?}: {out}"
        );
        // Tiles of 72 in blocks of 32, 32 and 8 (trsm's halves uneven),
        // and a last tile of 6.
        let out = checked_at("cholesky", 150, 72, device);
        assert!(
            out.contains("check: 22500 of 22500 elements compared, each residual")
                && out.contains("): ok\n"),
            "{device:?}: {out}"
        );
    }
}

/// `3 I + 0.1` everywhere (positive definite), with `-0.5` at `(c, c)`:
/// its leading minors are positive definite up to order `c`, and the one
/// of order `c + 1` is not.
fn fails_at(n: usize, c: usize) -> texpr_block::exec::Matrix {
    let mut a = texpr_block::exec::Matrix::zeros(n, n);
    for j in 0..n {
        for i in 0..n {
            a.data[i + j * n] = if i == j { 3.1 } else { 0.1 };
        }
    }
    a.data[c + c * n] = -0.5;
    a
}

#[test]
fn a_matrix_that_is_not_positive_definite_is_a_coded_error_naming_its_first_failing_column() {
    use texpr_block::driver::run::{Backend, job, run_in_process};
    use texpr_block::exec::DenseSource;
    use texpr_block::exec::device::heuristic;
    // 14 in tiles of 4: the failing column first in its tile, inside one,
    // and in the ragged last tile; the factor returned, or only solved with.
    let factor = "func f {\n  %a = input : f32[14x14, 4x4]\n  %l = cholesky %a\n  ret %l\n}\n";
    let solved = "func s {\n  %a = input : f32[14x14, 4x4]\n  %b = input : f32[14x3, 4x3]\n  %l = cholesky %a\n  %y = solve_lower %l, %b\n  ret %y\n}\n";
    for (name, src) in [("factor", factor), ("solved", solved)] {
        for c in [0, 8, 9, 13] {
            for grid in [(1, 1), (2, 2), (2, 3)] {
                let mut args = BlockOptions::new(name, src);
                args.grid = grid;
                let planned = plan(&args).unwrap();
                let job = job(&args, &planned).unwrap();
                let inputs = vec![fails_at(14, c), texpr_block::exec::Matrix::zeros(14, 3)];
                let source = DenseSource { inputs: &inputs };
                let backend = Backend {
                    gpu: None,
                    pick: &heuristic,
                };
                let what = format!("{name}, column {c}, on {grid:?}");
                let err = run_in_process(&job, &source, backend)
                    .err()
                    .unwrap_or_else(|| panic!("{what}: ran"));
                assert_eq!(err.code, "E0549", "{what}: {err}");
                let says = format!("its factor's diagonal at column {c} is ");
                assert!(err.message.contains(&says), "{what}: {}", err.message);
                let info = format!("pspotrf's INFO = {})", c + 1);
                assert!(err.message.contains(&info), "{what}: {}", err.message);
            }
        }
    }
    // Without the negative pivot the same matrix factors, as the dense reference does.
    let mut args = BlockOptions::new("factor", factor);
    args.grid = (2, 3);
    let planned = plan(&args).unwrap();
    let job = job(&args, &planned).unwrap();
    let mut spd = fails_at(14, 9);
    spd.data[9 + 9 * 14] = 3.1;
    let inputs = vec![spd];
    let backend = Backend {
        gpu: None,
        pick: &heuristic,
    };
    let got = run_in_process(&job, &DenseSource { inputs: &inputs }, backend)
        .unwrap()
        .gathered
        .result
        .unwrap();
    let want = texpr_block::exec::eval_dense(&planned.p, &inputs).unwrap();
    let diff = texpr_block::exec::max_rel_diff(&want, &got).expect("same shape");
    assert!(diff < 1e-5, "{diff}");
}
