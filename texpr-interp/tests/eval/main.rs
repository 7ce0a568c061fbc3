//! Whole-program tests of the interpreter on hand-built typed IR.

mod bounds;
mod build;
mod chains;
mod f16;
mod hazards;
mod kernels;
mod lse;
mod select;

use build::*;
use texpr_interp::{EvalError, Value, eval, random_inputs};
use texpr_ir::{BinOp, Func, Scalar, Ty, UnaryOp, VecRef};
use texpr_ir::{ElemTy, ReduceOp, TermOp};

#[test]
fn compute_concatenates_bodies_in_order() {
    let mut b = B::new();
    let (i, j) = (b.ivar("i", 3), b.ivar("j", 2));
    let body = bin(
        BinOp::Add,
        bin(BinOp::Mul, index_var(i), ci(10)),
        index_var(j),
    );
    b.output("out", compute(3, i, compute(2, j, body)));
    let out = eval(&b.p, &[]).unwrap();
    assert_eq!(out, vec![Value::i32(vec![0, 1, 10, 11, 20, 21])]);
}

#[test]
fn index_map_permutes_the_raw_result() {
    let mut b = B::new();
    let (i, k) = (b.ivar("i", 6), b.ivar("k", 6));
    let rev = tb(TermOp::Sub, tc(5), tv(k));
    b.output("out", compute_map(6, i, k, 6, rev, index_var(i)));
    assert_eq!(
        eval(&b.p, &[]).unwrap()[0],
        Value::i32(vec![5, 4, 3, 2, 1, 0])
    );
}

#[test]
fn index_map_with_a_shorter_length_selects() {
    let mut b = B::new();
    let (i, k) = (b.ivar("i", 6), b.ivar("k", 3));
    let even = tb(TermOp::Mul, tc(2), tv(k));
    b.output("out", compute_map(6, i, k, 3, even, index_var(i)));
    assert_eq!(eval(&b.p, &[]).unwrap()[0], Value::i32(vec![0, 2, 4]));
}

#[test]
fn index_map_transposes_a_matrix() {
    // raw is x (2x3, row-major) copied row by row; the map reads it column by column.
    let mut b = B::new();
    let x = b.input("x", ElemTy::F32, 6);
    let (i, j, k) = (b.ivar("i", 2), b.ivar("j", 3), b.ivar("k", 6));
    let at = tb(TermOp::Add, tb(TermOp::Mul, tv(i), tc(3)), tv(j));
    let body = compute(3, j, b.read(x, at));
    // out[k] (3x2: k = c*2 + r) = raw[r*3 + c]
    let r = tb(TermOp::Rem, tv(k), tc(2));
    let c = tb(TermOp::Div, tv(k), tc(2));
    let f = tb(TermOp::Add, tb(TermOp::Mul, r, tc(3)), c);
    b.output("out", compute_map(2, i, k, 6, f, body));
    let input = Value::f32(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let out = eval(&b.p, &[input]).unwrap();
    assert_eq!(out[0], Value::f32(vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]));
}

#[test]
fn index_map_out_of_range_is_an_error() {
    let mut b = B::new();
    let (i, k) = (b.ivar("i", 4), b.ivar("k", 4));
    let f = tb(TermOp::Add, tv(k), tc(1));
    b.output("out", compute_map(4, i, k, 4, f, index_var(i)));
    let err = eval(&b.p, &[]).unwrap_err();
    assert_eq!(
        err,
        EvalError::MapOutOfRange {
            k: 3,
            target: 4,
            raw_len: 4
        }
    );
}

#[test]
fn guarded_reads_pad_out_of_bounds() {
    let mut b = B::new();
    let x = b.input("x", ElemTy::I32, 4);
    let i = b.ivar("i", 6);
    let at = tb(TermOp::Sub, tv(i), tc(1));
    b.output("out", compute(6, i, b.guarded(x, at, Scalar::I32(-9))));
    let out = eval(&b.p, &[Value::i32(vec![1, 2, 3, 4])]).unwrap();
    assert_eq!(out[0], Value::i32(vec![-9, 1, 2, 3, 4, -9]));
}

