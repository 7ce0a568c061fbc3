//! Writes TExpr surface source: leaves of fused bodies, unary functions, the kernels' items.

use crate::air::expr::fmt_f32;
use crate::air::{BinOp, EExpr, UnaryFn};

/// A float literal as TExpr reads it (negative ones in parentheses).
pub fn lit(x: f32) -> String {
    let s = fmt_f32(x);
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}

/// `f(x)` in TExpr, for an already-written operand `x`.
pub fn unary(f: UnaryFn, x: &str) -> String {
    match f {
        UnaryFn::Neg => format!("(-{x})"),
        UnaryFn::Relu => format!("max({x}, 0.0)"),
        UnaryFn::Sigmoid => format!("(1.0 / (1.0 + exp(-{x})))"),
        UnaryFn::Square => format!("({x} * {x})"),
        UnaryFn::Recip => format!("(1.0 / {x})"),
        UnaryFn::Abs
        | UnaryFn::Exp
        | UnaryFn::Log
        | UnaryFn::Sqrt
        | UnaryFn::Rsqrt
        | UnaryFn::Tanh
        | UnaryFn::Sin
        | UnaryFn::Cos => format!("{}({x})", f.name()),
    }
}

fn binop(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
    }
}

/// A fused body as a TExpr expression; `leaf(i)` writes operand `$i`, `acc` is `$acc`.
pub fn body(e: &EExpr, leaf: &dyn Fn(u32) -> String, acc: &str) -> String {
    match e {
        EExpr::Arg(i) => leaf(*i),
        EExpr::Acc => acc.to_string(),
        EExpr::Const(c) => lit(*c),
        EExpr::Bin(op, a, b) => format!(
            "({} {} {})",
            body(a, leaf, acc),
            binop(*op),
            body(b, leaf, acc)
        ),
        EExpr::Map(f, a) => unary(*f, &body(a, leaf, acc)),
    }
}
