//! `--check`'s reference: the block program as one dense TExpr program,
//! evaluated by the interpreter with its running error analysis, so that
//! every element of a distributed result is held to its own error bound
//! (`texpr_interp::accuracy`, as `texprc run --check` does).
//!
//! Every matrix is a column-major vector (element `(i, j)` at `i + j * rows`)
//! and every op one `let` computing it element by element, as the dense CPU
//! reference ([`super::dense`]) does; a reduction's terms are summed in any
//! order the analysis allows, which covers the partials a distributed run
//! combines. A mean's terms are each scaled by `1 / count` (as the block
//! bodies scale them), so partial means add up exactly as the reference's
//! terms do.

use super::dense::Matrix;
use crate::air::{Agg, Bcast, Op, Program, Reg, SumAxis};
use crate::codes;
use crate::stage::linalg::{
    blocked_solve, chain, factor_columns, flip, potrf, reversed, solve_rows,
};
use crate::stage::texpr::{bands as bands_text, body, lit, offset};
use std::fmt::Write as _;
use texpr_interp::Value;
use texpr_interp::accuracy::{Checked, Mismatch, Reference, compare, reference};
use texpr_syntax::Diagnostic;

/// The TExpr name of register `r`.
fn name(r: Reg) -> String {
    format!("r{}", r.0)
}

/// Element `(i, j)` of `x` read as a matrix of `out`'s shape with broadcast `b`.
fn read(p: &Program, x: Reg, b: Bcast) -> String {
    let rows = p.ty(x).shape.rows;
    match b {
        Bcast::Full => format!("{}[i + j * {rows}]", name(x)),
        Bcast::Row => format!("{}[j]", name(x)),
        Bcast::Col => format!("{}[i]", name(x)),
        Bcast::All => format!("{}[0]", name(x)),
    }
}

fn mode(p: &Program, x: Reg, r: Reg) -> Bcast {
    crate::air::typing::broadcast_mode(p.ty(x), p.ty(r)).unwrap_or(Bcast::Full)
}

