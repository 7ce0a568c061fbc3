//! What a value computes: the operators, builtin functions and subgroup
//! operations, the memory a load reads, and [`Op`] with its operands.

use super::{Builtin, Lit, Ty, V, VarId};

/// Unary operations (`Not` on booleans; the rest numeric).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnOp {
    Neg,
    Not,
}

/// Binary operations; comparisons give booleans of the operands' width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// On booleans, both operands computed (never short-circuiting).
    And,
    Or,
    /// Bitwise, on integers.
    BitAnd,
    BitOr,
    Shr,
    Shl,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::Shr => ">>",
            BinOp::Shl => "<<",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}

/// Builtin functions, pure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fun {
    Exp,
    Log,
    Sqrt,
    InverseSqrt,
    Tanh,
    Sin,
    Cos,
    Abs,
    Max,
    Min,
    Pow,
    Fma,
    Clamp,
    /// `select(f, t, cond)` as WGSL orders it: `cond ? t : f`.
    Select,
    /// `all(v)` of a boolean vector.
    All,
}

impl Fun {
    pub fn name(self) -> &'static str {
        match self {
            Fun::Exp => "exp",
            Fun::Log => "log",
            Fun::Sqrt => "sqrt",
            Fun::InverseSqrt => "inverseSqrt",
            Fun::Tanh => "tanh",
            Fun::Sin => "sin",
            Fun::Cos => "cos",
            Fun::Abs => "abs",
            Fun::Max => "max",
            Fun::Min => "min",
            Fun::Pow => "pow",
            Fun::Fma => "fma",
            Fun::Clamp => "clamp",
            Fun::Select => "select",
            Fun::All => "all",
        }
    }

    pub fn arity(self) -> usize {
        match self {
            Fun::Max | Fun::Min | Fun::Pow => 2,
            Fun::Fma | Fun::Clamp | Fun::Select => 3,
            _ => 1,
        }
    }
}

/// Subgroup operations (each reads every lane's operand: uniform control
/// flow only, never reused across statements).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SgOp {
    Add,
    Mul,
    Max,
    Min,
    /// `subgroupBroadcast(x, lane)`, the lane a constant.
    Broadcast,
}

impl SgOp {
    pub fn name(self) -> &'static str {
        match self {
            SgOp::Add => "subgroupAdd",
            SgOp::Mul => "subgroupMul",
            SgOp::Max => "subgroupMax",
            SgOp::Min => "subgroupMin",
            SgOp::Broadcast => "subgroupBroadcast",
        }
    }
}

/// Memory a kernel reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mem {
    /// A storage buffer: index into [`Kernel::bindings`].
    Buffer(u32),
    /// A workgroup array: index into [`Kernel::shared`].
    Shared(u32),
    /// A module-scope private array of constants: index into [`Kernel::privates`].
    Private(u32),
    /// A function variable (an array, or a scalar read whole at index 0).
    Var(VarId),
}

/// What a value computes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Const(Lit),
    Builtin(Builtin),
    /// A loop's index inside its body (defined by the [`Loop`]).
    LoopIndex,
    Unary(UnOp, V),
    Binary(BinOp, V, V),
    Call(Fun, Vec<V>),
    /// A numeric conversion to the value's type (WGSL's `f32(x)`, ...).
    Convert(V),
    /// The same bits as the value's type.
    Bitcast(V),
    /// Element `index` of `mem`, of the value's type (a `vec4` reads four
    /// consecutive elements of an array declared of `vec4`s, and so on).
    Load(Mem, V),
    /// The current value of a scalar variable.
    ReadVar(VarId),
    /// Component `k` of a vector.
    Extract(V, u8),
    /// The component of a vector at a run-time index (`i32` or `u32`).
    Component(V, V),
    /// A vector from its components (or one value repeated: one operand).
    Construct(Vec<V>),
    /// A subgroup operation; `Broadcast`'s second operand is the lane.
    Subgroup(SgOp, Vec<V>),
}

impl Op {
    /// The values it reads.
    pub fn operands(&self) -> Vec<V> {
        match self {
            Op::Const(_) | Op::Builtin(_) | Op::LoopIndex | Op::ReadVar(_) => Vec::new(),
            Op::Unary(_, a) | Op::Convert(a) | Op::Bitcast(a) | Op::Extract(a, _) => vec![*a],
            Op::Load(_, i) => vec![*i],
            Op::Binary(_, a, b) | Op::Component(a, b) => vec![*a, *b],
            Op::Call(_, xs) | Op::Construct(xs) | Op::Subgroup(_, xs) => xs.clone(),
        }
    }

    /// Calls `f` on each value it reads (as [`Op::operands`], without
    /// allocating).
    pub fn each_operand(&self, f: &mut dyn FnMut(V)) {
        match self {
            Op::Const(_) | Op::Builtin(_) | Op::LoopIndex | Op::ReadVar(_) => {}
            Op::Unary(_, a) | Op::Convert(a) | Op::Bitcast(a) | Op::Extract(a, _) => f(*a),
            Op::Load(_, i) => f(*i),
            Op::Binary(_, a, b) | Op::Component(a, b) => {
                f(*a);
                f(*b);
            }
            Op::Call(_, xs) | Op::Construct(xs) | Op::Subgroup(_, xs) => {
                xs.iter().for_each(|x| f(*x));
            }
        }
    }

    /// Rewrites each value it reads through `f`.
    pub fn map_operands(&mut self, f: &mut dyn FnMut(V) -> V) {
        match self {
            Op::Const(_) | Op::Builtin(_) | Op::LoopIndex | Op::ReadVar(_) => {}
            Op::Unary(_, a) | Op::Convert(a) | Op::Bitcast(a) | Op::Extract(a, _) => *a = f(*a),
            Op::Load(_, i) => *i = f(*i),
            Op::Binary(_, a, b) | Op::Component(a, b) => {
                *a = f(*a);
                *b = f(*b);
            }
            Op::Call(_, xs) | Op::Construct(xs) | Op::Subgroup(_, xs) => {
                xs.iter_mut().for_each(|x| *x = f(*x));
            }
        }
    }

    /// Whether it needs no definition (usable anywhere, printed in place).
    pub fn is_free(&self) -> bool {
        matches!(self, Op::Const(_) | Op::Builtin(_))
    }
}

/// A value: its operation and type, and the name it prints as.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub op: Op,
    pub ty: Ty,
    /// A base name chosen by whoever made it (`acc`, `t`), made unique by
    /// the printers.
    pub name: String,
}
