//! `--check`'s reference: the block program as one dense TExpr program
//! (built as IR, with the block bodies' builders), evaluated by the interpreter with its running error analysis, so that
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
use crate::stage::build::{
    Bind, Body, and, at, bin, cm, int, lit, mul, read, read_else, select, tadd, tc, tmul, tsub, tv,
};
use crate::stage::expr::{Band, bands, body};
use crate::stage::linalg::{
    Columns, blocked_solve, chain, factor_columns, flip, potrf, reversed, solve_rows,
};
use texpr_interp::Value;
use texpr_interp::accuracy::{Checked, Mismatch, Reference, compare, reference};
use texpr_ir::Diagnostic;
use texpr_ir::{self as ir, BinOp, Expr, ReduceOp, Term, VarId, VecRef};

/// The TExpr name of register `r`.
fn name(r: Reg) -> String {
    format!("r{}", r.0)
}

/// The program being built: its vector of each register made so far.
struct Dense<'p> {
    p: &'p Program,
    s: Body,
    vecs: Vec<Option<VecRef>>,
}

impl Dense<'_> {
    fn vec(&self, r: Reg) -> VecRef {
        self.vecs[r.0 as usize].expect("an operand is made before its uses")
    }

    /// Element `(i, j)` of `x` read as a matrix of `out`'s shape with broadcast `b`.
    fn read(&self, x: Reg, b: Bcast, (i, j): (VarId, VarId)) -> Expr {
        let rows = self.p.ty(x).shape.rows;
        let v = self.vec(x);
        match b {
            Bcast::Full => read(v, cm(tv(i), tv(j), rows)),
            Bcast::Row => read(v, tv(j)),
            Bcast::Col => read(v, tv(i)),
            Bcast::All => read(v, tc(0)),
        }
    }

    /// Element `(row, col)` of `x`, column-major.
    fn at(&self, x: Reg) -> impl Fn(Term, Term) -> Expr + use<> {
        let (v, rows) = (self.vec(x), self.p.ty(x).shape.rows);
        move |i: Term, j: Term| read(v, cm(i, j, rows))
    }
}

fn mode(p: &Program, x: Reg, r: Reg) -> Bcast {
    crate::air::typing::broadcast_mode(p.ty(x), p.ty(r)).unwrap_or(Bcast::Full)
}

/// The fold of a reduction's aggregation and how many terms a mean divides by.
fn fold(agg: Agg, axis: SumAxis, s: crate::air::Dims) -> (ReduceOp, u64) {
    match agg {
        Agg::Sum => (ReduceOp::Add, 1),
        Agg::Max => (ReduceOp::Max, 1),
        Agg::Min => (ReduceOp::Min, 1),
        Agg::Prod => (ReduceOp::Mul, 1),
        Agg::Var | Agg::Std => unreachable!("expanded into means first"),
        Agg::Mean => (
            ReduceOp::Add,
            match axis {
                SumAxis::Rows => s.cols,
                SumAxis::Cols => s.rows,
                SumAxis::All => s.len(),
            },
        ),
    }
}

/// `e`, times `1 / count` when above 1 (a mean's term).
fn scaled(e: Expr, count: u64) -> Expr {
    if count > 1 {
        mul(e, lit(1.0 / count as f32))
    } else {
        e
    }
}

