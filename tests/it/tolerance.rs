//! The GPU comparison: every element held to the tolerance of its own error
//! bound (tight where the arithmetic is exact, growing with reductions and
//! approximate builtins); elements the language leaves unspecified or that
//! have no bound are counted, never compared and never passed; the mismatch
//! report names the worst element.

use texpr_interp::Value;
use texpr_interp::accuracy::{Reference, tolerance};
use texpr_tests::golden::repo_root;
use texpr_tests::gpu::{compare, reference};

/// The reference of every output of `src` on its seed-1 random inputs.
fn references(src: &str) -> Vec<Reference> {
    let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"));
    let inputs = texpr_interp::random_inputs(&p, 1);
    reference(&p, &inputs).unwrap()
}

/// The largest tolerance of the elements of `r` (`inf` if any has none).
fn worst(r: &Reference) -> f64 {
    let float = r.value.elem() == texpr_ir::ElemTy::F32;
    let each = r.bounds.iter().map(|&b| tolerance(b, float));
    each.map(|t| t.unwrap_or(f64::INFINITY)).fold(0.0, f64::max)
}

/// `v` with element `i` moved by `by`.
fn nudged(v: &Value, i: usize, by: f64) -> Value {
    let mut v = v.clone();
    match &mut v.data {
        texpr_interp::Data::F32(x) => x[i] += by as f32,
        texpr_interp::Data::I32(x) => x[i] += by as i32,
        texpr_interp::Data::U32(x) => x[i] += by as u32,
        texpr_interp::Data::F16(x) => x[i] = half::f16::from_f64(f64::from(x[i]) + by),
        texpr_interp::Data::Bool(_) => {}
    }
    v
}

#[test]
fn simple_float_arithmetic_gets_a_tight_tolerance() {
    let r = references("input x: f32[100]\noutput y = compute 100 |i| x[i] * 2.0 + 1.0");
    assert!(
        worst(&r[0]) > 0.0 && worst(&r[0]) < 1e-5,
        "{}",
        worst(&r[0])
    );
}

#[test]
fn integers_from_exact_values_compare_exactly() {
    let r = references("input a: i32[10]\noutput b = compute 10 |i| a[i] * 3 + a[9 - i] / 2");
    assert_eq!(worst(&r[0]), 0.0);
    let r = references("input x: f32[4]\noutput b = compute 4 |i| i32(x[i] * 64.0)");
    assert_eq!(worst(&r[0]), 0.0, "scaling by a power of two is exact");
}

#[test]
fn integers_from_rounded_floats_are_exact_away_from_integer_boundaries() {
    let r = references("input x: f32[400]\noutput b = compute 400 |i| i32(x[i] * 10.0 + 0.5)");
    assert!(worst(&r[0]) <= 1.0, "{}", worst(&r[0]));
    let exact = r[0].bounds.iter().filter(|b| b.err == 0.0).count();
    assert!(exact > 390, "only {exact} of 400 conversions are exact");
}

#[test]
fn a_wrong_integer_is_never_accepted() {
    let r = references("input a: i32[8]\noutput b = compute 8 |i| a[i] * 7 - 3");
    let got = nudged(&r[0].value, 5, 1.0);
    let m = compare("b", &got, &r[0]).unwrap_err();
    assert_eq!((m.index, m.count, m.tolerance), (5, 1, 0.0));
}

#[test]
fn tolerances_grow_with_reduction_length_and_approximate_builtins() {
    let short = worst(&references("input x: f32[1000]\noutput s = reduce 10 |i| x[i]")[0]);
    let long = worst(&references("input x: f32[1000]\noutput s = reduce 1000 |i| x[i]")[0]);
    assert!(short < long && long < 0.2, "{short} {long}");
    let plain = worst(&references("input x: f32[8]\noutput y = compute 8 |i| x[i] + 1.0")[0]);
    let exp = worst(&references("input x: f32[8]\noutput y = compute 8 |i| exp(x[i])")[0]);
    let sin = worst(&references("input x: f32[8]\noutput y = compute 8 |i| sin(x[i])")[0]);
    assert!(plain < exp && exp < sin, "{plain} {exp} {sin}");
    assert!(
        sin >= 2.0 * (2f64).powi(-11),
        "sin keeps WGSL's 2^-11 absolute error: {sin}"
    );
}

#[test]
fn a_max_reduction_is_exact() {
    let r = references("input x: f32[64]\noutput m = reduce max 64 |i| x[i]");
    assert!(worst(&r[0]) < 1e-20, "{}", worst(&r[0]));
}

#[test]
fn a_mismatch_names_the_worst_element_and_the_count() {
    let r = references("input x: f32[4]\noutput y = compute 4 |i| x[i] + 1.0");
    let got = nudged(&nudged(&r[0].value, 1, 0.5), 2, 0.001);
    let m = compare("y", &got, &r[0]).unwrap_err();
    assert_eq!((m.index, m.count, m.len), (1, 2, 4));
    assert!(m.to_string().contains("worst at [1]"), "{m}");
    let ok = compare("y", &r[0].value, &r[0]).unwrap();
    assert_eq!((ok.compared, ok.largest_diff), (4, 0.0));
}

