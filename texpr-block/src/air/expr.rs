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
    /// `select(c, a, b)`: `a` where `c` is not 0, else `b` (`c` a mask,
    /// such as a comparison's).
    Select(Box<EExpr>, Box<EExpr>, Box<EExpr>),
}

impl EExpr {
    pub fn bin(op: BinOp, a: EExpr, b: EExpr) -> EExpr {
        EExpr::Bin(op, Box::new(a), Box::new(b))
    }
    pub fn map(f: UnaryFn, a: EExpr) -> EExpr {
        EExpr::Map(f, Box::new(a))
    }
    pub fn select(c: EExpr, a: EExpr, b: EExpr) -> EExpr {
        EExpr::Select(Box::new(c), Box::new(a), Box::new(b))
    }

    /// The node's operands, in order.
    pub fn children(&self) -> Vec<&EExpr> {
        match self {
            EExpr::Bin(_, a, b) => vec![a, b],
            EExpr::Map(_, a) => vec![a],
            EExpr::Select(c, a, b) => vec![c, a, b],
            EExpr::Arg(_) | EExpr::Acc | EExpr::Const(_) => vec![],
        }
    }

    /// Replaces every leaf with `leaf(leaf)`.
    pub fn subst(&self, leaf: &impl Fn(&EExpr) -> EExpr) -> EExpr {
        match self {
            EExpr::Bin(op, a, b) => EExpr::bin(*op, a.subst(leaf), b.subst(leaf)),
            EExpr::Map(f, a) => EExpr::map(*f, a.subst(leaf)),
            EExpr::Select(c, a, b) => EExpr::select(c.subst(leaf), a.subst(leaf), b.subst(leaf)),
            other => leaf(other),
        }
    }

    /// Every `$i` the body reads.
    pub fn args(&self, out: &mut Vec<u32>) {
        match self {
            EExpr::Arg(i) => out.push(*i),
            other => other.children().into_iter().for_each(|c| c.args(out)),
        }
    }

    pub fn uses_acc(&self) -> bool {
        match self {
            EExpr::Acc => true,
            other => other.children().into_iter().any(EExpr::uses_acc),
        }
    }

    /// How many times the body reads `$acc`.
    pub fn acc_uses(&self) -> usize {
        match self {
            EExpr::Acc => 1,
            other => other.children().into_iter().map(EExpr::acc_uses).sum(),
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
            EExpr::Select(c, a, b) => {
                if c.eval(arg, acc) != 0.0 {
                    a.eval(arg, acc)
                } else {
                    b.eval(arg, acc)
                }
            }
        }
    }

    /// Number of nodes (fusion keeps bodies small).
    pub fn size(&self) -> usize {
        1 + self.children().into_iter().map(EExpr::size).sum::<usize>()
    }

    /// Operations the body computes (its nodes that are no leaves).
    pub fn ops(&self) -> usize {
        match self {
            EExpr::Arg(_) | EExpr::Acc | EExpr::Const(_) => 0,
            other => 1 + other.children().into_iter().map(EExpr::ops).sum::<usize>(),
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
            EExpr::Select(c, a, b) => write!(f, "select({c}, {a}, {b})"),
        }
    }
}
