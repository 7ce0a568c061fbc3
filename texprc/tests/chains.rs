//! Chains of top-level `let`s that each read the one before several times
//! (issue 25): `texprc compile` of a 1,000-let chain runs under a 1 GiB
//! address-space cap and within 10 times the time of a 100-let chain (a
//! ratio of two sizes in one sitting, not an absolute time), with the
//! heuristic and with `--default-schedule`; and `texprc run --check` runs
//! such a chain end to end on the GPU. Before, the optimizer expanded the
//! chain into one tree 3^n in size: 10 lets took 470 MB, 86 were killed.

mod common;

use common::{have_gpu, scratch, stderr, stdout, write};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The tests of this file run one at a time: the GPU run's driver threads
/// would otherwise slow one size of the timed compiles and not the other.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `n` lets, each a smoothing stencil of the one before (three reads of
/// it per element), as the issue wrote them; `wrap` around each step's value
/// (`tanh` ends a chain of sums, so the elements stay specified: see
/// docs/language.md, "Non-finite values").
fn chain(n: usize, size: u64, wrap: &str) -> String {
    let mut s = format!("param N = {size}\ninput x: f32[N]\n");
    let mut prev = "x".to_string();
    for k in 0..n {
        s += &format!(
            "let a{k} = compute N |i| {wrap}({prev}[i] * 0.5 + {prev}[(i + 1) % N] * 0.25 + {prev}[(i + N - 1) % N] * 0.25)\n"
        );
        prev = format!("a{k}");
    }
    s + &format!("output y = compute N |i| {prev}[i]\n")
}

/// Address space the compile may use: 1 GiB, in KiB for `ulimit -v`.
const CAP_KIB: u64 = 1 << 20;

/// `texprc ARGS` under the address-space cap (`ulimit -v`: an allocation
/// past it fails and the process aborts), and its wall-clock time.
fn capped(cache: &Path, args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {CAP_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_texprc"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("TEXPR_CACHE", cache)
        .output()
        .expect("sh runs");
    (out, start.elapsed())
}

/// A capped compile of `file` to WGSL, which must succeed: its wall-clock
/// time and the length of the WGSL.
fn compile(cache: &Path, file: &str, schedule: &[&str]) -> (Duration, usize) {
    let mut args = vec!["compile", file, "--emit", "wgsl"];
    args.extend_from_slice(schedule);
    let (out, t) = capped(cache, &args);
    assert!(
        out.status.success(),
        "{file} {schedule:?} under a {CAP_KIB} KiB cap: {:?}\n{}",
        out.status,
        stderr(&out)
    );
    (t, out.stdout.len())
}

#[test]
fn a_thousand_lets_each_read_three_times_compile_in_linear_time_and_bounded_memory() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (dir, cache) = scratch("chains-compile");
    let short = write(&dir, "chain100.te", &chain(100, 1024, ""));
    let long = write(&dir, "chain1000.te", &chain(1000, 1024, ""));
    for schedule in [&[][..], &["--default-schedule"][..]] {
        // The fastest of five each, interleaved, so that a machine busy
        // with other work slows both sizes alike.
        let (mut t100, mut t1000) = (Duration::MAX, Duration::MAX);
        let (mut w100, mut w1000) = (0, 0);
        for _ in 0..5 {
            let (t, w) = compile(&cache, &short, schedule);
            (t100, w100) = (t100.min(t), w);
            let (t, w) = compile(&cache, &long, schedule);
            (t1000, w1000) = (t1000.min(t), w);
        }
        let ratio = t1000.as_secs_f64() / t100.as_secs_f64();
        eprintln!("{schedule:?}: 100 lets {t100:?}, 1,000 lets {t1000:?} ({ratio:.1}x)");
        assert!(
            ratio <= 10.0,
            "{schedule:?}: 1,000 lets took {t1000:?}, 100 took {t100:?} ({ratio:.1}x)"
        );
        // The kernels written grow with the chain, not faster.
        assert!(
            w1000 as f64 / w100 as f64 <= 12.0,
            "{schedule:?}: {w1000} bytes of WGSL for 1,000 lets, {w100} for 100"
        );
    }
}

#[test]
fn a_thousand_lets_each_read_three_times_run_and_match_on_the_gpu() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !have_gpu() {
        return;
    }
    let (dir, cache) = scratch("chains-run");
    let file = write(&dir, "chain.te", &chain(1000, 64, "tanh"));
    for schedule in [&[][..], &["--default-schedule"][..]] {
        let mut args = vec!["run", &file, "--random", "1", "--check"];
        args.extend_from_slice(schedule);
        let out = common::texprc_in(&cache, &args);
        let text = stdout(&out);
        assert!(
            out.status.success(),
            "{schedule:?}: {text}\n{}",
            stderr(&out)
        );
        assert!(
            text.contains("check y: ok (64 of 64 elements compared"),
            "{schedule:?}: every element compared: {text}"
        );
    }
}
