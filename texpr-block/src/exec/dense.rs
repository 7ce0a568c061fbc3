//! The dense CPU reference: evaluates a block program on whole matrices, ignoring tiles.

use crate::air::{Agg, Bcast, BlockTy, EExpr, ElemTy, Fused, Op, Program, Reg, SumAxis};
use crate::codes;
use texpr_ir::Diagnostic;

/// A dense column-major `f32` matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
    /// Element `(i, j)` at `i + j * rows`.
    pub data: Vec<f32>,
}

impl Matrix {
    pub fn zeros(rows: usize, cols: usize) -> Matrix {
        Matrix {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }
    pub fn from_fn(rows: usize, cols: usize, f: impl Fn(usize, usize) -> f32) -> Matrix {
        let mut m = Matrix::zeros(rows, cols);
        for j in 0..cols {
            for i in 0..rows {
                m.data[i + j * rows] = f(i, j);
            }
        }
        m
    }
    pub fn at(&self, i: usize, j: usize) -> f32 {
        self.data[i + j * self.rows]
    }
    /// Element `(i, j)` of the matrix as read with broadcast `b`.
    pub fn read(&self, b: Bcast, i: usize, j: usize) -> f32 {
        match b {
            Bcast::Full => self.at(i, j),
            Bcast::Row => self.at(0, j),
            Bcast::Col => self.at(i, 0),
            Bcast::All => self.at(0, 0),
        }
    }
    /// Deterministic pseudo-random values in `[-1, 1)` from a seed: each
    /// element from its position alone ([`super::random::random_element`]),
    /// so any tile can be made without the rest.
    pub fn random(rows: usize, cols: usize, seed: u64) -> Matrix {
        Matrix::from_fn(rows, cols, |i, j| super::random::random_element(seed, i, j))
    }
}

/// Deterministic inputs for a program (input `k` seeded with `seed + k`).
pub fn random_inputs(p: &Program, seed: u64) -> Vec<Matrix> {
    p.inputs()
        .iter()
        .enumerate()
        .map(|(k, &r)| {
            let s = p.ty(r).shape;
            Matrix::random(s.rows as usize, s.cols as usize, seed + k as u64)
        })
        .collect()
}

/// Checks that `inputs` match the program's inputs (count, sizes, `f32`).
pub fn check_inputs(p: &Program, inputs: &[Matrix]) -> Result<(), Diagnostic> {
    let regs = p.inputs();
    if regs.len() != inputs.len() {
        return Err(Diagnostic::error(
            codes::BAD_INPUT_DATA,
            format!(
                "the program has {} inputs, {} were given",
                regs.len(),
                inputs.len()
            ),
        ));
    }
    for (r, m) in regs.iter().zip(inputs) {
        let ty = p.ty(*r);
        check_f32(ty, p, *r)?;
        let want = (ty.shape.rows as usize, ty.shape.cols as usize);
        if (m.rows, m.cols) != want || m.data.len() != m.rows * m.cols {
            return Err(Diagnostic::error(
                codes::BAD_INPUT_DATA,
                format!(
                    "input %{} is {}x{}, the data is {}x{}",
                    p.inst(*r).name,
                    want.0,
                    want.1,
                    m.rows,
                    m.cols
                ),
            )
            .with_primary(p.inst(*r).span, "declared here"));
        }
    }
    Ok(())
}

fn check_f32(ty: BlockTy, p: &Program, r: Reg) -> Result<(), Diagnostic> {
    if ty.elem == ElemTy::F32 {
        return Ok(());
    }
    Err(Diagnostic::error(
        codes::EXEC_ELEM,
        format!("only f32 block matrices run; %{} is {ty}", p.inst(r).name),
    )
    .with_primary(p.inst(r).span, "here"))
}

/// Evaluates the program densely: the returned matrix.
pub fn eval_dense(p: &Program, inputs: &[Matrix]) -> Result<Matrix, Diagnostic> {
    check_inputs(p, inputs)?;
    let mut vals: Vec<Matrix> = Vec::with_capacity(p.insts.len());
    let mut next_input = inputs.iter();
    for r in p.regs() {
        check_f32(p.ty(r), p, r)?;
        let v = match &p.inst(r).op {
            Op::Input => next_input.next().expect("checked count").clone(),
            Op::Random(seed) => {
                let s = p.ty(r).shape;
                Matrix::random(s.rows as usize, s.cols as usize, *seed)
            }
            op => eval_op(p, r, op, &vals),
        };
        vals.push(v);
    }
    Ok(vals.swap_remove(p.ret.index()))
}

fn eval_op(p: &Program, r: Reg, op: &Op, vals: &[Matrix]) -> Matrix {
    let s = p.ty(r).shape;
    let (m, n) = (s.rows as usize, s.cols as usize);
    let v = |x: &Reg| &vals[x.index()];
    let mode =
        |x: &Reg| crate::air::typing::broadcast_mode(p.ty(*x), p.ty(r)).unwrap_or(Bcast::Full);
    if let Some(g) = crate::air::gather::gather(p, r) {
        return Matrix::from_fn(m, n, |i, j| {
            let pc = g.piece_at(i as u64, j as u64);
            let (si, sj) = pc.source(i as u64, j as u64);
            v(&pc.part).at(si as usize, sj as usize)
        });
    }
    match op {
        Op::Input | Op::Random(_) => unreachable!("leaves are bound by eval_dense"),
        Op::Binary(b, x, y) => Matrix::from_fn(m, n, |i, j| {
            b.apply(v(x).read(mode(x), i, j), v(y).read(mode(y), i, j))
        }),
        Op::Select(c, x, y) => Matrix::from_fn(m, n, |i, j| {
            if v(c).read(mode(c), i, j) != 0.0 {
                v(x).read(mode(x), i, j)
            } else {
                v(y).read(mode(y), i, j)
            }
        }),
        Op::Scale(x, c) => Matrix::from_fn(m, n, |i, j| v(x).at(i, j) * c),
        Op::Map(f, x) => Matrix::from_fn(m, n, |i, j| f.apply(v(x).at(i, j))),
        Op::Broadcast(x) => Matrix::from_fn(m, n, |i, j| v(x).read(mode(x), i, j)),
        Op::Transpose(x) => Matrix::from_fn(m, n, |i, j| v(x).at(j, i)),
        Op::Concat { .. } | Op::Filter { .. } | Op::Diag(_) => {
            unreachable!("gathers are read through their bands above")
        }
        Op::Slice { src, rows, cols } => Matrix::from_fn(m, n, |i, j| {
            v(src).at(i + rows.start as usize, j + cols.start as usize)
        }),
        Op::Reduce(agg, axis, x) => reduce(v(x), *agg, *axis),
        Op::Cholesky(x) => cholesky(v(x)),
        Op::Solve { tri, rhs, upper } => solve(v(tri), v(rhs), *upper),
        Op::Reverse(flip, x) => Matrix::from_fn(m, n, |i, j| {
            let a = if flip.rows() { m - 1 - i } else { i };
            let b = if flip.cols() { n - 1 - j } else { j };
            v(x).at(a, b)
        }),
        Op::Fused(f) => Matrix::from_fn(m, n, |i, j| fused_at(f, vals, i, j, 0.0)),
        Op::Matmul { a, b, epilogue } => {
            let prod = matmul(v(a), v(b));
            match epilogue {
                None => prod,
                Some(f) => Matrix::from_fn(m, n, |i, j| fused_at(f, vals, i, j, prod.at(i, j))),
            }
        }
    }
}

/// A fused body at element `(i, j)`.
pub fn fused_at(f: &Fused, vals: &[Matrix], i: usize, j: usize, acc: f32) -> f32 {
    let arg = |k: u32| {
        let o = f.operands[k as usize];
        vals[o.reg.index()].read(o.bcast, i, j)
    };
    eval_body(&f.body, &arg, acc)
}

fn eval_body(e: &EExpr, arg: &impl Fn(u32) -> f32, acc: f32) -> f32 {
    e.eval(arg, acc)
}

pub fn matmul(a: &Matrix, b: &Matrix) -> Matrix {
    let mut c = Matrix::zeros(a.rows, b.cols);
    for j in 0..b.cols {
        for k in 0..a.cols {
            let bkj = b.at(k, j);
            for i in 0..a.rows {
                c.data[i + j * a.rows] += a.at(i, k) * bkj;
            }
        }
    }
    c
}

/// A reduction in order (a mean: the sum divided by the count; `--check`'s
/// reference, `exec::reference`, sums terms divided by the count instead; a
/// variance: the mean of the squared deviations from the mean, in `f64`).
fn reduce(x: &Matrix, agg: Agg, axis: SumAxis) -> Matrix {
    let fold = |values: &mut dyn Iterator<Item = f32>| -> f32 {
        let v: Vec<f32> = values.collect();
        let n = v.len() as f64;
        let mean = || v.iter().map(|&a| f64::from(a)).sum::<f64>() / n;
        let var = || {
            let m = mean();
            v.iter().map(|&a| (f64::from(a) - m).powi(2)).sum::<f64>() / n
        };
        match agg {
            Agg::Mean => v.iter().fold(0.0f32, |a, &b| a + b) / v.len() as f32,
            Agg::Var => var() as f32,
            Agg::Std => var().sqrt() as f32,
            _ => v[1..].iter().fold(v[0], |a, &b| agg.combine(a, b)),
        }
    };
    match axis {
        SumAxis::Rows => {
            Matrix::from_fn(x.rows, 1, |i, _| fold(&mut (0..x.cols).map(|j| x.at(i, j))))
        }
        SumAxis::Cols => {
            Matrix::from_fn(1, x.cols, |_, j| fold(&mut (0..x.rows).map(|i| x.at(i, j))))
        }
        SumAxis::All => Matrix::from_fn(1, 1, |_, _| fold(&mut x.data.iter().copied())),
    }
}

/// The largest difference between two matrices relative to `1 + |expected|`;
/// `None` when the shapes differ.
pub fn max_rel_diff(expected: &Matrix, actual: &Matrix) -> Option<f32> {
    if (expected.rows, expected.cols) != (actual.rows, actual.cols) {
        return None;
    }
    let d = expected.data.iter().zip(&actual.data).map(|(e, a)| {
        let d = (e - a).abs() / (1.0 + e.abs());
        if d.is_nan() && !(e.is_nan() && a.is_nan()) {
            f32::INFINITY
        } else if d.is_nan() {
            0.0
        } else {
            d
        }
    });
    Some(d.fold(0.0, f32::max))
}

// `cholesky` and `solve_*`: the textbook algorithms on whole matrices, in
// `f32` (what a program means; `--check` holds a run to the interpreter's
// bounds instead, `super::reference`).

/// The lower Cholesky factor of `a` (left-looking), reading `a`'s lower
/// triangle only; zero above the diagonal. A non-positive pivot gives NaN
/// (the square root of a negative number), as on every device.
pub fn cholesky(a: &Matrix) -> Matrix {
    let n = a.rows;
    let mut l = Matrix::zeros(n, n);
    for k in 0..n {
        let mut d = a.at(k, k);
        for p in 0..k {
            d -= l.at(k, p) * l.at(k, p);
        }
        let d = d.sqrt();
        l.data[k + k * n] = d;
        for i in k + 1..n {
            let mut s = a.at(i, k);
            for p in 0..k {
                s -= l.at(i, p) * l.at(k, p);
            }
            l.data[i + k * n] = s / d;
        }
    }
    l
}

/// `X` solving `T X = B` by substitution, reading `t` below (or, when
/// `upper`, above) and on its diagonal.
pub fn solve(t: &Matrix, b: &Matrix, upper: bool) -> Matrix {
    let n = t.rows;
    let mut x = Matrix::zeros(n, b.cols);
    let rows: Vec<usize> = if upper {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    for c in 0..b.cols {
        for (s, &i) in rows.iter().enumerate() {
            let mut v = b.at(i, c);
            for &p in &rows[..s] {
                v -= t.at(i, p) * x.at(p, c);
            }
            x.data[i + c * n] = v / t.at(i, i);
        }
    }
    x
}
