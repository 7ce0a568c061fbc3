//! Finding headless Chromium, and one running process of it that ends when
//! dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::gpu::{REQUIRE_VAR, gpu_required};

/// The environment variable naming the browser's executable (else the first
/// of [`NAMES`] on `PATH`).
pub const PATH_VAR: &str = "TEXPR_CHROMIUM";

/// Executables tried on `PATH`, in order (Debian's package is `chromium`).
const NAMES: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome-stable",
    "google-chrome",
];

/// The flags every run passes (docs/browser.md says why each).
/// `--headless=new` runs the full browser without a display;
/// `--enable-unsafe-webgpu` gives WebGPU an adapter where the browser has no
/// GPU of its own (SwiftShader's, in software); without it
/// `requestAdapter()` gives `null`. `--no-sandbox` lets it run as root (CI
/// does) and in containers without user namespaces;
/// `--disable-dev-shm-usage` keeps shared memory in the temporary directory
/// where a container's `/dev/shm` is small.
pub const FLAGS: [&str; 9] = [
    "--headless=new",
    "--enable-unsafe-webgpu",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--mute-audio",
];

/// The browser's executable: `$TEXPR_CHROMIUM`, else the first of
/// [`NAMES`] on `PATH`. Without one this prints a loud banner and gives
/// `None` (the caller skips), or, under `TEXPR_REQUIRE_GPU=1` (CI), panics.
pub fn chromium() -> Option<PathBuf> {
    let found = match std::env::var_os(PATH_VAR) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)).filter(|p| p.is_file()),
        _ => NAMES.iter().find_map(|name| on_path(name)),
    };
    if found.is_none() {
        let why = format!(
            "no Chromium: set {PATH_VAR} to its executable, or install one of {NAMES:?} \
             (Debian: apt-get install chromium)"
        );
        if gpu_required() {
            panic!("{REQUIRE_VAR}=1 but {why}");
        }
        eprintln!("{}", "=".repeat(78));
        eprintln!("SKIPPING BROWSER TESTS: {why} (set {REQUIRE_VAR}=1 to make this an error)");
        eprintln!("{}", "=".repeat(78));
    }
    found
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A running headless browser on one URL. Dropping it kills the process
/// (Debian's `chromium` script `exec`s the browser, whose helper processes
/// end with it) and removes its profile directory.
#[derive(Debug)]
pub(crate) struct Process {
    child: Child,
    profile: PathBuf,
    log: PathBuf,
}

impl Process {
    /// Starts `exe` with [`FLAGS`] on `url`, with a fresh profile in the
    /// temporary directory; its stdout and stderr go to a log file there.
    pub(crate) fn start(exe: &Path, url: &str) -> Result<Process, String> {
        Process::start_with(exe, url, &[])
    }

    /// [`Process::start`] with `extra` flags after [`FLAGS`].
    pub(crate) fn start_with(exe: &Path, url: &str, extra: &[&str]) -> Result<Process, String> {
        static STARTED: AtomicU64 = AtomicU64::new(0);
        let n = STARTED.fetch_add(1, Ordering::Relaxed);
        let unique = format!("texpr-chromium-{}-{n}", std::process::id());
        let profile = std::env::temp_dir().join(&unique);
        let log = std::env::temp_dir().join(format!("{unique}.log"));
        let _ = std::fs::remove_dir_all(&profile);
        let out = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(exe)
            .args(FLAGS)
            .args(extra)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(url)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        Ok(Process {
            child,
            profile,
            log,
        })
    }

    /// Its profile directory (where `--remote-debugging-port` writes
    /// `DevToolsActivePort`).
    pub(crate) fn profile(&self) -> &Path {
        &self.profile
    }

    /// `Some(status)` once the process has ended.
    pub(crate) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The last lines the browser printed (for a failure message), less
    /// the D-Bus complaints a machine without a session bus gives.
    pub(crate) fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.contains("dbus")).collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
        let _ = std::fs::remove_file(&self.log);
    }
}
