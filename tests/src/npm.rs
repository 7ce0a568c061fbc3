//! The npm package (npm/, docs/npm.md) for the tests that import it: built
//! once per test process by `npm/build.sh`, so a test never loads a stale
//! package (cargo makes an up-to-date build a few seconds' work), and run
//! in Node by [`node_module`].

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::gpu::{REQUIRE_VAR, gpu_required};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Builds the package (`npm/build.sh`) the first time it is asked; `true`
/// once it is built. Without the wasm32 target this prints a loud banner
/// and gives `false` (the caller skips), or, under `TEXPR_REQUIRE_GPU=1`
/// (CI, whose `.ci/run` installs it), panics. A build that fails panics with its output.
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

/// A program the npm tests need, `node` or `npm`: `$TEXPR_NODE` or
/// `$TEXPR_NPM` where set, else the first on `PATH`. Without it this prints
/// a loud banner and gives `None` (the caller skips), or, under
/// `TEXPR_REQUIRE_GPU=1`, panics.
pub fn tool(name: &str) -> Option<PathBuf> {
    let var = format!("TEXPR_{}", name.to_uppercase());
    let found = match std::env::var_os(&var) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)).filter(|p| p.is_file()),
        _ => std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        }),
    };
    if found.is_none() {
        let why = format!("no `{name}`: set {var} to its executable, or install Node.js");
        if gpu_required() {
            panic!("{REQUIRE_VAR}=1 but {why}");
        }
        eprintln!("{}", "=".repeat(78));
        eprintln!("SKIPPING NPM TESTS: {why} (set {REQUIRE_VAR}=1 to make this an error)");
        eprintln!("{}", "=".repeat(78));
    }
    found
}

/// Runs `script`, an ES module, in Node from the repository's root and
/// gives what it printed to stdout; `Err` with its stderr when it fails, or
/// when it is still running at `limit` (then it is killed). The script may
/// import the package as `./npm/index.js` and the tests' modules as
/// `./tests/src/...`.
pub fn node_module(node: &Path, script: &str, limit: Duration) -> Result<String, String> {
    let mut child = Command::new(node)
        .args(["--input-type=module", "-"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", node.display()))?;
    let written = child
        .stdin
        .take()
        .map(|mut i| i.write_all(script.as_bytes()));
    // Both pipes drained while it runs, so a chatty script cannot block.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    );
    if let Some(Err(e)) = written {
        return Err(format!("cannot write the script to Node: {e}\n{err}"));
    }
    match status {
        Some(s) if s.success() => Ok(out),
        Some(s) => Err(format!("Node failed ({s}):\n{err}")),
        None => Err(format!("Node still ran after {limit:?}:\n{err}")),
    }
}
