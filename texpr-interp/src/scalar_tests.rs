//! Edge cases of every elementwise operation, cast, reduce identity and fold step.

use crate::scalar::{Sc, binary, call, cast, fold, identity, lse, unary};
use texpr_ir::{BinOp, Func, UnaryOp};
use texpr_ir::{ElemTy, ReduceOp};

fn i(op: BinOp, a: i32, b: i32) -> Sc {
    binary(op, Sc::I(a), Sc::I(b)).unwrap()
}
fn u(op: BinOp, a: u32, b: u32) -> Sc {
    binary(op, Sc::U(a), Sc::U(b)).unwrap()
}
fn f(op: BinOp, a: f32, b: f32) -> Sc {
    binary(op, Sc::F(a), Sc::F(b)).unwrap()
}

#[test]
fn i32_arithmetic_wraps() {
    assert_eq!(i(BinOp::Add, i32::MAX, 1), Sc::I(i32::MIN));
    assert_eq!(i(BinOp::Sub, i32::MIN, 1), Sc::I(i32::MAX));
    assert_eq!(i(BinOp::Mul, 65536, 65536), Sc::I(0));
    assert_eq!(i(BinOp::Mul, i32::MAX, 2), Sc::I(-2));
    assert_eq!(
        unary(UnaryOp::Neg, Sc::I(i32::MIN)).unwrap(),
        Sc::I(i32::MIN)
    );
    assert_eq!(
        unary(UnaryOp::Abs, Sc::I(i32::MIN)).unwrap(),
        Sc::I(i32::MIN)
    );
    assert_eq!(unary(UnaryOp::Abs, Sc::I(-7)).unwrap(), Sc::I(7));
}

#[test]
fn i32_division_edge_cases() {
    assert_eq!(i(BinOp::Div, 7, 0), Sc::I(7));
    assert_eq!(i(BinOp::Rem, 7, 0), Sc::I(0));
    assert_eq!(i(BinOp::Div, i32::MIN, -1), Sc::I(i32::MIN));
    assert_eq!(i(BinOp::Rem, i32::MIN, -1), Sc::I(0));
    // Truncating toward zero; the remainder takes the dividend's sign.
    assert_eq!(i(BinOp::Div, -7, 2), Sc::I(-3));
    assert_eq!(i(BinOp::Rem, -7, 2), Sc::I(-1));
    assert_eq!(i(BinOp::Div, 7, -2), Sc::I(-3));
    assert_eq!(i(BinOp::Rem, 7, -2), Sc::I(1));
}

#[test]
fn u32_arithmetic_and_division() {
    assert_eq!(u(BinOp::Sub, 0, 1), Sc::U(u32::MAX));
    assert_eq!(u(BinOp::Add, u32::MAX, 2), Sc::U(1));
    assert_eq!(u(BinOp::Mul, 1 << 16, 1 << 16), Sc::U(0));
    assert_eq!(u(BinOp::Div, 9, 0), Sc::U(9));
    assert_eq!(u(BinOp::Rem, 9, 0), Sc::U(0));
    assert_eq!(u(BinOp::Div, 9, 4), Sc::U(2));
    assert_eq!(u(BinOp::Rem, 9, 4), Sc::U(1));
    assert_eq!(unary(UnaryOp::Abs, Sc::U(5)).unwrap(), Sc::U(5));
    assert!(unary(UnaryOp::Neg, Sc::U(5)).is_err());
}

#[test]
fn f32_arithmetic_is_single_precision() {
    // 1 + 2^-24 rounds back to 1 in f32 (it would not in f64).
    assert_eq!(f(BinOp::Add, 1.0, 2f32.powi(-24)), Sc::F(1.0));
    assert_eq!(f(BinOp::Div, 1.0, 0.0), Sc::F(f32::INFINITY));
    assert_eq!(f(BinOp::Mul, 1e30, 1e30), Sc::F(f32::INFINITY));
}

#[test]
fn f32_remainder_truncates() {
    assert_eq!(f(BinOp::Rem, 7.5, 2.0), Sc::F(1.5));
    assert_eq!(f(BinOp::Rem, -7.5, 2.0), Sc::F(-1.5));
    assert_eq!(f(BinOp::Rem, 7.5, -2.0), Sc::F(1.5));
}

