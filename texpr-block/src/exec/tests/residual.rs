//! The residual check of a returned `cholesky` passes the textbook factor
//! and catches a factor that is wrong by a little or has a wrong sign.

use super::*;
use crate::exec::residual::check_factor;

const POTRF: &str =
    "param N = 48\nfunc f {\n  %a = input : f32[N x N, 16 x 16]\n  %l = cholesky %a\n  ret %l\n}\n";

/// A symmetric positive definite `48 x 48` matrix and its factor from the dense evaluator.
fn spd() -> (crate::air::Program, Vec<Matrix>, Matrix) {
    let p = parse(POTRF, &[]).unwrap();
    let m = Matrix::random(48, 96, 3);
    let a = Matrix::from_fn(48, 48, |i, j| {
        (0..96).map(|k| m.at(i, k) * m.at(j, k)).sum::<f32>() / 96.0
    });
    let inputs = vec![a];
    let l = eval_dense(&p, &inputs).unwrap();
    (p, inputs, l)
}

#[test]
fn the_textbook_factor_passes_with_room() {
    let (p, inputs, l) = spd();
    let r = check_factor(&p, &inputs, &l).unwrap();
    assert_eq!(r.compared, 48 * 48);
    assert_eq!(r.unchecked, 0);
    assert!(r.worst < 0.5, "{r:?}");
}

#[test]
fn a_wrong_factor_fails() {
    let (p, inputs, l) = spd();
    // One element off by a part in a thousand.
    let mut off = l.clone();
    off.data[20 + 7 * 48] *= 1.001;
    let e = check_factor(&p, &inputs, &off).unwrap_err();
    assert_eq!(e.code, crate::codes::CHECK_FAILED, "{e:?}");
    // A column's sign flipped: L L^T is unchanged but the diagonal is negative.
    let mut flipped = l.clone();
    for i in 5..48 {
        flipped.data[i + 5 * 48] = -flipped.data[i + 5 * 48];
    }
    assert!(check_factor(&p, &inputs, &flipped).is_err());
    // Anything above the diagonal.
    let mut upper = l;
    upper.data[3 + 9 * 48] = 1e-30;
    assert!(check_factor(&p, &inputs, &upper).is_err());
}
