//! `tools/cholesky-sitting` (issue 30's benchmark against ScaLAPACK) reads its texpr time
//! and device from `texprc block --run`'s report: the `ran ... on DEVICE` and `run: X s
//! wall on the source rank` lines. Its `--self-test` parses a real report of this texprc
//! (threads, the interpreter; no MPI, ScaLAPACK or numpy), so a change to those lines
//! fails here rather than in a sitting.

use std::path::Path;
use std::process::Command;

#[test]
fn the_cholesky_sitting_parses_this_texprcs_block_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let o = Command::new("python3")
        .arg(root.join("tools/cholesky-sitting"))
        .args(["--self-test", "--texprc", env!("CARGO_BIN_EXE_texprc")])
        .output()
        .expect("python3 runs tools/cholesky-sitting (apt-get install python3)");
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{out}");
    // The real report was parsed, not only the script's samples.
    assert!(out.contains("'s report parsed: run "), "{out}");
    assert!(out.contains(" on the interpreter\n"), "{out}");
    assert!(out.ends_with("self-test: ok\n"), "{out}");
}