#[test]
fn unguarded_out_of_bounds_read_is_an_error() {
    let mut b = B::new();
    let x = b.input("x", ElemTy::F32, 2);
    let i = b.ivar("i", 3);
    b.output("out", compute(3, i, b.read(x, tv(i))));
    let err = eval(&b.p, &[Value::f32(vec![1.0, 2.0])]).unwrap_err();
    let want = EvalError::OutOfBounds {
        vec: "x".into(),
        index: 2,
        len: 2,
    };
    assert_eq!(err, want);
}

/// `reduce op 3 |i| x[i]` over a scalar body, and over a length-2 body.
fn reduce_both(op: ReduceOp, x: Value) -> (Value, Value) {
    let elem = x.elem();
    let n = x.len() as u64;
    let mut b = B::new();
    let xv = b.input("x", elem, n);
    let (i, j, k) = (b.ivar("i", n), b.ivar("j", n / 2), b.ivar("k", 2));
    b.output("s", reduce(op, n, i, b.read(xv, tv(i))));
    let at = tb(TermOp::Add, tb(TermOp::Mul, tv(j), tc(2)), tv(k));
    b.output("v", reduce(op, n / 2, j, compute(2, k, b.read(xv, at))));
    let mut out = eval(&b.p, &[x]).unwrap();
    let v = out.pop().unwrap();
    (out.pop().unwrap(), v)
}

#[test]
fn reduce_ops_fold_scalars_and_vectors() {
    let x = || Value::i32(vec![1, 5, -3, 7, 2, 0]);
    assert_eq!(
        reduce_both(ReduceOp::Add, x()),
        (Value::i32(vec![12]), Value::i32(vec![0, 12]))
    );
    assert_eq!(
        reduce_both(ReduceOp::Mul, x()),
        (Value::i32(vec![0]), Value::i32(vec![-6, 0]))
    );
    assert_eq!(
        reduce_both(ReduceOp::Max, x()),
        (Value::i32(vec![7]), Value::i32(vec![2, 7]))
    );
    assert_eq!(
        reduce_both(ReduceOp::Min, x()),
        (Value::i32(vec![-3]), Value::i32(vec![-3, 0]))
    );
    let y = || Value::u32(vec![4, 1, 3, 9]);
    assert_eq!(
        reduce_both(ReduceOp::Max, y()),
        (Value::u32(vec![9]), Value::u32(vec![4, 9]))
    );
    assert_eq!(
        reduce_both(ReduceOp::Min, y()),
        (Value::u32(vec![1]), Value::u32(vec![3, 1]))
    );
    let z = || Value::f32(vec![0.5, -2.0, 4.0, 1.0]);
    assert_eq!(
        reduce_both(ReduceOp::Mul, z()),
        (Value::f32(vec![-4.0]), Value::f32(vec![2.0, -2.0]))
    );
    assert_eq!(
        reduce_both(ReduceOp::Max, z()),
        (Value::f32(vec![4.0]), Value::f32(vec![4.0, 1.0]))
    );
}

#[test]
fn reduce_of_extreme_values_keeps_the_identity_neutral() {
    let x = Value::f32(vec![f32::NEG_INFINITY, f32::NEG_INFINITY]);
    assert_eq!(
        reduce_both(ReduceOp::Max, x).0,
        Value::f32(vec![f32::NEG_INFINITY])
    );
    let y = Value::i32(vec![i32::MIN, i32::MIN]);
    assert_eq!(reduce_both(ReduceOp::Max, y).0, Value::i32(vec![i32::MIN]));
    let z = Value::u32(vec![u32::MAX, u32::MAX]);
    assert_eq!(reduce_both(ReduceOp::Min, z).0, Value::u32(vec![u32::MAX]));
}

#[test]
fn reduce_folds_in_index_order() {
    // ((0 + 1e8) + 1) - 1e8 is 0 in f32; another order would give 1.
    let x = Value::f32(vec![1e8, 1.0, -1e8, 0.0]);
    assert_eq!(reduce_both(ReduceOp::Add, x).0, Value::f32(vec![0.0]));
}

