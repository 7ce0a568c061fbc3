//! Scalar inputs (`input a: f32`) at the command line: written back by `fmt`
//! and the printers, given as numbers or `.npy` files to `eval` and `run`,
//! and a number their type cannot hold refused (E0930).

mod common;

use common::{have_gpu, scratch, stderr, stdout, texprc, write, write_npy};

const AXPB: &str =
    "// y = a x + b\ninput a: f32\ninput b: i32\ninput x: f32[4]\noutput y = a * x + f32(b)\n";

#[test]
fn fmt_and_the_printed_program_keep_a_scalar_input_scalar() {
    let dir = scratch("scalars-fmt").0;
    let prog = write(&dir, "axpb.te", AXPB);
    let o = texprc(&["fmt", "--check", &prog]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = texprc(&["compile", &prog, "--emit", "scheduled"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let printed = stdout(&o);
    assert!(printed.contains("input a: f32\n"), "{printed}");
    assert!(printed.contains("input b: i32\n"), "{printed}");
    assert!(printed.contains("input x: f32[4]\n"), "{printed}");
    // The printed program checks back (as the same inputs).
    let again = write(&dir, "printed.te", &printed);
    let o = texprc(&["check", &again]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("3 inputs"), "{}", stdout(&o));
}

#[test]
fn a_scalar_input_takes_a_number_or_a_one_element_npy() {
    let dir = scratch("scalars-eval").0;
    let prog = write(&dir, "axpb.te", AXPB);
    let x = dir.join("x.npy");
    write_npy(&x, &[4], &[1.0f32, -2.0, 0.5, 3.0]);
    let xa = format!("x={}", x.display());
    let want = "y: f32[4] = [-0.5, -5, -1.25, 2.5]  sum -4.25  min -5  max 2.5\n";
    let o = texprc(&["eval", &prog, "-i", &xa, "-i", "a=1.5", "-i", "b=-2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), want);
    // A 0-d array and a one-element array are the same values.
    let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
    write_npy(&a, &[], &[1.5f32]);
    write_npy(&b, &[1], &[-2i32]);
    let (aa, ba) = (format!("a={}", a.display()), format!("b={}", b.display()));
    let o = texprc(&["eval", &prog, "-i", &xa, "-i", &aa, "-i", &ba]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), want);
    if have_gpu() {
        let o = texprc(&[
            "run", &prog, "-i", &xa, "-i", "a=1.5", "-i", "b=-2", "--check",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stdout(&o).contains("[-0.5, -5, -1.25, 2.5]"),
            "{}",
            stdout(&o)
        );
    }
}

#[test]
fn a_number_the_scalars_type_cannot_hold_is_e0930() {
    let dir = scratch("scalars-bad").0;
    let prog = write(
        &dir,
        "u.te",
        "input n: u32\ninput k: i32\ninput x: f32[4]\noutput y = x * f32(n + u32(k))\n",
    );
    for (given, shown) in [
        (
            ["n=-1", "k=1"],
            "`-1` is not a value of input `n`'s type, `u32`",
        ),
        (
            ["n=1", "k=2.5"],
            "`2.5` is not a value of input `k`'s type, `i32`",
        ),
        (
            ["n=1", "k=2147483648"],
            "`2147483648` is not a value of input `k`'s type, `i32`",
        ),
    ] {
        let o = texprc(&[
            "eval", &prog, "--random", "1", "-i", given[0], "-i", given[1],
        ]);
        assert_eq!(o.status.code(), Some(1), "{given:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("error[E0930]") && err.contains(shown),
            "{given:?}: {err}"
        );
    }
    // A vector input never takes a number: the text is a path.
    let o = texprc(&["eval", &prog, "--random", "1", "-i", "x=2.5"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[E0902]"), "{}", stderr(&o));
}