#[test]
fn lengths_and_types_must_agree() {
    let r = references("input a: i32[3]\noutput b = a + 1");
    assert!(compare("b", &Value::i32(vec![1, 2]), &r[0]).is_err());
    assert!(compare("b", &Value::u32(vec![1, 2, 3]), &r[0]).is_err());
}

/// Elements where a non-finite value arose are unspecified: counted, not
/// compared, whatever the GPU gave; the others are still held to their
/// tolerance.
#[test]
fn unspecified_elements_are_counted_not_compared() {
    let src = "input x: f32[4]\nlet z = [0.0, 1.0, 0.0, 2.0]\noutput y = compute 4 |i| x[i] / z[i]";
    let r = references(src);
    assert_eq!(r[0].unspecified(), 2);
    let got = nudged(&nudged(&r[0].value, 0, 5.0), 2, -3.0);
    let c = compare("y", &got, &r[0]).unwrap();
    assert_eq!((c.compared, c.unspecified), (2, 2));
    assert!(compare("y", &nudged(&r[0].value, 1, 0.5), &r[0]).is_err());
}

/// A non-finite value the program only moves (an input's NaN or infinity,
/// the literal `inf`) is specified: the GPU must give the same one, and a
/// finite value for it is a mismatch whatever the tolerance.
#[test]
fn a_moved_non_finite_value_must_come_back_unchanged() {
    let p = texpr_syntax::frontend(
        "input x: f32[3]\noutput y = compute 3 |i| select(i < 5, x[i], 0.0)",
        &[],
    )
    .unwrap();
    let inputs = [Value::f32(vec![f32::NAN, 1.0, f32::INFINITY])];
    let r = reference(&p, &inputs).unwrap();
    assert_eq!(r[0].unspecified(), 0);
    assert!(compare("y", &r[0].value, &r[0]).is_ok());
    for bad in [
        [0.0, 1.0, 0.0],
        [f32::NAN, 1.0, f32::MAX],
        [1.0, 1.0, f32::NAN],
    ] {
        let m = compare("y", &Value::f32(bad.to_vec()), &r[0]).unwrap_err();
        assert_eq!(m.diff, f64::INFINITY, "{bad:?}: {m}");
    }
}

/// A float-to-int conversion of a NaN gives 0 and of an infinity saturates:
/// specified, and exact.
#[test]
fn conversions_of_nan_and_infinity_are_specified() {
    let p = texpr_syntax::frontend(
        "input x: f32[3]\noutput a = compute 3 |i| i32(x[i])\noutput b = compute 3 |i| u32(x[i])",
        &[],
    )
    .unwrap();
    let inputs = [Value::f32(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY])];
    let r = reference(&p, &inputs).unwrap();
    assert_eq!(r[0].value, Value::i32(vec![0, 2147483520, i32::MIN]));
    assert_eq!(r[1].value, Value::u32(vec![0, 4294967040, 0]));
    assert!(r.iter().all(|o| o.unspecified() == 0 && worst(o) == 0.0));
}

/// An element whose divisor is within its own rounding error of 0 has no
/// bound: counted as such, never passed by an infinite tolerance.
#[test]
fn ill_conditioned_elements_are_counted_not_passed() {
    let src = "input x: f32[64]\noutput y = compute 64 |i| 1.0 / ((x[i] + 1.0) - 1.0 - x[i])";
    let r = references(src);
    let c = compare("y", &r[0].value, &r[0]).unwrap();
    assert_eq!(c.compared, 0, "{c:?}");
    assert_eq!(c.unbounded + c.unspecified, 64, "{c:?}");
}

/// The examples whose old per-output tolerance was infinite (a division by
/// a sum, an `rsqrt` of a variance) get a finite bound for every element,
/// tight enough that a result off by 1e-3 is caught. Softmax and attention
/// run as `shift_lse` rewrites them: the tolerance GPU results get is the
/// larger of the two programs' bounds, the rewritten one's from its
/// log-sum-exp (`2n` combines of `12 + |L|` ulps, `n` 24 or 37 here: about 1e-4
/// relative in every probability); it still catches 1e-3.
#[test]
fn normalizations_get_finite_tight_bounds() {
    for (name, most) in [("softmax", 1e-4), ("layernorm", 1e-4), ("attention", 3e-4)] {
        let path = repo_root().join("examples").join(format!("{name}.te"));
        let src = std::fs::read_to_string(path).unwrap();
        let small = texpr_tests::sched::small_sizes(&src);
        let p = texpr_syntax::frontend(&src, &small).unwrap();
        let inputs = texpr_interp::random_inputs(&p, 1);
        let original = texpr_interp::accuracy::reference(&p, &inputs).unwrap();
        let t = worst(&original[0]);
        assert!(t.is_finite() && t < 1e-4, "{name}: {t}");
        let r = reference(&p, &inputs).unwrap();
        let t = worst(&r[0]);
        assert!(t.is_finite() && t < most, "{name}: {t}");
        let off = nudged(&r[0].value, 3, 1e-3);
        assert!(compare("y", &off, &r[0]).is_err(), "{name}");
    }
}
