//! Type rules of block ops: the result type of an op from its operands, or a coded error at the op.

use super::expr::EExpr;
use super::ops::{Bcast, Flip, Fused, Op, Range, SumAxis};
use super::reg::Reg;
use super::types::{BlockTy, Dims, ElemTy};
use crate::codes;
use texpr_syntax::{Diagnostic, Span};

/// What type rules need to know about the program so far.
pub trait TyEnv {
    fn ty_of(&self, r: Reg) -> BlockTy;
    fn name_of(&self, r: Reg) -> String;
}

/// The result type of `op`, checked against `written` when given.
pub fn infer(
    env: &dyn TyEnv,
    op: &Op,
    written: Option<BlockTy>,
    span: Span,
) -> Result<BlockTy, Diagnostic> {
    let err = |code, msg: String| Diagnostic::error(code, msg).with_primary(span, "in this op");
    if let Some(w) = written {
        check_well_formed(w).map_err(|m| err(codes::BAD_ELEM, m))?;
    }
    let ty = match op {
        Op::Input | Op::Broadcast(_) => written.ok_or_else(|| {
            err(
                codes::MISSING_TYPE,
                format!("`{}` needs a written type", op.name()),
            )
        })?,
        Op::Fused(f) => fused_ty(env, f, written, span)?,
        _ => infer_plain(env, op, span)?,
    };
    check_op_specific(env, op, ty, span)?;
    match written {
        Some(w) if w != ty => Err(err(
            codes::TYPE_DIFFERS,
            format!("the written type {w} differs from the op's type {ty}"),
        )),
        _ => Ok(ty),
    }
}

fn check_well_formed(t: BlockTy) -> Result<(), String> {
    if t.elem == ElemTy::Bool {
        return Err("block matrices hold f32, i32 or u32, not bool".into());
    }
    Ok(())
}

fn infer_plain(env: &dyn TyEnv, op: &Op, span: Span) -> Result<BlockTy, Diagnostic> {
    match op {
        Op::Binary(_, a, b) => elementwise2(env, *a, *b, span),
        Op::Scale(a, _) | Op::Map(_, a) => Ok(env.ty_of(*a)),
        Op::Transpose(a) => Ok(env.ty_of(*a).transposed()),
        Op::Matmul { a, b, .. } => matmul_ty(env, *a, *b, span),
        Op::Reduce(_, axis, a) => Ok(sum_ty(*axis, env.ty_of(*a))),
        Op::Reverse(flip, a) => reverse_ty(env, *flip, *a, span),
        Op::Slice { src, rows, cols } => slice_ty(env, *src, *rows, *cols, span),
        Op::Input | Op::Broadcast(_) | Op::Fused(_) => unreachable!("handled by infer"),
    }
}

fn mismatch(
    env: &dyn TyEnv,
    code: &'static str,
    what: &str,
    a: Reg,
    b: Reg,
    span: Span,
) -> Diagnostic {
    let (ta, tb) = (env.ty_of(a), env.ty_of(b));
    Diagnostic::error(
        code,
        format!(
            "{what}: %{} is {ta} but %{} is {tb}",
            env.name_of(a),
            env.name_of(b)
        ),
    )
    .with_primary(span, "in this op")
}

/// Elementwise operands: equal types, or one a row / column / scalar that broadcasts.
fn elementwise2(env: &dyn TyEnv, a: Reg, b: Reg, span: Span) -> Result<BlockTy, Diagnostic> {
    let (ta, tb) = (env.ty_of(a), env.ty_of(b));
    if ta.elem != tb.elem {
        return Err(mismatch(
            env,
            codes::ELEM_MISMATCH,
            "element types differ",
            a,
            b,
            span,
        ));
    }
    let (big, small) = if tb.shape.len() > ta.shape.len() {
        (tb, ta)
    } else {
        (ta, tb)
    };
    match broadcast_mode(small, big) {
        Ok(_) => Ok(big),
        Err(code) => {
            let what = if code == codes::TILE_MISMATCH {
                "tiles do not line up"
            } else {
                "shapes differ"
            };
            Err(mismatch(env, code, what, a, b, span))
        }
    }
}

