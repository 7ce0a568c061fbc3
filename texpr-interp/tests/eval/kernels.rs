//! Real kernels (matmul, row softmax) built by hand, checked against plain loops;
//! their size also keeps the interpreter's inner loops allocation-free and fast.

use crate::build::*;
use texpr_interp::{eval, random_inputs};
use texpr_ir::{BinOp, Ty, UnaryOp, VecRef};
use texpr_ir::{ElemTy, ReduceOp, TermOp};

fn row_major(r: texpr_ir::VarId, cols: i64, c: texpr_ir::VarId) -> texpr_ir::Term {
    tb(TermOp::Add, tb(TermOp::Mul, tv(r), tc(cols)), tv(c))
}

#[test]
fn matmul_128_matches_loops() {
    let n = 128u64;
    let mut b = B::new();
    let x = b.input("a", ElemTy::F32, n * n);
    let y = b.input("b", ElemTy::F32, n * n);
    let (i, j, k) = (b.ivar("i", n), b.ivar("j", n), b.ivar("k", n));
    let prod = bin(
        BinOp::Mul,
        b.read(x, row_major(i, n as i64, k)),
        b.read(y, row_major(k, n as i64, j)),
    );
    b.output(
        "c",
        compute(n, i, compute(n, j, reduce(ReduceOp::Add, n, k, prod))),
    );
    let ins = random_inputs(&b.p, 1);
    let out = eval(&b.p, &ins).unwrap();
    let (a, bm, c) = (
        ins[0].as_f32().unwrap(),
        ins[1].as_f32().unwrap(),
        out[0].as_f32().unwrap(),
    );
    let n = n as usize;
    for (ij, &got) in c.iter().enumerate() {
        let (i, j) = (ij / n, ij % n);
        let mut acc = 0.0f32;
        for k in 0..n {
            acc += a[i * n + k] * bm[k * n + j];
        }
        assert_eq!(
            got, acc,
            "c[{i},{j}]: same f32 operations in the same order"
        );
    }
}

#[test]
fn row_softmax_256_matches_loops() {
    let (rows, cols) = (256u64, 256u64);
    let mut b = B::new();
    let x = b.input("x", ElemTy::F32, rows * cols);
    let r = b.ivar("r", rows);
    let (j1, j2, j3) = (b.ivar("j", cols), b.ivar("j", cols), b.ivar("j", cols));
    let m = b.lvar("m", Ty::new(ElemTy::F32, 1));
    let s = b.lvar("s", Ty::new(ElemTy::F32, 1));
    let at = |j| b.read(x, row_major(r, cols as i64, j));
    let shifted = |j| {
        un(
            UnaryOp::Exp,
            bin(BinOp::Sub, at(j), b.whole(VecRef::Local(m))),
        )
    };
    let body = let_in(
        m,
        reduce(ReduceOp::Max, cols, j1, at(j1)),
        let_in(
            s,
            reduce(ReduceOp::Add, cols, j2, shifted(j2)),
            compute(
                cols,
                j3,
                bin(BinOp::Div, shifted(j3), b.whole(VecRef::Local(s))),
            ),
        ),
    );
    b.output("y", compute(rows, r, body));
    let ins = random_inputs(&b.p, 2);
    let out = eval(&b.p, &ins).unwrap();
    let (x, y) = (ins[0].as_f32().unwrap(), out[0].as_f32().unwrap());
    for row in x.chunks(cols as usize).zip(y.chunks(cols as usize)) {
        let m = row.0.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let s: f32 = row.0.iter().map(|&v| (v - m).exp()).sum();
        for (&v, &got) in row.0.iter().zip(row.1) {
            assert_eq!(got, (v - m).exp() / s);
        }
    }
}
