//! The typed TExpr IR: the one tree every stage after the checker reads and rewrites.
//!
//! Compared with the surface AST (`texpr_syntax::ast`):
//! - names are resolved: vectors are [`VecRef`]s, index variables are [`VarId`]s
//!   into [`Program::vars`] (so a pass can rename nothing by accident);
//! - `param`s are substituted: every size is a concrete `u64`, every index term
//!   a [`Term`] over index variables and integer constants;
//! - every [`Expr`] carries its [`Ty`] (element type and length) and the span of
//!   the source it came from;
//! - broadcasting is explicit ([`ExprKind::Broadcast`]), casts are explicit, and
//!   integer literals have their final type.
//!
//! Level annotations are optional here; a *scheduled* program has one on every
//! `compute`, `reduce` and `let` (see `texpr-opt`). The printer
//! ([`print::program`]) writes any `Program` as surface text that checks
//! back to an equal `Program` (up to spans).
//!
//! The IR's toolkit lives beside it: [`build`] (constructors), the visitor
//! (`Expr::children`, searches, levels, rewrites), [`print`](mod@print), [`verify()`]
//! (every invariant, with [`levels`] for the scheduled form) and [`share`]
//! (how often a `select` picks each operand). Index algebra: [`term`]
//! (constructors, folding, exact division), [`linear`] (the normal form
//! whose interval analysis proves indices in bounds), `layout` ([`Layout`]) and
//! [`index`] (simplification with extents, substitution, element
//! extraction). Every error is a [`Diagnostic`] with a code from [`codes`]
//! (E0100-E0199) or its stage's range.

mod basic;
mod bounds;
pub mod build;
pub mod codes;
pub mod compose;
pub mod diag;
mod diag_view;
pub mod index;
mod items;
mod layout;
pub mod levels;
pub mod linear;
#[cfg(test)]
mod linear_tests;
mod names;
pub mod print;
mod product;
pub mod share;
mod span;
pub mod term;
mod verify;
mod verify_loops;
mod verify_ty;
mod visit;

pub use bounds::{bounds_diag, show_range};
pub use diag::{Diagnostic, Severity};
pub use layout::{Digit, DigitPerm, Layout, Padded, Strided};
pub use names::NameIndex;
pub use product::Products;
pub use span::Span;
pub use verify::verify;
pub use visit::AnyLevel;

pub use basic::{BinOp, ElemTy, ElemTy as Elem, Level, Loads, MemLevel, ReduceOp, TermOp, UnOp};

/// The deepest expression or term nesting the front end builds and the
/// verifier accepts: no later stage can overflow its stack.
pub const MAX_NESTING: usize = 256;

/// The type of every value: a flat vector of `len >= 1` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ty {
    pub elem: ElemTy,
    pub len: u64,
}

impl Ty {
    pub fn new(elem: ElemTy, len: u64) -> Ty {
        Ty { elem, len }
    }
    pub fn scalar(elem: ElemTy) -> Ty {
        Ty { elem, len: 1 }
    }
}

/// A scalar constant of a storable type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    F32(f32),
    F16(half::f16),
    I32(i32),
    U32(u32),
}

impl Scalar {
    pub fn elem(self) -> ElemTy {
        match self {
            Scalar::F32(_) => ElemTy::F32,
            Scalar::F16(_) => ElemTy::F16,
            Scalar::I32(_) => ElemTy::I32,
            Scalar::U32(_) => ElemTy::U32,
        }
    }
}

/// An index variable (bound by `compute`, `reduce` or an index map) or a
/// `let`-bound vector inside an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

#[derive(Clone, Debug, PartialEq)]
pub struct VarInfo {
    /// The name as printed. Names are unique among variables in scope at once
    /// (the checker forbids shadowing; passes use [`Program::fresh_var`]).
    pub name: String,
    pub kind: VarKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VarKind {
    /// An index variable ranging over `0..extent`.
    Index { extent: u64 },
    /// A `let`-bound vector.
    Vector(Ty),
}

/// Which vector an index or whole-vector read refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VecRef {
    /// `Program::inputs[i]`
    Input(u32),
    /// `Program::globals[i]` (a top-level `let`)
    Global(u32),
    /// A `let` inside an expression.
    Local(VarId),
    /// `Program::states[i]`: a loop's state, its current value inside the
    /// loop's body and its final value after the loop.
    State(u32),
}

/// An integer index term. Evaluated with `i64` arithmetic; `/` and `%` are
/// floor division and its remainder (the checker proves operands of `/` and
/// `%` non-negative and divisors positive).
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub kind: TermKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TermKind {
    Const(i64),
    Var(VarId),
    Binary(TermOp, Box<Term>, Box<Term>),
}

