//! Data-driven golden tests: every input file in a directory has its expected
//! output beside it. `UPDATE_EXPECT=1 cargo test` rewrites the expected files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The environment variable naming the directory that holds `examples/`,
/// `shaders/` and `tests/data/`, for a test binary run away from its source
/// tree (on a GPU machine without a Rust toolchain, see the README).
pub const ROOT_VAR: &str = "TEXPR_REPO";

/// The repository root: `$TEXPR_REPO` when set, else the workspace
/// directory the test binary was built from.
pub fn repo_root() -> PathBuf {
    match std::env::var_os(ROOT_VAR) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("tests/ has a parent")
            .to_path_buf(),
    }
}

/// Whether expected files should be rewritten instead of compared.
pub fn blessing() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v != "0")
}

/// Files in `dir` (relative to the repository root) ending in `.{input_ext}`, sorted.
pub fn inputs(dir: &str, input_ext: &str) -> Vec<PathBuf> {
    let dir = repo_root().join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "cannot read {}: {e} (set {ROOT_VAR} to the repository)",
                dir.display()
            )
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == input_ext))
        .collect();
    files.sort();
    files
}

/// Compares `actual` with the file at `expected_path`, or rewrites it when
/// blessing. Returns a failure message (with a diff) instead of panicking, so
/// one run reports every mismatch.
pub fn compare(expected_path: &Path, actual: &str) -> Result<(), String> {
    if blessing() {
        std::fs::write(expected_path, actual)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", expected_path.display()));
        return Ok(());
    }
    let expected = std::fs::read_to_string(expected_path).unwrap_or_default();
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "golden mismatch: {}\n{}\nto accept the new output: UPDATE_EXPECT=1 cargo test",
        expected_path.display(),
        diff(&expected, actual)
    ))
}

/// Runs `f` on every `*.{input_ext}` file in `dir` and compares its result with
/// the file of the same stem ending in `.{expected_ext}`. Panics once, listing
/// every mismatch.
pub fn run_dir(dir: &str, input_ext: &str, expected_ext: &str, f: impl Fn(&Path, &str) -> String) {
    let files = inputs(dir, input_ext);
    assert!(!files.is_empty(), "no .{input_ext} files in {dir}");
    let mut failures = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let actual = f(path, &src);
        if let Err(msg) = compare(&path.with_extension(expected_ext), &actual) {
            failures.push(msg);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden files differ:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// A line diff: `-` expected, `+` actual (longest common subsequence).
pub fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            let _ = writeln!(out, "  {}", a[i]);
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(out, "+ {}", b[j]);
            j += 1;
        } else {
            let _ = writeln!(out, "- {}", a[i]);
            i += 1;
        }
    }
    out
}

/// The target and the schedule a filetest's header asks for: `// target:
/// NAME` (a built-in; `wgpu-default` when absent), `// target-line: KEY =
/// VALUE` (a line of a target file, over the built-in's text) and `//
/// schedule: LINE` (one line of a schedule file each; `baseline` alone for
/// the default schedule, the optimizing passes off; the heuristic's when
/// absent).
pub fn header(src: &str) -> (texpr::Target, texpr::ScheduleChoice) {
    let mut target = texpr::Target::default();
    let mut lines = Vec::new();
    let mut target_lines = Vec::new();
    for line in src.lines().map_while(|l| l.strip_prefix("// ")) {
        if let Some(name) = line.strip_prefix("target: ") {
            target = texpr::Target::builtin(name.trim()).unwrap_or_else(|e| panic!("{e}"));
        } else if let Some(l) = line.strip_prefix("target-line: ") {
            target_lines.push(l.to_string());
        } else if let Some(s) = line.strip_prefix("schedule: ") {
            lines.push(s.to_string());
        }
    }
    if !target_lines.is_empty() {
        // A later line for a key wins: the built-in's text without those keys, then the lines.
        let keys: Vec<&str> = target_lines
            .iter()
            .filter_map(|l| l.split('=').next())
            .map(str::trim)
            .collect();
        let text = target.to_string();
        let kept = text
            .lines()
            .filter(|l| !keys.contains(&l.split('=').next().unwrap_or_default().trim()));
        let text: Vec<String> = kept
            .map(String::from)
            .chain(target_lines.iter().cloned())
            .collect();
        target = text.join("\n").parse().unwrap_or_else(|e| panic!("{e}"));
    }
    let choice = match lines.is_empty() {
        _ if lines == ["baseline"] => texpr::ScheduleChoice::Default,
        true => texpr::ScheduleChoice::Heuristic,
        false => {
            let s: texpr::Schedule = lines.join("\n").parse().unwrap_or_else(|e| panic!("{e}"));
            texpr::ScheduleChoice::Given(s)
        }
    };
    (target, choice)
}
