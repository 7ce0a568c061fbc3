//! Type rules of block ops: the result type of an op from its operands, or a coded error at the op.

use super::expr::EExpr;
use super::ops::{Axis, Bcast, Flip, Fused, Op, Range, SumAxis};
use super::reg::Reg;
use super::types::{BlockTy, Dims, ElemTy};
use crate::codes;
use texpr_ir::{Diagnostic, Span};

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
        Op::Input | Op::Random(_) | Op::Broadcast(_) => written.ok_or_else(|| {
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
        Op::Binary(_, a, b) => elementwise_n(env, &[*a, *b], span),
        Op::Select(c, a, b) => elementwise_n(env, &[*c, *a, *b], span),
        Op::Scale(a, _) | Op::Map(_, a) => Ok(env.ty_of(*a)),
        Op::Transpose(a) => Ok(env.ty_of(*a).transposed()),
        Op::Matmul { a, b, .. } => matmul_ty(env, *a, *b, span),
        Op::Reduce(_, axis, a) => Ok(sum_ty(*axis, env.ty_of(*a))),
        Op::Reverse(flip, a) => reverse_ty(env, *flip, *a, span),
        Op::Slice { src, rows, cols } => slice_ty(env, *src, *rows, *cols, span),
        Op::Concat { parts, axis } => concat_ty(env, parts, *axis, span),
        Op::Filter { src, axis, keep } => filter_ty(env, *src, *axis, keep, span),
        Op::Diag(a) => {
            let t = env.ty_of(*a);
            let n = t.shape.rows.min(t.shape.cols);
            Ok(BlockTy::new(
                t.elem,
                Dims::new(n, 1),
                Dims::new(t.tile.rows.min(n), 1),
            ))
        }
        Op::Cholesky(_) | Op::Solve { .. } => {
            super::linalg::ty(op, &|r| (env.ty_of(r), env.name_of(r)), span)
        }
        Op::Input | Op::Random(_) | Op::Broadcast(_) | Op::Fused(_) => {
            unreachable!("handled by infer")
        }
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

/// Elementwise operands: each has the result's shape or broadcasts to it
/// (a row `1xN`, a column `Mx1` or a scalar `1x1`). The result is as many
/// rows as the tallest operand and as many columns as the widest, so a
/// column and a row broadcast to their outer `MxN` (tiled by the column's
/// tile rows and the row's tile columns).
fn elementwise_n(env: &dyn TyEnv, regs: &[Reg], span: Span) -> Result<BlockTy, Diagnostic> {
    let tys: Vec<BlockTy> = regs.iter().map(|&r| env.ty_of(r)).collect();
    if let Some(k) = tys.iter().position(|t| t.elem != tys[0].elem) {
        return Err(mismatch(
            env,
            codes::ELEM_MISMATCH,
            "element types differ",
            regs[0],
            regs[k],
            span,
        ));
    }
    let rows = tys.iter().map(|t| t.shape.rows).max().unwrap_or(1);
    let cols = tys.iter().map(|t| t.shape.cols).max().unwrap_or(1);
    // The operand that fixes each extent's tiling, and the first that does not fit.
    let tall = tys.iter().position(|t| t.shape.rows == rows).unwrap_or(0);
    let wide = tys.iter().position(|t| t.shape.cols == cols).unwrap_or(0);
    let out = BlockTy::new(
        tys[0].elem,
        Dims::new(rows, cols),
        Dims::new(tys[tall].tile.rows, tys[wide].tile.cols),
    );
    for (k, t) in tys.iter().enumerate() {
        let Err(code) = broadcast_mode(*t, out) else {
            continue;
        };
        let what = if code == codes::TILE_MISMATCH {
            "tiles do not line up"
        } else {
            "shapes differ"
        };
        // Name it beside another operand, in the op's order.
        let other = (0..tys.len()).find(|&j| j != k).unwrap_or(k);
        let (a, b) = (other.min(k), other.max(k));
        return Err(mismatch(env, code, what, regs[a], regs[b], span));
    }
    Ok(out)
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
    // A window off the tile boundaries is a gather (`air::gather`), not an error.
    let check = |r: Range, extent: u64, _tile: u64, what: &str| -> Result<(), Diagnostic> {
        let bad = |m: String| {
            Err(Diagnostic::error(codes::BAD_SLICE, m).with_primary(span, "in this slice"))
        };
        if r.start >= r.end || r.end > extent {
            return bad(format!(
                "{what} {}..{} is empty or outside 0..{extent}",
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

/// `concat_rows` (`concat_cols`): two or more parts of one element type and
/// as many columns (rows); the result is tiled as the first part.
fn concat_ty(
    env: &dyn TyEnv,
    parts: &[Reg],
    axis: Axis,
    span: Span,
) -> Result<BlockTy, Diagnostic> {
    let bad = |m: String| Diagnostic::error(codes::BAD_CONCAT, m).with_primary(span, "in this op");
    let Some(&first) = parts.first().filter(|_| parts.len() >= 2) else {
        return Err(bad("a concatenation needs two or more parts".into()));
    };
    let t0 = env.ty_of(first);
    let mut along = 0;
    for &x in parts {
        let t = env.ty_of(x);
        let (n, across, across0) = match axis {
            Axis::Rows => (t.shape.rows, t.shape.cols, t0.shape.cols),
            Axis::Cols => (t.shape.cols, t.shape.rows, t0.shape.rows),
        };
        if t.elem != t0.elem || across != across0 {
            return Err(bad(format!(
                "%{} ({t}) does not stack with %{} ({t0}) along {}",
                env.name_of(x),
                env.name_of(first),
                axis.name()
            )));
        }
        along += n;
    }
    let shape = match axis {
        Axis::Rows => Dims::new(along, t0.shape.cols),
        Axis::Cols => Dims::new(t0.shape.rows, along),
    };
    Ok(BlockTy::new(t0.elem, shape, t0.tile))
}

/// `filter_rows` (`filter_cols`): one or more indices, each within the extent.
fn filter_ty(
    env: &dyn TyEnv,
    src: Reg,
    axis: Axis,
    keep: &[u64],
    span: Span,
) -> Result<BlockTy, Diagnostic> {
    let t = env.ty_of(src);
    let extent = match axis {
        Axis::Rows => t.shape.rows,
        Axis::Cols => t.shape.cols,
    };
    let bad = |m: String| Diagnostic::error(codes::BAD_FILTER, m).with_primary(span, "in this op");
    if keep.is_empty() {
        return Err(bad("a filter keeps at least one index".into()));
    }
    if let Some(k) = keep.iter().find(|&&k| k >= extent) {
        return Err(bad(format!(
            "index {k} is outside the {} 0..{extent} of %{}",
            axis.name(),
            env.name_of(src)
        )));
    }
    let n = keep.len() as u64;
    let (shape, tile) = match axis {
        Axis::Rows => (
            Dims::new(n, t.shape.cols),
            Dims::new(t.tile.rows.min(n), t.tile.cols),
        ),
        Axis::Cols => (
            Dims::new(t.shape.rows, n),
            Dims::new(t.tile.rows, t.tile.cols.min(n)),
        ),
    };
    Ok(BlockTy::new(t.elem, shape, tile))
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
        Op::Binary(b, a, _) if !b.works_on_ints() && env.ty_of(*a).elem != ElemTy::F32 => err(
            codes::ELEM_MISMATCH,
            format!("`{}` needs f32 values", b.name()),
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
    let name = match e {
        EExpr::Map(f, _) if !f.works_on_ints() => Some(f.name()),
        EExpr::Bin(b, ..) if !b.works_on_ints() => Some(b.name()),
        _ => None,
    };
    match name {
        Some(n) if elem != ElemTy::F32 => Some(format!("`{n}` needs f32 values")),
        _ => e
            .children()
            .into_iter()
            .find_map(|c| check_body_elem(c, elem)),
    }
}
