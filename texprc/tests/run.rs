//! `texprc run` end to end: `-o DIR` writes the GPU's outputs as eval's
//! writer does, and `--check` never passes by comparing nothing: it says how
//! many elements of each output it compared out of how many, and fails
//! (E0923) when that is not all of them, unless `--allow-unchecked`.

mod common;

use common::{have_gpu, scratch, stderr, stdout, texprc, write};
use std::path::Path;

fn read_npy(path: &Path) -> (Vec<u64>, String, Vec<u32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = npy.shape().to_vec();
    // `'<f4'`, `'<i4'` or `'<u4'`: 4-byte elements, compared as bits.
    let dtype = npy.dtype().descr();
    let bits = match dtype.trim_matches('\'') {
        "<f4" => (npy.into_vec::<f32>().unwrap().iter())
            .map(|x| x.to_bits())
            .collect(),
        "<i4" => (npy.into_vec::<i32>().unwrap().iter())
            .map(|&x| x as u32)
            .collect(),
        "<u4" => npy.into_vec::<u32>().unwrap(),
        other => panic!("{}: dtype {other}", path.display()),
    };
    (shape, dtype, bits)
}

fn write_npy(path: &Path, xs: &[f32]) -> String {
    use npyz::WriterBuilder;
    let file = std::fs::File::create(path).unwrap();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[xs.len() as u64])
        .writer(file)
        .begin_nd()
        .unwrap();
    w.extend(xs.iter().copied()).unwrap();
    w.finish().unwrap();
    path.to_string_lossy().into_owned()
}

/// Outputs every device computes bit for bit as the interpreter does (one
/// rounding each: a doubling, a sum; a conversion; a moved value), of
/// three element types.
const EXACT: &str = "// exact: outputs with one rounding each\n\
                     input x: f32[300]\ninput z: f32[300]\n\
                     output y = compute 300 |i| 2.0 * x[i] + z[i]\n\
                     output n = compute 300 |i| i32(x[i] * 100.0)\n\
                     output u = compute 300 |i| u32(i) * 3u\n";

