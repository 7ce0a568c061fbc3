//! `f16`: every operation rounds to IEEE binary16, nearest even, as the
//! language reference says; a fold accumulates in its body's type.

use half::f16;
use texpr_interp::{Value, eval};

/// The outputs of `src` (no inputs) as `f64`s.
fn run(src: &str) -> Vec<Vec<f64>> {
    let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{src}: {d:#?}"));
    let out = eval(&p, &[]).unwrap();
    out.iter().map(Value::to_f64).collect()
}

fn one(src: &str) -> f64 {
    run(src)[0][0]
}

#[test]
fn sums_round_to_nearest_even() {
    // 2^-11 is half an ulp of 1: a tie, to the even neighbour.
    assert_eq!(one("output y = 1.0h + 0.00048828125h"), 1.0);
    assert_eq!(one("output y = 1.0h + 0.0009765625h"), 1.0009765625);
    // From an odd neighbour a tie goes up.
    assert_eq!(
        one("output y = 1.0009765625h + 0.00048828125h"),
        1.001953125
    );
    // Just over the tie: up.
    assert_eq!(one("output y = 1.0h + 0.000489h"), 1.0009765625);
    // 65504 + 16 is the tie between 65504 (odd) and 2^16, past the largest
    // finite value: infinity.
    assert_eq!(one("output y = 65504.0h + 16.0h"), f64::INFINITY);
    assert_eq!(one("output y = 65504.0h + 15.0h"), 65504.0);
}

#[test]
fn products_quotients_and_casts_round_once() {
    // 1/3 in binary16.
    let third = f64::from(f16::from_f64(1.0 / 3.0));
    assert_eq!(one("output y = 1.0h / 3.0h"), third);
    assert_ne!(third, f64::from(1.0f32 / 3.0));
    // A product exact in f32 rounded once: 1.0009765625^2 = 1 + 2^-9 + 2^-20.
    assert_eq!(one("output y = 1.0009765625h * 1.0009765625h"), 1.001953125);
    // Casts round to nearest even; back to f32 is exact.
    assert_eq!(one("output y = f32(f16(0.1))"), 0.0999755859375);
    assert_eq!(one("output y = f16(2049)"), 2048.0);
    assert_eq!(one("output y = f16(2051)"), 2052.0);
    assert_eq!(one("output y = i32(f16(-2.75))"), -2.0);
    // A plain float literal beside an f16 operand is an f16.
    assert_eq!(one("output y = f16(1.0) + 0.00048828125"), 1.0);
}

#[test]
fn a_fold_accumulates_in_its_bodys_type() {
    // 2048 + 1 is a tie between 2048 and 2050: the sum of ones stalls.
    let src = "output s = reduce 4096 |i| 1.0h\n\
               output w = reduce 4096 |i| f32(1.0h)\n";
    let out = run(src);
    assert_eq!(out[0], [2048.0]);
    assert_eq!(out[1], [4096.0]);
}

#[test]
fn f16_inputs_and_builtins() {
    let src = "input x: f16[3]\noutput y = compute 3 |i| sqrt(x[i]) * 2.0\n";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let x = Value::f16([4.0, 2.0, 0.0].map(f16::from_f32).to_vec());
    let y = eval(&p, &[x]).unwrap();
    let sqrt2 = f16::from_f32(2f32.sqrt());
    let want = [4.0, f64::from(f16::from_f32(sqrt2.to_f32() * 2.0)), 0.0];
    assert_eq!(y[0].to_f64(), want);
    assert_eq!(y[0].elem(), texpr_ir::ElemTy::F16);
}
