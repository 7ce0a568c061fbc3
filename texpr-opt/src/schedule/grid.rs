//! Building blocks every strategy shares: fresh index variables, the
//! `compute@grid` root (with a truncating or layout map), nodes at a level,
//! and the linear index `g*W + l` wrapped into range.

use super::fail::Fail;
use texpr_ir::Span;
use texpr_ir::build;
use texpr_ir::term::{self, var};
use texpr_ir::{BinOp, Level, MemLevel, ReduceOp};
use texpr_ir::{
    DigitPerm, Expr, ExprKind, Func, IndexMap, Layout, MapKind, Program, Term, Ty, UnaryOp, VarId,
    VarKind, VecRef,
};

/// A fresh index variable over `0..extent`, spanned at `span`.
pub fn index(p: &mut Program, name: &str, extent: u64, span: Span) -> VarId {
    p.fresh_var(name, VarKind::Index { extent }, span)
}

/// `compute@level n |v| body`.
pub fn compute_at(level: Level, n: u64, v: VarId, body: Expr) -> Expr {
    build::compute(Some(level), n, v, body)
}

/// `reduce@level op n |v| body`.
pub fn reduce_at(level: Level, op: ReduceOp, n: u64, v: VarId, body: Expr) -> Expr {
    build::reduce(Some(level), op, n, v, body)
}

/// `let@level v = value in body`.
pub fn let_at(level: MemLevel, v: VarId, value: Expr, body: Expr) -> Expr {
    build::let_(Some(level), v, value, body)
}

/// `compute@grid n MAP |g| body` of type `ty`, spanned at `span`.
pub fn grid(n: u64, g: VarId, map: Option<IndexMap>, body: Expr, ty: Ty, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Compute {
            level: Some(Level::Grid),
            n,
            var: g,
            map,
            body: Box::new(body),
        },
        ty,
        span,
    }
}

/// The grid root around `body` (whose raw length is `raw`), with a
/// truncating map when the item (`len`) is shorter; the grid variable is `g`.
pub fn grid_over(p: &mut Program, g: VarId, n: u64, len: u64, raw: u64, body: Expr) -> Expr {
    let (span, elem) = (body.span, body.ty.elem);
    let map = (raw != len).then(|| IndexMap::truncate(index(p, "k", len, span), len));
    grid(n, g, map, body, Ty::new(elem, len), span)
}

/// The layout of `rows` rows of `parts * per` elements each computed
/// `[part][t]` (part `l`'s `per` elements together) and laid out
/// `t*parts + part` (neighbouring parts on neighbouring elements): a digit
/// permutation within each row, over a result of `len` elements.
pub fn interleaved_rows(
    p: &mut Program,
    (parts, per, rows): (u64, u64, u64),
    len: u64,
    span: Span,
) -> IndexMap {
    let c = parts * per;
    let perm = DigitPerm::new(&[(parts, 1, per), (per, parts, 1), (rows, c, c)])
        .expect("a row's elements interleaved across its parts are a digit permutation");
    IndexMap {
        var: index(p, "k", len, span),
        len,
        kind: MapKind::Layout(Layout::Digits(perm)),
    }
}

/// `g*w + l`: invocation `l` of workgroup `g`.
pub fn lane(g: VarId, w: u64, l: VarId) -> Term {
    term::linear(var(g), w, var(l))
}

/// `t % n` when the raw range (`raw`) is longer than `n`, else `t`: padded
/// invocations recompute an element in range.
pub fn wrapped(t: Term, n: u64, raw: u64) -> Term {
    match raw != n {
        true => term::rem(t, n),
        false => t,
    }
}

/// Reads equal up to spans.
pub fn same_read(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (
            ExprKind::Index {
                vec: va,
                index: ia,
                guard: ga,
            },
            ExprKind::Index {
                vec: vb,
                index: ib,
                guard: gb,
            },
        ) => va == vb && ga == gb && ia.same(ib),
        _ => false,
    }
}

/// `e` with every read equal to `ld` replaced by `by`.
pub fn replace_equal(e: &Expr, ld: &Expr, by: &Expr) -> Expr {
    if same_read(e, ld) {
        return by.clone();
    }
    e.map_children(|c| replace_equal(c, ld, by))
}

/// `a op b` for a fold operator (for `lse`, `let@reg`s of both operands:
/// `p` gives their names).
pub fn combine_two(p: &mut Program, op: ReduceOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    match op {
        ReduceOp::Add => build::binary(BinOp::Add, a, b),
        ReduceOp::Mul => build::binary(BinOp::Mul, a, b),
        ReduceOp::Max => build::call(Func::Max, vec![a, b]),
        ReduceOp::Min => build::call(Func::Min, vec![a, b]),
        ReduceOp::Lse => lse_two(p, a, b),
    }
    .at(span)
}

/// `lse(a, b)` as the IR writes it: `let@reg x = a in let@reg y = b in
/// max(x, y) + select(x == y, log(2), log(1 + exp(min(x, y) - max(x, y))))`
/// (elementwise; equal operands give `x + log 2`, so that two infinities of
/// one sign make no NaN).
fn lse_two(p: &mut Program, a: Expr, b: Expr) -> Expr {
    let (ty, span) = (a.ty, a.span);
    let x = p.fresh_var("x", VarKind::Vector(ty), span);
    let y = p.fresh_var("y", VarKind::Vector(ty), span);
    let (vx, vy) = (
        build::whole(p, VecRef::Local(x)),
        build::whole(p, VecRef::Local(y)),
    );
    let c = |v: f32| match ty.len {
        1 => build::f32c(v),
        n => build::broadcast(build::f32c(v), n),
    };
    let hi = build::call(Func::Max, vec![vx.clone(), vy.clone()]);
    let lo = build::call(Func::Min, vec![vx.clone(), vy.clone()]);
    let t = build::unary(UnaryOp::Exp, build::binary(BinOp::Sub, lo, hi.clone()));
    let log1p = build::unary(UnaryOp::Log, build::binary(BinOp::Add, c(1.0), t));
    let equal = build::binary(BinOp::Eq, vx, vy);
    let step = build::call(Func::Select, vec![equal, c(std::f32::consts::LN_2), log1p]);
    let value = build::binary(BinOp::Add, hi, step);
    let inner = let_at(MemLevel::Reg, y, b, value.at(span)).at(span);
    let_at(MemLevel::Reg, x, a, inner)
}

/// E0216 when `bytes` of workgroup memory exceed what the device has.
pub fn fits_shared(bytes: u64, target: &texpr_target::Target) -> Result<(), Fail> {
    let have = target.limits.max_workgroup_storage_bytes;
    match bytes > u64::from(have) {
        true => Err(Fail::new(
            "E0216",
            format!("{bytes} bytes of workgroup memory; the device allows {have}"),
        )),
        false => Ok(()),
    }
}
