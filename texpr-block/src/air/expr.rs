//! Elementwise bodies of fused ops: small expression trees over `$0, $1, ...` and `$acc`.

use super::elementwise::{BinOp, UnaryFn};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum EExpr {
    /// Operand `$i` of the fused op.
    Arg(u32),
    /// The matmul result in a matmul epilogue.
    Acc,
    Const(f32),
    Bin(BinOp, Box<EExpr>, Box<EExpr>),
    Map(UnaryFn, Box<EExpr>),
}

impl EExpr {
    pub fn bin(op: BinOp, a: EExpr, b: EExpr) -> EExpr {
        EExpr::Bin(op, Box::new(a), Box::new(b))
    }
    pub fn map(f: UnaryFn, a: EExpr) -> EExpr {
        EExpr::Map(f, Box::new(a))
    }

    /// Replaces every leaf with `leaf(leaf)`.
    pub fn subst(&self, leaf: &impl Fn(&EExpr) -> EExpr) -> EExpr {
        match self {
            EExpr::Bin(op, a, b) => EExpr::bin(*op, a.subst(leaf), b.subst(leaf)),
            EExpr::Map(f, a) => EExpr::map(*f, a.subst(leaf)),
            other => leaf(other),
        }
    }

    /// Every `$i` the body reads.
    pub fn args(&self, out: &mut Vec<u32>) {
        match self {
            EExpr::Arg(i) => out.push(*i),
            EExpr::Bin(_, a, b) => {
                a.args(out);
                b.args(out);
            }
            EExpr::Map(_, a) => a.args(out),
            EExpr::Acc | EExpr::Const(_) => {}
        }
    }

    pub fn uses_acc(&self) -> bool {
        match self {
            EExpr::Acc => true,
            EExpr::Bin(_, a, b) => a.uses_acc() || b.uses_acc(),
            EExpr::Map(_, a) => a.uses_acc(),
            _ => false,
        }
    }

    /// Evaluates in f32 with `arg(i)` for `$i` and `acc` for `$acc`.
    pub fn eval(&self, arg: &impl Fn(u32) -> f32, acc: f32) -> f32 {
        match self {
            EExpr::Arg(i) => arg(*i),
            EExpr::Acc => acc,
            EExpr::Const(c) => *c,
            EExpr::Bin(op, a, b) => op.apply(a.eval(arg, acc), b.eval(arg, acc)),
            EExpr::Map(f, a) => f.apply(a.eval(arg, acc)),
        }
    }

    /// Number of nodes (fusion keeps bodies small).
    pub fn size(&self) -> usize {
        match self {
            EExpr::Bin(_, a, b) => 1 + a.size() + b.size(),
            EExpr::Map(_, a) => 1 + a.size(),
            _ => 1,
        }
    }
}

/// Writes a float so that it reads back as the same `f32` and always looks
/// like a float (`1.0`, not `1`).
pub fn fmt_f32(x: f32) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format!("{x:?}");
    if s.contains(['.', 'e', 'E', 'N']) {
        s
    } else {
        format!("{s}.0")
    }
}

impl fmt::Display for EExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EExpr::Arg(i) => write!(f, "${i}"),
            EExpr::Acc => write!(f, "$acc"),
            EExpr::Const(c) => write!(f, "{}", fmt_f32(*c)),
            EExpr::Bin(op, a, b) => write!(f, "{}({a}, {b})", op.name()),
            EExpr::Map(u, a) => write!(f, "{}({a})", u.name()),
        }
    }
}
