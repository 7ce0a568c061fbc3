//! `--check` of a returned `cholesky`: the factor's residual `A - L L^T`
//! held to Cholesky's backward-error bound, as LAPACK's and ScaLAPACK's
//! tests check `potrf`.
//!
//! Forward bounds of a factor ([`super::reference`]) compound from column
//! to column and stop vouching for a factor of order 64 or so; the
//! backward error does not. Whatever order its sums take, a factor
//! computed in floating point satisfies `L L^T = A + E` with
//! `|E| <= gamma_k |L| |L|^T` elementwise (Higham, *Accuracy and Stability
//! of Numerical Algorithms*, Theorem 10.3), `gamma_k = k u / (1 - k u)`,
//! `u = 2^-24`, `k = n + 1` for correctly rounded operations. WGSL allows
//! a division 2.5 ULP and a square root (`1 / inverseSqrt`) 4.5 ULP of
//! error, which [`SLACK`] more roundings cover. The `A` the run factored is
//! its own evaluation of the operand, within the interpreter's tolerance of
//! the reference's (0 for an input); that tolerance is added.

use super::dense::Matrix;
use crate::air::{Op, Program, Reg};
use crate::codes;
use crate::passes::{Env, dce::dce};
use texpr_ir::Diagnostic;

/// Roundings beyond `n + 1` that WGSL's division and square root may add.
pub const SLACK: u64 = 32;

/// What the residual check found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Residual {
    /// Lower elements whose residual was held to its bound, and upper
    /// elements found zero.
    pub compared: usize,
    /// Elements not compared: a non-finite factor or operand element, or an
    /// operand element without a finite bound.
    pub unchecked: usize,
    /// The largest residual over its bound (at most 1 when all pass).
    pub worst: f64,
}

/// The operand of a returned `cholesky`, if the program returns one.
pub fn returned_factor(p: &Program) -> Option<Reg> {
    match p.inst(p.ret).op {
        Op::Cholesky(a) => Some(a),
        _ => None,
    }
}

/// The operand `a` of `p`'s returned `cholesky` as the reference computes
/// it, and each element's tolerance (`None`: no finite bound).
fn operand(
    p: &Program,
    a: Reg,
    inputs: &[Matrix],
) -> Result<(Matrix, Vec<Option<f64>>), Diagnostic> {
    if let Some(k) = p.inputs().iter().position(|&r| r == a) {
        let m = inputs[k].clone();
        let exact = vec![Some(0.0); m.data.len()];
        return Ok((m, exact));
    }
    let mut q = p.clone();
    q.ret = a;
    let q = dce(&q, &mut Env::new());
    let r = super::reference::dense_reference(&q, inputs)?;
    let s = p.ty(a).shape;
    let data = r.value.as_f32().unwrap_or(&[]).to_vec();
    let tol = r
        .bounds
        .iter()
        .map(|b| texpr_interp::accuracy::tolerance(*b, true).filter(|_| b.specified))
        .collect();
    let m = Matrix {
        rows: s.rows as usize,
        cols: s.cols as usize,
        data,
    };
    Ok((m, tol))
}

/// Checks factor `l` of `p`'s returned `cholesky` on `inputs`: every lower
/// element's residual within its bound, every upper element zero, and a
/// positive diagonal. A failure is E0544.
pub fn check_factor(p: &Program, inputs: &[Matrix], l: &Matrix) -> Result<Residual, Diagnostic> {
    let a_reg = returned_factor(p).expect("a returned cholesky");
    let (a, tol) = operand(p, a_reg, inputs)?;
    let n = l.rows;
    let k = (n as u64 + 1 + SLACK) as f64 * f64::from(f32::EPSILON) / 2.0;
    let gamma = k / (1.0 - k);
    let at = |m: &Matrix, i: usize, j: usize| f64::from(m.at(i, j));
    let mut out = Residual::default();
    let fail = |what: String| {
        Diagnostic::error(codes::CHECK_FAILED, what).with_primary(p.inst(p.ret).span, "this factor")
    };
    for j in 0..n {
        for i in 0..n {
            let x = at(l, i, j);
            if i < j {
                if x != 0.0 {
                    return Err(fail(format!(
                        "L[{i}, {j}] = {x:e} above the diagonal, not 0"
                    )));
                }
                out.compared += 1;
                continue;
            }
            let a_ij = at(&a, i, j);
            let Some(t) = tol[i + j * n] else {
                out.unchecked += 1;
                continue;
            };
            let (mut s, mut mag) = (0.0, 0.0);
            for q in 0..=j {
                s += at(l, i, q) * at(l, j, q);
                mag += (at(l, i, q) * at(l, j, q)).abs();
            }
            if !(s.is_finite() && a_ij.is_finite()) {
                out.unchecked += 1;
                continue;
            }
            if i == j && x <= 0.0 {
                return Err(fail(format!("L[{i}, {i}] = {x:e}, not positive")));
            }
            let bound = gamma * mag + t + f64::MIN_POSITIVE;
            let r = (a_ij - s).abs();
            if r > bound {
                return Err(fail(format!(
                    "(A - L L^T)[{i}, {j}] = {r:e}, beyond Cholesky's backward-error bound {bound:e}"
                )));
            }
            out.worst = out.worst.max(r / bound);
            out.compared += 1;
        }
    }
    Ok(out)
}
