//! How close a GPU result must be to the interpreter's: a forward error
//! analysis of the program ([`output_bounds`]), a tolerance per output
//! ([`Tolerance`]), and a comparison that names the worst element
//! ([`compare`]). Used by `texprc run --check` and by every GPU test.

mod bound;
mod bound_ops;
mod compare;
mod est;

pub use bound::outputs as output_bounds;
pub use compare::{Mismatch, Tolerance, compare};
pub use est::Est;

use crate::Value;
use texpr_syntax::ast::ElemTy;
use texpr_syntax::ir::Program;

/// Compares every output of `p` computed elsewhere (`got`) with the
/// interpreter's (`want`) on `inputs`, each within the tolerance its error
/// bound allows. Returns the outputs that differ (empty when all match).
pub fn check_outputs(
    p: &Program,
    inputs: &[Value],
    got: &[Value],
    want: &[Value],
) -> Vec<Mismatch> {
    let ests = output_bounds(p, inputs);
    let mut bad = Vec::new();
    for (k, out) in p.outputs.iter().enumerate() {
        let tol = Tolerance::of(ests[k], out.value.ty.elem == ElemTy::F32);
        let missing = || Mismatch {
            output: out.name.clone(),
            index: 0,
            got: "nothing".into(),
            want: format!("{}[{}]", out.value.ty.elem.name(), out.value.ty.len),
            diff: f64::INFINITY,
            tolerance: tol.abs,
            count: out.value.ty.len as usize,
            len: out.value.ty.len as usize,
        };
        match (got.get(k), want.get(k)) {
            (Some(g), Some(w)) => {
                if let Err(m) = compare(&out.name, g, w, tol) {
                    bad.push(m);
                }
            }
            _ => bad.push(missing()),
        }
    }
    bad
}