/// How `small` is read as `big`: whole, or broadcast. Errors are the code of
/// the mismatch (shape or tile).
pub fn broadcast_mode(small: BlockTy, big: BlockTy) -> Result<Bcast, &'static str> {
    let (s, b) = (small.shape, big.shape);
    if s == b {
        return if small.tile == big.tile {
            Ok(Bcast::Full)
        } else {
            Err(codes::TILE_MISMATCH)
        };
    }
    if s == Dims::new(1, 1) {
        return Ok(Bcast::All);
    }
    if s.rows == 1 && s.cols == b.cols {
        return if small.tile.cols == big.tile.cols {
            Ok(Bcast::Row)
        } else {
            Err(codes::TILE_MISMATCH)
        };
    }
    if s.cols == 1 && s.rows == b.rows {
        return if small.tile.rows == big.tile.rows {
            Ok(Bcast::Col)
        } else {
            Err(codes::TILE_MISMATCH)
        };
    }
    Err(codes::SHAPE_MISMATCH)
}

fn matmul_ty(env: &dyn TyEnv, a: Reg, b: Reg, span: Span) -> Result<BlockTy, Diagnostic> {
    let (ta, tb) = (env.ty_of(a), env.ty_of(b));
    if ta.elem != tb.elem {
        return Err(mismatch(
            env,
            codes::ELEM_MISMATCH,
            "element types differ",
            a,
            b,
            span,
        ));
    }
    if ta.shape.cols != tb.shape.rows {
        return Err(mismatch(
            env,
            codes::MATMUL_SHAPE,
            "inner dimensions differ",
            a,
            b,
            span,
        ));
    }
    if ta.tile.cols != tb.tile.rows {
        return Err(mismatch(
            env,
            codes::TILE_MISMATCH,
            "inner tile sizes differ",
            a,
            b,
            span,
        ));
    }
    Ok(BlockTy::new(
        ta.elem,
        Dims::new(ta.shape.rows, tb.shape.cols),
        Dims::new(ta.tile.rows, tb.tile.cols),
    ))
}

fn sum_ty(axis: SumAxis, t: BlockTy) -> BlockTy {
    let (shape, tile) = match axis {
        SumAxis::Rows => (Dims::new(t.shape.rows, 1), Dims::new(t.tile.rows, 1)),
        SumAxis::Cols => (Dims::new(1, t.shape.cols), Dims::new(1, t.tile.cols)),
        SumAxis::All => (Dims::new(1, 1), Dims::new(1, 1)),
    };
    BlockTy::new(t.elem, shape, tile)
}

/// A reversal maps tiles to tiles only where the reversed extent is whole tiles.
fn reverse_ty(env: &dyn TyEnv, flip: Flip, a: Reg, span: Span) -> Result<BlockTy, Diagnostic> {
    let t = env.ty_of(a);
    let ragged = |on: bool, extent: u64, tile: u64| on && !extent.is_multiple_of(tile);
    if ragged(flip.rows(), t.shape.rows, t.tile.rows)
        || ragged(flip.cols(), t.shape.cols, t.tile.cols)
    {
        return Err(Diagnostic::error(
            codes::BAD_REVERSE,
            format!(
                "cannot reverse the {} of %{} ({t}): a reversed extent must be whole tiles",
                flip.name(),
                env.name_of(a)
            ),
        )
        .with_primary(span, "in this op")
        .with_note("a reversal is a view: tile i of the result is tile n-1-i of the operand, read backwards"));
    }
    Ok(t)
}

fn slice_ty(
    env: &dyn TyEnv,
    src: Reg,
    rows: Range,
    cols: Range,
    span: Span,
) -> Result<BlockTy, Diagnostic> {
    let t = env.ty_of(src);
    let check = |r: Range, extent: u64, tile: u64, what: &str| -> Result<(), Diagnostic> {
        let bad = |m: String| {
            Err(Diagnostic::error(codes::BAD_SLICE, m).with_primary(span, "in this slice"))
        };
        if r.start >= r.end || r.end > extent {
            return bad(format!(
                "{what} {}..{} is empty or outside 0..{extent}",
                r.start, r.end
            ));
        }
        if !r.start.is_multiple_of(tile) || (!r.end.is_multiple_of(tile) && r.end != extent) {
            return bad(format!(
                "{what} {}..{} does not fall on the tile boundaries (tile {tile})",
                r.start, r.end
            ));
        }
        Ok(())
    };
    check(rows, t.shape.rows, t.tile.rows, "rows")?;
    check(cols, t.shape.cols, t.tile.cols, "columns")?;
    Ok(BlockTy::new(
        t.elem,
        Dims::new(rows.end - rows.start, cols.end - cols.start),
        t.tile,
    ))
}

