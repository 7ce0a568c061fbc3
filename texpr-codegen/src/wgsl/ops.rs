//! WGSL spellings of TExpr's elementwise operations and casts.
//!
//! Float-to-integer casts clamp first (WGSL's conversion saturates; naga's
//! backends need not), so they never hit undefined behaviour on a driver, and
//! give 0 for NaN as the interpreter does (where the driver keeps NaNs).

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

pub fn cast(from: ElemTy, to: ElemTy, x: &str) -> String {
    match (from, to) {
        (a, b) if a == b => x.to_string(),
        (ElemTy::F32, ElemTy::I32) => {
            format!("select(i32(clamp({x}, -2147483648.0f, 2147483520.0f)), 0i, {x} != {x})")
        }
        (ElemTy::F32, ElemTy::U32) => {
            format!("select(u32(clamp({x}, 0.0f, 4294967040.0f)), 0u, {x} != {x})")
        }
        (ElemTy::I32, ElemTy::U32) | (ElemTy::U32, ElemTy::I32) => {
            format!("bitcast<{}>({x})", to.name())
        }
        (_, to) => format!("{}({x})", to.name()),
    }
}
