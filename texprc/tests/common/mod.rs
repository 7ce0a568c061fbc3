//! What the `texprc` test binaries share: running the binary and reading
//! what it printed, and whether a GPU adapter exists.

#![allow(dead_code)] // each test binary uses a part

use std::process::{Command, Output};

/// Runs texprc with `env` set (and no colour).
pub fn texprc_env(env: &[(&str, &std::ffi::OsStr)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_texprc"));
    cmd.args(args).env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("texprc runs")
}

/// Runs texprc (no colour).
pub fn texprc(args: &[&str]) -> Output {
    texprc_env(&[], args)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether a GPU adapter exists; without one, says so loudly (and fails
/// when `TEXPR_REQUIRE_GPU=1`).
pub fn have_gpu() -> bool {
    if !texpr_codegen::runtime::Gpu::list_adapters().is_empty() {
        return true;
    }
    assert!(
        !std::env::var("TEXPR_REQUIRE_GPU").is_ok_and(|v| v.trim() == "1"),
        "TEXPR_REQUIRE_GPU=1 but there is no GPU adapter"
    );
    eprintln!("  (GPU test skipped: no adapter)");
    false
}
