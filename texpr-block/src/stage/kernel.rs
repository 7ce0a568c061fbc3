//! Block bodies: for one block of one op, the panels it reads and the
//! kernel (a TExpr program built as IR) that computes the tile.
//!
//! Every kernel writes its tile (`R x C`, column-major) as
//! `output out: f32[R*C] = compute C |j| compute R |i| ...`, so element
//! `(i, j)` lands at `i + j * R`.

use super::body::{BlockBody, BlockContext, Kernel, Panel};
use super::build::{Bind, Body, add, call, lit, mul, read, tc, tv};
use super::expr;
use super::view::resolve;
use crate::air::{Agg, Bcast, Dims, EExpr, Fused, Op, Operand, Program, Reg, SumAxis};
use texpr_ir::{Expr, Func, ReduceOp, VarId, VecRef};

/// The kernel's input `k` (panels are its inputs, in order).
pub fn input(k: usize) -> VecRef {
    VecRef::Input(k as u32)
}

/// The body of block `ctx` of op `reg`, which is no gather (those are
/// `stage::gather`'s).
pub fn body(p: &Program, reg: Reg, ctx: &BlockContext) -> BlockBody {
    let mut s = Body::default();
    let ij = s.tile_vars(ctx.dims);
    let (i, j) = (tv(ij.0), tv(ij.1));
    let (inputs, expr) = match &p.inst(reg).op {
        Op::Input | Op::Random(_) => (vec![], lit(0.0)),
        Op::Matmul { a, b, epilogue } => matmul(&mut s, p, (*a, *b), epilogue.as_ref(), ctx, ij),
        // A view's tile, read in place through its index map.
        Op::Transpose(_) | Op::Slice { .. } | Op::Reverse(..) => {
            let panel = tile_panel(p, "x", reg, (ctx.i, ctx.j));
            let read = panel.at(input(0), i, j);
            (vec![panel], read)
        }
        Op::Reduce(agg, axis, x) => return reduce(s, p, *agg, *axis, *x, ctx),
        op => elementwise(p, reg, op, ctx, ij),
    };
    tile_body(s, inputs, ctx.dims, ij, expr)
}

/// The kernel writing a tile of `dims` whose element `(i, j)` is `expr`
/// (over the body's [`Body::tile_vars`]).
pub fn tile_body(
    s: Body,
    inputs: Vec<Panel>,
    dims: Dims,
    ij: (VarId, VarId),
    expr: Expr,
) -> BlockBody {
    let value = s.tile_of(dims, ij, expr);
    finish(s, inputs, dims, value)
}

/// The kernel: `lead` inputs before the panels (a task's tile before it),
/// then the panels, and the output `value` (none: the body has bound its
/// output already).
pub fn finish_with(
    mut s: Body,
    lead: &[(&str, u64)],
    inputs: Vec<Panel>,
    dims: Dims,
    value: Option<Expr>,
) -> BlockBody {
    for (name, len) in lead {
        s.input(name, *len);
    }
    for panel in &inputs {
        s.input(&panel.name, panel.dims.len());
    }
    if let Some(value) = value {
        s.bind(Bind::Output("out"), value);
    }
    BlockBody {
        kernel: Kernel::new(s.finish()),
        inputs,
        out_len: dims.len(),
    }
}

fn finish(s: Body, inputs: Vec<Panel>, dims: Dims, value: Expr) -> BlockBody {
    finish_with(s, &[], inputs, dims, Some(value))
}

/// A panel of tile rows `rows` and tile columns `cols` of `src`; when `src`
/// is a view, the rectangle of the matrix it views with the map to read it.
pub fn panel(p: &Program, name: &str, src: Reg, rows: (u64, u64), cols: (u64, u64)) -> Panel {
    let (base, rows, cols, map) = resolve(p, src, rows, cols);
    Panel {
        name: name.to_string(),
        via: src,
        src: base,
        rows,
        cols,
        dims: extent(p, base, rows, cols),
        map,
    }
}

