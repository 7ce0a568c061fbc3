//! The operations of a block program, their operands and per-op metadata.

use super::elementwise::{BinOp, UnaryFn};
use super::expr::EExpr;
use super::reg::Reg;
use std::fmt;

/// Which sum: of each row (`MxN -> Mx1`), of each column (`-> 1xN`) or of all (`-> 1x1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SumAxis {
    Rows,
    Cols,
    All,
}

/// How an operand of a fused op is read: whole, or broadcast from a row
/// (`1xN`), a column (`Mx1`) or a single element (`1x1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bcast {
    Full,
    Row,
    Col,
    All,
}

/// One operand of a fused op: a register and how it is broadcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Operand {
    pub reg: Reg,
    pub bcast: Bcast,
}

/// An elementwise body over operands `$0, $1, ...` (and `$acc` in a matmul epilogue).
#[derive(Clone, Debug, PartialEq)]
pub struct Fused {
    pub operands: Vec<Operand>,
    pub body: EExpr,
}

/// Half-open element range `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// An input matrix (its type is written).
    Input,
    Binary(BinOp, Reg, Reg),
    Scale(Reg, f32),
    Map(UnaryFn, Reg),
    /// `a * b`, then an optional elementwise epilogue over `$acc`.
    Matmul {
        a: Reg,
        b: Reg,
        epilogue: Option<Fused>,
    },
    Transpose(Reg),
    /// A `1xN`, `Mx1` or `1x1` matrix repeated to the written type.
    Broadcast(Reg),
    Sum(SumAxis, Reg),
    Slice {
        src: Reg,
        rows: Range,
        cols: Range,
    },
    /// Fused elementwise ops: one block body.
    Fused(Fused),
}

/// Per-op metadata (the seed's kernel properties).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OpMeta {
    /// `op(a, b) == op(b, a)`.
    pub commutative: bool,
    /// `op(op(a, b), c) == op(a, op(b, c))` (up to float rounding).
    pub associative: bool,
    /// Computes each output element from the same element of its inputs.
    pub elementwise: bool,
}

impl SumAxis {
    pub fn name(self) -> &'static str {
        match self {
            SumAxis::Rows => "sum_rows",
            SumAxis::Cols => "sum_cols",
            SumAxis::All => "sum",
        }
    }
}

impl Bcast {
    /// The suffix after an operand's register (`%b.row`), empty for `Full`.
    pub fn suffix(self) -> &'static str {
        match self {
            Bcast::Full => "",
            Bcast::Row => ".row",
            Bcast::Col => ".col",
            Bcast::All => ".all",
        }
    }
}

impl BinOp {
    /// The algebraic facts of the operator, as an op.
    pub fn meta(self) -> OpMeta {
        let ca = matches!(self, BinOp::Add | BinOp::Mul);
        OpMeta {
            commutative: ca,
            associative: ca,
            elementwise: true,
        }
    }
}

impl Op {
    /// The op's name as written in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Input => "input",
            Op::Binary(b, ..) => b.name(),
            Op::Scale(..) => "scale",
            Op::Map(..) => "map",
            Op::Matmul { .. } => "matmul",
            Op::Transpose(_) => "transpose",
            Op::Broadcast(_) => "broadcast",
            Op::Sum(axis, _) => axis.name(),
            Op::Slice { .. } => "slice",
            Op::Fused(_) => "fused",
        }
    }

    /// Every register the op reads, in order.
    pub fn args(&self) -> Vec<Reg> {
        match self {
            Op::Input => vec![],
            Op::Binary(_, a, b) => vec![*a, *b],
            Op::Scale(a, _)
            | Op::Map(_, a)
            | Op::Transpose(a)
            | Op::Broadcast(a)
            | Op::Sum(_, a) => {
                vec![*a]
            }
            Op::Slice { src, .. } => vec![*src],
            Op::Matmul { a, b, epilogue } => {
                let mut v = vec![*a, *b];
                v.extend(
                    epilogue
                        .iter()
                        .flat_map(|f| f.operands.iter().map(|o| o.reg)),
                );
                v
            }
            Op::Fused(f) => f.operands.iter().map(|o| o.reg).collect(),
        }
    }

    /// Rewrites every register the op reads.
    pub fn map_args(&mut self, f: impl Fn(Reg) -> Reg) {
        match self {
            Op::Input => {}
            Op::Binary(_, a, b) => {
                *a = f(*a);
                *b = f(*b);
            }
            Op::Scale(a, _)
            | Op::Map(_, a)
            | Op::Transpose(a)
            | Op::Broadcast(a)
            | Op::Sum(_, a) => *a = f(*a),
            Op::Slice { src, .. } => *src = f(*src),
            Op::Matmul { a, b, epilogue } => {
                *a = f(*a);
                *b = f(*b);
                for o in epilogue.iter_mut().flat_map(|e| e.operands.iter_mut()) {
                    o.reg = f(o.reg);
                }
            }
            Op::Fused(fu) => fu.operands.iter_mut().for_each(|o| o.reg = f(o.reg)),
        }
    }

    /// The op's metadata: commutativity, associativity, elementwise-ness.
    pub fn meta(&self) -> OpMeta {
        let ew = OpMeta {
            elementwise: true,
            ..OpMeta::default()
        };
        match self {
            Op::Binary(b, ..) => b.meta(),
            Op::Scale(..) | Op::Map(..) | Op::Fused(_) => ew,
            // Sums add in any order; matmul products associate, (AB)C = A(BC).
            Op::Sum(..) => OpMeta {
                associative: true,
                commutative: true,
                elementwise: false,
            },
            Op::Matmul { .. } => OpMeta {
                associative: true,
                ..OpMeta::default()
            },
            _ => OpMeta::default(),
        }
    }
}

impl fmt::Display for OpMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flags = [
            (self.commutative, "commutative"),
            (self.associative, "associative"),
            (self.elementwise, "elementwise"),
        ];
        let names: Vec<&str> = flags
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
        write!(f, "{}", names.join(","))
    }
}
