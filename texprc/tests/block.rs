//! `texprc block --run` end to end, in one process and under `mpirun`: results equal across
//! the two and the dense reference, .npy in and out against references computed here,
//! measured bytes against the plan (a reduction's: only its partials).

mod block_kit;

use block_kit::*;
use std::path::Path;

const EXAMPLES: [&str; 6] = [
    "gemm_bias_relu",
    "gram",
    "mlp2",
    "row_norm",
    "reductions",
    "views",
];

/// Runs `args` in one process and under `mpirun -np N`, writing results to
/// two directories; checks both pass `--check` and give the same bits.
fn same_in_one_process_and_under_mpi(name: &str, np: usize, args: &[&str]) {
    let device = if args.contains(&"gpu") { "gpu" } else { "cpu" };
    let dir = scratch(&format!("{name}-{np}-{device}"));
    let (one, many) = (dir.join("one"), dir.join("many"));
    let mut all = vec!["block", args[0], "--run", "--check"];
    all.extend(&args[1..]);
    let with_out = |d: &Path| {
        let mut a: Vec<String> = all.iter().map(|s| s.to_string()).collect();
        a.extend(["-o".into(), d.to_string_lossy().into_owned()]);
        a
    };
    let a1 = with_out(&one);
    let out1 = ok(&run(
        None,
        &a1.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    let a2 = with_out(&many);
    let out2 = ok(&run(
        Some(np),
        &a2.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    for out in [&out1, &out2] {
        assert!(out.contains("): ok\n"), "{name}: {out}");
        assert!(
            out.contains("bytes moved: as planned on every rank"),
            "{out}"
        );
    }
    assert!(out2.contains(&format!("({np} MPI processes)")), "{out2}");
    let file = std::fs::read_dir(&one)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    let (s1, _, r1) = read_npy(&one.join(&file));
    let (s2, _, r2) = read_npy(&many.join(&file));
    assert_eq!(s1, s2, "{name}");
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&r1), bits(&r2), "{name}: MPI and one process differ");
}

#[test]
fn four_and_six_ranks_on_the_interpreter_equal_one_process() {
    for name in EXAMPLES {
        let ex = example(name);
        same_in_one_process_and_under_mpi(name, 4, &[&ex, "--grid", "2x2"]);
        same_in_one_process_and_under_mpi(name, 6, &[&ex, "--grid", "2x3", "--source-rank", "1,2"]);
    }
    // Six partials along a grid row: sent to the reducing rank and added in
    // rank order, the same bits as the threads'.
    let ex = example("reductions");
    let args = [
        ex.as_str(),
        "--grid",
        "1x6",
        "-D",
        "M=64",
        "-D",
        "N=96",
        "--tile",
        "4",
    ];
    same_in_one_process_and_under_mpi("reductions-row", 6, &args);
}

#[test]
fn four_and_six_ranks_on_lavapipe_equal_one_process() {
    if !have_gpu() {
        return;
    }
    for name in EXAMPLES {
        let ex = example(name);
        let gpu = ["--device", "gpu"];
        same_in_one_process_and_under_mpi(name, 4, &[&ex, "--grid", "2x2", gpu[0], gpu[1]]);
    }
    // Ragged edges (70 x 50 x 60 in tiles of 16) on 3x2 ranks with the source at (2, 1).
    let ex = example("gemm_bias_relu");
    let args = [
        ex.as_str(),
        "--grid",
        "3x2",
        "--source-rank",
        "2,1",
        "--device",
        "gpu",
        "-D",
        "M=70",
        "-D",
        "K=50",
        "-D",
        "N=60",
        "--tile",
        "16",
    ];
    same_in_one_process_and_under_mpi("gemm-ragged", 6, &args);
}

#[test]
fn measured_bytes_under_mpi_equal_the_plan() {
    let ex = example("gemm_bias_relu");
    let args = [
        "block", &ex, "--run", "--grid", "2x2", "-D", "M=64", "-D", "K=48", "-D", "N=40", "--tile",
        "8",
    ];
    let out = ok(&run(Some(4), &args));
    let rows = report_rows(&out);
    assert_eq!(rows.len(), 4, "{out}");
    for (r, row) in rows.iter().enumerate() {
        // shards, sent, planned sent, received, planned received, peak, planned peak
        let (sent, plan_sent, recv, plan_recv) = (row[1], row[2], row[3], row[4]);
        assert!(sent > 0 && recv > 0, "rank {r} moves tiles: {out}");
        assert_eq!(sent, plan_sent, "rank {r} sent: {out}");
        assert_eq!(recv, plan_recv, "rank {r} received: {out}");
        assert_eq!(
            row[row.len() - 2],
            row[row.len() - 1],
            "rank {r} peak: {out}"
        );
    }
    let total = |k: usize| rows.iter().map(|r| r[k]).sum::<u64>();
    assert_eq!(total(1), total(3), "every byte sent is received: {out}");
}

/// Global rows (or columns) of a rank's local matrix: the tile rows `i` with
/// `(source + i) % grid == rank`, in order, each `tile` long (less at the end).
fn local_indices(n: usize, tile: usize, grid: usize, source: usize, rank: usize) -> Vec<usize> {
    (0..n.div_ceil(tile))
        .filter(|i| (source + i) % grid == rank)
        .flat_map(|i| i * tile..((i + 1) * tile).min(n))
        .collect()
}

#[test]
fn npy_inputs_and_outputs_match_a_reference_computed_here() {
    let (m, k, n, t) = (21usize, 13usize, 17usize, 4usize);
    let dir = scratch("npy");
    // a in C order, b in Fortran order, bias as a 1 x n row.
    let (a, b, bias) = (data(m * k, 1), data(k * n, 2), data(n, 3));
    let a_at = |i: usize, p: usize| a[i * k + p] as f64;
    let b_at = |p: usize, j: usize| b[p + j * k] as f64;
    write_npy(
        &dir.join("a.npy"),
        &[m as u64, k as u64],
        npyz::Order::C,
        &a,
    );
    write_npy(
        &dir.join("b.npy"),
        &[k as u64, n as u64],
        npyz::Order::Fortran,
        &b,
    );
    write_npy(&dir.join("bias.npy"), &[1, n as u64], npyz::Order::C, &bias);
    let want = |i: usize, j: usize| {
        let dot: f64 = (0..k).map(|p| a_at(i, p) * b_at(p, j)).sum();
        (dot + bias[j] as f64).max(0.0)
    };
    let ex = example("gemm_bias_relu");
    let inputs =
        ["a", "b", "bias"].map(|x| format!("{x}={}", dir.join(format!("{x}.npy")).display()));
    let (ms, ks, ns, ts) = (
        format!("M={m}"),
        format!("K={k}"),
        format!("N={n}"),
        t.to_string(),
    );
    let out_dir = dir.join("out");
    let out_str = out_dir.to_string_lossy().into_owned();
    let mut args = vec![
        "block",
        &ex,
        "--run",
        "--grid",
        "2x2",
        "--source-rank",
        "1,0",
        "-D",
        &ms,
        "-D",
        &ks,
        "-D",
        &ns,
        "--tile",
        &ts,
        "-o",
        &out_str,
    ];
    for i in &inputs {
        args.extend(["--input", i]);
    }
    ok(&run(Some(4), &args));
    let (shape, order, got) = read_npy(&out_dir.join("gemm_bias_relu.npy"));
    assert_eq!(shape, vec![m as u64, n as u64]);
    let at = |v: &[f32], i: usize, j: usize| match order {
        npyz::Order::C => v[i * n + j],
        npyz::Order::Fortran => v[i + j * m],
    };
    let tol = |x: f64| 1e-5 * (1.0 + x.abs()) * k as f64;
    for i in 0..m {
        for j in 0..n {
            let (g, w) = (at(&got, i, j) as f64, want(i, j));
            assert!((g - w).abs() <= tol(w), "({i}, {j}): {g} vs {w}");
        }
    }
    // Each rank's local matrix: its tile rows and columns, column-major.
    args.push("--output-per-rank");
    ok(&run(Some(4), &args));
    for r in 0..4 {
        let (pr, pc) = (r / 2, r % 2);
        let rows = local_indices(m, t, 2, 1, pr);
        let cols = local_indices(n, t, 2, 0, pc);
        let (shape, order, part) = read_npy(&out_dir.join(format!("gemm_bias_relu.rank{r}.npy")));
        assert_eq!(
            shape,
            vec![rows.len() as u64, cols.len() as u64],
            "rank {r}"
        );
        assert_eq!(order, npyz::Order::Fortran);
        for (lj, &j) in cols.iter().enumerate() {
            for (li, &i) in rows.iter().enumerate() {
                let g = part[li + lj * rows.len()] as f64;
                assert!(
                    (g - want(i, j)).abs() <= tol(want(i, j)),
                    "rank {r} ({i}, {j})"
                );
            }
        }
    }
}

#[test]
fn reductions_over_512_squared_on_2x2_move_only_the_partials() {
    // 4x4 tiles of 128: each rank holds 2x2 tiles. Only partials cross ranks:
    // `sum` a 4-byte partial per grid row, then one along the source's column
    // (12 B in all, where gathering the matrix moved 786,432 B); `sum_rows` one
    // 128-row partial per tile row from the other rank of its grid row
    // (4 x 512 B); `sum_cols` alike along grid columns. Every rank's
    // partials reach the source rank's check: one per step (16), and one
    // per reduce (`sum`: two along grid rows, one along the column; the
    // others: one per output tile).
    let dir = scratch("reduce512");
    for (op, total, reduces) in [
        ("sum", 12u64, 3),
        ("sum_rows", 2048, 4),
        ("sum_cols", 2048, 4),
    ] {
        let src = format!(
            "func r {{\n  %a = input : f32[512x512, 128x128]\n  %s = {op} %a\n  ret %s\n}}\n"
        );
        let path = dir.join(format!("{op}.air"));
        std::fs::write(&path, src).unwrap();
        let out = ok(&run(
            Some(4),
            &[
                "block",
                path.to_str().unwrap(),
                "--grid",
                "2x2",
                "--run",
                "--check",
            ],
        ));
        assert!(
            out.contains("bytes moved: as planned on every rank"),
            "{op}: {out}"
        );
        assert!(out.contains("): ok\n"), "{op}: {out}");
        let partials = format!("check of the partials: 16 steps and {reduces} reduces of sums");
        assert!(out.contains(&partials), "{op}: {out}");
        let rows = report_rows(&out);
        assert_eq!(rows.len(), 4, "{out}");
        let sum = |k: usize| rows.iter().map(|r| r[k]).sum::<u64>();
        // shards, sent, planned sent, received, planned received, ...
        assert_eq!(sum(1), total, "{op} sent: {out}");
        assert_eq!(sum(3), total, "{op} received: {out}");
        assert_eq!((sum(2), sum(4)), (total, total), "{op} planned: {out}");
    }
}

/// The report's `matrices held per rank ...` line: the measured and planned
/// matrices per rank, then the measured and planned device buffers.
fn held_per_rank(out: &str) -> Vec<Vec<u64>> {
    let line = out
        .lines()
        .find(|l| l.starts_with("matrices held per rank"))
        .unwrap_or_else(|| panic!("no holdings line: {out}"));
    line.split('[')
        .skip(1)
        .map(|part| {
            let list = &part[..part.find(']').expect("a closed list")];
            list.split(", ").map(|x| x.parse().unwrap()).collect()
        })
        .collect()
}

#[test]
fn each_matrix_is_one_device_buffer_per_rank_on_the_interpreter_and_lavapipe() {
    let ex = example("elementwise");
    let mut devices = vec!["cpu"];
    if have_gpu() {
        devices.push("gpu");
    }
    for device in devices {
        // One rank: %a, %b, %c, %r and the result, 69 tiles in all, in 5 device buffers.
        let one = ok(&run(
            None,
            &[
                "block", &ex, "--grid", "1x1", "--run", "--check", "--device", device,
            ],
        ));
        assert!(one.contains("): ok\n"), "{one}");
        assert_eq!(
            held_per_rank(&one),
            vec![vec![5], vec![5], vec![5], vec![5]],
            "{device}: {one}"
        );
        // Four MPI processes: each rank's device counts its own buffers, as planned.
        let four = ok(&run(
            Some(4),
            &[
                "block", &ex, "--grid", "2x2", "--run", "--check", "--device", device,
            ],
        ));
        assert!(four.contains("): ok\n"), "{four}");
        let held = held_per_rank(&four);
        assert_eq!(held[0], held[1], "{device} matrices: {four}");
        assert_eq!(held[2], held[3], "{device} buffers: {four}");
        assert!(held[0].iter().all(|&m| (1..=5).contains(&m)), "{four}");
        let rows = report_rows(&four);
        for (r, row) in rows.iter().enumerate() {
            assert_eq!(row[5], row[6], "{device} rank {r} peak: {four}");
        }
    }
}
