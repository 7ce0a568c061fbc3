//! The GPU comparison's tolerances: derived from the program, tight where the
//! arithmetic is exact, growing with reductions and approximate builtins; and
//! the mismatch report that names the worst element.

use texpr_interp::Value;
use texpr_tests::gpu::{Tolerance, compare, output_bounds};

/// The tolerance of each output of `src` on its seed-1 random inputs.
fn tolerances(src: &str) -> Vec<f64> {
    let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"));
    let inputs = texpr_interp::random_inputs(&p, 1);
    let ests = output_bounds(&p, &inputs);
    p.outputs
        .iter()
        .zip(ests)
        .map(|(o, e)| Tolerance::of(e, o.value.ty.elem == texpr_syntax::ast::ElemTy::F32).abs)
        .collect()
}

#[test]
fn simple_float_arithmetic_gets_a_tight_tolerance() {
    let t = tolerances("input x: f32[100]\noutput y = compute 100 |i| x[i] * 2.0 + 1.0");
    assert!(t[0] > 0.0 && t[0] < 1e-5, "{t:?}");
}

#[test]
fn integers_from_exact_values_compare_exactly() {
    let t = tolerances("input a: i32[10]\noutput b = compute 10 |i| a[i] * 3 + a[9 - i] / 2");
    assert_eq!(t, vec![0.0]);
    let t = tolerances("input x: f32[4]\noutput b = compute 4 |i| i32(x[i] * 64.0)");
    assert_eq!(t, vec![0.0], "scaling by a power of two is exact");
}

#[test]
fn integers_from_rounded_floats_may_be_one_off() {
    let t = tolerances("input x: f32[4]\noutput b = compute 4 |i| i32(x[i] * 10.0 + 0.5)");
    assert_eq!(t, vec![1.0]);
}

#[test]
fn tolerances_grow_with_reduction_length_and_approximate_builtins() {
    let short = tolerances("input x: f32[1000]\noutput s = reduce 10 |i| x[i]")[0];
    let long = tolerances("input x: f32[1000]\noutput s = reduce 1000 |i| x[i]")[0];
    assert!(short < long && long < 1.0, "{short} {long}");
    let plain = tolerances("input x: f32[8]\noutput y = compute 8 |i| x[i] + 1.0")[0];
    let exp = tolerances("input x: f32[8]\noutput y = compute 8 |i| exp(x[i])")[0];
    let sin = tolerances("input x: f32[8]\noutput y = compute 8 |i| sin(x[i])")[0];
    assert!(plain < exp && exp < sin, "{plain} {exp} {sin}");
    assert!(
        sin >= 2.0 * (2f64).powi(-11),
        "sin keeps WGSL's 2^-11 absolute error: {sin}"
    );
}

#[test]
fn a_max_reduction_is_exact() {
    let t = tolerances("input x: f32[64]\noutput m = reduce max 64 |i| x[i]");
    assert!(t[0] < 1e-20, "{t:?}");
}

#[test]
fn a_mismatch_names_the_worst_element_and_the_count() {
    let want = Value::f32(vec![1.0, 2.0, 3.0, 4.0]);
    let got = Value::f32(vec![1.0, 2.5, 3.001, 4.0]);
    let m = compare("y", &got, &want, Tolerance { abs: 1e-4 }).unwrap_err();
    assert_eq!((m.index, m.count, m.len), (1, 2, 4));
    assert!(m.to_string().contains("worst at [1]"), "{m}");
    assert!(compare("y", &got, &want, Tolerance { abs: 0.6 }).is_ok());
}

#[test]
fn integers_nans_and_lengths_compare_as_expected() {
    let a = Value::i32(vec![1, 2, 3]);
    assert!(compare("a", &a, &a, Tolerance { abs: 0.0 }).is_ok());
    let b = Value::i32(vec![1, 2, 4]);
    assert_eq!(
        compare("a", &b, &a, Tolerance { abs: 0.0 })
            .unwrap_err()
            .index,
        2
    );
    let n = Value::f32(vec![f32::NAN, f32::INFINITY]);
    assert!(compare("n", &n, &n, Tolerance { abs: 0.0 }).is_ok());
    let short = Value::i32(vec![1, 2]);
    assert!(compare("a", &short, &a, Tolerance { abs: 0.0 }).is_err());
    let u = Value::u32(vec![1, 2, 3]);
    assert!(
        compare("a", &u, &a, Tolerance { abs: 0.0 }).is_err(),
        "element types differ"
    );
}
