//! WGSL spellings of types, constants and reduction identities.
//!
//! Constants are exact: finite `f32`s print as the shortest decimal that
//! round-trips (naga parses `...f` literals as `f32` directly), with a `f`
//! suffix; infinities, NaNs and `-0.0` print as `bitcast<f32>(0x...u)`;
//! `i32::MIN` prints as a bitcast, so no literal ever overflows. Negative
//! values are parenthesised so they can stand as any operand.

use texpr_syntax::ast::{ElemTy, ReduceOp};
use texpr_syntax::ir::Scalar;

pub fn ty(e: ElemTy) -> &'static str {
    e.name()
}

pub fn f32_lit(x: f32) -> String {
    if !x.is_finite() || (x == 0.0 && x.is_sign_negative()) {
        return format!("bitcast<f32>(0x{:08x}u)", x.to_bits());
    }
    let s = format!("{:?}", x.abs());
    debug_assert_eq!(s.parse::<f32>().ok(), Some(x.abs()));
    if x < 0.0 {
        format!("(-{s}f)")
    } else {
        format!("{s}f")
    }
}

pub fn i32_lit(x: i32) -> String {
    if x == i32::MIN {
        "bitcast<i32>(0x80000000u)".to_string()
    } else if x < 0 {
        format!("(-{}i)", -(x as i64))
    } else {
        format!("{x}i")
    }
}

pub fn scalar(s: Scalar) -> String {
    match s {
        Scalar::F32(x) => f32_lit(x),
        Scalar::I32(x) => i32_lit(x),
        Scalar::U32(x) => format!("{x}u"),
    }
}

/// The identity of `op` on `elem` (the language's: `max` starts from the
/// lowest value, `min` from the highest).
pub fn identity(op: ReduceOp, elem: ElemTy) -> String {
    let s = match (op, elem) {
        (ReduceOp::Add, ElemTy::F32) => Scalar::F32(0.0),
        (ReduceOp::Mul, ElemTy::F32) => Scalar::F32(1.0),
        (ReduceOp::Max, ElemTy::F32) => Scalar::F32(f32::NEG_INFINITY),
        (ReduceOp::Min, ElemTy::F32) => Scalar::F32(f32::INFINITY),
        (ReduceOp::Add, ElemTy::U32) | (ReduceOp::Max, ElemTy::U32) => Scalar::U32(0),
        (ReduceOp::Mul, ElemTy::U32) => Scalar::U32(1),
        (ReduceOp::Min, ElemTy::U32) => Scalar::U32(u32::MAX),
        (ReduceOp::Add, _) => Scalar::I32(0),
        (ReduceOp::Mul, _) => Scalar::I32(1),
        (ReduceOp::Max, _) => Scalar::I32(i32::MIN),
        (ReduceOp::Min, _) => Scalar::I32(i32::MAX),
    };
    scalar(s)
}

/// `acc op x` as a WGSL expression.
pub fn combine(op: ReduceOp, acc: &str, x: &str) -> String {
    match op {
        ReduceOp::Add => format!("{acc} + {x}"),
        ReduceOp::Mul => format!("{acc} * {x}"),
        ReduceOp::Max => format!("max({acc}, {x})"),
        ReduceOp::Min => format!("min({acc}, {x})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_exactly() {
        assert_eq!(f32_lit(1.5), "1.5f");
        assert_eq!(f32_lit(-0.1), "(-0.1f)");
        assert_eq!(f32_lit(f32::NEG_INFINITY), "bitcast<f32>(0xff800000u)");
        assert_eq!(f32_lit(-0.0), "bitcast<f32>(0x80000000u)");
        for x in [
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            16777217.0,
            0.3,
            1.0 / 3.0,
        ] {
            let s = f32_lit(x);
            let digits = s.trim_end_matches('f');
            assert_eq!(digits.parse::<f32>().unwrap().to_bits(), x.to_bits(), "{s}");
        }
    }

    #[test]
    fn integers_never_overflow_a_literal() {
        assert_eq!(i32_lit(i32::MIN), "bitcast<i32>(0x80000000u)");
        assert_eq!(i32_lit(-5), "(-5i)");
        assert_eq!(identity(ReduceOp::Min, ElemTy::U32), "4294967295u");
    }
}
