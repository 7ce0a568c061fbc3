//! Block bodies: for one block of one op, the panels it reads and the TExpr kernel that computes the tile.
//!
//! Every kernel writes its tile (`R x C`, column-major) as
//! `output out: f32[R*C] = compute C |j| compute R |i| ...`, so element
//! `(i, j)` lands at `i + j * R`.

use super::body::{BlockBody, BlockContext, Panel};
use super::texpr;
use super::view::resolve;
use crate::air::{Agg, Bcast, Dims, EExpr, Fused, Op, Operand, Program, Reg, SumAxis};
use std::fmt::Write as _;

/// The body of block `ctx` of op `reg`, which is no gather (those are
/// `stage::gather`'s).
pub fn body(p: &Program, reg: Reg, ctx: &BlockContext) -> BlockBody {
    let (inputs, expr) = match &p.inst(reg).op {
        Op::Input | Op::Random(_) => (vec![], "0.0".to_string()),
        Op::Matmul { a, b, epilogue } => matmul(p, *a, *b, epilogue.as_ref(), ctx),
        // A view's tile, read in place through its index map.
        Op::Transpose(_) | Op::Slice { .. } | Op::Reverse(..) => {
            let panel = tile_panel(p, "x", reg, (ctx.i, ctx.j));
            let read = panel.at("i", "j");
            (vec![panel], read)
        }
        Op::Reduce(agg, axis, x) => return reduce(p, *agg, *axis, *x, ctx),
        op => elementwise(p, reg, op, ctx),
    };
    tile_body(inputs, ctx.dims, &expr)
}

/// The kernel writing a tile of `dims` whose element `(i, j)` is `expr`.
pub fn tile_body(inputs: Vec<Panel>, dims: Dims, expr: &str) -> BlockBody {
    let (r, c) = (dims.rows, dims.cols);
    finish(
        inputs,
        dims,
        &format!("compute {c} |j| compute {r} |i| {expr}"),
    )
}