/// The value of op `r` at element `(i, j)`.
fn element(d: &mut Dense, r: Reg, (i, j): (VarId, VarId)) -> Expr {
    let p = d.p;
    let out = p.ty(r).shape;
    if let Some(g) = crate::air::gather::gather(p, r) {
        let var = match g.axis {
            crate::air::Axis::Rows => i,
            crate::air::Axis::Cols => j,
        };
        let reads: Vec<Band> = g
            .pieces
            .iter()
            .map(|pc| {
                let col = if pc.col_from_row { i } else { j };
                let index = cm(
                    crate::stage::build::offset(tv(i), pc.dr),
                    crate::stage::build::offset(tv(col), pc.dc),
                    p.ty(pc.part).shape.rows,
                );
                Band {
                    hi: pc.hi,
                    vec: d.vec(pc.part),
                    index,
                }
            })
            .collect();
        return bands(var, &reads);
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
            let leaves: Vec<Expr> = f
                .operands
                .iter()
                .map(|o| d.read(o.reg, o.bcast, (i, j)))
                .collect();
            body(&f.body, &leaves, None)
        }
        Op::Matmul { a, b, epilogue } => {
            let k = p.ty(*a).shape.cols;
            let (va, vb) = (d.vec(*a), d.vec(*b));
            let acc = d.s.reduce(ReduceOp::Add, k, "k", |_, kv| {
                mul(
                    read(va, cm(tv(i), tv(kv), out.rows)),
                    read(vb, cm(tv(kv), tv(j), k)),
                )
            });
            match epilogue {
                None => acc,
                Some(f) => {
                    let leaves: Vec<Expr> = f
                        .operands
                        .iter()
                        .map(|o| d.read(o.reg, o.bcast, (i, j)))
                        .collect();
                    d.s.let_in("acc", acc, |_, acc| body(&f.body, &leaves, Some(&acc)))
                }
            }
        }
        Op::Transpose(x) => read(d.vec(*x), cm(tv(j), tv(i), out.cols)),
        Op::Concat { .. } | Op::Filter { .. } | Op::Diag(_) => {
            unreachable!("gathers are read through their bands above")
        }
        Op::Cholesky(_) | Op::Solve { .. } => unreachable!("one loop each, `linalg_value`"),
        Op::Slice { src, rows, cols } => {
            let row = tadd(tv(i), tc(rows.start as i64));
            let col = tadd(tv(j), tc(cols.start as i64));
            read(d.vec(*src), cm(row, col, p.ty(*src).shape.rows))
        }
        Op::Reverse(flip, x) => {
            let end = |on: bool, v: VarId, n: u64| match (on, n > 1) {
                (true, true) => tsub(tc(n as i64 - 1), tv(v)),
                (true, false) => tc(0),
                (false, _) => tv(v),
            };
            let a = end(flip.rows(), i, out.rows);
            let b = end(flip.cols(), j, out.cols);
            read(d.vec(*x), cm(a, b, out.rows))
        }
        Op::Reduce(agg, axis, x) => {
            let sh = p.ty(*x).shape;
            let (op, count) = fold(*agg, *axis, sh);
            let v = d.vec(*x);
            let term = |row: Term, col: Term| scaled(read(v, cm(row, col, sh.rows)), count);
            match axis {
                SumAxis::Rows => d.s.reduce(op, sh.cols, "k", |_, k| term(tv(i), tv(k))),
                SumAxis::Cols => d.s.reduce(op, sh.rows, "k", |_, k| term(tv(k), tv(j))),
                SumAxis::All => d.s.reduce(op, sh.cols, "q", |s, q| {
                    s.reduce(op, sh.rows, "k", |_, k| term(tv(k), tv(q)))
                }),
            }
        }
    }
}
/// A factorization or solve over whole matrices, bound to its register's
/// name: the tile tasks' algorithm (`stage::linalg`), a factor by the same
/// blocks of columns, so each element is a sum of the same terms and the
/// bound covers the order the tile tasks add them in.
fn linalg_value(d: &mut Dense, r: Reg) -> VecRef {
    let p = d.p;
    let own = name(r);
    let prefix = format!("{own}_");
    match p.inst(r).op {
        Op::Cholesky(a) => {
            // The tile tasks' blocks: the full column tiles', then a ragged last one's.
            let ty = p.ty(r);
            let n = ty.shape.rows;
            let parts = factor_columns(n, ty.tile.cols);
            let a = d.at(a);
            chain(
                &mut d.s,
                &prefix,
                n * n,
                &parts,
                Bind::Let(&own),
                |s, c, from, bind| potrf(s, n, c, &a, from, bind),
            )
            .expect("a factor has columns")
        }
        Op::Solve { tri, rhs, upper } => {
            let sh = p.ty(rhs).shape;
            let n = sh.rows;
            let t = d.at(tri);
            let t = reversed(n, upper, &t);
            let b = d.at(rhs);
            let b = |i: Term, j: Term| b(flip(n, upper, i), j);
            let parts = solve_rows(n, p.ty(tri).tile.rows, upper);
            let solved = if upper {
                format!("{own}_x")
            } else {
                own.clone()
            };
            let step = |s: &mut Body, c: Columns, from: Expr, bind: Bind| {
                blocked_solve(s, (n, sh.cols), c, &t, &b, from, bind)
            };
            let x = chain(
                &mut d.s,
                &prefix,
                n * sh.cols,
                &parts,
                Bind::Let(&solved),
                step,
            )
            .expect("a solve has rows");
            if !upper {
                return x;
            }
            // Rows found in reverse, put back in order.
            let value = d.s.tile((n, sh.cols), |_, i, j| {
                read(x, cm(tsub(tc(n as i64 - 1), tv(i)), tv(j), n))
            });
            d.s.global(&own, value)
        }
        _ => unreachable!("a linear-algebra op"),
    }
}

