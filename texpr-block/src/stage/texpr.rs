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

/// `a op b` in TExpr, for already-written operands (a comparison: its mask, 1 or 0).
pub fn binary(op: BinOp, a: &str, b: &str) -> String {
    match op {
        BinOp::Add => format!("({a} + {b})"),
        BinOp::Sub => format!("({a} - {b})"),
        BinOp::Mul => format!("({a} * {b})"),
        BinOp::Div => format!("({a} / {b})"),
        BinOp::Minimum => format!("min({a}, {b})"),
        BinOp::Maximum => format!("max({a}, {b})"),
        BinOp::Pow => format!("pow({a}, {b})"),
        cmp => format!(
            "select({a} {} {b}, 1.0, 0.0)",
            cmp.comparison().expect("the rest compare")
        ),
    }
}

/// A fused body as a TExpr expression; `leaf(i)` writes operand `$i`, `acc` is `$acc`.
pub fn body(e: &EExpr, leaf: &dyn Fn(u32) -> String, acc: &str) -> String {
    match e {
        EExpr::Arg(i) => leaf(*i),
        EExpr::Acc => acc.to_string(),
        EExpr::Const(c) => lit(*c),
        EExpr::Bin(op, a, b) => binary(*op, &body(a, leaf, acc), &body(b, leaf, acc)),
        EExpr::Map(f, a) => unary(*f, &body(a, leaf, acc)),
        EExpr::Select(c, a, b) => format!(
            "select({}, {}, {})",
            condition(c, leaf, acc),
            body(a, leaf, acc),
            body(b, leaf, acc)
        ),
    }
}

/// A mask as a TExpr condition: a comparison as itself, any other value `!= 0`.
fn condition(c: &EExpr, leaf: &dyn Fn(u32) -> String, acc: &str) -> String {
    match c {
        EExpr::Bin(op, a, b) if op.comparison().is_some() => format!(
            "{} {} {}",
            body(a, leaf, acc),
            op.comparison().expect("a comparison"),
            body(b, leaf, acc)
        ),
        other => format!("{} != 0.0", body(other, leaf, acc)),
    }
}

/// `v + d` as TExpr text over an index variable (or term) `v`.
pub fn offset(v: &str, d: i64) -> String {
    match d {
        0 => v.to_string(),
        d if d > 0 => format!("({v} + {d})"),
        d => format!("({v} - {})", -d),
    }
}

/// A gather's bands as one value: `select(v < hi_0, read_0, select(v < hi_1,
/// read_1, ... read_n))` over the band variable `v`, each band's read
/// guarded (`else 0.0`) when there are several, since every branch is
/// indexed (an unguarded read is what a single band gets).
pub fn bands(v: &str, bands: &[(u64, String)]) -> String {
    match bands {
        [(_, only)] => only.clone(),
        [(hi, first), rest @ ..] => format!(
            "select({v} < {hi}, ({first} else 0.0), {})",
            guarded_tail(v, rest)
        ),
        [] => "0.0".to_string(),
    }
}

fn guarded_tail(v: &str, bands: &[(u64, String)]) -> String {
    match bands {
        [(_, last)] => format!("({last} else 0.0)"),
        [(hi, first), rest @ ..] => format!(
            "select({v} < {hi}, ({first} else 0.0), {})",
            guarded_tail(v, rest)
        ),
        [] => "0.0".to_string(),
    }
}
