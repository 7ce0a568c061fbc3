//! The surface syntax tree: exactly what the user wrote, with a span on every node.
//!
//! Names are unresolved strings, sizes are unevaluated terms over `param`s, and
//! broadcasting is implicit. The checker (`check`) turns a [`File`] into the
//! typed IR (`ir`). The printer (`print`) writes a [`File`] back as canonical
//! text; `parse(print(f))` equals `f` up to spans.

use texpr_ir::Span;

pub use texpr_ir::{BinOp, ElemTy, Level, Loads, MemLevel, ReduceOp, TermOp, UnOp};

/// An identifier with the span it was written at.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
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
    /// Top-level `let v = e` or `let@global v = e`: a global buffer; with
    /// `@wide`, `@vec4` or `@scalar` (`let@global@wide v = e`), how its
    /// kernel moves elements ([`Loads`]).
    Let {
        name: Ident,
        level: Option<(MemLevel, Span)>,
        loads: Option<(Loads, Span)>,
        ty: Option<TyAnn>,
        value: Expr,
    },
    /// `output y = e` or `output y: f32[N] = e`; `output@wide y = e`: how
    /// its kernel moves elements ([`Loads`]).
    Output {
        name: Ident,
        loads: Option<(Loads, Span)>,
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

/// A written vector type, `f32[N*2]`, or a scalar's, `f32`: a one-element
/// vector (`len` is then the literal 1, spanning the element type).
#[derive(Clone, Debug, PartialEq)]
pub struct TyAnn {
    pub elem: ElemTy,
    pub elem_span: Span,
    pub len: Term,
    pub span: Span,
    /// Written without a length.
    pub scalar: bool,
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
/// from context (default `i32`); `2u`/`2i` fix it; `1.5`/`1e3`/`2.0f` are `f32`
/// (`f16` beside an `f16` operand); `1.5h` is `f16`.
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
    /// `1.5`, `1e-3`, `2.0f`, `inf`: stored as f64 exactly as parsed; the
    /// checker rounds to f32, or to f16 beside an `f16` operand.
    Float(f64),
    /// `1.5h`: an `f16`, rounded to nearest even.
    Half(f64),
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
    /// `iterate T from INITS |STATES[, t]| RESULTS` inside an expression: a
    /// loop of one invocation over scalar states, its value the first
    /// state's final value. (Standing whole as an item's value, the parser
    /// makes it an [`ItemKind::Iterate`] instead.)
    Iterate(Box<Iterate>),
    /// `x with [at] = value`: state `x` with the elements from `at` on
    /// replaced by `value`'s, in place (a loop's result only).
    With {
        state: Ident,
        at: Term,
        value: Box<Expr>,
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