/// `out[k] = raw[f(k)]` for `k` in `0..len`; `f` maps `0..len` into the raw range.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexMap {
    /// `k`, bound over `0..len` (printed for every kind of map).
    pub var: VarId,
    pub len: u64,
    pub kind: MapKind,
}

/// What `f` is.
#[derive(Clone, Debug, PartialEq)]
pub enum MapKind {
    /// Any index term over `var` (and index variables in scope).
    Term(Term),
    /// A layout (truncation, digit permutation, padded corner): what a
    /// schedule writes on a grid, and what code generation reads directly.
    Layout(Layout),
}

impl IndexMap {
    /// `{k < len -> k}`
    pub fn truncate(var: VarId, len: u64) -> IndexMap {
        IndexMap {
            var,
            len,
            kind: MapKind::Layout(Layout::Truncate),
        }
    }

    /// `f` as a term over `var`: a term map's own term, a layout's term form.
    pub fn term(&self) -> std::borrow::Cow<'_, Term> {
        match &self.kind {
            MapKind::Term(t) => std::borrow::Cow::Borrowed(t),
            MapKind::Layout(l) => std::borrow::Cow::Owned(l.term(self.var)),
        }
    }

    /// The layout, when the map is one.
    pub fn layout(&self) -> Option<&Layout> {
        match &self.kind {
            MapKind::Layout(l) => Some(l),
            MapKind::Term(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Result: the `n` bodies concatenated (then permuted by `map`).
    Compute {
        level: Option<Level>,
        n: u64,
        var: VarId,
        map: Option<IndexMap>,
        body: Box<Expr>,
    },
    /// Elementwise fold of the `n` bodies with `op`; with `steps`, of the
    /// first `max(steps, 0)` of them only, `steps` a term over enclosing
    /// index variables (a triangular loop: `reduce i |k|` inside `compute N
    /// |i|`) whose largest value is `n`.
    Reduce {
        level: Option<Level>,
        op: ReduceOp,
        n: u64,
        var: VarId,
        body: Box<Expr>,
        steps: Option<Term>,
    },
    Let {
        level: Option<MemLevel>,
        var: VarId,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    /// A loop inside one invocation (`iterate` within an expression): the
    /// scalar `states` start as `parts[..k]` (`k` states), then each of `n`
    /// steps (with `steps`, the first `max(steps, 0)` of them, as a
    /// `reduce`'s) gives every state its next value `parts[k..]` at once,
    /// with `var` the step. Its value is the first state's final value.
    /// A state is a one-element vector variable, read as `Whole(Local(s))`
    /// or `Index` of it.
    Iterate {
        n: u64,
        var: VarId,
        steps: Option<Term>,
        states: Vec<VarId>,
        parts: Vec<Expr>,
    },
    /// One element `vec[index]`; with a guard, the guard's value when out of bounds.
    Index {
        vec: VecRef,
        index: Term,
        guard: Option<Scalar>,
    },
    /// A whole vector used as a value.
    Whole(VecRef),
    /// An index variable as an `i32` scalar.
    IndexVar(VarId),
    /// A scalar constant (length 1).
    Const(Scalar),
    /// `fill(c, n)`: length `n`.
    Fill(Scalar),
    /// `[a, b, c]`
    VecLit(Vec<Scalar>),
    /// Repeat a length-1 value `ty.len` times (explicit broadcasting).
    Broadcast(Box<Expr>),
    /// Type conversion as WGSL defines it (`f32(x)`, `i32(x)`, ...).
    Cast(Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    /// Operands have equal types (broadcasts made explicit). Comparisons yield `Bool`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Elementwise builtin functions of two or three arguments.
    Call(Func, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryOp {
    Neg,
    /// `!c` on a condition.
    Not,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Tanh,
    Abs,
    Sin,
    Cos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    Max,
    Min,
    Pow,
    /// `fma(a, b, c) = a * b + c`
    Fma,
    /// `select(cond, a, b)`: `a` where `cond` holds, else `b` (note: WGSL's
    /// builtin takes `(f, t, cond)`; the surface language reads like C's `?:`).
    Select,
}

impl UnaryOp {
    /// Surface name; `Neg` and `Not` are written as prefix `-` and `!`.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Abs => "abs",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
        }
    }
}

impl Func {
    pub fn name(self) -> &'static str {
        match self {
            Func::Max => "max",
            Func::Min => "min",
            Func::Pow => "pow",
            Func::Fma => "fma",
            Func::Select => "select",
        }
    }
    pub fn arity(self) -> usize {
        match self {
            Func::Max | Func::Min | Func::Pow => 2,
            Func::Fma | Func::Select => 3,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub name: String,
    /// A scalar input (`input a: f32`) is a one-element vector.
    pub ty: Ty,
    pub span: Span,
    /// Declared without a length: the front doors take a number for it.
    pub scalar: bool,
}

/// A top-level `let`: a global buffer computed before the outputs that read it.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: String,
    pub level: Option<MemLevel>,
    pub value: Expr,
    pub span: Span,
    /// The innermost loop each of whose steps computes this global anew (a
    /// `let` in an `iterate` block), if any.
    pub within: Option<LoopId>,
    /// How its kernel moves elements (the schedule's `loads=`).
    pub loads: Loads,
}

/// A loop, by position in [`Program::loops`].
pub type LoopId = u32;

/// `iterate count from INITS |STATES, var| { GLOBALS yield NEXTS }`: the
/// globals `within` it (contiguous in [`Program::globals`], its inner loops'
/// among them) are computed `count` times in order, the index variable `var`
/// holding the step; after each step every [`State`] of the loop takes its
/// `next` value. The loop runs where its first global stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    pub count: u64,
    /// The step, an index variable over `0..max(count, 1)` (`_` when unnamed).
    pub var: VarId,
    /// The loop each of whose steps runs this one whole.
    pub within: Option<LoopId>,
    pub span: Span,
    /// Scheduled to run whole in one workgroup of this many invocations
    /// (the schedule's `loop`): one kernel loops over the steps, a barrier
    /// after each of its items; `None`, the items' kernels are dispatched
    /// once per step. Code generation's concern; the meaning is the same.
    pub group: Option<u64>,
}

/// A loop-carried vector: `init`'s value before the first step, then after
/// each step the value its `next` global computed in that step (with `at`,
/// only the elements from `at` on, as many as `next` has, the rest kept).
/// Inside the loop a read of `VecRef::State` is the current value; after
/// the loop, the final one (`init`'s when `count` is 0).
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub name: String,
    pub ty: Ty,
    /// Its loop.
    pub of: LoopId,
    /// An input or a global computed before the loop (outside it).
    pub init: VecRef,
    /// A global within the loop (directly), of type `ty` (with `at`, of its
    /// element type and at most its length), that no other state takes as
    /// its `next`.
    pub next: VecRef,
    /// An update in place (`x with [at] = e`): the first element `next`
    /// replaces, a term over the loop's step that keeps every element it
    /// writes inside the state.
    pub at: Option<Term>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub name: String,
    pub value: Expr,
    pub span: Span,
    /// How its kernel moves elements (the schedule's `loads=`).
    pub loads: Loads,
}

/// An item of a program: a global or an output, by position. Items are what
/// a schedule names and what code generation makes one kernel of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Item {
    Global(usize),
    Output(usize),
}

/// A checked program. Globals appear in dependency order (a global reads only
/// inputs and earlier globals); outputs read inputs and globals.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The `param`s with their final values, for printing and reports only
    /// (every use is already substituted).
    pub params: Vec<(String, i64)>,
    pub inputs: Vec<Input>,
    pub globals: Vec<Global>,
    pub outputs: Vec<Output>,
    pub vars: Vec<VarInfo>,
    /// The program's loops (`iterate`), outer ones before the loops within them.
    pub loops: Vec<Loop>,
    /// The loops' states.
    pub states: Vec<State>,
    /// The names in use, indexed for [`Program::fresh_var`] (a cache: never
    /// part of a program's meaning or equality; `NameIndex::default()` to build).
    pub names: NameIndex,
}

