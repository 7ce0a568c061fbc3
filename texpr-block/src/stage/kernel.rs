//! Block bodies: for one block of one op, the panels it reads and the TExpr kernel that computes the tile.
//!
//! Every kernel writes its tile (`R x C`, column-major) as
//! `output out: f32[R*C] = compute C |j| compute R |i| ...`, so element
//! `(i, j)` lands at `i + j * R`.

use super::body::{BlockBody, BlockContext, Panel};
use super::texpr;
use crate::air::{Bcast, Dims, EExpr, Fused, Op, Operand, Program, Reg, SumAxis};
use std::fmt::Write as _;

/// The body of block `ctx` of op `reg`.
pub fn body(p: &Program, reg: Reg, ctx: &BlockContext) -> BlockBody {
    let (r, c) = (ctx.dims.rows, ctx.dims.cols);
    let (inputs, expr) = match &p.inst(reg).op {
        Op::Input => (vec![], "0.0".to_string()),
        Op::Matmul { a, b, epilogue } => matmul(p, *a, *b, epilogue.as_ref(), ctx),
        Op::Transpose(x) => {
            let panel = tile_panel(p, "x", *x, (ctx.j, ctx.i));
            (vec![panel], format!("x[j + i * {c}]"))
        }
        Op::Slice { src, rows, cols } => {
            let t = p.ty(*src).tile;
            let panel = tile_panel(
                p,
                "x",
                *src,
                (ctx.i + rows.start / t.rows, ctx.j + cols.start / t.cols),
            );
            (vec![panel], format!("x[i + j * {r}]"))
        }
        Op::Sum(axis, x) => return sum(p, *axis, *x, ctx),
        op => elementwise(p, reg, op, ctx),
    };
    finish(
        inputs,
        ctx.dims,
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

/// A panel of tile rows `rows` and tile columns `cols` of `src`.
pub fn panel(p: &Program, name: &str, src: Reg, rows: (u64, u64), cols: (u64, u64)) -> Panel {
    let ty = p.ty(src);
    let extent = |(a, b): (u64, u64), tile: u64, total: u64| (b * tile).min(total) - a * tile;
    let dims = Dims::new(
        extent(rows, ty.tile.rows, ty.shape.rows),
        extent(cols, ty.tile.cols, ty.shape.cols),
    );
    Panel {
        name: name.to_string(),
        src,
        rows,
        cols,
        dims,
    }
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
        let (tile, leaf) = match o.bcast {
            Bcast::Full => ((ctx.i, ctx.j), format!("{name}[i + j * {}]", ctx.dims.rows)),
            Bcast::Row => ((0, ctx.j), format!("{name}[j]")),
            Bcast::Col => ((ctx.i, 0), format!("{name}[i]")),
            Bcast::All => ((0, 0), format!("{name}[0]")),
        };
        panels.push(tile_panel(p, &name, o.reg, tile));
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
    let (r, k) = (ctx.dims.rows, pa.dims.cols);
    let acc = format!("(reduce {k} |k| a[i + k * {r}] * b[k + j * {k}])");
    let mut panels = vec![pa, pb];
    let Some(f) = epi else { return (panels, acc) };
    let (more, leaves) = operand_leaves(p, &f.operands, ctx);
    panels.extend(more);
    let mut uses = 0;
    count_acc(&f.body, &mut uses);
    let expr = if uses > 1 {
        format!(
            "let acc = {acc} in {}",
            texpr::body(&f.body, &|k| leaves[k as usize].clone(), "acc")
        )
    } else {
        texpr::body(&f.body, &|k| leaves[k as usize].clone(), &acc)
    };
    (panels, expr)
}

fn count_acc(e: &EExpr, n: &mut usize) {
    match e {
        EExpr::Acc => *n += 1,
        EExpr::Bin(_, a, b) => {
            count_acc(a, n);
            count_acc(b, n);
        }
        EExpr::Map(_, a) => count_acc(a, n),
        _ => {}
    }
}

fn sum(p: &Program, axis: SumAxis, x: Reg, ctx: &BlockContext) -> BlockBody {
    let n = p.ty(x).n_tiles();
    let (rows, cols) = match axis {
        SumAxis::Rows => ((ctx.i, ctx.i + 1), (0, n.cols)),
        SumAxis::Cols => ((0, n.rows), (ctx.j, ctx.j + 1)),
        SumAxis::All => ((0, n.rows), (0, n.cols)),
    };
    let pn = panel(p, "x", x, rows, cols);
    let (pr, pc) = (pn.dims.rows, pn.dims.cols);
    let value = match axis {
        SumAxis::Rows => format!("compute {pr} |i| reduce {pc} |j| x[i + j * {pr}]"),
        SumAxis::Cols => format!("compute {pc} |j| reduce {pr} |i| x[i + j * {pr}]"),
        SumAxis::All => format!("reduce {pc} |j| reduce {pr} |i| x[i + j * {pr}]"),
    };
    finish(vec![pn], ctx.dims, &value)
}
