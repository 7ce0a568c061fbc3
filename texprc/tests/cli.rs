//! The `texprc` binary end to end: exit codes, rendered diagnostics, fmt, eval and .npy IO.

mod common;

use common::{example, stderr, stdout, texprc, write_npy};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("cli-{name}")).0
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    common::write(dir, name, text)
}

fn read_f32(path: &Path) -> (Vec<u64>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap();
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec::<f32>().unwrap())
}

const SCALE: &str =
    "// scale: y = 2 x + n\ninput x: f32[4]\ninput n: i32[1]\noutput y = 2.0 * x + f32(n[0])\n";

#[test]
fn check_accepts_a_good_program() {
    let o = texprc(&["check", &example("matmul.te"), "-D", "M=8"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("ok"), "{}", stdout(&o));
}

#[test]
fn check_reports_coded_spanned_errors() {
    let dir = scratch("check-bad");
    let path = write(
        &dir,
        "bad.te",
        "input x: f32[4]\noutput y = compute 8 |i| x[i]\n",
    );
    let o = texprc(&["check", &path]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[E01"), "{err}");
    assert!(err.contains("bad.te:2:"), "a span into line 2: {err}");
    assert!(!err.contains("\u{1b}["), "no colour off a terminal: {err}");
}

#[test]
fn check_reports_syntax_errors() {
    let dir = scratch("check-syntax");
    let path = write(&dir, "syn.te", "input x: f32[4]\noutput y = x +\n");
    let o = texprc(&["check", &path]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[E00"), "{}", stderr(&o));
}

#[test]
fn check_of_a_missing_file_is_e0901() {
    let o = texprc(&["check", "/nonexistent/file.te"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[E0901]"), "{}", stderr(&o));
}

#[test]
fn fmt_prints_canonical_text_and_check_compares() {
    let dir = scratch("fmt");
    let messy = write(
        &dir,
        "messy.te",
        "// scale\ninput   x:f32[4]\noutput y=2.0*x\n",
    );
    let o = texprc(&["fmt", &messy]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let canonical = stdout(&o);
    assert!(
        canonical.starts_with("// scale\n"),
        "comments kept: {canonical}"
    );
    assert_ne!(canonical, "// scale\ninput   x:f32[4]\noutput y=2.0*x\n");
    let o = texprc(&["fmt", "--check", &messy]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[E0912]"), "{}", stderr(&o));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
    let clean = write(&dir, "clean.te", &canonical);
    let o = texprc(&["fmt", "--check", &clean]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

#[test]
fn fmt_refuses_a_file_with_syntax_errors() {
    let dir = scratch("fmt-bad");
    let path = write(&dir, "bad.te", "input x: f32[4]\noutput y = (x\n");
    let o = texprc(&["fmt", &path]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[E00"), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

#[test]
fn eval_random_writes_npy_outputs() {
    let dir = scratch("eval-random");
    let out = dir.join("out");
    let o = texprc(&[
        "eval",
        &example("saxpy.te"),
        "--random",
        "3",
        "-D",
        "N=10",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("out: f32[10] = ["), "{}", stdout(&o));
    let (shape, got) = read_f32(&out.join("out.npy"));
    assert_eq!(shape, vec![10]);
    // The same program and seed through the library.
    let src = std::fs::read_to_string(example("saxpy.te")).unwrap();
    let prog = texpr_syntax::frontend(&src, &[("N".into(), 10)]).unwrap();
    let want = texpr_interp::eval(&prog, &texpr_interp::random_inputs(&prog, 3)).unwrap();
    assert_eq!(got, want[0].as_f32().unwrap());
}

#[test]
fn eval_reads_inputs_from_npy_files() {
    let dir = scratch("eval-input");
    let prog = write(&dir, "scale.te", SCALE);
    let x = dir.join("x.npy");
    write_npy(&x, &[2, 2], &[1.0f32, -2.0, 0.5, 3.0]);
    let n = dir.join("n.npy");
    write_npy(&n, &[1], &[10i32]);
    let (xa, na) = (format!("x={}", x.display()), format!("n={}", n.display()));
    let out = dir.join("o");
    let o = texprc(&[
        "eval",
        &prog,
        "--input",
        &xa,
        "-i",
        &na,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "y: f32[4] = [12, 6, 11, 16]  sum 45  min 6  max 16\n"
    );
    assert_eq!(read_f32(&out.join("y.npy")).1, vec![12.0, 6.0, 11.0, 16.0]);
}

/// `f16` in and out of `.npy` (`<f2`): read, computed in binary16, written
/// back as float16; compiling for a target without `shader_f16` is E0395.
#[test]
fn eval_reads_and_writes_float16_npy() {
    use half::f16;
    let dir = scratch("eval-f16");
    let prog = write(
        &dir,
        "half.te",
        "input x: f16[3]\noutput y = compute 3 |i| x[i] * 3.0 + 1.0\n",
    );
    let x = dir.join("x.npy");
    let xs = [0.1f32, 2.0, -1.5].map(f16::from_f32);
    write_npy(&x, &[3], &xs);
    let xa = format!("x={}", x.display());
    let out = dir.join("o");
    let o = texprc(&["eval", &prog, "-i", &xa, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("y: f16[3] = "), "{}", stdout(&o));
    let bytes = std::fs::read(out.join("y.npy")).unwrap();
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    assert_eq!(npy.dtype().descr(), "'<f2'");
    let got = npy.into_vec::<f16>().unwrap();
    let step = |x: f16| f16::from_f32(f16::from_f32(x.to_f32() * 3.0).to_f32() + 1.0);
    assert_eq!(got, xs.map(step).to_vec());
    let o = texprc(&["compile", &prog, "--target", "webgpu"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("E0395"), "{}", stderr(&o));
}

#[test]
fn eval_npy_errors_are_coded() {
    let dir = scratch("eval-npy-errors");
    let prog = write(&dir, "scale.te", SCALE);
    let n = dir.join("n.npy");
    write_npy(&n, &[1], &[1i32]);
    let na = format!("n={}", n.display());
    type Case<'a> = (&'a str, Box<dyn Fn(&Path)>, &'a str);
    let cases: [Case<'_>; 4] = [
        (
            "wrong-type.npy",
            Box::new(|p| write_npy(p, &[4], &[1i32, 2, 3, 4])),
            "E0904",
        ),
        (
            "wrong-size.npy",
            Box::new(|p| write_npy(p, &[3], &[1.0f32, 2.0, 3.0])),
            "E0905",
        ),
        (
            "f64.npy",
            Box::new(|p| write_npy(p, &[4], &[1.0f64, 2.0, 3.0, 4.0])),
            "E0903",
        ),
        (
            "garbage.npy",
            Box::new(|p| std::fs::write(p, b"not npy").unwrap()),
            "E0902",
        ),
    ];
    for (file, make, code) in cases {
        let path = dir.join(file);
        make(&path);
        let xa = format!("x={}", path.display());
        let o = texprc(&["eval", &prog, "--input", &xa, "--input", &na]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        assert!(
            stderr(&o).contains(&format!("error[{code}]")),
            "{file}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn eval_names_missing_and_unknown_inputs() {
    let dir = scratch("eval-missing");
    let prog = write(&dir, "scale.te", SCALE);
    let o = texprc(&["eval", &prog]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("error[E0909]") && err.contains("`x`, `n`"),
        "{err}"
    );
    let o = texprc(&["eval", &prog, "--input", "z=z.npy", "--random", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("error[E0907]"), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(texprc(&[]).status.code(), Some(2));
    assert_eq!(texprc(&["check"]).status.code(), Some(2));
    assert_eq!(texprc(&["check", "f.te", "-D", "N"]).status.code(), Some(2));
    assert_eq!(
        texprc(&["eval", "f.te", "--random", "x"]).status.code(),
        Some(2)
    );
    assert_eq!(texprc(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn help_shows_examples() {
    let o = texprc(&["eval", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("texprc eval examples/saxpy.te --random 1"),
        "{}",
        stdout(&o)
    );
    let o = texprc(&["--help"]);
    for cmd in ["check", "fmt", "eval"] {
        assert!(stdout(&o).contains(cmd), "{}", stdout(&o));
    }
}

/// A successful `run` writes nothing to stderr, also where `XDG_RUNTIME_DIR`
/// is unset (CI, containers): the Vulkan window-system probe that printed
/// `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` twice
/// is kept off (`src/quiet.rs`).
#[test]
fn a_successful_run_writes_nothing_to_stderr() {
    if texpr_runtime::Gpu::list_adapters().is_empty() {
        eprintln!("  (GPU test skipped: no adapter)");
        return;
    }
    let dir = scratch("quiet-run");
    let o = Command::new(env!("CARGO_BIN_EXE_texprc"))
        .args(["run", &example("matmul.te"), "--random", "1", "--check"])
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("NODEVICE_SELECT")
        .env_remove("MESA_VK_DEVICE_SELECT")
        .env("TEXPR_CACHE", dir.join("schedules.txt"))
        .env("NO_COLOR", "1")
        .output()
        .expect("texprc runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "a successful run wrote to stderr");
    assert!(stdout(&o).contains("check passed"), "{}", stdout(&o));
}

/// `compile --emit kir` prints every kernel of every example as the
/// kernel IR, one per entry point of the WGSL module and in its order:
/// bindings, then statements that store the item.
#[test]
fn emit_kir_prints_every_kernel_of_every_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "te"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 20, "{examples:?}");
    for path in &examples {
        let file = path.to_string_lossy();
        // An f16 example: the default target (no `shader-f16`) refuses it
        // with E0395, and one with `shader_f16` compiles it.
        let mut args = vec!["compile", &*file];
        let first = texprc(&args);
        if !first.status.success() && stderr(&first).contains("error[E0395]") {
            args.extend(["--target", "llvmpipe"]);
        }
        let kir = texprc(&[&args[..], &["--emit", "kir"]].concat());
        assert!(kir.status.success(), "{file}: {}", stderr(&kir));
        let wgsl = texprc(&args);
        assert!(wgsl.status.success(), "{file}: {}", stderr(&wgsl));
        let entries: Vec<String> = stdout(&wgsl)
            .lines()
            .filter_map(|l| l.strip_prefix("fn "))
            .map(|l| l[..l.find('(').unwrap()].to_string())
            .collect();
        assert!(!entries.is_empty(), "{file}");
        let text = stdout(&kir);
        let kernels: Vec<&str> = text.split("\nkernel ").skip(1).collect();
        assert_eq!(kernels.len(), entries.len(), "{file}:\n{text}");
        for (k, entry) in kernels.iter().zip(&entries) {
            assert!(
                k.starts_with(&format!("{entry} workgroup_size ")),
                "{file}: {k}"
            );
            assert!(k.contains("  binding 0 "), "{file}: {k}");
            assert!(k.contains("store buffer "), "{file}: {k}");
        }
    }
}