#[test]
fn comparisons_give_bools() {
    assert_eq!(f(BinOp::Lt, 1.0, 2.0), Sc::B(true));
    assert_eq!(f(BinOp::Ge, 1.0, 2.0), Sc::B(false));
    assert_eq!(f(BinOp::Eq, f32::NAN, f32::NAN), Sc::B(false));
    assert_eq!(f(BinOp::Ne, f32::NAN, f32::NAN), Sc::B(true));
    assert_eq!(i(BinOp::Le, -1, -1), Sc::B(true));
    assert_eq!(i(BinOp::Gt, -1, -2), Sc::B(true));
    assert_eq!(u(BinOp::Gt, 0, u32::MAX), Sc::B(false));
    assert_eq!(u(BinOp::Eq, 3, 3), Sc::B(true));
}

#[test]
fn mixed_types_are_malformed() {
    assert!(binary(BinOp::Add, Sc::F(1.0), Sc::I(1)).is_err());
    assert!(binary(BinOp::Add, Sc::B(true), Sc::B(true)).is_err());
    assert!(unary(UnaryOp::Exp, Sc::I(1)).is_err());
    assert!(call(Func::Pow, &[Sc::I(1), Sc::I(2)]).is_err());
    assert!(call(Func::Select, &[Sc::I(1), Sc::I(2), Sc::I(3)]).is_err());
    assert!(call(Func::Max, &[Sc::I(1)]).is_err());
}

#[test]
fn f32_functions() {
    let un = |op, x| match unary(op, Sc::F(x)).unwrap() {
        Sc::F(y) => y,
        other => panic!("{other:?}"),
    };
    assert_eq!(un(UnaryOp::Exp, 0.0), 1.0);
    assert_eq!(un(UnaryOp::Log, 1.0), 0.0);
    assert!(un(UnaryOp::Log, -1.0).is_nan());
    assert_eq!(un(UnaryOp::Log, 0.0), f32::NEG_INFINITY);
    assert_eq!(un(UnaryOp::Sqrt, 9.0), 3.0);
    assert_eq!(un(UnaryOp::Rsqrt, 4.0), 0.5);
    assert_eq!(un(UnaryOp::Rsqrt, 0.0), f32::INFINITY);
    assert_eq!(un(UnaryOp::Tanh, 100.0), 1.0);
    assert_eq!(un(UnaryOp::Sin, 0.0), 0.0);
    assert_eq!(un(UnaryOp::Cos, 0.0), 1.0);
    assert_eq!(un(UnaryOp::Abs, -2.5), 2.5);
    assert_eq!(un(UnaryOp::Neg, 2.5), -2.5);
    assert_eq!(un(UnaryOp::Neg, 0.0).to_bits(), (-0.0f32).to_bits());
}

#[test]
fn builtins_of_several_arguments() {
    assert_eq!(
        call(Func::Max, &[Sc::F(1.0), Sc::F(-2.0)]).unwrap(),
        Sc::F(1.0)
    );
    assert_eq!(call(Func::Min, &[Sc::I(-3), Sc::I(2)]).unwrap(), Sc::I(-3));
    assert_eq!(
        call(Func::Max, &[Sc::U(3), Sc::U(u32::MAX)]).unwrap(),
        Sc::U(u32::MAX)
    );
    assert_eq!(
        call(Func::Pow, &[Sc::F(2.0), Sc::F(10.0)]).unwrap(),
        Sc::F(1024.0)
    );
    assert_eq!(
        call(Func::Fma, &[Sc::F(2.0), Sc::F(3.0), Sc::F(1.0)]).unwrap(),
        Sc::F(7.0)
    );
    let sel = |c| call(Func::Select, &[Sc::B(c), Sc::U(1), Sc::U(2)]).unwrap();
    assert_eq!(sel(true), Sc::U(1));
    assert_eq!(sel(false), Sc::U(2));
}

#[test]
fn float_to_int_casts_truncate_and_saturate() {
    let to_i = |x: f32| cast(ElemTy::I32, Sc::F(x)).unwrap();
    let to_u = |x: f32| cast(ElemTy::U32, Sc::F(x)).unwrap();
    assert_eq!(to_i(2.9), Sc::I(2));
    assert_eq!(to_i(-2.9), Sc::I(-2));
    assert_eq!(to_i(f32::NAN), Sc::I(0));
    assert_eq!(to_i(f32::INFINITY), Sc::I(2147483520));
    assert_eq!(to_i(3e9), Sc::I(2147483520));
    assert_eq!(to_i(f32::NEG_INFINITY), Sc::I(i32::MIN));
    assert_eq!(to_u(-5.0), Sc::U(0));
    assert_eq!(to_u(7.9), Sc::U(7));
    assert_eq!(to_u(f32::NAN), Sc::U(0));
    assert_eq!(to_u(1e20), Sc::U(4294967040));
}