/// The value of op `r` at element `(i, j)` (index variables `i`, `j`).
fn element(p: &Program, r: Reg) -> String {
    let out = p.ty(r).shape;
    if let Some(g) = crate::air::gather::gather(p, r) {
        let var = match g.axis {
            crate::air::Axis::Rows => "i",
            crate::air::Axis::Cols => "j",
        };
        let bands: Vec<(u64, String)> = g
            .pieces
            .iter()
            .map(|pc| {
                let col = if pc.col_from_row { "i" } else { "j" };
                let read = format!(
                    "{}[{} + {} * {}]",
                    name(pc.part),
                    offset("i", pc.dr),
                    offset(col, pc.dc),
                    p.ty(pc.part).shape.rows
                );
                (pc.hi, read)
            })
            .collect();
        return bands_text(var, &bands);
    }
    match &p.inst(r).op {
        Op::Input | Op::Random(_) => unreachable!("leaves are inputs of the reference"),
        Op::Binary(..)
        | Op::Select(..)
        | Op::Map(..)
        | Op::Scale(..)
        | Op::Fused(_)
        | Op::Broadcast(_) => {
            let f = match &p.inst(r).op {
                Op::Broadcast(x) => crate::air::Fused {
                    operands: vec![crate::air::Operand {
                        reg: *x,
                        bcast: mode(p, *x, r),
                    }],
                    body: crate::air::EExpr::Arg(0),
                },
                _ => crate::passes::fuse_elementwise::as_fused(p, r)
                    .expect("elementwise ops have fused bodies"),
            };
            let leaves: Vec<String> = f.operands.iter().map(|o| read(p, o.reg, o.bcast)).collect();
            body(&f.body, &|k| leaves[k as usize].clone(), "")
        }
        Op::Matmul { a, b, epilogue } => {
            let k = p.ty(*a).shape.cols;
            let acc = format!(
                "(reduce {k} |k| {}[i + k * {}] * {}[k + j * {k}])",
                name(*a),
                out.rows,
                name(*b)
            );
            match epilogue {
                None => acc,
                Some(f) => {
                    let leaves: Vec<String> =
                        f.operands.iter().map(|o| read(p, o.reg, o.bcast)).collect();
                    format!(
                        "let acc = {acc} in {}",
                        body(&f.body, &|k| leaves[k as usize].clone(), "acc")
                    )
                }
            }
        }
        Op::Transpose(x) => format!("{}[j + i * {}]", name(*x), out.cols),
        Op::Concat { .. } | Op::Filter { .. } | Op::Diag(_) => {
            unreachable!("gathers are read through their bands above")
        }
        Op::Cholesky(_) | Op::Solve { .. } => unreachable!("one loop each, `linalg_let`"),
        Op::Slice { src, rows, cols } => format!(
            "{}[(i + {}) + (j + {}) * {}]",
            name(*src),
            rows.start,
            cols.start,
            p.ty(*src).shape.rows
        ),
        Op::Reverse(flip, x) => {
            let a = if flip.rows() && out.rows > 1 {
                format!("({} - i)", out.rows - 1)
            } else if flip.rows() {
                "0".into()
            } else {
                "i".into()
            };
            let b = if flip.cols() && out.cols > 1 {
                format!("({} - j)", out.cols - 1)
            } else if flip.cols() {
                "0".into()
            } else {
                "j".into()
            };
            format!("{}[{a} + {b} * {}]", name(*x), out.rows)
        }
        Op::Reduce(agg, axis, x) => {
            let s = p.ty(*x).shape;
            let (op, count) = match agg {
                Agg::Sum => ("", 1),
                Agg::Max => ("max ", 1),
                Agg::Min => ("min ", 1),
                Agg::Prod => ("* ", 1),
                Agg::Var | Agg::Std => unreachable!("expanded into means first"),
                Agg::Mean => (
                    "",
                    match axis {
                        SumAxis::Rows => s.cols,
                        SumAxis::Cols => s.rows,
                        SumAxis::All => s.len(),
                    },
                ),
            };
            let term = |at: String| {
                let e = format!("{}[{at}]", name(*x));
                if count > 1 {
                    format!("({e} * {})", lit(1.0 / count as f32))
                } else {
                    e
                }
            };
            match axis {
                SumAxis::Rows => format!(
                    "(reduce {op}{} |k| {})",
                    s.cols,
                    term(format!("i + k * {}", s.rows))
                ),
                SumAxis::Cols => format!(
                    "(reduce {op}{} |k| {})",
                    s.rows,
                    term(format!("k + j * {}", s.rows))
                ),
                SumAxis::All => format!(
                    "(reduce {op}{} |q| reduce {op}{} |k| {})",
                    s.cols,
                    s.rows,
                    term(format!("k + q * {}", s.rows))
                ),
            }
        }
    }
}

/// A factorization or solve over whole matrices (the `let`s before it, and
/// its value): the tile tasks' algorithm (`stage::linalg`), a factor by the
/// same blocks of columns, so each element is a sum of the same terms and
/// the bound covers the order the tile tasks add them in.
fn linalg_value(p: &Program, r: Reg) -> (String, String) {
    let at = |x: Reg| {
        let rows = p.ty(x).shape.rows;
        move |i: &str, j: &str| format!("{}[{i} + ({j}) * {rows}]", name(x))
    };
    match p.inst(r).op {
        Op::Cholesky(a) => {
            // The tile tasks' blocks: the full column tiles', then a ragged last one's.
            let ty = p.ty(r);
            let n = ty.shape.rows;
            let parts = factor_columns(n, ty.tile.cols);
            chain(&format!("{}_", name(r)), n * n, &parts, |c, from| {
                potrf(n, c, &at(a), from)
            })
        }
        Op::Solve { tri, rhs, upper } => {
            let s = p.ty(rhs).shape;
            let n = s.rows;
            let t = at(tri);
            let t = reversed(n, upper, &t);
            let b = at(rhs);
            let b = |i: &str, j: &str| b(&flip(n, upper, i), j);
            let parts = solve_rows(n, p.ty(tri).tile.rows, upper);
            let (mut lets, value) =
                chain(&format!("{}_", name(r)), n * s.cols, &parts, |c, from| {
                    blocked_solve(n, s.cols, c, &t, &b, from)
                });
            if !upper {
                return (lets, value);
            }
            // Rows found in reverse, put back in order.
            let x = format!("{}_x", name(r));
            lets.push_str(&format!("let {x}: f32[{}] = {value}\n", n * s.cols));
            let value = format!(
                "compute {} |j| compute {n} |i| {x}[({} - i) + j * {n}]",
                s.cols,
                n - 1
            );
            (lets, value)
        }
        _ => unreachable!("a linear-algebra op"),
    }
}

