//! What the `texprc` end-to-end tests share: running the binary (with its
//! schedule cache in a scratch directory, never the user's), reading its
//! output, scratch files and the examples.

#![allow(dead_code)] // each test binary uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs texprc with the schedule cache at `cache`.
pub fn texprc_in(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_texprc"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("TEXPR_CACHE", cache)
        .output()
        .expect("texprc runs")
}

/// Runs texprc (the cache at a path no test writes).
pub fn texprc(args: &[&str]) -> Output {
    let no_cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-cache");
    texprc_in(&no_cache, args)
}

/// Whether a GPU adapter exists; without one, says so loudly (and fails
/// when `TEXPR_REQUIRE_GPU=1`).
pub fn have_gpu() -> bool {
    if !texpr_runtime::Gpu::list_adapters().is_empty() {
        return true;
    }
    assert!(
        !std::env::var("TEXPR_REQUIRE_GPU").is_ok_and(|v| v.trim() == "1"),
        "TEXPR_REQUIRE_GPU=1 but there is no GPU adapter"
    );
    eprintln!("  (GPU test skipped: no adapter)");
    false
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test, and a cache file in it.
pub fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cache = dir.join("cache").join("schedules.txt");
    (dir, cache)
}

pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

pub fn example(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    root.join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

pub fn with<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(tail).copied().collect()
}

/// FNV-1a 64, as the schedule cache keys a program's checked text.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Writes `xs` as a `.npy` file of `shape` (its dtype `T`'s).
pub fn write_npy<T: npyz::AutoSerialize + Copy>(path: &Path, shape: &[u64], xs: &[T]) {
    use npyz::WriterBuilder;
    let file = std::fs::File::create(path).unwrap();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(file)
        .begin_nd()
        .unwrap();
    w.extend(xs.iter().copied()).unwrap();
    w.finish().unwrap();
}
