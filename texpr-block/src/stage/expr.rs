//! Element expressions of block bodies: fused bodies, unary functions and
//! the bands of a gather, as IR.

use super::build::{add, at, bin, call, div, int, lit, mul, neg, read, read_else, select, unary};
use crate::air::{BinOp, EExpr, UnaryFn};
use texpr_ir::{self as ir, Expr, Func, Term, UnaryOp, VarId, VecRef};

/// `f(x)`.
pub fn unary_fn(f: UnaryFn, x: Expr) -> Expr {
    let op = match f {
        UnaryFn::Neg => return neg(x),
        UnaryFn::Relu => return call(Func::Max, x, lit(0.0)),
        UnaryFn::Sigmoid => return div(lit(1.0), add(lit(1.0), unary(UnaryOp::Exp, neg(x)))),
        UnaryFn::Square => return mul(x.clone(), x),
        UnaryFn::Recip => return div(lit(1.0), x),
        UnaryFn::Abs => UnaryOp::Abs,
        UnaryFn::Exp => UnaryOp::Exp,
        UnaryFn::Log => UnaryOp::Log,
        UnaryFn::Sqrt => UnaryOp::Sqrt,
        UnaryFn::Rsqrt => UnaryOp::Rsqrt,
        UnaryFn::Tanh => UnaryOp::Tanh,
        UnaryFn::Sin => UnaryOp::Sin,
        UnaryFn::Cos => UnaryOp::Cos,
    };
    unary(op, x)
}

/// The IR comparison of a comparing op.
fn comparison(op: BinOp) -> Option<ir::BinOp> {
    Some(match op {
        BinOp::Lt => ir::BinOp::Lt,
        BinOp::Le => ir::BinOp::Le,
        BinOp::Gt => ir::BinOp::Gt,
        BinOp::Ge => ir::BinOp::Ge,
        BinOp::Eq => ir::BinOp::Eq,
        BinOp::Ne => ir::BinOp::Ne,
        _ => return None,
    })
}

/// `a op b` (a comparison: its mask, 1 or 0).
pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let arith = |o| bin(o, a.clone(), b.clone());
    match op {
        BinOp::Add => arith(ir::BinOp::Add),
        BinOp::Sub => arith(ir::BinOp::Sub),
        BinOp::Mul => arith(ir::BinOp::Mul),
        BinOp::Div => arith(ir::BinOp::Div),
        BinOp::Minimum => call(Func::Min, a, b),
        BinOp::Maximum => call(Func::Max, a, b),
        BinOp::Pow => call(Func::Pow, a, b),
        cmp => {
            let cmp = comparison(cmp).expect("the rest compare");
            select(bin(cmp, a, b), lit(1.0), lit(0.0))
        }
    }
}

/// A fused body; `leaves[i]` is operand `$i`, `acc` is `$acc`.
pub fn body(e: &EExpr, leaves: &[Expr], acc: Option<&Expr>) -> Expr {
    match e {
        EExpr::Arg(i) => leaves[*i as usize].clone(),
        EExpr::Acc => acc.expect("an epilogue's accumulator").clone(),
        EExpr::Const(c) => lit(*c),
        EExpr::Bin(op, a, b) => binary(*op, body(a, leaves, acc), body(b, leaves, acc)),
        EExpr::Map(f, a) => unary_fn(*f, body(a, leaves, acc)),
        EExpr::Select(c, a, b) => select(
            condition(c, leaves, acc),
            body(a, leaves, acc),
            body(b, leaves, acc),
        ),
    }
}

/// A mask as a condition: a comparison as itself, any other value `!= 0`.
fn condition(c: &EExpr, leaves: &[Expr], acc: Option<&Expr>) -> Expr {
    match c {
        EExpr::Bin(op, a, b) if comparison(*op).is_some() => bin(
            comparison(*op).expect("a comparison"),
            body(a, leaves, acc),
            body(b, leaves, acc),
        ),
        other => bin(ir::BinOp::Ne, body(other, leaves, acc), lit(0.0)),
    }
}

/// One band of a gather: below `hi` on the band variable, it reads `vec` at `index`.
#[derive(Clone, Debug)]
pub struct Band {
    pub hi: u64,
    pub vec: VecRef,
    pub index: Term,
}

/// A gather's bands as one value: `select(v < hi_0, read_0, select(v < hi_1,
/// read_1, ... read_n))` over the band variable `v`, each band's read
/// guarded (`else 0.0`) when there are several, since every branch is
/// indexed (an unguarded read is what a single band gets).
pub fn bands(v: VarId, bands: &[Band]) -> Expr {
    match bands {
        [only] => read(only.vec, only.index.clone()),
        [] => lit(0.0),
        _ => guarded(v, bands),
    }
}

fn guarded(v: VarId, bands: &[Band]) -> Expr {
    match bands {
        [last] => read_else(last.vec, last.index.clone()),
        [first, rest @ ..] => select(
            bin(ir::BinOp::Lt, at(v), int(first.hi)),
            read_else(first.vec, first.index.clone()),
            guarded(v, rest),
        ),
        [] => lit(0.0),
    }
}
