//! Type rules of the dense linear-algebra ops: `cholesky` and `solve_lower`/`solve_upper`.
//!
//! Both work on square tiles: tile `(k, k)` of the triangular matrix is the
//! diagonal block each step factors or solves with, so its tiles must be
//! square and its extent square. A right-hand side has as many rows as the
//! triangular matrix and is tiled the same way along them; its columns are free.

use super::ops::Op;
use super::reg::Reg;
use super::types::{BlockTy, ElemTy};
use crate::codes;
use texpr_ir::{Diagnostic, Span};

/// The type of a `cholesky` (its operand's) or a `solve_*` (its right-hand
/// side's), given each operand's type and name.
pub fn ty(
    op: &Op,
    operand: &dyn Fn(Reg) -> (BlockTy, String),
    span: Span,
) -> Result<BlockTy, Diagnostic> {
    let err = |code, msg: String| Diagnostic::error(code, msg).with_primary(span, "in this op");
    let (tri, rhs) = match op {
        Op::Cholesky(a) => (*a, None),
        Op::Solve { tri, rhs, .. } => (*tri, Some(*rhs)),
        _ => unreachable!("a linear-algebra op"),
    };
    let t = operand(tri).0;
    let what = |r| {
        let (ty, name) = operand(r);
        format!("%{name} ({ty})")
    };
    // An operand of f32 values, else error `code`.
    let need_f32 = |ty: &BlockTy, r: Reg, code| {
        if ty.elem == ElemTy::F32 {
            return Ok(());
        }
        let msg = format!(
            "`{}` needs f32 values, but {} holds {}",
            op.name(),
            what(r),
            ty.elem.name()
        );
        Err(err(code, msg))
    };
    if t.shape.rows != t.shape.cols || t.tile.rows != t.tile.cols {
        return Err(err(
            codes::BAD_FACTOR,
            format!(
                "`{}` needs a square matrix in square tiles, but {} is not",
                op.name(),
                what(tri)
            ),
        ));
    }
    need_f32(&t, tri, codes::BAD_FACTOR)?;
    let Some(b) = rhs else { return Ok(t) };
    let bt = operand(b).0;
    if bt.shape.rows != t.shape.rows || bt.tile.rows != t.tile.rows {
        return Err(err(
            codes::SOLVE_SHAPE,
            format!(
                "`{}` needs a right-hand side with the rows and tile rows of {}, but {} differs",
                op.name(),
                what(tri),
                what(b)
            ),
        ));
    }
    need_f32(&bt, b, codes::ELEM_MISMATCH)?;
    Ok(bt)
}