/// The size in elements of tile rows `rows` and tile columns `cols` of `src`.
pub fn extent(p: &Program, src: Reg, rows: (u64, u64), cols: (u64, u64)) -> Dims {
    let ty = p.ty(src);
    let extent = |(a, b): (u64, u64), tile: u64, total: u64| (b * tile).min(total) - a * tile;
    Dims::new(
        extent(rows, ty.tile.rows, ty.shape.rows),
        extent(cols, ty.tile.cols, ty.shape.cols),
    )
}

fn tile_panel(p: &Program, name: &str, src: Reg, (i, j): (u64, u64)) -> Panel {
    panel(p, name, src, (i, i + 1), (j, j + 1))
}

/// The panels of a fused op's operands (the kernel's inputs from `first`
/// on) and how to read each at `(i, j)`.
fn operand_leaves(
    p: &Program,
    ops: &[Operand],
    ctx: &BlockContext,
    first: usize,
    (i, j): (VarId, VarId),
) -> (Vec<Panel>, Vec<Expr>) {
    let mut panels = Vec::new();
    let mut leaves = Vec::new();
    for (k, o) in ops.iter().enumerate() {
        let v = input(first + k);
        let (i, j) = (tv(i), tv(j));
        let (tile, at) = match o.bcast {
            Bcast::Full => ((ctx.i, ctx.j), (i.clone(), j.clone())),
            Bcast::Row => ((0, ctx.j), (tc(0), j.clone())),
            Bcast::Col => ((ctx.i, 0), (i.clone(), tc(0))),
            Bcast::All => ((0, 0), (tc(0), tc(0))),
        };
        let pn = tile_panel(p, &format!("x{k}"), o.reg, tile);
        let leaf = match (pn.map.is_identity(), o.bcast) {
            (true, Bcast::Row) => read(v, j),
            (true, Bcast::Col) => read(v, i),
            (true, Bcast::All) => read(v, tc(0)),
            _ => pn.at(v, at.0, at.1),
        };
        panels.push(pn);
        leaves.push(leaf);
    }
    (panels, leaves)
}

fn elementwise(
    p: &Program,
    reg: Reg,
    op: &Op,
    ctx: &BlockContext,
    ij: (VarId, VarId),
) -> (Vec<Panel>, Expr) {
    let f = as_body(p, reg, op);
    let (panels, leaves) = operand_leaves(p, &f.operands, ctx, 0, ij);
    (panels, expr::body(&f.body, &leaves, None))
}

/// Any elementwise op (and `broadcast`) as a fused body.
fn as_body(p: &Program, reg: Reg, op: &Op) -> Fused {
    if let Op::Broadcast(x) = op {
        let bcast = crate::air::typing::broadcast_mode(p.ty(*x), p.ty(reg)).unwrap_or(Bcast::All);
        return Fused {
            operands: vec![Operand { reg: *x, bcast }],
            body: EExpr::Arg(0),
        };
    }
    crate::passes::fuse_elementwise::as_fused(p, reg).unwrap_or(Fused {
        operands: vec![],
        body: EExpr::Const(0.0),
    })
}

fn matmul(
    s: &mut Body,
    p: &Program,
    (a, b): (Reg, Reg),
    epi: Option<&Fused>,
    ctx: &BlockContext,
    (i, j): (VarId, VarId),
) -> (Vec<Panel>, Expr) {
    let kt = p.ty(a).n_tiles().cols;
    let pa = panel(p, "a", a, (ctx.i, ctx.i + 1), (0, kt));
    let pb = panel(p, "b", b, (0, kt), (ctx.j, ctx.j + 1));
    let depth = pa.seen().cols;
    let acc = s.reduce(ReduceOp::Add, depth, "k", |_, k| {
        mul(pa.at(input(0), tv(i), tv(k)), pb.at(input(1), tv(k), tv(j)))
    });
    let mut panels = vec![pa, pb];
    let Some(f) = epi else { return (panels, acc) };
    let (more, leaves) = operand_leaves(p, &f.operands, ctx, 2, (i, j));
    panels.extend(more);
    let expr = if f.body.acc_uses() > 1 {
        s.let_in("acc", acc, |_, acc| {
            expr::body(&f.body, &leaves, Some(&acc))
        })
    } else {
        expr::body(&f.body, &leaves, Some(&acc))
    };
    (panels, expr)
}

