//! Schedules on the command line: `--schedule FILE` pinning, `--emit schedule`,
//! `--dump-after`, `texprc tune` filling the schedule cache that
//! `compile --device` and `run` then use, and `texprc bench` timing the same
//! schedules as `tune` does, with the roofline.

mod common;

use common::{example, have_gpu, stderr, stdout, with, write};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Runs texprc with the schedule cache at `cache` (never the user's).
fn texprc(cache: &Path, args: &[&str]) -> Output {
    common::texprc_in(cache, args)
}

/// A fresh directory for one test, and the cache file in it.
fn scratch(name: &str) -> (PathBuf, PathBuf) {
    common::scratch(&format!("tune-{name}"))
}

const MATMUL_32: [&str; 6] = ["-D", "M=32", "-D", "N=32", "-D", "K=32"];

#[test]
fn a_pinned_schedule_changes_the_scheduled_program() {
    let (dir, cache) = scratch("pin");
    let m = example("matmul.te");
    let sched = write(
        &dir,
        "s.txt",
        "# 2x2 register tiles\nc: tile group=4x4 reg=2x2\n",
    );
    let pinned = texprc(
        &cache,
        &with(
            &["compile", &m, "--emit", "scheduled", "--schedule", &sched],
            &MATMUL_32,
        ),
    );
    assert_eq!(pinned.status.code(), Some(0), "{}", stderr(&pinned));
    let text = stdout(&pinned);
    // 32x32 outputs in 2x2 tiles of 4x4 workgroups: 4 x 4 workgroups of 16.
    assert!(text.contains("compute@grid 16"), "{text}");
    assert!(text.contains("compute@group 16"), "{text}");
    assert!(text.contains("let@reg acc"), "{text}");
    assert!(text.contains("compute@thread 2 |ri|"), "{text}");

    let default = texprc(
        &cache,
        &with(
            &["compile", &m, "--emit", "scheduled", "--default-schedule"],
            &MATMUL_32,
        ),
    );
    assert_eq!(default.status.code(), Some(0), "{}", stderr(&default));
    assert!(
        !stdout(&default).contains("let@reg acc"),
        "{}",
        stdout(&default)
    );
    assert_ne!(stdout(&default), text);

    // --emit schedule gives the pinned schedule back, as a schedule file.
    let back = texprc(
        &cache,
        &with(
            &["compile", &m, "--emit", "schedule", "--schedule", &sched],
            &MATMUL_32,
        ),
    );
    assert_eq!(
        stdout(&back),
        format!("# schedule: pinned from {sched}\nc: tile group=4x4 reg=2x2\n")
    );
    let default = texprc(
        &cache,
        &with(
            &["compile", &m, "--emit", "schedule", "--default-schedule"],
            &MATMUL_32,
        ),
    );
    assert_eq!(
        stdout(&default),
        "# schedule: default\noptimize = off\nc: default\n"
    );

    // A coarsened elementwise item, and the pinned file together with
    // --default-schedule is a usage error.
    let s = write(&dir, "c.txt", "out: coarsen group=64 per_thread=4\n");
    let o = texprc(
        &cache,
        &[
            "compile",
            &example("saxpy.te"),
            "-D",
            "N=1024",
            "--emit",
            "scheduled",
            "--schedule",
            &s,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("compute@thread 4"), "{}", stdout(&o));
    let o = texprc(
        &cache,
        &["compile", &m, "--schedule", &s, "--default-schedule"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn bad_schedule_files_are_coded_errors_with_the_line() {
    let (dir, cache) = scratch("bad");
    let m = example("matmul.te");
    let bad = write(
        &dir,
        "bad.txt",
        "# fine so far\nc: tile group=4x4 reg=2x2\nd: tiles group=4x4\n",
    );
    let o = texprc(&cache, &["compile", &m, "--schedule", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[E0915]"), "{err}");
    assert!(err.contains("bad.txt:3:1"), "{err}");
    assert!(err.contains("unknown strategy `tiles`"), "{err}");

    let missing = dir.join("missing.txt").to_string_lossy().into_owned();
    let o = texprc(&cache, &["compile", &m, "--schedule", &missing]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[E0915]"), "{}", stderr(&o));

    // A schedule that parses but names no item of the program.
    let other = write(&dir, "other.txt", "d: rows group=4\n");
    let o = texprc(&cache, &["compile", &m, "--schedule", &other]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[E0210]"), "{err}");
    assert!(err.contains("pinned from"), "{err}");
}

#[test]
fn dump_after_prints_each_pass_as_checkable_texpr() {
    let (dir, cache) = scratch("dump");
    let s = example("softmax.te");
    let size = ["-D", "R=8", "-D", "C=16"];
    let names = texpr_opt::pipeline::pass_names();
    assert!(names.len() >= 2, "{names:?}");
    for name in &names {
        let o = texprc(&cache, &with(&["compile", &s, "--dump-after", name], &size));
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(text.contains("output y"), "{name}: {text}");
        // The dump is TExpr that checks.
        let file = write(&dir, &format!("{name}.te"), &text);
        let c = texprc(&cache, &["check", &file]);
        assert_eq!(c.status.code(), Some(0), "{name}: {text}\n{}", stderr(&c));
    }
    // After the last pass: the scheduled program.
    let last = texprc(
        &cache,
        &with(
            &["compile", &s, "--dump-after", names[names.len() - 1]],
            &size,
        ),
    );
    let scheduled = texprc(
        &cache,
        &with(&["compile", &s, "--emit", "scheduled"], &size),
    );
    assert_eq!(stdout(&last), stdout(&scheduled));
    assert!(stdout(&last).contains("compute@grid"), "{}", stdout(&last));

    let all = texprc(
        &cache,
        &with(&["compile", &s, "--dump-after", "all"], &size),
    );
    assert_eq!(all.status.code(), Some(0), "{}", stderr(&all));
    let headers: Vec<String> = stdout(&all)
        .lines()
        .filter(|l| l.starts_with("// after "))
        .map(|l| l["// after ".len()..].to_string())
        .collect();
    assert_eq!(headers, names);
}

#[test]
fn an_unknown_pass_lists_the_passes() {
    let (_dir, cache) = scratch("unknown-pass");
    let o = texprc(
        &cache,
        &[
            "compile",
            &example("softmax.te"),
            "--dump-after",
            "no_such_pass",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[E0916]"), "{err}");
    for name in texpr_opt::pipeline::pass_names() {
        assert!(err.contains(name), "{name}: {err}");
    }
}

#[test]
fn tune_fills_the_cache_that_compile_and_run_use() {
    if !have_gpu() {
        return;
    }
    let (_dir, cache) = scratch("tune");
    let m = example("matmul.te");
    // A corrupt cache is ignored (with a warning), then replaced.
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    std::fs::write(&cache, "[program=x device=y]\nc: nonsense\n").unwrap();

    let o = texprc(
        &cache,
        &with(
            &[
                "tune",
                &m,
                "--budget-s",
                "3",
                "--runs",
                "2",
                "--warmups",
                "1",
            ],
            &MATMUL_32,
        ),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("warning: schedule cache"), "{err}");
    assert!(err.contains("default schedule: "), "{err}");
    assert!(err.contains("heuristic schedule ("), "{err}");
    assert!(err.contains("[1/"), "{err}");
    let out = stdout(&o);
    assert!(out.starts_with("# tuned for "), "{out}");
    let tuned: String = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(tuned.contains("c: "), "{out}");

    // The cache holds one record, for this program, with that schedule,
    // and the device's target.
    let file = std::fs::read_to_string(&cache).unwrap();
    let headers: Vec<&str> = file
        .lines()
        .filter(|l| l.starts_with("[program="))
        .collect();
    assert_eq!(headers.len(), 1, "{file}");
    let targets: Vec<&str> = file
        .lines()
        .filter(|l| l.starts_with("[target device="))
        .collect();
    assert_eq!(targets.len(), 1, "{file}");
    assert!(file.contains("\nmax_workgroup_storage_bytes = "), "{file}");
    assert!(file.contains(&format!("\n{tuned}\n")), "{file}");
    assert!(file.contains("# median_ms="), "{file}");
    let device = headers[0]
        .split_once(" device=")
        .map(|(_, d)| d.trim_end_matches(']'))
        .unwrap();

    // compile finds it by (part of) the device's name; without --device it
    // uses the heuristic.
    let part = &device[..device.len().min(6)];
    let o = texprc(
        &cache,
        &with(
            &["compile", &m, "--emit", "schedule", "--device", part],
            &MATMUL_32,
        ),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().skip(1).collect::<String>(),
        tuned,
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).starts_with(&format!("# schedule: tuned for {device}")),
        "{}",
        stdout(&o)
    );
    let o = texprc(
        &cache,
        &with(&["compile", &m, "--emit", "schedule"], &MATMUL_32),
    );
    assert!(
        stdout(&o).starts_with("# schedule: heuristic"),
        "{}",
        stdout(&o)
    );
    // Another size is another program: not in the cache.
    let o = texprc(
        &cache,
        &[
            "compile", &m, "--emit", "schedule", "--device", part, "-D", "M=16",
        ],
    );
    assert!(
        stdout(&o).starts_with("# schedule: heuristic"),
        "{}",
        stdout(&o)
    );

    // run uses it, and its results match the interpreter.
    let o = texprc(
        &cache,
        &with(&["run", &m, "--random", "3", "--check"], &MATMUL_32),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("(schedule: tuned for"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("check passed"), "{}", stdout(&o));
}

/// A program too large to interpret whole quickly is checked on a sample of
/// its outputs, and tuning still finishes within its budget.
#[test]
fn tune_checks_large_programs_on_a_sample() {
    if !have_gpu() {
        return;
    }
    let (_dir, cache) = scratch("sampled");
    let m = example("matmul.te");
    let o = texprc(
        &cache,
        &[
            "tune",
            &m,
            "-D",
            "M=512",
            "-D",
            "N=512",
            "-D",
            "K=256",
            "--budget-s",
            "4",
            "--runs",
            "1",
            "--warmups",
            "0",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("checking 2049 sampled elements per output"),
        "{err}"
    );
    assert!(err.contains("0 were wrong"), "{err}");
    assert!(stdout(&o).starts_with("# tuned for "), "{}", stdout(&o));
}

/// The time of the row `schedule` in `bench`'s table: its `gpu ms`, else
/// (no timestamps) its `wall ms`.
fn bench_ms(table: &str, schedule: &str) -> f64 {
    let row: Vec<&str> = table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|cols| cols.get(2) == Some(&schedule))
        .unwrap_or_else(|| panic!("no `{schedule}` row in\n{table}"));
    // program, size, schedule, compile ms, gpu ms, wall ms, ...
    let figure = if row[4] == "-" { row[5] } else { row[4] };
    figure.parse().unwrap_or_else(|_| panic!("{row:?}"))
}

/// The number in `text` just after `after` (`... after 1.234 ms`).
fn number_after(text: &str, after: &str) -> f64 {
    let rest = &text[text
        .find(after)
        .unwrap_or_else(|| panic!("no `{after}` in\n{text}"))
        + after.len()..];
    let number: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number
        .parse()
        .unwrap_or_else(|_| panic!("no figure after `{after}` in\n{text}"))
}

/// `tune`'s printed figures are the medians of its last measurement (the
/// winner, the heuristic and the default timed together, uncut), as its
/// log shows them: never a figure taken from other runs (a cut-off's median
/// of two). Whether `tune` and `bench` agree in speed is a benchmark's
/// question, not a test's: two sittings seconds apart on a loaded machine
/// differ by more than any bound a test could hold.
#[test]
fn tune_reports_the_medians_of_its_last_measurement() {
    if !have_gpu() {
        return;
    }
    let (_dir, cache) = scratch("agree");
    let c = example("chain.te");
    let size = ["-D", "N=65536"];
    let timing = ["--runs", "9", "--warmups", "2"];
    let tuned = texprc(
        &cache,
        &with(&with(&["tune", &c, "--budget-s", "5"], &size), &timing),
    );
    let err = stderr(&tuned);
    assert_eq!(tuned.status.code(), Some(0), "{err}");
    let out = stdout(&tuned);
    // `# tuned for DEVICE: 0.173 ms`, then `# 0.97x the heuristic (0.169 ms), ...`.
    let head = out.lines().next().unwrap_or_default();
    let tune = [
        ("default", number_after(&out, "x the default (")),
        ("heuristic", number_after(&out, "x the heuristic (")),
        ("tuned", number_after(head.rsplit(": ").next().unwrap(), "")),
    ];
    // `timed together once more: tuned 0.173 ms (wall ..), heuristic .., default ..`.
    let last = err
        .lines()
        .find(|l| l.starts_with("timed together once more: "))
        .unwrap_or_else(|| panic!("{err}"));
    for (schedule, tune_ms) in tune {
        let logged = number_after(last, &format!(" {schedule} "));
        assert_eq!(
            format!("{tune_ms:.3}"),
            format!("{logged:.3}"),
            "{out}\n{err}"
        );
    }
}

/// `bench` prints the GPU's and the wall clock's times, the roofline it
/// measured in the same run and each row's share of it, and draws the
/// roofline into the chart.
#[test]
fn bench_reports_times_and_the_roofline() {
    if !have_gpu() {
        return;
    }
    let (dir, cache) = scratch("bench");
    let svg = dir.join("bench.svg").to_string_lossy().into_owned();
    let o = texprc(
        &cache,
        &[
            "bench",
            &example("saxpy.te"),
            "-D",
            "N=65536",
            "--runs",
            "3",
            "--svg",
            &svg,
        ],
    );
    let table = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // roofline: copy 13.8 GB/s (copy_buffer_to_buffer of 64 MiB, ...), FMA 63.1 GFLOP/s (fma_peak)
    assert!(number_after(&table, "roofline: copy ") > 0.0, "{table}");
    assert!(number_after(&table, "), FMA ") > 0.0, "{table}");
    for col in ["gpu ms", "wall ms", "GFLOP/s", "GB/s", "roofline"] {
        assert!(
            table
                .lines()
                .any(|l| l.starts_with("program") && l.contains(col)),
            "{table}"
        );
    }
    for schedule in ["default", "heuristic"] {
        let row = table
            .lines()
            .find(|l| l.split_whitespace().nth(2) == Some(schedule))
            .unwrap_or_else(|| panic!("{table}"));
        // saxpy moves 12 bytes for 2 operations: the copy bandwidth binds.
        assert!(row.ends_with("% copy"), "{row}");
        assert!(bench_ms(&table, schedule) > 0.0);
    }
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.contains("copy bandwidth"), "{chart}");
    assert!(chart.contains("FMA peak"), "{chart}");
}