impl Program {
    pub fn var(&self, id: VarId) -> &VarInfo {
        &self.vars[id.0 as usize]
    }

    /// A new variable whose name is `base` or `base_N` (the smallest `N >= 1`
    /// free), distinct from every name the program already uses. Amortised
    /// O(log n) through [`NameIndex`].
    pub fn fresh_var(&mut self, base: &str, kind: VarKind, span: Span) -> VarId {
        let mut index = std::mem::take(&mut self.names);
        index.update(self);
        let name = index.fresh(base);
        let id = VarId(self.vars.len() as u32);
        self.vars.push(VarInfo { name, kind, span });
        index.seen[5] = self.vars.len();
        index.vars_at = self.vars.as_ptr() as usize;
        self.names = index;
        id
    }

    /// The type of a vector reference.
    pub fn vec_ty(&self, v: VecRef) -> Ty {
        match v {
            VecRef::Input(i) => self.inputs[i as usize].ty,
            VecRef::Global(i) => self.globals[i as usize].value.ty,
            VecRef::Local(id) => match self.var(id).kind {
                VarKind::Vector(ty) => ty,
                VarKind::Index { .. } => Ty::scalar(ElemTy::I32),
            },
            VecRef::State(i) => self.states[i as usize].ty,
        }
    }

    pub fn vec_name(&self, v: VecRef) -> &str {
        match v {
            VecRef::Input(i) => &self.inputs[i as usize].name,
            VecRef::Global(i) => &self.globals[i as usize].name,
            VecRef::Local(id) => &self.var(id).name,
            VecRef::State(i) => &self.states[i as usize].name,
        }
    }
}