fn finish(inputs: Vec<Panel>, dims: Dims, value: &str) -> BlockBody {
    let mut src = String::new();
    for panel in &inputs {
        let _ = writeln!(src, "input {}: f32[{}]", panel.name, panel.dims.len());
    }
    let _ = writeln!(src, "output out: f32[{}] = {value}", dims.len());
    BlockBody {
        kernel: src,
        inputs,
        out_len: dims.len(),
    }
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

/// The panels of a fused op's operands and how to read each at `(i, j)`.
fn operand_leaves(p: &Program, ops: &[Operand], ctx: &BlockContext) -> (Vec<Panel>, Vec<String>) {
    let mut panels = Vec::new();
    let mut leaves = Vec::new();
    for (k, o) in ops.iter().enumerate() {
        let name = format!("x{k}");
        let (tile, at) = match o.bcast {
            Bcast::Full => ((ctx.i, ctx.j), ("i", "j")),
            Bcast::Row => ((0, ctx.j), ("0", "j")),
            Bcast::Col => ((ctx.i, 0), ("i", "0")),
            Bcast::All => ((0, 0), ("0", "0")),
        };
        let pn = tile_panel(p, &name, o.reg, tile);
        let leaf = match (pn.map.is_identity(), o.bcast) {
            (true, Bcast::Row) => format!("{name}[j]"),
            (true, Bcast::Col) => format!("{name}[i]"),
            (true, Bcast::All) => format!("{name}[0]"),
            _ => pn.at(at.0, at.1),
        };
        panels.push(pn);
        leaves.push(leaf);
    }
    (panels, leaves)
}

fn elementwise(p: &Program, reg: Reg, op: &Op, ctx: &BlockContext) -> (Vec<Panel>, String) {
    let f = as_body(p, reg, op);
    let (panels, leaves) = operand_leaves(p, &f.operands, ctx);
    let expr = texpr::body(&f.body, &|k| leaves[k as usize].clone(), "");
    (panels, expr)
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
    p: &Program,
    a: Reg,
    b: Reg,
    epi: Option<&Fused>,
    ctx: &BlockContext,
) -> (Vec<Panel>, String) {
    let kt = p.ty(a).n_tiles().cols;
    let pa = panel(p, "a", a, (ctx.i, ctx.i + 1), (0, kt));
    let pb = panel(p, "b", b, (0, kt), (ctx.j, ctx.j + 1));
    let k = pa.seen().cols;
    let acc = format!("(reduce {k} |k| {} * {})", pa.at("i", "k"), pb.at("k", "j"));
    let mut panels = vec![pa, pb];
    let Some(f) = epi else { return (panels, acc) };
    let (more, leaves) = operand_leaves(p, &f.operands, ctx);
    panels.extend(more);
    let expr = if f.body.acc_uses() > 1 {
        format!(
            "let acc = {acc} in {}",
            texpr::body(&f.body, &|k| leaves[k as usize].clone(), "acc")
        )
    } else {
        texpr::body(&f.body, &|k| leaves[k as usize].clone(), &acc)
    };
    (panels, expr)
}

fn reduce(p: &Program, agg: Agg, axis: SumAxis, x: Reg, ctx: &BlockContext) -> BlockBody {
    let n = p.ty(x).n_tiles();
    let (rows, cols) = match axis {
        SumAxis::Rows => ((ctx.i, ctx.i + 1), (0, n.cols)),
        SumAxis::Cols => ((0, n.rows), (ctx.j, ctx.j + 1)),
        SumAxis::All => ((0, n.rows), (0, n.cols)),
    };
    let pn = panel(p, "x", x, rows, cols);
    let value = partial_value(p, agg, axis, x, &pn, None);
    finish(vec![pn], ctx.dims, &value)
}

/// The TExpr value reducing panel `pn` of `x` along `axis` (the output's
/// column-major elements), combined with `prev` (a partial result of the
/// same shape) when given. A mean's terms are each multiplied by `1 /
/// count` of the whole reduction, so that partial means add up (as the
/// `--check` reference computes them, `exec::reference`).
fn partial_value(
    p: &Program,
    agg: Agg,
    axis: SumAxis,
    x: Reg,
    pn: &Panel,
    prev: Option<&str>,
) -> String {
    let d = pn.seen();
    let shape = p.ty(x).shape;
    let (op, count) = match agg {
        Agg::Sum => ("", 1),
        Agg::Mean => (
            "",
            match axis {
                SumAxis::Rows => shape.cols,
                SumAxis::Cols => shape.rows,
                SumAxis::All => shape.len(),
            },
        ),
        Agg::Max => ("max ", 1),
        Agg::Min => ("min ", 1),
        Agg::Prod => ("* ", 1),
        Agg::Var | Agg::Std => unreachable!("expanded into means by the passes"),
    };
    let leaf = scaled(pn, count);
    let (out, inner) = match axis {
        SumAxis::Rows => (
            format!("compute {} |i|", d.rows),
            format!("reduce {op}{} |j| {leaf}", d.cols),
        ),
        SumAxis::Cols => (
            format!("compute {} |j|", d.cols),
            format!("reduce {op}{} |i| {leaf}", d.rows),
        ),
        SumAxis::All => (
            "compute 1 |o|".to_string(),
            format!("reduce {op}{} |j| reduce {op}{} |i| {leaf}", d.cols, d.rows),
        ),
    };
    let term = format!("({inner})");
    let at = match axis {
        SumAxis::Rows => "i",
        SumAxis::Cols => "j",
        SumAxis::All => "o",
    };
    let value = match (prev, agg) {
        (None, _) => term,
        (Some(q), Agg::Sum | Agg::Mean) => format!("({q}[{at}] + {term})"),
        (Some(q), Agg::Max) => format!("max({q}[{at}], {term})"),
        (Some(q), Agg::Min) => format!("min({q}[{at}], {term})"),
        (Some(q), Agg::Prod) => format!("({q}[{at}] * {term})"),
        (Some(_), Agg::Var | Agg::Std) => unreachable!("expanded into means by the passes"),
    };
    match (axis, prev) {
        // A whole reduction's value is one element: no compute around it.
        (SumAxis::All, None) => inner_all(op, d, pn, count),
        _ => format!("{out} {value}"),
    }
}

/// A whole-matrix reduction of one panel as one element (no partial before it).
fn inner_all(op: &str, d: Dims, pn: &Panel, count: u64) -> String {
    format!(
        "reduce {op}{} |j| reduce {op}{} |i| {}",
        d.cols,
        d.rows,
        scaled(pn, count)
    )
}

/// Element `(i, j)` of the panel, divided by `count` (a mean's term) when above 1.
fn scaled(pn: &Panel, count: u64) -> String {
    if count > 1 {
        format!("({} * {})", pn.at("i", "j"), texpr::lit(1.0 / count as f32))
    } else {
        pn.at("i", "j")
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
    // A max or min rounds nothing; a product's relative errors add up the
    // same in any order: one chain with the partial before is what the
    // `--check` reference bounds.
    let chain = matches!(agg, Agg::Max | Agg::Min | Agg::Prod);
    if chain || axis != SumAxis::All {
        if !accumulate {
            let value = partial_value(p, agg, axis, x, &pn, None);
            return finish(vec![pn], out, &value);
        }
        if chain {
            let value = partial_value(p, agg, axis, x, &pn, Some("p"));
            return finish(vec![prev, pn], out, &value);
        }
    }
    // A sum's tile is reduced into stored values first, then added: the
    // partials are rounded as the `--check` reference models them, never one
    // chain with the partial before. A whole tile's sum stores its column
    // sums first, so no chain is longer than a tile's side.
    let mut lets = Vec::new();
    let tile = if axis == SumAxis::All {
        let count = if agg == Agg::Mean {
            p.ty(x).shape.len()
        } else {
            1
        };
        lets.push(format!(
            "let c: f32[{}] = compute {} |j| reduce {} |i| {}",
            d.cols,
            d.cols,
            d.rows,
            scaled(&pn, count)
        ));
        format!("compute 1 |o| reduce {} |j| c[j]", d.cols)
    } else {
        partial_value(p, agg, axis, x, &pn, None)
    };
    let (inputs, value) = if accumulate {
        lets.push(format!("let t: f32[{}] = {tile}", out.len()));
        let add = format!("compute {} |e| (p[e] + t[e])", out.len());
        (vec![prev, pn], add)
    } else {
        (vec![pn], tile)
    };
    let mut body = finish(inputs, out, &value);
    let at = body.kernel.find("output ").expect("an output");
    body.kernel.insert_str(
        at,
        &lets.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
    body
}