#[test]
fn integer_reduce_wraps() {
    let x = Value::i32(vec![i32::MAX, 1]);
    assert_eq!(reduce_both(ReduceOp::Add, x).0, Value::i32(vec![i32::MIN]));
}

#[test]
fn lets_bind_scalars_and_vectors() {
    let mut b = B::new();
    let x = b.input("x", ElemTy::F32, 3);
    let (i, j) = (b.ivar("i", 3), b.ivar("j", 3));
    let s = b.lvar("s", Ty::new(ElemTy::F32, 1));
    let t = b.lvar("t", Ty::new(ElemTy::F32, 3));
    // let s = reduce 3 |i| x[i] in let t = x * broadcast(s, 3) in compute 3 |j| t[j] + s
    let sum = reduce(ReduceOp::Add, 3, i, b.read(x, tv(i)));
    let scaled = bin(BinOp::Mul, b.whole(x), bcast(b.whole(VecRef::Local(s)), 3));
    let body = compute(
        3,
        j,
        bin(
            BinOp::Add,
            b.read(VecRef::Local(t), tv(j)),
            b.whole(VecRef::Local(s)),
        ),
    );
    b.output("out", let_in(s, sum, let_in(t, scaled, body)));
    let out = eval(&b.p, &[Value::f32(vec![1.0, 2.0, 3.0])]).unwrap();
    assert_eq!(out[0], Value::f32(vec![12.0, 18.0, 24.0]));
}

#[test]
fn globals_are_computed_first_in_order() {
    let mut b = B::new();
    let x = b.input("x", ElemTy::I32, 2);
    let g1 = b.global("g1", bin(BinOp::Mul, b.whole(x), bcast(ci(2), 2)));
    let g2 = b.global("g2", bin(BinOp::Add, b.whole(g1), bcast(ci(1), 2)));
    b.output("a", b.whole(g2));
    b.output("b", b.whole(g1));
    let out = eval(&b.p, &[Value::i32(vec![3, -4])]).unwrap();
    assert_eq!(out, vec![Value::i32(vec![7, -7]), Value::i32(vec![6, -8])]);
}

#[test]
fn elementwise_vectors_casts_and_calls() {
    let mut b = B::new();
    let x = b.input("x", ElemTy::F32, 4);
    let y = b.input("y", ElemTy::F32, 4);
    let cond = bin(BinOp::Lt, b.whole(x), b.whole(y));
    b.output(
        "sel",
        call(Func::Select, vec![cond, b.whole(x), b.whole(y)]),
    );
    b.output("neg", un(UnaryOp::Neg, b.whole(x)));
    b.output("int", cast(ElemTy::I32, b.whole(y)));
    b.output(
        "fma",
        call(
            Func::Fma,
            vec![b.whole(x), b.whole(y), fill(Scalar::F32(1.0), 4)],
        ),
    );
    b.output(
        "lit",
        bin(
            BinOp::Sub,
            veclit(&[Scalar::F32(1.0), Scalar::F32(2.0)]),
            fill(Scalar::F32(0.5), 2),
        ),
    );
    let xs = Value::f32(vec![1.0, 5.0, -2.0, 0.0]);
    let ys = Value::f32(vec![2.5, 3.0, -7.9, 9.0]);
    let out = eval(&b.p, &[xs, ys]).unwrap();
    assert_eq!(out[0], Value::f32(vec![1.0, 3.0, -7.9, 0.0]));
    assert_eq!(out[1], Value::f32(vec![-1.0, -5.0, 2.0, -0.0]));
    assert_eq!(out[2], Value::i32(vec![2, 3, -7, 9]));
    assert_eq!(out[3], Value::f32(vec![3.5, 16.0, 16.8, 1.0]));
    assert_eq!(out[4], Value::f32(vec![0.5, 1.5]));
}

#[test]
fn wrong_inputs_are_typed_errors() {
    let mut b = B::new();
    let x = b.input("x", ElemTy::F32, 2);
    b.output("out", b.whole(x));
    assert_eq!(
        eval(&b.p, &[]).unwrap_err(),
        EvalError::InputCount {
            expected: 1,
            got: 0
        }
    );
    let err = eval(&b.p, &[Value::i32(vec![1, 2])]).unwrap_err();
    assert_eq!(
        err,
        EvalError::InputType {
            name: "x".into(),
            expected: "f32",
            got: "i32"
        }
    );
    let err = eval(&b.p, &[Value::f32(vec![1.0])]).unwrap_err();
    assert_eq!(
        err,
        EvalError::InputLength {
            name: "x".into(),
            expected: 2,
            got: 1
        }
    );
}

