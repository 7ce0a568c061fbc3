//! Factorizations and solves over tiles: the tasks of `cholesky` and
//! `solve_lower`/`solve_upper`, and each task's tile kernel as TExpr.
//!
//! `cholesky` is the right-looking tile algorithm (LAPACK's `potrf` by
//! tiles, as DLA-Future and SLATE run it): step `k` factors the diagonal
//! tile (`potrf`), solves the tiles below it with that factor (`trsm`), and
//! subtracts the outer products of their column from the trailing lower
//! triangle (`update k`: `syrk` on the diagonal, `gemm` below it). A solve
//! substitutes tile row by tile row (`trsv`, many right-hand sides), each
//! row's solution eliminated from the rows after it (`eliminate k`).
//!
//! Every kernel computes each element as the dense reference
//! ([`crate::exec::reference`]) does, up to the order of its sums: the
//! reference finds the factor by the same blocks of columns as the tile
//! kernels ([`blocks`]), and a factor element is a sum of the same terms,
//! which the tile algorithm adds in another order (the trailing updates
//! first, then the tile's own). A tile between two steps
//! is its own value (a Partial of the graph); only finished tiles of the
//! result are read by other tasks.

use super::body::{BlockBody, Panel};
use super::build::{Bind, Body, cm, lit, mul, read, sub, tv};
use super::kernel::{finish_with, input, panel, tile_body};
use crate::air::{Op, Program, Reg};
use std::fmt;
use texpr_ir::{ReduceOp, Term};

mod blocks;
mod factor;
mod solve;
pub use blocks::{Columns, factor_columns, solve_rows};
pub use factor::{At, chain, potrf, potrf_tile};
pub use solve::{blocked_solve, flip, reversed, trsm, trsv};

/// What one task of a factorization or solve computes on its tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TileStep {
    /// The diagonal tile `(k, k)` factored: `L(k, k)`.
    Potrf,
    /// Tile `(i, k)` below the diagonal: `A(i, k) L(k, k)^-T`, which is `L(i, k)`.
    Trsm,
    /// Tile `(i, j)` minus `L(i, k) L(j, k)^T` (`syrk` when `i == j`).
    Update(u64),
    /// A tile of `L` above its diagonal: zeros.
    Zero,
    /// Tile row `k` of the solution: `T(k, k)^-1` times what is left of
    /// the right-hand side's tile `(k, c)`.
    Trsv,
    /// Tile `(i, c)` of the right-hand side minus `T(i, k) X(k, c)`.
    Eliminate(u64),
}

impl TileStep {
    /// Whether the task makes the tile of the result (else the tile's next version).
    pub fn is_final(self) -> bool {
        !matches!(self, TileStep::Update(_) | TileStep::Eliminate(_))
    }
}

impl fmt::Display for TileStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileStep::Potrf => write!(f, "potrf"),
            TileStep::Trsm => write!(f, "trsm"),
            TileStep::Update(k) => write!(f, "update k={k}"),
            TileStep::Zero => write!(f, "zero"),
            TileStep::Trsv => write!(f, "trsv"),
            TileStep::Eliminate(k) => write!(f, "eliminate k={k}"),
        }
    }
}

/// One task: a step on one tile of the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Task {
    pub tile: (u64, u64),
    pub step: TileStep,
}

/// A task's kernel: its body (inputs in order: the tile's version before
/// the task as `c` when `version`, then the panels) and its flops.
#[derive(Clone, Debug, PartialEq)]
pub struct LinalgBody {
    pub body: BlockBody,
    pub version: bool,
    pub flops: u64,
}

/// Whether `r` is computed by tile tasks.
pub fn is_linalg(p: &Program, r: Reg) -> bool {
    matches!(p.inst(r).op, Op::Cholesky(_) | Op::Solve { .. })
}

/// The order a solve visits tile rows: down for a lower, up for an upper one.
fn row_order(n: u64, upper: bool) -> Vec<u64> {
    if upper {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    }
}

/// Every task of op `r`, each after the tasks whose results it reads.
pub fn tasks(p: &Program, r: Reg) -> Vec<Task> {
    let n = p.ty(r).n_tiles();
    let mut out = Vec::new();
    let mut push = |tile, step| out.push(Task { tile, step });
    match p.inst(r).op {
        Op::Cholesky(_) => {
            for k in 0..n.rows {
                push((k, k), TileStep::Potrf);
                for i in k + 1..n.rows {
                    push((i, k), TileStep::Trsm);
                }
                for j in k + 1..n.rows {
                    for i in j..n.rows {
                        push((i, j), TileStep::Update(k));
                    }
                }
            }
            for j in 1..n.cols {
                for i in 0..j {
                    push((i, j), TileStep::Zero);
                }
            }
        }
        Op::Solve { upper, .. } => {
            let order = row_order(n.rows, upper);
            for (s, &k) in order.iter().enumerate() {
                for c in 0..n.cols {
                    push((k, c), TileStep::Trsv);
                }
                for &i in &order[s + 1..] {
                    for c in 0..n.cols {
                        push((i, c), TileStep::Eliminate(k));
                    }
                }
            }
        }
        _ => unreachable!("a linear-algebra op"),
    }
    out
}

