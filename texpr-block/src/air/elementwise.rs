//! The elementwise operators of block programs and fused bodies: binary
//! operators and unary functions.

/// Elementwise binary operators: arithmetic, the language's two-operand
/// functions (`min`, `max`, `pow`), and comparisons, which give `1.0` where
/// they hold and `0.0` elsewhere (a mask: a block matrix holds numbers, not
/// booleans; `select` picks by it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Minimum,
    Maximum,
    Pow,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

const BINARY: [BinOp; 13] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Minimum,
    BinOp::Maximum,
    BinOp::Pow,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::Eq,
    BinOp::Ne,
];

/// Unary functions for `map` and fused bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryFn {
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Tanh,
    Sin,
    Cos,
    Relu,
    Sigmoid,
    Square,
    Recip,
}

impl BinOp {
    /// The op's name as written (numpy's: `maximum` is elementwise, `max`
    /// a reduction).
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Minimum => "minimum",
            BinOp::Maximum => "maximum",
            BinOp::Pow => "pow",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
            BinOp::Gt => "gt",
            BinOp::Ge => "ge",
            BinOp::Eq => "eq",
            BinOp::Ne => "ne",
        }
    }
    pub fn from_name(s: &str) -> Option<BinOp> {
        BINARY.into_iter().find(|b| b.name() == s)
    }
    /// Every binary op's name, for error notes.
    pub fn all_names() -> String {
        BINARY.map(|b| b.name()).join(", ")
    }
    /// The comparison's TExpr operator, for a comparison.
    pub fn comparison(self) -> Option<&'static str> {
        Some(match self {
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            _ => return None,
        })
    }
    /// Whether the op is defined on integers too (`pow` is `f32` only).
    pub fn works_on_ints(self) -> bool {
        self != BinOp::Pow
    }
    /// The op in f32, as the dense reference computes it (a comparison: 1 or 0).
    pub fn apply(self, a: f32, b: f32) -> f32 {
        let mask = |c: bool| if c { 1.0 } else { 0.0 };
        match self {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => a / b,
            BinOp::Minimum => a.min(b),
            BinOp::Maximum => a.max(b),
            BinOp::Pow => a.powf(b),
            BinOp::Lt => mask(a < b),
            BinOp::Le => mask(a <= b),
            BinOp::Gt => mask(a > b),
            BinOp::Ge => mask(a >= b),
            BinOp::Eq => mask(a == b),
            BinOp::Ne => mask(a != b),
        }
    }
}

const UNARY: [UnaryFn; 13] = [
    UnaryFn::Neg,
    UnaryFn::Abs,
    UnaryFn::Exp,
    UnaryFn::Log,
    UnaryFn::Sqrt,
    UnaryFn::Rsqrt,
    UnaryFn::Tanh,
    UnaryFn::Sin,
    UnaryFn::Cos,
    UnaryFn::Relu,
    UnaryFn::Sigmoid,
    UnaryFn::Square,
    UnaryFn::Recip,
];

impl UnaryFn {
    pub fn name(self) -> &'static str {
        match self {
            UnaryFn::Neg => "neg",
            UnaryFn::Abs => "abs",
            UnaryFn::Exp => "exp",
            UnaryFn::Log => "log",
            UnaryFn::Sqrt => "sqrt",
            UnaryFn::Rsqrt => "rsqrt",
            UnaryFn::Tanh => "tanh",
            UnaryFn::Sin => "sin",
            UnaryFn::Cos => "cos",
            UnaryFn::Relu => "relu",
            UnaryFn::Sigmoid => "sigmoid",
            UnaryFn::Square => "square",
            UnaryFn::Recip => "recip",
        }
    }
    pub fn from_name(s: &str) -> Option<UnaryFn> {
        UNARY.into_iter().find(|f| f.name() == s)
    }
    /// Every function name, for error notes.
    pub fn all_names() -> String {
        UNARY.map(|f| f.name()).join(", ")
    }
    /// Whether the function is defined on integers too.
    pub fn works_on_ints(self) -> bool {
        matches!(
            self,
            UnaryFn::Neg | UnaryFn::Abs | UnaryFn::Relu | UnaryFn::Square
        )
    }
    /// The function in f32, as the dense reference computes it.
    pub fn apply(self, x: f32) -> f32 {
        match self {
            UnaryFn::Neg => -x,
            UnaryFn::Abs => x.abs(),
            UnaryFn::Exp => x.exp(),
            UnaryFn::Log => x.ln(),
            UnaryFn::Sqrt => x.sqrt(),
            UnaryFn::Rsqrt => 1.0 / x.sqrt(),
            UnaryFn::Tanh => x.tanh(),
            UnaryFn::Sin => x.sin(),
            UnaryFn::Cos => x.cos(),
            UnaryFn::Relu => x.max(0.0),
            UnaryFn::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            UnaryFn::Square => x * x,
            UnaryFn::Recip => 1.0 / x,
        }
    }
}