/// A fused op: the type of its whole operands (or the written type).
fn fused_ty(
    env: &dyn TyEnv,
    f: &Fused,
    written: Option<BlockTy>,
    span: Span,
) -> Result<BlockTy, Diagnostic> {
    let whole = f.operands.iter().find(|o| o.bcast == Bcast::Full);
    match (whole, written) {
        (Some(o), _) => Ok(env.ty_of(o.reg)),
        (None, Some(w)) => Ok(w),
        (None, None) => Err(Diagnostic::error(
            codes::MISSING_TYPE,
            "a fused op without whole operands needs a written type",
        )
        .with_primary(span, "in this op")),
    }
}

/// Checks that hold once the result type is known: broadcast sources,
/// fused operands and bodies, element types of functions.
fn check_op_specific(env: &dyn TyEnv, op: &Op, ty: BlockTy, span: Span) -> Result<(), Diagnostic> {
    let err =
        |code, msg: String| Err(Diagnostic::error(code, msg).with_primary(span, "in this op"));
    match op {
        Op::Broadcast(a) => {
            let src = env.ty_of(*a);
            match broadcast_mode(src, ty) {
                Ok(Bcast::Full) | Err(_) => err(
                    codes::BAD_BROADCAST,
                    format!("cannot broadcast %{} ({src}) to {ty}", env.name_of(*a)),
                ),
                Ok(_) if src.elem != ty.elem => err(
                    codes::ELEM_MISMATCH,
                    "broadcast changes the element type".into(),
                ),
                Ok(_) => Ok(()),
            }
        }
        Op::Map(f, a) if !f.works_on_ints() && env.ty_of(*a).elem != ElemTy::F32 => err(
            codes::ELEM_MISMATCH,
            format!("`{}` needs f32 values", f.name()),
        ),
        Op::Fused(f) => check_fused(env, f, ty, false, span),
        Op::Matmul {
            epilogue: Some(f), ..
        } => check_fused(env, f, ty, true, span),
        _ => Ok(()),
    }
}

fn check_fused(
    env: &dyn TyEnv,
    f: &Fused,
    ty: BlockTy,
    in_matmul: bool,
    span: Span,
) -> Result<(), Diagnostic> {
    let err =
        |code, msg: String| Err(Diagnostic::error(code, msg).with_primary(span, "in this op"));
    for o in &f.operands {
        let t = env.ty_of(o.reg);
        if t.elem != ty.elem {
            return err(
                codes::ELEM_MISMATCH,
                format!("operand %{} is {t}, the op is {ty}", env.name_of(o.reg)),
            );
        }
        match broadcast_mode(t, ty) {
            Ok(m) if m == o.bcast => {}
            Ok(_) | Err(_) => {
                let code = broadcast_mode(t, ty).err().unwrap_or(codes::BAD_BROADCAST);
                return err(
                    code,
                    format!(
                        "operand %{}{} ({t}) cannot be read as {ty}",
                        env.name_of(o.reg),
                        o.bcast.suffix()
                    ),
                );
            }
        }
    }
    let mut args = Vec::new();
    f.body.args(&mut args);
    if let Some(bad) = args.iter().find(|&&i| i as usize >= f.operands.len()) {
        return err(
            codes::BAD_BODY,
            format!(
                "the body reads ${bad} but the op has {} operands",
                f.operands.len()
            ),
        );
    }
    if f.body.uses_acc() && !in_matmul {
        return err(
            codes::BAD_BODY,
            "`$acc` is only defined in a matmul epilogue".into(),
        );
    }
    check_body_elem(&f.body, ty.elem).map_or(Ok(()), |m| err(codes::ELEM_MISMATCH, m))
}

fn check_body_elem(e: &EExpr, elem: ElemTy) -> Option<String> {
    match e {
        EExpr::Map(f, a) if !f.works_on_ints() && elem != ElemTy::F32 => {
            Some(format!("`{}` needs f32 values", f.name())).or_else(|| check_body_elem(a, elem))
        }
        EExpr::Map(_, a) => check_body_elem(a, elem),
        EExpr::Bin(_, a, b) => check_body_elem(a, elem).or_else(|| check_body_elem(b, elem)),
        _ => None,
    }
}
