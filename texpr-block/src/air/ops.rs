//! The operations of a block program, their operands and per-op metadata.

use super::elementwise::{BinOp, UnaryFn};
use super::expr::EExpr;
use super::reg::Reg;
use std::fmt;

/// Which reduction: of each row (`MxN -> Mx1`), of each column (`-> 1xN`) or of all (`-> 1x1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SumAxis {
    Rows,
    Cols,
    All,
}

/// What a reduction computes: the sum, the product, the largest or smallest
/// element, the mean, or the (population) variance and standard deviation,
/// which the pass `expand_stats` computes in two passes over the data (the
/// mean, then the mean of the squared deviations from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agg {
    Sum,
    Max,
    Min,
    Mean,
    Prod,
    Var,
    Std,
}

/// Which axes a `reverse` flips: the order of the rows, of the columns, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flip {
    Rows,
    Cols,
    Both,
}

/// An axis of a matrix: its rows, or its columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    Rows,
    Cols,
}

impl Axis {
    pub fn name(self) -> &'static str {
        match self {
            Axis::Rows => "rows",
            Axis::Cols => "cols",
        }
    }
    pub fn from_name(s: &str) -> Option<Axis> {
        [Axis::Rows, Axis::Cols].into_iter().find(|a| a.name() == s)
    }
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
    /// `random SEED : TYPE`: the matrix whose element `(i, j)` is
    /// `exec::random::random_element(SEED, i, j)`, in `[-1, 1)` (its type is
    /// written). A heavy context stored as a global: every rank makes the
    /// tiles it owns from the seed alone; nothing is broadcast.
    Random(u64),
    Binary(BinOp, Reg, Reg),
    /// `select %c, %a, %b`: `a` where `c` is not 0, else `b` (numpy's `where`).
    Select(Reg, Reg, Reg),
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
    /// A reduction of a matrix's rows, columns or all of it.
    Reduce(Agg, SumAxis, Reg),
    /// The rows and/or columns in reverse order (a view, like `transpose`).
    Reverse(Flip, Reg),
    /// A window: a view read in place when it starts on tile boundaries
    /// (and ends on one or at the edge), else a gather that computes its
    /// tiles (`stage::view::is_view`, `air::gather`).
    Slice {
        src: Reg,
        rows: Range,
        cols: Range,
    },
    /// The operands one after the other along `axis` (`rows`: stacked
    /// vertically, numpy's `concatenate(axis=0)`).
    Concat {
        parts: Vec<Reg>,
        axis: Axis,
    },
    /// The rows (or columns) of `src` at the indices `keep`, in that order
    /// (Hail's filter, numpy's `take`).
    Filter {
        src: Reg,
        axis: Axis,
        keep: Vec<u64>,
    },
    /// The diagonal of `src` as a column (`min(M, N) x 1`).
    Diag(Reg),
    /// Fused elementwise ops: one block body.
    Fused(Fused),
    /// The lower Cholesky factor `L` of a symmetric positive definite
    /// matrix (`A = L L^T`; only `A`'s lower triangle is read, `L` is zero
    /// above its diagonal), computed by tiles (`graph::factor`).
    Cholesky(Reg),
    /// `X` solving `T X = B` for a triangular `T` (`tri`; `upper`: read
    /// above and on its diagonal, else below and on it) and any `B` (`rhs`),
    /// by substitution over tiles.
    Solve {
        tri: Reg,
        rhs: Reg,
        upper: bool,
    },
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
    /// The suffix of the op's name: `_rows`, `_cols`, or nothing for all.
    pub fn suffix(self) -> &'static str {
        match self {
            SumAxis::Rows => "_rows",
            SumAxis::Cols => "_cols",
            SumAxis::All => "",
        }
    }
}

const AGGS: [Agg; 7] = [
    Agg::Sum,
    Agg::Max,
    Agg::Min,
    Agg::Mean,
    Agg::Prod,
    Agg::Var,
    Agg::Std,
];
const AXES: [SumAxis; 3] = [SumAxis::Rows, SumAxis::Cols, SumAxis::All];
/// Every reduction op's name, as written (`sum`, `max_rows`, `mean_cols`,
/// ...): one row per [`AGGS`], one column per [`AXES`].
const REDUCE_NAMES: [[&str; 3]; 7] = [
    ["sum_rows", "sum_cols", "sum"],
    ["max_rows", "max_cols", "max"],
    ["min_rows", "min_cols", "min"],
    ["mean_rows", "mean_cols", "mean"],
    ["prod_rows", "prod_cols", "prod"],
    ["var_rows", "var_cols", "var"],
    ["std_rows", "std_cols", "std"],
];

