//! A `select` takes its bound and whether it is specified from the operand
//! it picks (docs/language.md, "Non-finite values"): arithmetic on a NaN
//! in the operand it does not pick changes nothing, on the scalar path
//! (`compute N |i| select(...)`) and the vector path (`select` of whole
//! vectors) alike.

use crate::bounds::program;
use texpr_interp::Value;
use texpr_interp::accuracy::{self, Bound};

/// `x` with NaNs at every fourth position, from 1, and plain values elsewhere.
fn with_nans(n: usize) -> Value {
    Value::f32(
        (0..n)
            .map(|i| {
                if i % 4 == 1 {
                    f32::NAN
                } else {
                    0.75 - i as f32 / 8.0
                }
            })
            .collect(),
    )
}

fn bounds(src: &str, x: &Value) -> Vec<Bound> {
    accuracy::reference(&program(src), std::slice::from_ref(x)).expect("runs")[0]
        .bounds
        .clone()
}

#[test]
fn nan_arithmetic_in_the_operand_not_picked_leaves_the_picked_bound() {
    let x = with_nans(16);
    let picked = bounds(
        "input x: f32[16]\noutput y = compute 16 |i| x[i] * 3.0 + 1.0",
        &x,
    );
    for src in [
        "input x: f32[16]\noutput y = compute 16 |i| \
         select(x[i] == x[i], x[i] * 3.0 + 1.0, x[(i + 1) % 16] * 2.0 - 1.0)",
        "input x: f32[16]\nlet z = compute 16 |i| x[(i + 1) % 16]\n\
         output y = select(x == x, x * 3.0 + 1.0, z * 2.0 - 1.0)",
    ] {
        let got = bounds(src, &x);
        for (i, (g, p)) in got.iter().zip(&picked).enumerate() {
            if i % 4 == 1 {
                // The condition compares a NaN: unspecified.
                assert!(!g.specified, "{i}: {g:?}");
            } else {
                // Elements 0, 4, 8, 12 do NaN arithmetic in the other operand.
                assert!(g.specified, "{i}: {g:?}");
                assert_eq!(g.err, p.err, "{i}: the picked operand's bound");
            }
        }
    }
}

#[test]
fn the_operand_not_picked_matters_only_where_the_condition_may_flip() {
    // `x[i] * 3.0 >= 0.75` is within its bound of flipping where `x[i]` is
    // 0.25: there another evaluation may pick the NaN arithmetic, and the
    // element has no bound; elsewhere the picked operand's bound.
    let x = Value::f32(vec![0.25, f32::NAN, 0.5, f32::NAN]);
    let src = "input x: f32[4]\noutput y = compute 4 |i| \
               select(x[i] * 3.0 >= 0.75, x[i] + 1.0, x[(i + 1) % 4] * 2.0)";
    let b = bounds(src, &x);
    assert!(b[0].specified && b[0].err.is_infinite(), "{:?}", b[0]);
    assert!(
        b[2].specified && b[2].err.is_finite() && b[2].err < 1e-6,
        "{:?}",
        b[2]
    );
}
