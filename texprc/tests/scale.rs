//! `texprc` on inputs at scale: long lines trimmed, errors capped, bytes that
//! are not UTF-8, a byte order mark, each message once, and `eval`'s memory
//! and operation budgets.

mod common;

use common::{have_gpu, stderr, stdout, texprc};
use std::path::{Path, PathBuf};

/// A file `name` holding `bytes` in a fresh directory for one test.
fn file(test: &str, name: &str, bytes: &[u8]) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("scale-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_million_character_line_is_trimmed_around_the_error() {
    let mut src = String::from("input x: f32[4]\noutput y = /* ");
    src.push_str(&"a comment ".repeat(100_000));
    src.push_str("*/ x + oops\n");
    let column = src.lines().nth(1).unwrap().len() - 3;
    let path = file("long-line", "long.te", src.as_bytes());
    let out = texprc(&["check", &path]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.len() < 2000, "{} bytes of stderr", err.len());
    assert!(
        err.contains("[E0101]") && err.contains("unknown name `oops`"),
        "{err}"
    );
    assert!(err.contains(&format!("long.te:2:{column}")), "{err}");
    assert!(
        err.contains("...a comment a comment ") && err.contains("*/ x + oops"),
        "{err}"
    );
}

#[test]
fn errors_are_capped_per_file_and_the_rest_counted() {
    // 4 KB of punctuation and letters: hundreds of errors.
    let mut state = 7u64;
    let junk: String = (0..4096)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            b"ab+-*/()[]{}|=<>01.,:;@#\n"[(state >> 33) as usize % 25] as char
        })
        .collect();
    let path = file("cap", "junk.te", junk.as_bytes());
    let err = stderr(&texprc(&["check", &path]));
    let shown = err.matches("error[").count() + err.matches("warning[").count();
    assert_eq!(shown, 20, "{err}");
    assert!(err.contains("more errors not shown (at most 20 diagnostics are shown per file)"));
    assert!(err.len() < 20_000, "{} bytes", err.len());
}

#[test]
fn bytes_that_are_not_utf8_are_reported_at_their_offset() {
    let path = file(
        "utf8",
        "bad.te",
        b"input x: f32[4]\noutput y = x // caf\xe9\n",
    );
    let out = texprc(&["check", &path]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("error[E0920]") && err.contains("byte 0xe9 at offset 35"),
        "{err}"
    );
    assert!(err.contains("bad.te:2:20"), "{err}");
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let path = file(
        "bom",
        "bom.te",
        b"\xef\xbb\xbfinput x: f32[4]\noutput y = x\n",
    );
    let out = texprc(&["check", &path]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("ok (1 input, 1 output)\n"),
        "{}",
        stdout(&out)
    );
    let run = texprc(&["eval", &path, "--random", "1"]);
    assert!(run.status.success(), "{}", stderr(&run));
}

#[test]
fn a_program_no_schedule_fits_is_reported_once() {
    // No schedule fits a 4 GiB buffer in the device's 256 MiB.
    let src = "param N = 1073741824\ninput x: f32[N]\noutput y = compute N |i| x[i] * 2.0\n";
    let path = file("once", "huge.te", src.as_bytes());
    let out = texprc(&["compile", &path]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(
        err.matches("buffer `x` has 4294967296 bytes").count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("error[E0315]").count(), 2, "x and y: {err}");
}

#[test]
fn eval_refuses_a_program_over_its_memory_budget_before_allocating() {
    // 2^30 elements in and out: 8 GiB, refused at once under a 1 GiB budget.
    let src = "param N = 1073741824\ninput x: f32[N]\noutput y = compute N |i| x[i] * 2.0\n";
    let path = file("memory", "huge.te", src.as_bytes());
    let out = texprc(&["eval", &path, "--random", "1", "--max-memory", "1G"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("error[E0921]") && err.contains("8.0 GiB"),
        "{err}"
    );
    let small = texprc(&[
        "eval",
        &path,
        "--random",
        "1",
        "--max-memory",
        "1G",
        "-D",
        "N=1000",
    ]);
    assert!(small.status.success(), "{}", stderr(&small));
}

#[test]
fn eval_refuses_long_work_unless_the_budget_is_raised() {
    let src = "input x: f32[8]\noutput s = reduce 2147483647 |i| x[i % 8]\n";
    let path = file("ops", "long.te", src.as_bytes());
    let out = texprc(&["eval", &path, "--random", "1"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("error[E0922]") && err.contains("--max-ops 4.3e9"),
        "{err}"
    );
    let short = "input x: f32[8]\noutput s = reduce 100000 |i| x[i % 8]\n";
    let path = file("ops-short", "short.te", short.as_bytes());
    let refused = texprc(&["eval", &path, "--random", "1", "--max-ops", "1000"]);
    assert!(stderr(&refused).contains("[E0922]"));
    let allowed = texprc(&["eval", &path, "--random", "1", "--max-ops", "1e6"]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(stdout(&allowed).starts_with("s: f32[1] = "));
}

#[test]
fn run_check_counts_unspecified_elements_and_compares_the_rest() {
    if !have_gpu() {
        return;
    }
    let src = "input x: f32[8]\nlet z = [0.0, 1.0, 2.0, 0.0, 4.0, 5.0, 6.0, 7.0]\n\
               output y = compute 8 |i| x[i] / z[i]\noutput n = compute 8 |i| i32(x[i] * 100.0)\n";
    let path = file("unspecified", "div.te", src.as_bytes());
    let out = texprc(&[
        "run",
        &path,
        "--random",
        "1",
        "--check",
        "--allow-unchecked",
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("check y: incomplete (6 of 8 elements compared, largest difference")
            && text
                .contains("; 2 unspecified (a non-finite value arose: inf or NaN), not compared"),
        "{text}"
    );
    assert!(
        text.contains("check n: ok (8 of 8 elements compared, largest difference 0)"),
        "{text}"
    );
}