fn reduce(
    mut s: Body,
    p: &Program,
    agg: Agg,
    axis: SumAxis,
    x: Reg,
    ctx: &BlockContext,
) -> BlockBody {
    let n = p.ty(x).n_tiles();
    let (rows, cols) = match axis {
        SumAxis::Rows => ((ctx.i, ctx.i + 1), (0, n.cols)),
        SumAxis::Cols => ((0, n.rows), (ctx.j, ctx.j + 1)),
        SumAxis::All => ((0, n.rows), (0, n.cols)),
    };
    let pn = panel(p, "x", x, rows, cols);
    let value = partial_value(&mut s, p, (agg, axis, x), (&pn, input(0)), None);
    finish(s, vec![pn], ctx.dims, value)
}

/// The fold of an aggregation (a mean's is a sum of scaled terms).
fn fold_op(agg: Agg) -> ReduceOp {
    match agg {
        Agg::Sum | Agg::Mean => ReduceOp::Add,
        Agg::Max => ReduceOp::Max,
        Agg::Min => ReduceOp::Min,
        Agg::Prod => ReduceOp::Mul,
        Agg::Var | Agg::Std => unreachable!("expanded into means by the passes"),
    }
}

/// The value reducing panel `pn` (the kernel's input `v`) of `x` along
/// `axis` (the output's column-major elements), combined with `prev` (a
/// partial result of the same shape, an input) when given. A mean's terms
/// are each multiplied by `1 / count` of the whole reduction, so that
/// partial means add up (as the `--check` reference computes them,
/// `exec::reference`).
fn partial_value(
    s: &mut Body,
    p: &Program,
    (agg, axis, x): (Agg, SumAxis, Reg),
    (pn, v): (&Panel, VecRef),
    prev: Option<VecRef>,
) -> Expr {
    let d = pn.seen();
    let shape = p.ty(x).shape;
    let count = match (agg, axis) {
        (Agg::Mean, SumAxis::Rows) => shape.cols,
        (Agg::Mean, SumAxis::Cols) => shape.rows,
        (Agg::Mean, SumAxis::All) => shape.len(),
        _ => 1,
    };
    let op = fold_op(agg);
    let leaf = |i: VarId, j: VarId| scaled(pn, v, count, (i, j));
    let combine = |at: VarId, term: Expr| match (prev, agg) {
        (None, _) => term,
        (Some(q), Agg::Sum | Agg::Mean) => add(read(q, tv(at)), term),
        (Some(q), Agg::Max) => call(Func::Max, read(q, tv(at)), term),
        (Some(q), Agg::Min) => call(Func::Min, read(q, tv(at)), term),
        (Some(q), Agg::Prod) => mul(read(q, tv(at)), term),
        (Some(_), Agg::Var | Agg::Std) => unreachable!("expanded into means by the passes"),
    };
    match axis {
        SumAxis::Rows => s.compute(d.rows, "i", |s, i| {
            let term = s.reduce(op, d.cols, "j", |_, j| leaf(i, j));
            combine(i, term)
        }),
        SumAxis::Cols => s.compute(d.cols, "j", |s, j| {
            let term = s.reduce(op, d.rows, "i", |_, i| leaf(i, j));
            combine(j, term)
        }),
        // A whole reduction's value is one element: no compute around it.
        SumAxis::All if prev.is_none() => whole_fold(s, op, d, &leaf),
        SumAxis::All => s.compute(1, "o", |s, o| {
            let term = whole_fold(s, op, d, &leaf);
            combine(o, term)
        }),
    }
}

