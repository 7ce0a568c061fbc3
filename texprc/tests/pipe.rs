//! A stdout its reader closed (`texprc run prog.te | head -1`) ends every
//! printing subcommand quietly: exit status 0, nothing on stderr (no
//! "failed printing to stdout: Broken pipe" panic).

mod common;

use common::{example, have_gpu, scratch};
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs texprc with `args`, its stdout a pipe whose reading end is closed
/// before it starts: its first write fails with a broken pipe.
fn with_stdout_closed(cache: &Path, args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_texprc"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("TEXPR_CACHE", cache)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("texprc runs");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn block(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let path = root.join("examples/blocks").join(format!("{name}.air"));
    path.to_string_lossy().into_owned()
}

/// Each subcommand, with its stdout closed, exits 0 with stderr quiet
/// (the GPU's only where there is an adapter).
#[test]
fn a_closed_stdout_ends_every_subcommand_quietly() {
    let (_dir, cache) = scratch("pipe");
    let (saxpy, softmax, gram) = (example("saxpy.te"), example("softmax.te"), block("gram"));
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["check", &softmax],
        vec!["fmt", &softmax],
        vec!["eval", &saxpy, "--random", "1", "-D", "N=64"],
        vec!["compile", &softmax],
        vec!["compile", &softmax, "--emit", "spirv"],
        vec!["target", "nvidia"],
        vec!["block", &gram, "--grid", "2x2", "--emit", "stages"],
        vec!["block", &gram, "--grid", "2x2", "--run", "--check"],
    ];
    if have_gpu() {
        cases.extend([
            vec!["target"],
            vec!["run", &saxpy, "--random", "1", "-D", "N=64", "--check"],
            vec![
                "bench",
                &saxpy,
                "-D",
                "N=4096",
                "--runs",
                "1",
                "--warmups",
                "1",
            ],
            vec![
                "tune",
                &saxpy,
                "-D",
                "N=4096",
                "--budget-s",
                "2",
                "--runs",
                "1",
            ],
        ]);
    }
    for args in &cases {
        let (code, err) = with_stdout_closed(&cache, args);
        let shown = args.join(" ");
        assert_eq!(code, Some(0), "texprc {shown}: exit status\n{err}");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "texprc {shown} complained about the closed stdout:\n{err}"
        );
        // `tune` reports its progress on stderr by design; the others are silent.
        if args[0] != "tune" {
            assert_eq!(err, "", "texprc {shown} wrote to stderr");
        }
    }
}

/// Nothing in texprc prints to stdout but through `out.rs`, which handles
/// the closed pipe: no `println!`/`print!` and no `stdout()` elsewhere.
#[test]
fn every_print_goes_through_the_out_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src];
    let mut offenders = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("out.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let prints = ["println!(", "print!(", "stdout().lock", "stdout().write"]
                .iter()
                .any(|p| {
                    code.match_indices(p).any(|(at, _)| {
                        // `eprintln!`/`eprint!` write to stderr.
                        !code[..at].ends_with('e')
                    })
                });
            if prints {
                offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "print through `outln!`/`out!` (texprc/src/out.rs):\n{}",
        offenders.join("\n")
    );
}