#[test]
fn integer_casts_reinterpret_bits() {
    assert_eq!(cast(ElemTy::U32, Sc::I(-1)).unwrap(), Sc::U(u32::MAX));
    assert_eq!(
        cast(ElemTy::I32, Sc::U(0x8000_0000)).unwrap(),
        Sc::I(i32::MIN)
    );
    assert_eq!(cast(ElemTy::I32, Sc::I(5)).unwrap(), Sc::I(5));
}

#[test]
fn int_to_float_rounds_to_nearest() {
    assert_eq!(
        cast(ElemTy::F32, Sc::I(16_777_217)).unwrap(),
        Sc::F(16_777_216.0)
    );
    assert_eq!(cast(ElemTy::F32, Sc::I(-3)).unwrap(), Sc::F(-3.0));
    assert_eq!(
        cast(ElemTy::F32, Sc::U(u32::MAX)).unwrap(),
        Sc::F(4294967296.0)
    );
    assert!(cast(ElemTy::F32, Sc::B(true)).is_err());
}

#[test]
fn reduce_identities() {
    use ReduceOp::*;
    let id = |op, t| identity(op, t).unwrap();
    assert_eq!(id(Add, ElemTy::F32), Sc::F(0.0));
    assert_eq!(id(Add, ElemTy::I32), Sc::I(0));
    assert_eq!(id(Add, ElemTy::U32), Sc::U(0));
    assert_eq!(id(Mul, ElemTy::F32), Sc::F(1.0));
    assert_eq!(id(Mul, ElemTy::I32), Sc::I(1));
    assert_eq!(id(Mul, ElemTy::U32), Sc::U(1));
    assert_eq!(id(Max, ElemTy::F32), Sc::F(f32::NEG_INFINITY));
    assert_eq!(id(Max, ElemTy::I32), Sc::I(i32::MIN));
    assert_eq!(id(Max, ElemTy::U32), Sc::U(0));
    assert_eq!(id(Min, ElemTy::F32), Sc::F(f32::INFINITY));
    assert_eq!(id(Min, ElemTy::I32), Sc::I(i32::MAX));
    assert_eq!(id(Min, ElemTy::U32), Sc::U(u32::MAX));
    assert!(identity(Add, ElemTy::Bool).is_err());
}

#[test]
fn fold_steps() {
    assert_eq!(
        fold(ReduceOp::Add, Sc::I(i32::MAX), Sc::I(1)).unwrap(),
        Sc::I(i32::MIN)
    );
    assert_eq!(fold(ReduceOp::Mul, Sc::U(3), Sc::U(4)).unwrap(), Sc::U(12));
    assert_eq!(
        fold(ReduceOp::Max, Sc::F(-1.0), Sc::F(-2.0)).unwrap(),
        Sc::F(-1.0)
    );
    assert_eq!(
        fold(ReduceOp::Min, Sc::I(-1), Sc::I(-2)).unwrap(),
        Sc::I(-2)
    );
    assert!(fold(ReduceOp::Lse, Sc::I(1), Sc::I(2)).is_err());
    assert!(identity(ReduceOp::Lse, ElemTy::I32).is_err());
}

#[test]
fn lse_steps_against_f64() {
    let want = |a: f64, b: f64| (a.exp() + b.exp()).ln();
    for (a, b) in [(0.0f32, 0.0f32), (1.0, -3.0), (-20.5, 7.25), (1e-3, 2e-3)] {
        let got = lse(a, b) as f64;
        let w = want(a as f64, b as f64);
        assert!(
            (got - w).abs() <= 4.0 * f32::EPSILON as f64 * w.abs().max(1.0),
            "{a} {b}"
        );
        assert_eq!(lse(a, b), lse(b, a), "commutative");
    }
    // exp(1000) overflows f32; the fold does not.
    assert_eq!(lse(1000.0, 1000.0), 1000.0 + std::f32::consts::LN_2);
    let ninf = f32::NEG_INFINITY;
    assert_eq!(lse(ninf, ninf), ninf, "the identity with itself");
    assert_eq!(lse(ninf, 2.5), 2.5, "the identity");
    assert_eq!(lse(f32::INFINITY, 1.0), f32::INFINITY);
    assert!(lse(f32::NAN, 1.0).is_nan());
    assert_eq!(identity(ReduceOp::Lse, ElemTy::F32).unwrap(), Sc::F(ninf));
}
