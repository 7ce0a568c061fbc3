//! `texprc block` failing cleanly: coded errors, never hangs, when ranks fail, die or
//! hang, when the budget is too small (kernel scratch counted), for bad usage (exit 2) and
//! for a cholesky of a matrix that is not positive definite (nothing written).

mod block_kit;

use block_kit::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
fn a_stopped_rank_ends_the_job_with_the_watchdogs_coded_error() {
    // SIGSTOP: the rank neither dies nor answers; the others see no progress.
    // A Cholesky by tiles (16 steps): every step needs tiles the others
    // computed, so the live ranks run out of work within a step of the stop
    // however loaded the machine is (a matmul's inputs all travel at the
    // start, so the live ranks would first finish their whole share).
    let ex = example("cholesky");
    let args = [
        "block",
        &ex,
        "--run",
        "--grid",
        "2x2",
        "-D",
        "N=256",
        "-D",
        "K=512",
        "-D",
        "T=16",
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
    // The promise is progress, not wall time on a loaded machine: once the
    // live ranks have nothing left to do, the job ends with the watchdog's
    // coded error, long before the hung rank would ever move. The bound is
    // 20 watchdog periods (the watchdog, the failing rank's wait for
    // acknowledgements, the abort take about two, a step's work the rest).
    let watchdog = Duration::from_secs(3);
    let o = wait_output(child, 20 * watchdog, "mpirun with a stopped rank");
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
        (vec!["--scheduler", "fastest"], "E0550"),
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
fn a_cholesky_of_a_matrix_that_is_not_positive_definite_writes_nothing() {
    // 3 I + 0.1 everywhere, -0.5 at (9, 9): positive definite up to order
    // 9; the rank that factors tile (2, 2) finds column 9's pivot negative.
    let dir = scratch("not-spd");
    let n = 14;
    let mut a = vec![0.1f32; n * n];
    for i in 0..n {
        a[i + i * n] = 3.1;
    }
    a[9 + 9 * n] = -0.5;
    let input = dir.join("a.npy");
    write_npy(&input, &[n as u64, n as u64], npyz::Order::C, &a);
    let program = dir.join("f.air");
    std::fs::write(
        &program,
        "func f {\n  %a = input : f32[14x14, 4x4]\n  %l = cholesky %a\n  ret %l\n}\n",
    )
    .unwrap();
    let out = dir.join("out");
    let input_arg = format!("a={}", input.display());
    for np in [None, Some(4)] {
        let o = run(
            np,
            &[
                "block",
                program.to_str().unwrap(),
                "--grid",
                "2x2",
                "--run",
                "--input",
                &input_arg,
                "-o",
                out.to_str().unwrap(),
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{np:?}");
        let err = text(&o.stderr);
        assert!(err.contains("error[E0549]: rank "), "{np:?}: {err}");
        assert!(
            err.contains("its factor's diagonal at column 9 is NaN")
                && err.contains("pspotrf's INFO = 10"),
            "{np:?}: {err}"
        );
        let written = std::fs::read_dir(&out).map_or(0, |d| d.count());
        assert_eq!(written, 0, "{np:?}: nothing written");
        assert!(!text(&o.stdout).contains("bytes moved"), "{np:?}");
    }
}

/// The process of MPI rank `rank` among mpirun's children.
fn rank_pid(mpirun: u32, rank: usize) -> Option<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    children(mpirun).into_iter().find(|pid| {
        std::fs::read(format!("/proc/{pid}/environ"))
            .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == want.as_bytes()))
    })
}

#[test]
fn a_rank_stopped_after_the_result_is_written_ends_the_job_with_a_coded_error() {
    // Once the result file is written the source rank (0) prints the report
    // and checks the result (seconds of the dense reference) while the
    // others wait for it: stop the source during its check, or another rank
    // while it waits. Either way every live rank ends within the watchdog
    // (3 s) of its last progress; the bound is 20 watchdog periods.
    let watchdog = Duration::from_secs(3);
    let ex = example("gemm_bias_relu");
    for stop in [0, 2] {
        let dir = scratch(&format!("stopped-after-{stop}"));
        let out = dir.to_str().unwrap().to_string();
        let args = [
            "block",
            &ex,
            "--run",
            "--check",
            "--grid",
            "2x2",
            "-D",
            "M=320",
            "-D",
            "K=320",
            "-D",
            "N=320",
            "--tile",
            "32",
            "--watchdog",
            "3",
            "-o",
            &out,
        ];
        let mut child = texprc_command(Some(4), &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mpirun starts");
        let written = dir.join("gemm_bias_relu.npy");
        // However slow a loaded machine makes the run: until the result is
        // written, or the job ends without it (its own watchdog ends a hang).
        while !written.exists() && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(written.exists(), "rank {stop}: the result was written");
        let pid = rank_pid(child.id(), stop).expect("the rank is still running");
        let stopped = Command::new("kill")
            .args(["-STOP", &pid.to_string()])
            .status()
            .unwrap();
        assert!(stopped.success());
        let o = wait_output(
            child,
            20 * watchdog,
            "mpirun with a rank stopped at the end",
        );
        let err = text(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "rank {stop}: {err}");
        assert!(
            err.contains("error[E0564]: rank ")
                && err.contains("no progress for 3.0 s waiting for ")
                && err.contains("at the end of the job: some rank hangs"),
            "rank {stop}: {err}"
        );
        assert!(
            text(&o.stdout).contains("bytes moved"),
            "rank {stop}: the run had finished"
        );
    }
}