/// An index as an index term and as a value: `v` or `a * m + v`.
fn index(a: Option<(VarId, u64)>, v: VarId) -> (Term, Expr) {
    match a {
        None => (tv(v), at(v)),
        Some((a, m)) => (
            tadd(tmul(tv(a), tc(m as i64)), tv(v)),
            bin(BinOp::Add, mul(at(a), int(m)), at(v)),
        ),
    }
}

/// A sum (or mean) as the block layer computes it: each tile of the
/// operand reduced into a stored partial (the tile's part of each row, of
/// each column, or of the whole), then the partials added in any order (a
/// rank adds its own, ranks combine theirs). Elements past a ragged edge
/// count as 0 (exact).
fn tiled_sum(d: &mut Dense, r: Reg, agg: Agg, axis: SumAxis, x: Reg) -> VecRef {
    let p = d.p;
    let ty = p.ty(x);
    let (rows, cols, tr, tc_) = (ty.shape.rows, ty.shape.cols, ty.tile.rows, ty.tile.cols);
    let n = ty.n_tiles();
    let count = match (agg, axis) {
        (Agg::Sum, _) => 1,
        (_, SumAxis::Rows) => cols,
        (_, SumAxis::Cols) => rows,
        (_, SumAxis::All) => rows * cols,
    };
    let v = d.vec(x);
    // Element (row, col) of x, 0 past the edges, divided by the count of a mean.
    let term = |(row, rowv): (Term, Expr), (col, colv): (Term, Expr)| {
        let read_at = |f: fn(VecRef, Term) -> Expr| f(v, cm(row.clone(), col.clone(), rows));
        let mut conds = Vec::new();
        if !rows.is_multiple_of(tr) {
            conds.push(bin(BinOp::Lt, rowv, int(rows)));
        }
        if !cols.is_multiple_of(tc_) {
            conds.push(bin(BinOp::Lt, colv, int(cols)));
        }
        let e = match conds.into_iter().reduce(and) {
            None => read_at(read),
            Some(cond) => select(cond, read_at(read_else), lit(0.0)),
        };
        scaled(e, count)
    };
    let own = name(r);
    let parts = format!("{own}_parts");
    let s = &mut d.s;
    match axis {
        SumAxis::Rows => {
            let part = s.compute(n.cols, "t", |s, t| {
                s.compute(rows, "i", |s, i| {
                    s.reduce(ReduceOp::Add, tc_, "k", |_, k| {
                        term(index(None, i), index(Some((t, tc_)), k))
                    })
                })
            });
            let pv = s.global(&parts, part);
            let value = s.tile((rows, 1), |s, i, _| {
                s.reduce(ReduceOp::Add, n.cols, "t", |_, t| {
                    read(pv, cm(tv(i), tv(t), rows))
                })
            });
            s.global(&own, value)
        }
        SumAxis::Cols => {
            let part = s.compute(cols, "j", |s, j| {
                s.compute(n.rows, "t", |s, t| {
                    s.reduce(ReduceOp::Add, tr, "k", |_, k| {
                        term(index(Some((t, tr)), k), index(None, j))
                    })
                })
            });
            let pv = s.global(&parts, part);
            let value = s.tile((1, cols), |s, _, j| {
                s.reduce(ReduceOp::Add, n.rows, "t", |_, t| {
                    read(pv, cm(tv(t), tv(j), n.rows))
                })
            });
            s.global(&own, value)
        }
        SumAxis::All => {
            // Each tile's column sums (stored), then each tile's sum of them
            // (stored), as a whole-matrix step computes a tile.
            let sums = s.compute(cols, "j", |s, j| {
                s.compute(n.rows, "t", |s, t| {
                    s.reduce(ReduceOp::Add, tr, "k", |_, k| {
                        term(index(Some((t, tr)), k), index(None, j))
                    })
                })
            });
            let columns = s.global(&format!("{own}_cols"), sums);
            let tiles = s.compute(n.cols, "u", |s, u| {
                s.compute(n.rows, "t", |s, t| {
                    s.reduce(ReduceOp::Add, tc_, "k", |_, k| {
                        let (c, cv) = index(Some((u, tc_)), k);
                        let at = tadd(tv(t), tmul(c, tc(n.rows as i64)));
                        if cols.is_multiple_of(tc_) {
                            read(columns, at)
                        } else {
                            select(
                                bin(BinOp::Lt, cv, int(cols)),
                                read_else(columns, at),
                                lit(0.0),
                            )
                        }
                    })
                })
            });
            let pv = s.global(&parts, tiles);
            let whole = s.tile((1, 1), |s, _, _| {
                s.reduce(ReduceOp::Add, n.cols, "u", |s, u| {
                    s.reduce(ReduceOp::Add, n.rows, "t", |_, t| {
                        read(pv, cm(tv(t), tv(u), n.rows))
                    })
                })
            });
            s.global(&own, whole)
        }
    }
}