#[test]
fn run_writes_the_gpus_outputs_as_eval_writes_the_interpreters() {
    if !have_gpu() {
        return;
    }
    let dir = scratch("run-out").0;
    let prog = write(&dir, "exact.te", EXACT);
    let (gpu_dir, cpu_dir) = (dir.join("gpu"), dir.join("cpu"));
    let run = texprc(&[
        "run",
        &prog,
        "--random",
        "4",
        "-o",
        gpu_dir.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let eval = texprc(&[
        "eval",
        &prog,
        "--random",
        "4",
        "-o",
        cpu_dir.to_str().unwrap(),
    ]);
    assert!(eval.status.success(), "{}", stderr(&eval));
    let mut names: Vec<String> = std::fs::read_dir(&gpu_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["n.npy", "u.npy", "y.npy"], "one file per output");
    for name in &names {
        let (got, want) = (read_npy(&gpu_dir.join(name)), read_npy(&cpu_dir.join(name)));
        assert_eq!(got.0, vec![300], "{name}: shape");
        assert_eq!(got.1, want.1, "{name}: dtype");
        assert_eq!(
            got.2, want.2,
            "{name}: the GPU's values, bit for bit the interpreter's"
        );
    }
    assert_eq!(read_npy(&gpu_dir.join("u.npy")).2[7], 21, "u[7] = 7 * 3");
}

#[test]
fn run_o_reports_a_directory_it_cannot_write() {
    if !have_gpu() {
        return;
    }
    let dir = scratch("run-out-bad").0;
    let prog = write(&dir, "exact.te", EXACT);
    let blocker = write(&dir, "file", "not a directory");
    let o = texprc(&[
        "run",
        &prog,
        "--random",
        "1",
        "-o",
        &format!("{blocker}/sub"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("[E0910]"), "{}", stderr(&o));
}

#[test]
fn a_check_of_every_element_passes_and_says_so() {
    if !have_gpu() {
        return;
    }
    let dir = scratch("run-check-all").0;
    let prog = write(&dir, "exact.te", EXACT);
    let o = texprc(&["run", &prog, "--random", "1", "--check"]);
    let text = stdout(&o);
    assert!(o.status.success(), "{text}\n{}", stderr(&o));
    for name in ["y", "n", "u"] {
        let line = format!("check {name}: ok (300 of 300 elements compared, largest difference");
        assert!(text.contains(&line), "{text}");
    }
    assert!(
        text.contains(
            "check passed: the GPU results match the interpreter, every element compared"
        )
    );
}

/// The report counts the dispatches a run made (a loop's kernels once per
/// step) and the submissions they went in: a loop's small steps all in one.
#[test]
fn the_report_counts_dispatches_and_submissions() {
    if !have_gpu() {
        return;
    }
    let lu = common::example("lu.te");
    let o = texprc(&[
        "run",
        &lu,
        "-D",
        "N=40",
        "--random",
        "1",
        "--default-schedule",
    ]);
    let text = stdout(&o);
    assert!(o.status.success(), "{text}\n{}", stderr(&o));
    // `A`, then 40 steps of the loop's kernel, then the output's copy.
    assert!(
        text.contains("ran 3 kernels (42 dispatches in 1 submission) on "),
        "{text}"
    );
}

/// A NaN input read through arithmetic leaves its element unspecified: the
/// check compares 3 of 4 and fails, unless told to allow it.
#[test]
fn a_check_that_leaves_elements_uncompared_fails_without_allow_unchecked() {
    if !have_gpu() {
        return;
    }
    let dir = scratch("run-check-nan").0;
    let prog = write(
        &dir,
        "nan.te",
        "input x: f32[4]\noutput y = compute 4 |i| x[i] * 2.0 + 1.0\n",
    );
    let x = write_npy(&dir.join("x.npy"), &[1.0, f32::NAN, 3.0, 4.0]);
    let input = format!("x={x}");
    let strict = texprc(&["run", &prog, "--input", &input, "--check"]);
    let (out, err) = (stdout(&strict), stderr(&strict));
    assert_eq!(strict.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("check y: incomplete (3 of 4 elements compared, largest difference")
            && out.contains("; 1 unspecified (a non-finite value arose: inf or NaN), not compared"),
        "{out}"
    );
    assert!(!out.contains("check passed"), "{out}");
    assert!(
        err.contains("error[E0923]")
            && err.contains("`y`: 3 of 4")
            && err.contains("--allow-unchecked"),
        "{err}"
    );
    let allowed = texprc(&[
        "run",
        &prog,
        "--input",
        &input,
        "--check",
        "--allow-unchecked",
    ]);
    let out = stdout(&allowed);
    assert!(allowed.status.success(), "{out}\n{}", stderr(&allowed));
    assert!(
        out.contains("check y: incomplete (3 of 4 elements compared"),
        "{out}"
    );
    assert!(
        out.contains("check passed (--allow-unchecked)") && out.contains("1 element not compared"),
        "{out}"
    );
}

/// Nothing compared at all (every element unspecified) is no pass either.
#[test]
fn a_check_that_compares_nothing_fails() {
    if !have_gpu() {
        return;
    }
    let dir = scratch("run-check-none").0;
    let prog = write(
        &dir,
        "inf.te",
        "input x: f32[3]\noutput y = compute 3 |i| x[i] * 0.0 + (1.0 / 0.0)\n",
    );
    let o = texprc(&["run", &prog, "--random", "1", "--check"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
    assert!(
        out.contains("check y: NOT CHECKED (0 of 3 elements compared)"),
        "{out}"
    );
    assert!(stderr(&o).contains("`y`: 0 of 3"), "{}", stderr(&o));
}

/// An ill-conditioned Cholesky (the example's identity scaled to 5e-4):
/// `--check=rigorous` leaves the elements without a finite bound
/// uncompared (E0923); `--check` compares them statistically and says so.
#[test]
fn the_statistical_tier_compares_what_rigorous_bounds_cannot() {
    if !have_gpu() {
        return;
    }
    let dir = scratch("run-check-tiers").0;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = std::fs::read_to_string(root.join("examples/cholesky.te")).unwrap();
    let src = src.replace("select(i == j, 1.0, 0.0)", "select(i == j, 0.0005, 0.0)");
    let prog = write(&dir, "ill.te", &src);
    let args = ["run", &prog, "-D", "N=20", "--random", "1"];
    let rigorous = texprc(&[&args[..], &["--check=rigorous"]].concat());
    assert_eq!(rigorous.status.code(), Some(1), "{}", stdout(&rigorous));
    assert!(
        stderr(&rigorous).contains("error[E0923]"),
        "{}",
        stderr(&rigorous)
    );
    let tiers = texprc(&[&args[..], &["--check"]].concat());
    let out = stdout(&tiers);
    assert!(tiers.status.success(), "{out}\n{}", stderr(&tiers));
    assert!(
        out.contains("check L: ok (400 of 400 elements compared: 398 rigorously, 2 statistically"),
        "{out}"
    );
    assert!(out.contains("2 elements statistically"), "{out}");
}

#[test]
fn allow_unchecked_needs_check() {
    let o = texprc(&["run", "any.te", "--allow-unchecked"]);
    assert_eq!(o.status.code(), Some(2), "a usage error: {}", stderr(&o));
}

#[test]
fn help_run_explains_the_check_and_its_outputs() {
    let o = texprc(&["help", "run"]);
    let text = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    for needle in [
        "--allow-unchecked",
        "E0923",
        "out/",
        "-o, --out-dir <DIR>",
        "how many",
    ] {
        assert!(text.contains(needle), "`{needle}` missing from:\n{text}");
    }
}
