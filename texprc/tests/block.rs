//! `texprc block --run` end to end, in one process and under `mpirun`: results equal across
//! the two and the dense reference, .npy in and out against references computed here,
//! measured bytes against the plan, and coded errors (never hangs) when ranks fail or die.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const EXAMPLES: [&str; 4] = ["gemm_bias_relu", "gram", "mlp2", "row_norm"];

fn example(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let path = root.join("examples/blocks").join(format!("{name}.air"));
    path.to_string_lossy().into_owned()
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("block-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn texprc_command(np: Option<usize>, args: &[&str]) -> Command {
    let exe = env!("CARGO_BIN_EXE_texprc");
    let mut c = match np {
        None => Command::new(exe),
        Some(n) => {
            let mut c = Command::new("mpirun");
            c.args(["--oversubscribe", "-np", &n.to_string(), exe]);
            // Open MPI refuses to run as root without these (harmless otherwise).
            c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            c
        }
    };
    c.args(args).env("NO_COLOR", "1");
    c
}

/// Waits for a child, killing it (and failing) after `limit`.
fn wait_output(mut child: Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} hung for {limit:?}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// `texprc ARGS` (np `None`) or `mpirun -np N texprc ARGS`, within two minutes.
fn run(np: Option<usize>, args: &[&str]) -> Output {
    let child = texprc_command(np, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {np:?} texprc (is mpirun installed?): {e}"));
    wait_output(child, Duration::from_secs(180), &format!("{args:?}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

fn read_npy(path: &Path) -> (Vec<u64>, npyz::Order, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let (shape, order) = (npy.shape().to_vec(), npy.order());
    (shape, order, npy.into_vec::<f32>().unwrap())
}

fn write_npy(path: &Path, shape: &[u64], order: npyz::Order, xs: &[f32]) {
    use npyz::WriterBuilder;
    let file = std::fs::File::create(path).unwrap();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .order(order)
        .shape(shape)
        .writer(file)
        .begin_nd()
        .unwrap();
    w.extend(xs.iter().copied()).unwrap();
    w.finish().unwrap();
}

/// Whether GPU runs can happen (`TEXPR_REQUIRE_GPU=1` makes a missing adapter fail).
fn have_gpu() -> bool {
    let o = run(
        None,
        &["block", &example("gram"), "--run", "--device", "gpu"],
    );
    if o.status.success() {
        return true;
    }
    let required = std::env::var("TEXPR_REQUIRE_GPU").is_ok_and(|v| v.trim() == "1");
    assert!(!required, "no GPU adapter: {}", text(&o.stderr));
    eprintln!("  (GPU block tests skipped: no adapter)");
    false
}

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

/// The numbers of a report row `rK  shards  sent (plan)  received (plan)  wait  peak (plan)`.
fn report_rows(out: &str) -> Vec<Vec<u64>> {
    out.lines()
        .filter(|l| l.starts_with('r') && l[1..].starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            l.split(|c: char| c.is_whitespace() || c == '(' || c == ')')
                .filter(|w| !w.is_empty())
                .skip(1)
                .filter_map(|w| w.parse::<u64>().ok())
                .collect()
        })
        .collect()
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

/// Deterministic test data (not texpr's generator).
fn data(n: usize, salt: u32) -> Vec<f32> {
    (0..n as u32)
        .map(|k| ((k.wrapping_mul(2_654_435_761) ^ salt) % 2001) as f32 / 1000.0 - 1.0)
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
fn a_process_count_that_is_not_the_grid_is_a_coded_error() {
    let o = run(
        Some(3),
        &["block", &example("gram"), "--grid", "2x2", "--run"],
    );
    assert_ne!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert_eq!(err.matches("error[E0562]").count(), 1, "{err}");
    assert!(
        err.contains("3 processes, but the grid 2x2 has 4 ranks"),
        "{err}"
    );
}

#[test]
fn a_failing_rank_stops_every_rank_with_a_coded_error() {
    // bias is 1 x 8 in tiles of 1 x 2: rank 1 (grid (0, 1)) owns tile columns 1 and 3;
    // the file ends inside tile column 3, so rank 1 alone fails to read its tiles.
    let dir = scratch("fail");
    let path = dir.join("bias.npy");
    write_npy(&path, &[1, 8], npyz::Order::C, &data(8, 7));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 4]).unwrap();
    let ex = example("gemm_bias_relu");
    let input = format!("bias={}", path.display());
    let args = [
        "block", &ex, "--run", "--grid", "2x2", "-D", "M=8", "-D", "K=6", "-D", "N=8", "--input",
        &input,
    ];
    let start = Instant::now();
    let o = run(Some(4), &args);
    assert!(start.elapsed() < Duration::from_secs(60));
    assert_ne!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert!(
        err.contains("error[E0902]: rank 1 (0, 1): cannot read"),
        "{err}"
    );
    for r in [0, 2, 3] {
        let line = format!("error[E0560]: rank {r} stopped: rank 1 (0, 1) failed: [E0902]");
        assert!(err.contains(&line), "rank {r}: {err}");
    }
}

/// The pids of `parent`'s children (from /proc).
fn children(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: the fields after the last ')'.
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent) {
            out.push(pid);
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn killing_a_rank_mid_run_stops_the_others_within_seconds() {
    let ex = example("gemm_bias_relu");
    let args = [
        "block", &ex, "--run", "--grid", "2x2", "-D", "M=256", "-D", "K=256", "-D", "N=256",
        "--tile", "16",
    ];
    let mut child = texprc_command(Some(4), &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let start = Instant::now();
    let ranks = loop {
        let ranks = children(child.id());
        let ended = child.try_wait().unwrap().is_some();
        if ranks.len() == 4 || ended || start.elapsed() > Duration::from_secs(60) {
            break ranks;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if ranks.len() != 4 {
        let _ = child.kill();
        let o = child.wait_with_output().unwrap();
        panic!(
            "mpirun started {} ranks ({ranks:?}), not 4, in {:?}; its status {:?}\n{}\n{}",
            ranks.len(),
            start.elapsed(),
            o.status,
            text(&o.stdout),
            text(&o.stderr)
        );
    }
    std::thread::sleep(Duration::from_secs(2));
    let killed = Command::new("kill")
        .args(["-9", &ranks[2].to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let killed_at = Instant::now();
    let o = wait_output(child, Duration::from_secs(30), "mpirun after a kill");
    let took = killed_at.elapsed();
    assert!(
        took < Duration::from_secs(15),
        "the others took {took:?} to stop"
    );
    assert_ne!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert!(err.matches("error[E0561]").count() >= 1, "{err}");
    assert!(
        !text(&o.stdout).contains("bytes moved"),
        "the run did not finish"
    );
}

#[test]
fn a_stopped_rank_ends_the_job_with_a_coded_error_within_the_watchdog_time() {
    // SIGSTOP: the rank neither dies nor answers; the others see no progress.
    let ex = example("gemm_bias_relu");
    let args = [
        "block",
        &ex,
        "--run",
        "--grid",
        "2x2",
        "-D",
        "M=256",
        "-D",
        "K=256",
        "-D",
        "N=256",
        "--tile",
        "16",
        "--watchdog",
        "3",
    ];
    let child = texprc_command(Some(4), &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let start = Instant::now();
    let ranks = loop {
        let ranks = children(child.id());
        if ranks.len() == 4 || start.elapsed() > Duration::from_secs(60) {
            break ranks;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(ranks.len(), 4, "mpirun started the ranks");
    std::thread::sleep(Duration::from_secs(2));
    let stopped = Command::new("kill")
        .args(["-STOP", &ranks[1].to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let stopped_at = Instant::now();
    let o = wait_output(child, Duration::from_secs(60), "mpirun with a stopped rank");
    let took = stopped_at.elapsed();
    // The watchdog (3 s), the failing rank's wait for acknowledgements (1 s), the abort.
    assert!(
        took < Duration::from_secs(12),
        "the job took {took:?} to end"
    );
    assert_ne!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert!(err.contains("error[E0564]: rank "), "{err}");
    assert!(err.contains("no progress for 3.0 s"), "{err}");
    // Every live rank says why it stops: its own watchdog (all may be
    // waiting at once), or another rank's report of it.
    let coded =
        err.matches("error[E0564]: rank ").count() + err.matches("error[E0560]: rank ").count();
    assert!(coded >= 3, "the three live ranks say why: {err}");
    assert!(
        !text(&o.stdout).contains("bytes moved"),
        "the run did not finish"
    );
}

#[test]
fn usage_errors_exit_2_with_a_code() {
    let ex = example("gram");
    for (args, code) in [
        (vec!["-D", "Q=3"], "E0551"),
        (vec!["-D", "M=-5"], "E0551"),
        (vec!["--grid", "0x2"], "E0550"),
        (vec!["--grid", "2x2", "--source-rank", "2,0"], "E0550"),
        (vec!["--source-rank", "1"], "E0550"),
        (vec!["--emit", "everything"], "E0550"),
        (vec!["--run", "--watchdog", "0"], "E0550"),
    ] {
        let mut all = vec!["block", ex.as_str()];
        all.extend(&args);
        let o = run(None, &all);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("error[{code}]")), "{args:?}: {err}");
    }
    // Under mpirun, only --run has work for several processes.
    let o = run(Some(2), &["block", &ex, "--grid", "1x2", "--emit", "plan"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err.matches("error[E0552]").count(),
        1,
        "printed once: {err}"
    );
    // An integer program is refused before it is planned, never run as f32.
    let dir = scratch("i32");
    let src = std::fs::read_to_string(&ex)
        .unwrap()
        .replace("f32[", "i32[");
    let path = dir.join("gram_i32.air");
    std::fs::write(&path, src).unwrap();
    let o = run(
        None,
        &[
            "block",
            path.to_str().unwrap(),
            "--run",
            "-o",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("error[E0543]"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.join("gram.npy").exists(), "nothing written");
}

#[test]
fn the_budget_counts_kernel_scratch_before_the_run() {
    if !have_gpu() {
        return;
    }
    let ex = example("gemm_bias_relu");
    let base = [
        "block", &ex, "--run", "--grid", "2x2", "--device", "gpu", "-D", "M=64", "-D", "K=64",
        "-D", "N=64", "--tile", "16",
    ];
    let out = ok(&run(None, &base));
    let rows = report_rows(&out);
    let peak = rows.iter().map(|r| r[r.len() - 1]).max().unwrap();
    let line = out
        .lines()
        .find(|l| l.starts_with("kernel scratch B per rank: "))
        .unwrap_or_else(|| panic!("{out}"));
    let scratch: Vec<u64> = line["kernel scratch B per rank: [".len()..]
        .split(']')
        .next()
        .unwrap()
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(scratch.iter().all(|&s| s > 0), "{line}");
    let most = peak + scratch.iter().max().unwrap();
    // The planned peak alone is not enough: refused before any rank starts, never mid-run.
    let tight = peak.to_string();
    let mut args = base.to_vec();
    args.extend(["--budget", &tight]);
    let o = run(None, &args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error[E0531]") && err.contains("kernel scratch"),
        "{err}"
    );
    assert!(!err.contains("E0546"), "{err}");
    // Peak plus scratch is.
    let enough = most.to_string();
    let mut args = base.to_vec();
    args.extend(["--budget", &enough]);
    ok(&run(None, &args));
}

#[test]
fn reductions_over_512_squared_on_2x2_move_only_the_partials() {
    // 4x4 tiles of 128: each rank holds 2x2 tiles. Only partials cross ranks:
    // `sum` a 4-byte partial per grid row, then one along the source's column
    // (12 B in all, where gathering the matrix moved 786,432 B); `sum_rows` one
    // 128-row partial per tile row from the other rank of its grid row
    // (4 x 512 B); `sum_cols` alike along grid columns.
    let dir = scratch("reduce512");
    for (op, total) in [("sum", 12u64), ("sum_rows", 2048), ("sum_cols", 2048)] {
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
        let rows = report_rows(&out);
        assert_eq!(rows.len(), 4, "{out}");
        let sum = |k: usize| rows.iter().map(|r| r[k]).sum::<u64>();
        // shards, sent, planned sent, received, planned received, ...
        assert_eq!(sum(1), total, "{op} sent: {out}");
        assert_eq!(sum(3), total, "{op} received: {out}");
        assert_eq!((sum(2), sum(4)), (total, total), "{op} planned: {out}");
    }
}