/// `reduce op C |j| reduce op R |i| leaf(i, j)` over a panel seen as `d`.
fn whole_fold(s: &mut Body, op: ReduceOp, d: Dims, leaf: &dyn Fn(VarId, VarId) -> Expr) -> Expr {
    s.reduce(op, d.cols, "j", |s, j| {
        s.reduce(op, d.rows, "i", |_, i| leaf(i, j))
    })
}

/// Element `(i, j)` of the panel (the kernel's input `v`), divided by
/// `count` (a mean's term) when above 1.
fn scaled(pn: &Panel, v: VecRef, count: u64, (i, j): (VarId, VarId)) -> Expr {
    let read = pn.at(v, tv(i), tv(j));
    if count > 1 {
        mul(read, lit(1.0 / count as f32))
    } else {
        read
    }
}

/// The body of one step of a distributed reduction: tile `tile` of `x`
/// (read in place, through its views) reduced along the op's axis, added to
/// (or maxed, minned with) the partial result `prev` of the same rank when
/// `accumulate`. Its output is the partial's shape: a column of the tile's
/// rows, a row of its columns, or one element.
pub fn partial_body(p: &Program, reg: Reg, tile: (u64, u64), accumulate: bool) -> BlockBody {
    let Op::Reduce(agg, axis, x) = p.inst(reg).op else {
        unreachable!("partial bodies are of reductions")
    };
    let pn = tile_panel(p, "x", x, tile);
    let d = pn.seen();
    let out = match axis {
        SumAxis::Rows => Dims::new(d.rows, 1),
        SumAxis::Cols => Dims::new(1, d.cols),
        SumAxis::All => Dims::new(1, 1),
    };
    let prev = Panel {
        name: "p".into(),
        via: reg,
        src: reg,
        rows: (0, 1),
        cols: (0, 1),
        dims: out,
        map: Default::default(),
    };
    let mut s = Body::default();
    let what = (agg, axis, x);
    // With the partial before it, the tile is the kernel's second input.
    let (first, second) = (input(0), input(1));
    // A max or min rounds nothing; a product's relative errors add up the
    // same in any order: one chain with the partial before is what the
    // `--check` reference bounds.
    let chain = matches!(agg, Agg::Max | Agg::Min | Agg::Prod);
    if chain || axis != SumAxis::All {
        if !accumulate {
            let value = partial_value(&mut s, p, what, (&pn, first), None);
            return finish(s, vec![pn], out, value);
        }
        if chain {
            let value = partial_value(&mut s, p, what, (&pn, second), Some(first));
            return finish(s, vec![prev, pn], out, value);
        }
    }
    // A sum's tile is reduced into stored values first, then added: the
    // partials are rounded as the `--check` reference models them, never one
    // chain with the partial before. A whole tile's sum stores its column
    // sums first, so no chain is longer than a tile's side.
    let v = if accumulate { second } else { first };
    let tile = if axis == SumAxis::All {
        let count = if agg == Agg::Mean {
            p.ty(x).shape.len()
        } else {
            1
        };
        let sums = s.compute(d.cols, "j", |s, j| {
            s.reduce(ReduceOp::Add, d.rows, "i", |_, i| {
                scaled(&pn, v, count, (i, j))
            })
        });
        let c = s.global("c", sums);
        s.compute(1, "o", |s, _| {
            s.reduce(ReduceOp::Add, d.cols, "j", |_, j| read(c, tv(j)))
        })
    } else {
        partial_value(&mut s, p, what, (&pn, v), None)
    };
    if !accumulate {
        return finish(s, vec![pn], out, tile);
    }
    let t = s.global("t", tile);
    let sum = s.compute(out.len(), "e", |_, e| {
        add(read(first, tv(e)), read(t, tv(e)))
    });
    finish(s, vec![prev, pn], out, sum)
}
