//! The IR's basic types: element types, levels, memory levels, folds and
//! operators. The syntax tree (`ast`) writes them as the user did; the
//! typed IR, the optimizer and code generation read them from here.

/// Element types of vectors. `Bool` exists only in the typed IR, as the type of
/// a condition (comparisons and `&&`, `||`, `!` over them) feeding `select`;
/// it cannot be written or stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElemTy {
    F32,
    /// IEEE binary16: every operation rounds to nearest even.
    F16,
    I32,
    U32,
    Bool,
}

impl ElemTy {
    pub fn name(self) -> &'static str {
        match self {
            ElemTy::F32 => "f32",
            ElemTy::F16 => "f16",
            ElemTy::I32 => "i32",
            ElemTy::U32 => "u32",
            ElemTy::Bool => "bool",
        }
    }

    /// The storable types a user may name (`f32`, `f16`, `i32`, `u32`).
    pub fn from_name(name: &str) -> Option<ElemTy> {
        match name {
            "f32" => Some(ElemTy::F32),
            "f16" => Some(ElemTy::F16),
            "i32" => Some(ElemTy::I32),
            "u32" => Some(ElemTy::U32),
            _ => None,
        }
    }

    pub fn is_int(self) -> bool {
        matches!(self, ElemTy::I32 | ElemTy::U32)
    }

    /// `f32` or `f16`.
    pub fn is_float(self) -> bool {
        matches!(self, ElemTy::F32 | ElemTy::F16)
    }

    /// Bytes an element takes in a buffer.
    pub fn bytes(self) -> u64 {
        match self {
            ElemTy::F16 => 2,
            _ => 4,
        }
    }
}

/// Where a `compute` or `reduce` runs in the scheduled form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Workgroups of the dispatch.
    Grid,
    /// Invocations of one workgroup.
    Group,
    /// Invocations of one workgroup, combined with subgroup operations:
    /// `reduce@subgroup W |l| T` means exactly `reduce@group W |l| T`. For
    /// `reduce` only.
    Subgroup,
    /// A sequential loop inside one invocation.
    Thread,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Grid => "grid",
            Level::Group => "group",
            Level::Subgroup => "subgroup",
            Level::Thread => "thread",
        }
    }
}

/// Where a `let` lives in the scheduled form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemLevel {
    /// A storage buffer.
    Global,
    /// `var<workgroup>` memory.
    Shared,
    /// `var<function>` (registers).
    Reg,
    /// Registers loaded one trip ahead: in a `let@shared`'s value inside a
    /// thread-level loop, the value for the loop's next trip is loaded
    /// during this one, after the block is stored and before the trip's
    /// compute (software pipelining; the interpreter reads it as `reg`).
    Prefetch,
    /// Registers a subgroup loads once: where every lane of a subgroup of
    /// `L` needs the same runs, lane `s` loads runs `s, s + L, ...` and
    /// broadcasts them (code generation's `lanes.rs`; a device with one
    /// subgroup width). The interpreter reads it as `reg`; a value the
    /// lanes do not provably share is loaded per lane, as `reg`.
    Lanes,
    /// A workgroup's block of a contraction in tensor cores: `let@mma acc =
    /// compute M |r| compute N |c| reduce K |k| x * y` directly in a grid
    /// body, computed by the workgroup's subgroups with cooperative
    /// matrices, the operands staged through workgroup memory, and held in
    /// workgroup memory for the body to read (code generation's `mma.rs`;
    /// the interpreter reads it as a plain `let`).
    Mma,
}

impl MemLevel {
    pub fn name(self) -> &'static str {
        match self {
            MemLevel::Global => "global",
            MemLevel::Shared => "shared",
            MemLevel::Reg => "reg",
            MemLevel::Prefetch => "prefetch",
            MemLevel::Lanes => "lanes",
            MemLevel::Mma => "mma",
        }
    }
}

/// The fold of a `reduce`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduceOp {
    Add,
    Mul,
    Max,
    Min,
    /// Log-sum-exp, `log(sum exp(x))`, on `f32` only: identity `-inf`,
    /// combine `max(a, b) + log1p(exp(min(a, b) - max(a, b)))`.
    Lse,
}

impl ReduceOp {
    /// The token written after `reduce` (`+` is the default and may be omitted).
    pub fn symbol(self) -> &'static str {
        match self {
            ReduceOp::Add => "+",
            ReduceOp::Mul => "*",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Lse => "lse",
        }
    }
}

/// An operator of a size or index term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TermOp {
    Add,
    Sub,
    Mul,
    /// Floor division (operands are proven non-negative where it matters).
    Div,
    Rem,
}

impl TermOp {
    pub fn symbol(self) -> &'static str {
        match self {
            TermOp::Add => "+",
            TermOp::Sub => "-",
            TermOp::Mul => "*",
            TermOp::Div => "/",
            TermOp::Rem => "%",
        }
    }
}

/// A unary operator of an element expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    /// `!c`, on a boolean.
    Not,
}

/// A binary operator of an element expression.
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
    /// `&&` on booleans.
    And,
    /// `||` on booleans.
    Or,
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
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// `&&` and `||`: booleans in, a boolean out.
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }

    /// Whether the result is a boolean (a comparison or a logical operator).
    pub(crate) fn is_boolean(self) -> bool {
        self.is_comparison() || self.is_logical()
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}

/// How many elements code generation may move in one load or store of an
/// item's buffers: the schedule's choice (a strategy's `loads=` key),
/// carried out where a run of accesses allows it. It never changes a
/// value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loads {
    /// One element an access (`loads=scalar`).
    Scalar,
    /// Four: unit-stride runs of `f32`s at offsets that are multiples of 4
    /// move as `vec4<f32>`s (`loads=vec4`, the default).
    #[default]
    Vec4,
    /// Eight where runs are whole aligned eights, as one `vec4<u64>` (two
    /// `f32`s a 64-bit lane), four elsewhere (`loads=wide`). Needs a target
    /// with 64-bit integers.
    Wide,
}

impl Loads {
    pub const ALL: [Loads; 3] = [Loads::Scalar, Loads::Vec4, Loads::Wide];

    pub fn name(self) -> &'static str {
        match self {
            Loads::Scalar => "scalar",
            Loads::Vec4 => "vec4",
            Loads::Wide => "wide",
        }
    }

    /// Whether runs move four elements an access (or eight).
    pub fn vec4(self) -> bool {
        self != Loads::Scalar
    }

    /// Whether runs of whole aligned eights move as one `vec4<u64>`.
    pub fn wide(self) -> bool {
        self == Loads::Wide
    }
}