#[test]
fn malformed_programs_are_errors_not_panics() {
    let mut b = B::new();
    let x = b.input("x", ElemTy::F32, 2);
    let y = b.input("y", ElemTy::F32, 3);
    b.output("out", bin(BinOp::Add, b.whole(x), b.whole(y)));
    let xs = Value::f32(vec![0.0; 2]);
    let ys = Value::f32(vec![0.0; 3]);
    assert!(matches!(
        eval(&b.p, &[xs, ys]),
        Err(EvalError::Malformed(_))
    ));
    let wrong_type = bin(BinOp::Add, cf(1.0), ci(1));
    assert!(matches!(
        eval(&just(wrong_type), &[]),
        Err(EvalError::Malformed(_))
    ));
}

#[test]
fn random_inputs_are_deterministic_and_in_range() {
    let mut b = B::new();
    b.input("f", ElemTy::F32, 1000);
    b.input("i", ElemTy::I32, 1000);
    b.input("u", ElemTy::U32, 1000);
    let a = random_inputs(&b.p, 7);
    assert_eq!(a, random_inputs(&b.p, 7));
    assert_ne!(a, random_inputs(&b.p, 8));
    let f = a[0].as_f32().unwrap();
    assert!(f.iter().all(|&x| (-1.0..1.0).contains(&x)));
    assert!(f.iter().any(|&x| x < -0.9) && f.iter().any(|&x| x > 0.9));
    let i = a[1].as_i32().unwrap();
    assert!(i.iter().all(|&x| (-100..=100).contains(&x)));
    assert!(i.contains(&-100) || i.contains(&100));
    let u = a[2].as_u32().unwrap();
    assert!(u.iter().all(|&x| x <= 100));
    assert_eq!(eval(&b.p, &a).unwrap(), vec![]);
}

#[test]
fn scalar_programs_wrap_like_wgsl() {
    assert_eq!(
        run1(bin(BinOp::Sub, cu(0), cu(1))),
        Value::u32(vec![u32::MAX])
    );
    assert_eq!(
        run1(bin(BinOp::Div, ci(i32::MIN), ci(-1))),
        Value::i32(vec![i32::MIN])
    );
    assert_eq!(run1(bin(BinOp::Rem, ci(5), ci(0))), Value::i32(vec![0]));
    assert_eq!(run1(cast(ElemTy::I32, cf(f32::NAN))), Value::i32(vec![0]));
}

#[test]
fn levels_do_not_change_the_meaning() {
    use texpr_ir::ExprKind;
    use texpr_ir::{Level, MemLevel};
    let mut b = B::new();
    let x = b.input("x", ElemTy::F32, 8);
    let (i, k) = (b.ivar("i", 8), b.ivar("k", 8));
    let t = b.lvar("t", Ty::new(ElemTy::F32, 1));
    let sum = reduce(ReduceOp::Add, 8, k, b.read(x, tv(k)));
    let body = let_in(
        t,
        sum,
        bin(BinOp::Mul, b.read(x, tv(i)), b.whole(VecRef::Local(t))),
    );
    b.output("out", compute(8, i, body));
    let ins = random_inputs(&b.p, 3);
    let plain = eval(&b.p, &ins).unwrap();
    let e = &mut b.p.outputs[0].value;
    let ExprKind::Compute { level, body, .. } = &mut e.kind else {
        unreachable!()
    };
    *level = Some(Level::Grid);
    let ExprKind::Let { level, value, .. } = &mut body.kind else {
        unreachable!()
    };
    *level = Some(MemLevel::Reg);
    let ExprKind::Reduce { level, .. } = &mut value.kind else {
        unreachable!()
    };
    *level = Some(Level::Thread);
    assert_eq!(eval(&b.p, &ins).unwrap(), plain);
}
mod reach;