/// A sum (or mean) as the block layer computes it: each tile of the
/// operand reduced into a stored partial (the tile's part of each row, of
/// each column, or of the whole), then the partials added in any order (a
/// rank adds its own, ranks combine theirs). Elements past a ragged edge
/// count as 0 (exact).
fn tiled_sum(p: &Program, r: Reg, agg: Agg, axis: SumAxis, x: Reg) -> String {
    let ty = p.ty(x);
    let (rows, cols, tr, tc) = (ty.shape.rows, ty.shape.cols, ty.tile.rows, ty.tile.cols);
    let n = ty.n_tiles();
    let count = match (agg, axis) {
        (Agg::Sum, _) => 1,
        (_, SumAxis::Rows) => cols,
        (_, SumAxis::Cols) => rows,
        (_, SumAxis::All) => rows * cols,
    };
    // Element (row, col) of x, 0 past the edges, divided by the count of a mean.
    let term = |row: &str, col: &str| {
        let read = format!("{}[{row} + ({col}) * {rows}]", name(x));
        let mut conds = Vec::new();
        if !rows.is_multiple_of(tr) {
            conds.push(format!("{row} < {rows}"));
        }
        if !cols.is_multiple_of(tc) {
            conds.push(format!("{col} < {cols}"));
        }
        let e = if conds.is_empty() {
            read
        } else {
            format!("select({}, {read} else 0.0, 0.0)", conds.join(" && "))
        };
        if count > 1 {
            format!("({e} * {})", lit(1.0 / count as f32))
        } else {
            e
        }
    };
    let (part, len, value) = match axis {
        SumAxis::Rows => (
            format!(
                "compute {} |t| compute {rows} |i| reduce {tc} |k| {}",
                n.cols,
                term("i", &format!("t * {tc} + k"))
            ),
            rows * n.cols,
            format!(
                "compute 1 |j| compute {rows} |i| reduce {} |t| P[i + t * {rows}]",
                n.cols
            ),
        ),
        SumAxis::Cols => (
            format!(
                "compute {cols} |j| compute {} |t| reduce {tr} |k| {}",
                n.rows,
                term(&format!("t * {tr} + k"), "j")
            ),
            n.rows * cols,
            format!(
                "compute {cols} |j| compute 1 |i| reduce {} |t| P[t + j * {}]",
                n.rows, n.rows
            ),
        ),
        SumAxis::All => {
            // Each tile's column sums (stored), then each tile's sum of them
            // (stored), as a whole-matrix step computes a tile.
            let columns = format!("{}_cols", name(r));
            let col = |c: &str| {
                let read = format!("{columns}[t + ({c}) * {}]", n.rows);
                if cols.is_multiple_of(tc) {
                    read
                } else {
                    format!("select({c} < {cols}, {read} else 0.0, 0.0)")
                }
            };
            let tiles = format!(
                "compute {} |u| compute {} |t| reduce {tc} |k| {}",
                n.cols,
                n.rows,
                col(&format!("u * {tc} + k"))
            );
            let part = format!(
                "compute {cols} |j| compute {} |t| reduce {tr} |k| {}\nlet {}_parts: f32[{}] = {tiles}",
                n.rows,
                term(&format!("t * {tr} + k"), "j"),
                name(r),
                n.rows * n.cols
            );
            return format!(
                "let {columns}: f32[{}] = {part}\nlet {}: f32[1] = compute 1 |j| compute 1 |i| reduce {} |u| reduce {} |t| {}_parts[t + u * {}]\n",
                cols * n.rows,
                name(r),
                n.cols,
                n.rows,
                name(r),
                n.rows
            );
        }
    };
    let partials = format!("{}_parts", name(r));
    format!(
        "let {partials}: f32[{len}] = {part}\nlet {}: f32[{}] = {}\n",
        name(r),
        p.ty(r).shape.len(),
        value.replace("P[", &format!("{partials}[")),
    )
}