impl Agg {
    pub fn name(self) -> &'static str {
        self.op_name(SumAxis::All)
    }
    /// The reduction op named `name` (`sum_rows`, `max`, ...).
    pub fn parse_op(name: &str) -> Option<(Agg, SumAxis)> {
        AGGS.iter()
            .flat_map(|&a| AXES.iter().map(move |&x| (a, x)))
            .find(|(a, x)| a.op_name(*x) == name)
    }
    /// The op's name as written.
    pub fn op_name(self, axis: SumAxis) -> &'static str {
        let a = AGGS.iter().position(|&g| g == self).expect("listed");
        let x = AXES.iter().position(|&x| x == axis).expect("listed");
        REDUCE_NAMES[a][x]
    }
    /// How partial results combine: `+` for sums and means (a mean's
    /// partials are already divided by the count), `*` for products, else
    /// the extreme. Variances are expanded into means before anything
    /// combines (`passes::stats`).
    pub fn combine(self, a: f32, b: f32) -> f32 {
        match self {
            Agg::Sum | Agg::Mean | Agg::Var | Agg::Std => a + b,
            Agg::Prod => a * b,
            Agg::Max => a.max(b),
            Agg::Min => a.min(b),
        }
    }
    /// Whether the partials give the same bits in any order (a max or min).
    pub fn exact(self) -> bool {
        matches!(self, Agg::Max | Agg::Min)
    }
}

impl Flip {
    pub fn name(self) -> &'static str {
        match self {
            Flip::Rows => "rows",
            Flip::Cols => "cols",
            Flip::Both => "both",
        }
    }
    pub fn from_name(s: &str) -> Option<Flip> {
        [Flip::Rows, Flip::Cols, Flip::Both]
            .into_iter()
            .find(|f| f.name() == s)
    }
    /// Whether the rows' order is reversed.
    pub fn rows(self) -> bool {
        matches!(self, Flip::Rows | Flip::Both)
    }
    /// Whether the columns' order is reversed.
    pub fn cols(self) -> bool {
        matches!(self, Flip::Cols | Flip::Both)
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
        use BinOp::*;
        OpMeta {
            commutative: matches!(self, Add | Mul | Minimum | Maximum | Eq | Ne),
            associative: matches!(self, Add | Mul | Minimum | Maximum),
            elementwise: true,
        }
    }
}

impl Op {
    /// The op's name as written in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Input => "input",
            Op::Random(_) => "random",
            Op::Binary(b, ..) => b.name(),
            Op::Select(..) => "select",
            Op::Scale(..) => "scale",
            Op::Map(..) => "map",
            Op::Matmul { .. } => "matmul",
            Op::Transpose(_) => "transpose",
            Op::Broadcast(_) => "broadcast",
            Op::Reduce(agg, axis, _) => agg.op_name(*axis),
            Op::Reverse(..) => "reverse",
            Op::Slice { .. } => "slice",
            Op::Concat {
                axis: Axis::Rows, ..
            } => "concat_rows",
            Op::Concat {
                axis: Axis::Cols, ..
            } => "concat_cols",
            Op::Filter {
                axis: Axis::Rows, ..
            } => "filter_rows",
            Op::Filter {
                axis: Axis::Cols, ..
            } => "filter_cols",
            Op::Diag(_) => "diag",
            Op::Fused(_) => "fused",
            Op::Cholesky(_) => "cholesky",
            Op::Solve { upper: false, .. } => "solve_lower",
            Op::Solve { upper: true, .. } => "solve_upper",
        }
    }

    /// Every register the op reads, in order.
    pub fn args(&self) -> Vec<Reg> {
        match self {
            Op::Input | Op::Random(_) => vec![],
            Op::Binary(_, a, b) => vec![*a, *b],
            Op::Select(c, a, b) => vec![*c, *a, *b],
            Op::Scale(a, _)
            | Op::Map(_, a)
            | Op::Transpose(a)
            | Op::Broadcast(a)
            | Op::Reduce(_, _, a)
            | Op::Reverse(_, a)
            | Op::Diag(a)
            | Op::Cholesky(a) => {
                vec![*a]
            }
            Op::Solve { tri, rhs, .. } => vec![*tri, *rhs],
            Op::Slice { src, .. } | Op::Filter { src, .. } => vec![*src],
            Op::Concat { parts, .. } => parts.clone(),
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
            Op::Input | Op::Random(_) => {}
            Op::Binary(_, a, b) => {
                *a = f(*a);
                *b = f(*b);
            }
            Op::Select(c, a, b) => {
                *c = f(*c);
                *a = f(*a);
                *b = f(*b);
            }
            Op::Scale(a, _)
            | Op::Map(_, a)
            | Op::Transpose(a)
            | Op::Broadcast(a)
            | Op::Reduce(_, _, a)
            | Op::Reverse(_, a)
            | Op::Diag(a)
            | Op::Cholesky(a) => *a = f(*a),
            Op::Solve { tri, rhs, .. } => {
                *tri = f(*tri);
                *rhs = f(*rhs);
            }
            Op::Slice { src, .. } | Op::Filter { src, .. } => *src = f(*src),
            Op::Concat { parts, .. } => parts.iter_mut().for_each(|a| *a = f(*a)),
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
            Op::Scale(..) | Op::Map(..) | Op::Fused(_) | Op::Select(..) => ew,
            // Reductions combine in any order; matmul products associate, (AB)C = A(BC).
            Op::Reduce(..) => OpMeta {
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
