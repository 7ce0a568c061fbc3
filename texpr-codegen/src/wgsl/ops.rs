//! WGSL spellings of TExpr's elementwise operations and casts.
//!
//! Float-to-integer casts give what the language promises on every device:
//! NaN gives 0 and an infinity saturates like any value out of range. Drivers
//! may assume no NaN or infinity exists (llvmpipe folds `x != x` to false),
//! so the cast tests the bits, which every driver keeps: a NaN becomes 0.0
//! and an infinity the largest finite value of its sign, then the value is
//! clamped (WGSL's conversion saturates; naga's backends need not).

use texpr_syntax::ast::ElemTy;
use texpr_syntax::ir::{Func, UnaryOp};

pub fn unary(op: UnaryOp, x: &str) -> String {
    match op {
        UnaryOp::Neg => format!("-{x}"),
        UnaryOp::Rsqrt => format!("inverseSqrt({x})"),
        other => format!("{}({x})", other.name()),
    }
}

pub fn call(f: Func, args: &[String]) -> String {
    match f {
        // WGSL's select is (false value, true value, condition).
        Func::Select => format!("select({}, {}, {})", args[2], args[1], args[0]),
        other => format!("{}({})", other.name(), args.join(", ")),
    }
}

/// `x` with a NaN replaced by 0.0 and an infinity by the largest finite
/// `f32` of its sign, by tests of its bits.
fn finite(x: &str) -> String {
    let bits = format!("bitcast<u32>({x})");
    let magnitude = format!("({bits} & 0x7fffffffu)");
    let largest = format!("bitcast<f32>(({bits} & 0x80000000u) | 0x7f7fffffu)");
    format!(
        "select(select({x}, {largest}, {magnitude} == 0x7f800000u), 0.0f, {magnitude} > 0x7f800000u)"
    )
}

pub fn cast(from: ElemTy, to: ElemTy, x: &str) -> String {
    match (from, to) {
        (a, b) if a == b => x.to_string(),
        (ElemTy::F32, ElemTy::I32) => {
            format!("i32(clamp({}, -2147483648.0f, 2147483520.0f))", finite(x))
        }
        (ElemTy::F32, ElemTy::U32) => {
            format!("u32(clamp({}, 0.0f, 4294967040.0f))", finite(x))
        }
        (ElemTy::I32, ElemTy::U32) | (ElemTy::U32, ElemTy::I32) => {
            format!("bitcast<{}>({x})", to.name())
        }
        (_, to) => format!("{}({x})", to.name()),
    }
}