/// The dense TExpr program of `p`: its inputs, one `let` per op, the
/// returned matrix as output `out`.
pub fn dense_program(p: &Program) -> String {
    // A variance is what the block layer defines it as: two passes (`passes::stats`).
    let (expanded, _) = crate::passes::stats::expand(p);
    let p = &expanded;
    let mut src = String::new();
    for r in p.regs() {
        let ty = p.ty(r);
        let len = ty.shape.len();
        // A random matrix is an input of the reference too (its values made here).
        if matches!(p.inst(r).op, Op::Input | Op::Random(_)) {
            let _ = writeln!(src, "input {}: f32[{len}]", name(r));
            continue;
        }
        if let Op::Reduce(agg @ (Agg::Sum | Agg::Mean), axis, x) = p.inst(r).op {
            src.push_str(&tiled_sum(p, r, agg, axis, x));
            continue;
        }
        if crate::stage::linalg::is_linalg(p, r) {
            let (lets, value) = linalg_value(p, r);
            src.push_str(&lets);
            let _ = writeln!(src, "let {}: f32[{len}] = {value}", name(r));
            continue;
        }
        let value = format!(
            "compute {} |j| compute {} |i| {}",
            ty.shape.cols,
            ty.shape.rows,
            element(p, r)
        );
        let _ = writeln!(src, "let {}: f32[{len}] = {value}", name(r));
    }
    let _ = writeln!(
        src,
        "output out: f32[{}] = {}",
        p.ty(p.ret).shape.len(),
        name(p.ret)
    );
    src
}

/// The interpreter's value and per-element bound of `p`'s result on `inputs`.
pub fn dense_reference(p: &Program, inputs: &[Matrix]) -> Result<Reference, Diagnostic> {
    let mut refs = evaluate(p, inputs, &dense_program(p))?;
    Ok(refs.remove(0))
}

/// Each tile's part of every sum or mean of `p`, a program without `var`
/// or `std` (what a reduction step adds to its partial: the parts
/// [`tiled_sum`] stores, tile column `t`'s part of row `i` at `i + t *
/// rows`, tile row `t`'s of column `j` at `t + j * tile_rows`, tile `(t,
/// u)`'s sum at `t + u * tile_rows`), each element with its bound.
pub fn dense_parts(p: &Program, inputs: &[Matrix]) -> Result<Vec<(Reg, Reference)>, Diagnostic> {
    let sums: Vec<Reg> = p
        .regs()
        .filter(|&r| matches!(p.inst(r).op, Op::Reduce(Agg::Sum | Agg::Mean, ..)))
        .collect();
    let mut src = dense_program(p);
    for &r in &sums {
        let Op::Reduce(_, axis, x) = p.inst(r).op else {
            unreachable!("a sum")
        };
        let (s, n) = (p.ty(x).shape, p.ty(x).n_tiles());
        let len = match axis {
            SumAxis::Rows => s.rows * n.cols,
            SumAxis::Cols => n.rows * s.cols,
            SumAxis::All => n.rows * n.cols,
        };
        let _ = writeln!(src, "output {0}_part: f32[{len}] = {0}_parts", name(r));
    }
    let mut refs = evaluate(p, inputs, &src)?;
    refs.remove(0);
    Ok(sums.into_iter().zip(refs).collect())
}

/// The outputs of `src`, `p`'s dense program, on `inputs`.
fn evaluate(p: &Program, inputs: &[Matrix], src: &str) -> Result<Vec<Reference>, Diagnostic> {
    super::dense::check_inputs(p, inputs)?;
    let prog = super::runner::check_kernel(src)?;
    // The program `dense_program` wrote: its leaves, in order, are its inputs.
    let (expanded, _) = crate::passes::stats::expand(p);
    let mut given = inputs.iter();
    let values: Vec<Value> = expanded
        .leaves()
        .into_iter()
        .map(|r| match expanded.inst(r).op {
            Op::Random(seed) => {
                let s = expanded.ty(r).shape;
                Value::f32(Matrix::random(s.rows as usize, s.cols as usize, seed).data)
            }
            _ => Value::f32(given.next().expect("checked count").data.clone()),
        })
        .collect();
    reference(&prog, &values).map_err(|e| {
        Diagnostic::error(
            codes::KERNEL_RUN,
            format!("the dense reference failed: {e}"),
        )
    })
}

/// What `--check` found: every element within its own bound, or the worst
/// one that is not.
pub fn check_against(
    p: &Program,
    inputs: &[Matrix],
    got: &Matrix,
) -> Result<Result<Checked, Mismatch>, Diagnostic> {
    let want = dense_reference(p, inputs)?;
    Ok(compare(&p.name, &Value::f32(got.data.clone()), &want))
}
