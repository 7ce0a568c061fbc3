//! The elementwise operators of block programs and fused bodies: binary
//! operators and unary functions.

/// Elementwise binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

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
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
        }
    }
    pub fn from_name(s: &str) -> Option<BinOp> {
        [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]
            .into_iter()
            .find(|b| b.name() == s)
    }
    pub fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => a / b,
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
