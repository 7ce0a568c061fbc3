//! Non-finite values and overflow bounds tracked to the results they reach
//! (issue #41): an infinity a `max` or `min` absorbs, or one in the operand
//! a `select` does not pick, leaves the result specified; a loop state's
//! chain starts again from its own value each step, so a long loop of
//! exact or well-conditioned steps stays specified.

use crate::bounds::*;
use texpr_interp::Value;

/// The prefix max: every guard's `-inf` is absorbed by a finite
/// element, so all 1,000 results are specified, exact and compared.
#[test]
fn a_prefix_max_over_guards_of_minus_infinity_is_specified_everywhere() {
    let p = program(
        "param N = 1000\ninput x: f32[N]\n\
         output y = compute N |i| reduce max N |j| x[i - j] else -inf",
    );
    let ins = inputs(&p);
    let (got, bounds) = reference(&p, &ins, 0);
    let x = ins[0].as_f32().unwrap();
    let mut run = f32::NEG_INFINITY;
    for (i, (g, b)) in got.iter().zip(&bounds).enumerate() {
        run = run.max(x[i]);
        assert_eq!(*g, run, "{i}");
        assert!(b.specified && b.err == 0.0, "{i}: {b:?}");
    }
    // A suffix min over `+inf` guards likewise; `max` over `+inf` guards
    // gives an infinity no operand absorbs: unspecified.
    let p = program(
        "param N = 64\ninput x: f32[N]\n\
         output lo = compute N |i| reduce min N |j| x[i + j] else inf\n\
         output hi = compute N |i| max(x[i], x[i + 1] else inf)",
    );
    let ins = inputs(&p);
    let lo = reference(&p, &ins, 0).1;
    assert!(lo.iter().all(|b| b.specified), "{lo:?}");
    let hi = reference(&p, &ins, 1).1;
    assert!(hi[..63].iter().all(|b| b.specified));
    assert!(!hi[63].specified, "max(x, inf) is inf: {:?}", hi[63]);
}

#[test]
fn a_nan_is_never_absorbed() {
    let p = program("input x: f32[4]\noutput y = compute 4 |i| max(x[i], -inf)");
    let x = Value::f32(vec![1.0, f32::NAN, f32::NEG_INFINITY, -2.0]);
    let (got, b) = reference(&p, &[x], 0);
    assert!(b[0].specified && b[3].specified);
    assert!(!b[1].specified, "a NaN operand: {:?}", b[1]);
    // max(-inf, -inf) is -inf, exactly, on every device.
    assert!(b[2].specified && got[2] == f32::NEG_INFINITY, "{:?}", b[2]);
}

/// An infinity in the operand a `select` does not pick: never computed,
/// and the result is specified.
#[test]
fn an_infinity_in_the_operand_not_picked_leaves_the_result_specified() {
    let p = program(
        "param N = 16\ninput x: f32[N]\n\
         output y = compute N |i| let r = 1.0 / f32(i) in select(i == 0, x[i], r * 2.0)",
    );
    let ins = inputs(&p);
    let (got, bounds) = reference(&p, &ins, 0);
    assert!(bounds.iter().all(|b| b.specified && b.err.is_finite()));
    assert_eq!(got[0], ins[0].as_f32().unwrap()[0]);
}

/// `q + q - q` as a loop state: its chain reaches `3 |q|` each step, not
/// `3^t |q|` (which passed `f32::MAX` from 81 steps on).
#[test]
fn a_state_updated_as_q_plus_q_minus_q_stays_specified_for_many_steps() {
    let p = program("input q0: f32[64]\noutput q = iterate 400 from q0 |q, t| q + q - q");
    let ins = inputs(&p);
    let (got, bounds) = reference(&p, &ins, 0);
    let x = ins[0].as_f32().unwrap();
    // Every step is exact in f32 (q + q doubles, then subtracts q).
    assert_eq!(got, x, "exact");
    // Each step may add two roundings at `3 |q|` (each term widened by
    // twice its bound) in another order.
    for (i, b) in bounds.iter().enumerate() {
        assert!(b.specified, "{i}: {b:?}");
        let most = 400.0 * 2.0 * EPS * 3.1 * x[i].abs() as f64 + 1e-30;
        assert!(b.err <= most, "{i}: {b:?} > {most}");
    }
}

/// An exact forward substitution, `x[k] = b[k] - x[k - 1]` through the
/// general triangular form (x = [1, -1, 1, -1, ...]): every element
/// specified, with a finite bound covering the exact value.
#[test]
fn an_exact_forward_substitution_is_specified_everywhere() {
    let n = 200;
    let mut l = vec![0f32; n * n];
    for i in 0..n {
        l[i * n + i] = 1.0;
        if i > 0 {
            l[i * n + i - 1] = 1.0;
        }
    }
    let mut b = vec![0f32; n];
    b[0] = 1.0;
    let src = "param N = 200\ninput L: f32[N * N]\ninput b: f32[N]\n\
               output x = iterate N from fill(0.0, N) |x, k| compute N |i| \
               select(i == k, (b[k] - (reduce k |p| L[k * N + p] * x[p])) / L[k * N + k], x[i])";
    let (got, bounds) = reference(&program(src), &[Value::f32(l), Value::f32(b)], 0);
    for (i, (g, bd)) in got.iter().zip(&bounds).enumerate() {
        assert_eq!(*g, if i % 2 == 0 { 1.0 } else { -1.0 }, "{i}");
        assert!(bd.specified && bd.err.is_finite(), "{i}: {bd:?}");
    }
}
