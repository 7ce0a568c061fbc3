//! The npm package (npm/, docs/npm.md) for the tests that import it: built
//! once per test process by `npm/build.sh`, so a test never loads a stale
//! package (cargo makes an up-to-date build a few seconds' work).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::gpu::{REQUIRE_VAR, gpu_required};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Builds the package (`npm/build.sh`) the first time it is asked; `true`
/// once it is built. Without the wasm32 target or a wasm-bindgen CLI of the
/// lock file's version this prints a loud banner and gives `false` (the
/// caller skips), or, under `TEXPR_REQUIRE_GPU=1` (CI, whose `.ci/run`
/// installs both), panics. A build that fails panics with its output.
pub fn package() -> bool {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let script = root().join("npm/build.sh");
        let out = Command::new("bash")
            .arg(&script)
            .current_dir(root())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        match out.status.success() {
            true => Ok(()),
            false => Err(text),
        }
    });
    match built {
        Ok(()) => true,
        Err(text) if text.contains("run npm/build.sh --install") => {
            let why = format!("the npm package cannot be built here: {}", text.trim());
            if gpu_required() {
                panic!("{REQUIRE_VAR}=1 but {why}");
            }
            eprintln!("{}", "=".repeat(78));
            eprintln!(
                "SKIPPING NPM PACKAGE TESTS: {why} (set {REQUIRE_VAR}=1 to make this an error)"
            );
            eprintln!("{}", "=".repeat(78));
            false
        }
        Err(text) => panic!("npm/build.sh failed:\n{text}"),
    }
}