/// The task that makes tile `tile` of `r` (its last).
pub fn final_step(p: &Program, r: Reg, (i, j): (u64, u64)) -> TileStep {
    match p.inst(r).op {
        Op::Cholesky(_) if i == j => TileStep::Potrf,
        Op::Cholesky(_) if i > j => TileStep::Trsm,
        Op::Cholesky(_) => TileStep::Zero,
        _ => TileStep::Trsv,
    }
}

/// The kernel of task `step` on tile `tile` of `r`.
pub fn body(p: &Program, r: Reg, tile: (u64, u64), step: TileStep) -> LinalgBody {
    let (i, j) = tile;
    let dims = p.ty(r).tile_dims(i, j);
    let (m, cols) = (dims.rows, dims.cols);
    let (operand, tri, upper) = match p.inst(r).op {
        Op::Cholesky(a) => (a, a, false),
        Op::Solve { tri, rhs, upper } => (rhs, tri, upper),
        _ => unreachable!("a linear-algebra op"),
    };
    let last = p.ty(tri).n_tiles().rows - 1;
    // The step of the task's elimination (or factorization) column.
    let k = match step {
        TileStep::Update(k) | TileStep::Eliminate(k) => k,
        TileStep::Trsv => i,
        _ => j,
    };
    let version = step != TileStep::Zero && if upper { k < last } else { k > 0 };
    let mut s = Body::default();
    if step == TileStep::Zero {
        let ij = s.tile_vars(dims);
        return LinalgBody {
            body: tile_body(s, vec![], dims, ij, lit(0.0)),
            version,
            flops: 0,
        };
    }
    // The tile before the task is input 0: the version (`c`), or the
    // operand's tile (the first panel, read through its map).
    let mut inputs: Vec<Panel> = Vec::new();
    if !version {
        inputs.push(panel(p, "c", operand, (i, i + 1), (j, j + 1)));
    }
    let cur = |row: Term, col: Term| match inputs.first() {
        Some(pn) => pn.at(input(0), row, col),
        None => read(input(0), cm(row, col, m)),
    };
    // Panels after the tile before the task: inputs 1, 2.
    let (more, flops) = match step {
        TileStep::Zero => unreachable!("made above"),
        TileStep::Potrf => {
            potrf_tile(&mut s, m, &cur, Bind::Output("out"));
            (vec![], m * m * m / 3)
        }
        TileStep::Trsm => {
            let l = panel(p, "l", r, (j, j + 1), (j, j + 1));
            let value = trsm(&mut s, m, cols, &cur, &|a, b| l.at(input(1), a, b));
            s.bind(Bind::Output("out"), value);
            (vec![l], m * cols * cols)
        }
        TileStep::Update(k) => {
            let a = panel(p, "a", r, (i, i + 1), (k, k + 1));
            let t = a.seen().cols;
            let b = (i != j).then(|| panel(p, "b", r, (j, j + 1), (k, k + 1)));
            let bt = match &b {
                Some(b) => (b, input(2)),
                None => (&a, input(1)),
            };
            let value = s.tile((m, cols), |s, i, j| {
                let sum = s.reduce(ReduceOp::Add, t, "p", |_, q| {
                    mul(a.at(input(1), tv(i), tv(q)), bt.0.at(bt.1, tv(j), tv(q)))
                });
                sub(cur(tv(i), tv(j)), sum)
            });
            s.bind(Bind::Output("out"), value);
            (
                [Some(a), b].into_iter().flatten().collect(),
                2 * m * cols * t,
            )
        }
        TileStep::Trsv => {
            let t = panel(p, "tri", tri, (i, i + 1), (i, i + 1));
            let value = trsv(&mut s, m, cols, &|a, b| t.at(input(1), a, b), &cur, upper);
            s.bind(Bind::Output("out"), value);
            (vec![t], m * m * cols)
        }
        TileStep::Eliminate(k) => {
            let t = panel(p, "tri", tri, (i, i + 1), (k, k + 1));
            let x = panel(p, "x", r, (k, k + 1), (j, j + 1));
            let depth = t.seen().cols;
            let value = s.tile((m, cols), |s, i, j| {
                let sum = s.reduce(ReduceOp::Add, depth, "p", |_, q| {
                    mul(t.at(input(1), tv(i), tv(q)), x.at(input(2), tv(q), tv(j)))
                });
                sub(cur(tv(i), tv(j)), sum)
            });
            s.bind(Bind::Output("out"), value);
            (vec![t, x], 2 * m * cols * depth)
        }
    };
    inputs.extend(more);
    let lead: &[(&str, u64)] = if version { &[("c", dims.len())] } else { &[] };
    LinalgBody {
        body: finish_with(s, lead, inputs, dims, None),
        version,
        flops,
    }
}