/// The dense TExpr program of `p`: its inputs, one `let` per op, the
/// returned matrix as output `out`.
pub fn dense_program(p: &Program) -> ir::Program {
    // A variance is what the block layer defines it as: two passes (`passes::stats`).
    let (expanded, _) = crate::passes::stats::expand(p);
    let p = &expanded;
    let mut d = Dense {
        p,
        s: Body::default(),
        vecs: vec![None; p.insts.len()],
    };
    for r in p.regs() {
        let ty = p.ty(r);
        let v = match p.inst(r).op {
            // A random matrix is an input of the reference too (its values made here).
            Op::Input | Op::Random(_) => d.s.input(&name(r), ty.shape.len()),
            Op::Reduce(agg @ (Agg::Sum | Agg::Mean), axis, x) => tiled_sum(&mut d, r, agg, axis, x),
            _ if crate::stage::linalg::is_linalg(p, r) => linalg_value(&mut d, r),
            _ => {
                let ij = d.s.tile_vars(ty.shape);
                let value = element(&mut d, r, ij);
                let value = d.s.tile_of(ty.shape, ij, value);
                d.s.global(&name(r), value)
            }
        };
        d.vecs[r.0 as usize] = Some(v);
    }
    let ret = d.s.whole(d.vec(p.ret));
    d.s.bind(Bind::Output("out"), ret);
    d.s.finish()
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
    let mut prog = dense_program(p);
    for &r in &sums {
        let parts = format!("{}_parts", name(r));
        let k = (prog.globals.iter().position(|g| g.name == parts))
            .expect("the dense program stores each sum's parts");
        let whole = ir::build::whole(&prog, VecRef::Global(k as u32));
        ir::build::output(&mut prog, &format!("{}_part", name(r)), whole);
    }
    let mut refs = evaluate(p, inputs, &prog)?;
    refs.remove(0);
    Ok(sums.into_iter().zip(refs).collect())
}

/// The outputs of `prog`, `p`'s dense program, on `inputs`.
fn evaluate(
    p: &Program,
    inputs: &[Matrix],
    prog: &ir::Program,
) -> Result<Vec<Reference>, Diagnostic> {
    super::dense::check_inputs(p, inputs)?;
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
    reference(prog, &values).map_err(|e| {
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
