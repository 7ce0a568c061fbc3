//! What the `texprc block` end-to-end tests share: running texprc in one
//! process or under `mpirun --oversubscribe`, within a time limit, reading
//! its report and `.npy` files, and the processes mpirun starts.

#![allow(dead_code)] // each test binary uses its own part

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn example(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let path = root.join("examples/blocks").join(format!("{name}.air"));
    path.to_string_lossy().into_owned()
}

/// A fresh directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("block-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn texprc_command(np: Option<usize>, args: &[&str]) -> Command {
    let exe = env!("CARGO_BIN_EXE_texprc");
    let mut c = match np {
        None => Command::new(exe),
        Some(n) => {
            let mut c = Command::new("mpirun");
            c.args(["--oversubscribe", "-np", &n.to_string(), exe]);
            // Open MPI refuses to run as root without these (harmless otherwise).
            c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            c
        }
    };
    c.args(args).env("NO_COLOR", "1");
    c
}

/// Waits for a child, killing it (and failing) after `limit`.
pub fn wait_output(mut child: Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} hung for {limit:?}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// `texprc ARGS` (np `None`) or `mpirun -np N texprc ARGS`, within two minutes.
pub fn run(np: Option<usize>, args: &[&str]) -> Output {
    let child = texprc_command(np, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {np:?} texprc (is mpirun installed?): {e}"));
    wait_output(child, Duration::from_secs(180), &format!("{args:?}"))
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

pub fn read_npy(path: &Path) -> (Vec<u64>, npyz::Order, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let (shape, order) = (npy.shape().to_vec(), npy.order());
    (shape, order, npy.into_vec::<f32>().unwrap())
}

pub fn write_npy(path: &Path, shape: &[u64], order: npyz::Order, xs: &[f32]) {
    use npyz::WriterBuilder;
    let file = std::fs::File::create(path).unwrap();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .order(order)
        .shape(shape)
        .writer(file)
        .begin_nd()
        .unwrap();
    w.extend(xs.iter().copied()).unwrap();
    w.finish().unwrap();
}

/// Whether GPU runs can happen (`TEXPR_REQUIRE_GPU=1` makes a missing adapter fail).
pub fn have_gpu() -> bool {
    let o = run(
        None,
        &["block", &example("gram"), "--run", "--device", "gpu"],
    );
    if o.status.success() {
        return true;
    }
    let required = std::env::var("TEXPR_REQUIRE_GPU").is_ok_and(|v| v.trim() == "1");
    assert!(!required, "no GPU adapter: {}", text(&o.stderr));
    eprintln!("  (GPU block tests skipped: no adapter)");
    false
}

/// The numbers of a report row `rK  shards  sent (plan)  received (plan)  wait  peak (plan)`.
pub fn report_rows(out: &str) -> Vec<Vec<u64>> {
    out.lines()
        .filter(|l| l.starts_with('r') && l[1..].starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            l.split(|c: char| c.is_whitespace() || c == '(' || c == ')')
                .filter(|w| !w.is_empty())
                .skip(1)
                .filter_map(|w| w.parse::<u64>().ok())
                .collect()
        })
        .collect()
}

/// The pids of `parent`'s children (from /proc).
pub fn children(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: the fields after the last ')'.
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent) {
            out.push(pid);
        }
    }
    out.sort_unstable();
    out
}

/// Deterministic test data (not texpr's generator).
pub fn data(n: usize, salt: u32) -> Vec<f32> {
    (0..n as u32)
        .map(|k| ((k.wrapping_mul(2_654_435_761) ^ salt) % 2001) as f32 / 1000.0 - 1.0)
        .collect()
}
