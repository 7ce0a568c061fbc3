//! The surface syntax tree: exactly what the user wrote, with a span on every node.
//!
//! Names are unresolved strings, sizes are unevaluated terms over `param`s, and
//! broadcasting is implicit. The checker (`check`) turns a [`File`] into the
//! typed IR (`ir`). The printer (`print`) writes a [`File`] back as canonical
//! text; `parse(print(f))` equals `f` up to spans.

use crate::span::Span;

/// An identifier with the span it was written at.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// Element types of vectors. `Bool` exists only in the typed IR, as the type of
/// a condition (comparisons and `&&`, `||`, `!` over them) feeding `select`;
/// it cannot be written or stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElemTy {
    F32,
    I32,
    U32,
    Bool,
}

impl ElemTy {
    pub fn name(self) -> &'static str {
        match self {
            ElemTy::F32 => "f32",
            ElemTy::I32 => "i32",
            ElemTy::U32 => "u32",
            ElemTy::Bool => "bool",
        }
    }

    /// The storable types a user may name (`f32`, `i32`, `u32`).
    pub fn from_name(name: &str) -> Option<ElemTy> {
        match name {
            "f32" => Some(ElemTy::F32),
            "i32" => Some(ElemTy::I32),
            "u32" => Some(ElemTy::U32),
            _ => None,
        }
    }

    pub fn is_int(self) -> bool {
        matches!(self, ElemTy::I32 | ElemTy::U32)
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
}

impl MemLevel {
    pub fn name(self) -> &'static str {
        match self {
            MemLevel::Global => "global",
            MemLevel::Shared => "shared",
            MemLevel::Reg => "reg",
            MemLevel::Prefetch => "prefetch",
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

/// A source file: declarations in order.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub kind: ItemKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    /// `param N = 1024` — a compile-time integer, overridable with `-D N=4096`.
    Param { name: Ident, value: Term },
    /// `input x: f32[N]`
    Input { name: Ident, ty: TyAnn },
    /// Top-level `let v = e` or `let@global v = e`: a global buffer.
    Let {
        name: Ident,
        level: Option<(MemLevel, Span)>,
        ty: Option<TyAnn>,
        value: Expr,
    },
    /// `output y = e` or `output y: f32[N] = e`.
    Output {
        name: Ident,
        ty: Option<TyAnn>,
        value: Expr,
    },
    /// `let u = iterate T from u0 |u, t| BODY`, `let (a, b) = iterate ...`,
    /// or the same with `output`: the loop's final states, one name each.
    Iterate {
        /// Written with `output` (each final state is an output).
        output: bool,
        names: Vec<Ident>,
        /// The written type (a single name only).
        ty: Option<TyAnn>,
        iter: Iterate,
    },
}

/// `iterate T from INITS |STATES[, t]| BODY`: `T` steps, each computing the
/// states' next values from their current ones (and the step `t`).
#[derive(Clone, Debug, PartialEq)]
pub struct Iterate {
    pub count: Term,
    /// One initial value per state (written as a tuple when more than one).
    pub inits: Vec<Expr>,
    /// The states' names inside the body, then optionally the step's.
    pub binders: Vec<Ident>,
    pub body: IterBody,
    /// From `iterate` to the end of the body.
    pub span: Span,
}

/// What one step computes.
#[derive(Clone, Debug, PartialEq)]
pub enum IterBody {
    /// Each state's next value (one expression, or a tuple).
    Results(Vec<Expr>),
    /// `{ ITEM* yield RESULTS }`: per-step `let`s (and nested loops), then
    /// each state's next value.
    Block {
        items: Vec<Item>,
        results: Vec<Expr>,
        /// The `yield ...` part.
        yield_span: Span,
    },
}

/// A written vector type, `f32[N*2]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TyAnn {
    pub elem: ElemTy,
    pub elem_span: Span,
    pub len: Term,
    pub span: Span,
}

/// Integer index and size terms: `i*N + k`, `(i+1) % 4`, `N/2`.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub kind: TermKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TermKind {
    Int(i64),
    Name(Ident),
    Neg(Box<Term>),
    Binary(TermOp, Box<Term>, Box<Term>),
}

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

/// `{k -> f(k)}` or `{k < L -> f(k)}` on a `compute`: `out[k] = raw[f(k)]`
/// for `k` in `0..L` (`L` defaults to the raw length).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexMapAst {
    pub var: Ident,
    pub len: Option<Term>,
    pub body: MapBody,
    pub span: Span,
}

/// What an index map computes: an index term, or a layout written as a call.
#[derive(Clone, Debug, PartialEq)]
pub enum MapBody {
    Term(Term),
    Layout(LayoutAst),
}

/// `digits(r:o:w, ...)` or `padded(N, Np, digits(...))` (docs/language.md).
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutAst {
    pub name: Ident,
    pub args: Vec<LayoutArg>,
    pub span: Span,
}

/// One argument of a layout.
#[derive(Clone, Debug, PartialEq)]
pub enum LayoutArg {
    /// A size term.
    Size(Term),
    /// `radix : layout_stride : computed_stride`, three size terms.
    Digit([Term; 3], Span),
    /// A nested layout (one level deep: the grammar allows no more).
    Layout(LayoutAst),
}

/// A literal as written. Integer literals without a suffix take their type
/// from context (default `i32`); `2u`/`2i` fix it; `1.5`/`1e3`/`2.0f` are `f32`.
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub value: LitValue,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LitValue {
    /// `3`, `-3`: integer without suffix.
    Int(i64),
    /// `3i`
    I32(i64),
    /// `3u`
    U32(i64),
    /// `1.5`, `1e-3`, `2.0f`, `inf`: stored as f64 exactly as parsed; the checker rounds to f32.
    Float(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// `compute@lvl n {k -> f(k)} |i| body`
    Compute {
        level: Option<(Level, Span)>,
        n: Term,
        map: Option<IndexMapAst>,
        var: Ident,
        body: Box<Expr>,
    },
    /// `reduce@lvl op n |i| body`; `op` is `None` when omitted (sum).
    Reduce {
        level: Option<(Level, Span)>,
        op: Option<(ReduceOp, Span)>,
        n: Term,
        var: Ident,
        body: Box<Expr>,
    },
    /// `let@lvl v = value in body`
    Let {
        level: Option<(MemLevel, Span)>,
        name: Ident,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    /// `v[t]` or the guarded `v[t] else c`.
    Index {
        vec: Ident,
        index: Term,
        guard: Option<Literal>,
    },
    /// A name used as a value: a whole vector, or an index variable (an `i32` scalar).
    Name(Ident),
    Lit(Literal),
    /// `fill(c, n)`
    Fill {
        value: Literal,
        n: Term,
    },
    /// `[1.0, 2.0, 3.0]`
    VecLit(Vec<Literal>),
    /// `broadcast(e, n)`: `n` copies of a length-1 value.
    Broadcast {
        arg: Box<Expr>,
        n: Term,
    },
    Unary {
        op: UnOp,
        arg: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `exp(x)`, `max(a, b)`, `select(c, a, b)`, `f32(x)` (a cast), ...
    Call {
        func: Ident,
        args: Vec<Expr>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    /// `!c`, on a boolean.
    Not,
}

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
    pub fn is_boolean(self) -> bool {
        self.is_comparison() || self.is_logical()
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}
