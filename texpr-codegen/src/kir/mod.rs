//! The kernel IR: what code generation builds from a scheduled program, and
//! what the shader text, naga's module and every back-end pass are made from.
//!
//! A [`Kernel`] is one compute entry point: the buffers it binds (each with
//! its access and the width it is read or written at), its workgroup and
//! private arrays, its function variables, and a body of [`Stmt`]s over
//! typed values held in an arena ([`Value`], named by [`V`]).
//!
//! - A value is an operation on other values ([`Op`]): constants and the
//!   entry point's builtins are free (usable anywhere); every other value is
//!   *defined* by a [`Stmt::Let`] and usable after it in its block and the
//!   blocks nested there, as a WGSL `let` is. A loop defines its index.
//! - Memory is explicit: a [`Op::Load`] reads a buffer, a workgroup array,
//!   a private array or a variable, at an index, a scalar, a `vec4` or a
//!   `vec4<u64>` at a time; [`Stmt::Store`] and [`Stmt::Assign`] write.
//! - Control flow is structured: counted loops ([`Loop`]), `if`/`else`,
//!   barriers; each block is marked uniform (entered by every invocation of
//!   the workgroup alike) or not, and a barrier or a subgroup operation may
//!   stand in uniform control flow only.
//!
//! Invariants (checked by [`verify`]): every value used is defined before,
//! in an enclosing block or the same one; operands' types fit their
//! operation (`verify` lists each rule); every memory reference exists; a
//! `Let` defines a value once; barriers and subgroup operations are in
//! uniform blocks only.
//!
//! The IR prints as text ([`print`], `texprc compile --emit kir`), as WGSL
//! ([`wgsl`]) and as a `naga::Module` ([`to_naga`], validated without
//! parsing any text).

pub mod build;
pub mod print;
pub mod to_naga;
pub mod verify;
pub mod wgsl;

pub use build::Builder;
pub use verify::verify;

use crate::plan::{Access, BufferId};

/// A value, by position in [`Kernel::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct V(pub u32);

/// A function variable, by position in [`Kernel::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// The scalar types a kernel computes with (`u64` only inside wide loads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    F32,
    I32,
    U32,
    Bool,
    U64,
}

impl Scalar {
    pub fn name(self) -> &'static str {
        match self {
            Scalar::F32 => "f32",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::Bool => "bool",
            Scalar::U64 => "u64",
        }
    }
}

/// A value's type: a scalar or a vector of 2 to 4 of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ty {
    pub scalar: Scalar,
    /// 1 for a scalar, 2 to 4 for a vector.
    pub width: u8,
}

impl Ty {
    pub const F32: Ty = Ty::scalar(Scalar::F32);
    pub const I32: Ty = Ty::scalar(Scalar::I32);
    pub const U32: Ty = Ty::scalar(Scalar::U32);
    pub const BOOL: Ty = Ty::scalar(Scalar::Bool);

    pub const fn scalar(scalar: Scalar) -> Ty {
        Ty { scalar, width: 1 }
    }

    pub const fn vec(scalar: Scalar, width: u8) -> Ty {
        Ty { scalar, width }
    }

    /// `f32`, `vec4<f32>`.
    pub fn name(self) -> String {
        match self.width {
            1 => self.scalar.name().to_string(),
            n => format!("vec{n}<{}>", self.scalar.name()),
        }
    }
}

impl std::fmt::Display for Ty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    F32(f32),
    I32(i32),
    U32(u32),
    Bool(bool),
}

impl Lit {
    pub fn scalar(self) -> Scalar {
        match self {
            Lit::F32(_) => Scalar::F32,
            Lit::I32(_) => Scalar::I32,
            Lit::U32(_) => Scalar::U32,
            Lit::Bool(_) => Scalar::Bool,
        }
    }

    /// The bits, for hashing and comparison (`-0.0` and each NaN distinct).
    fn key(self) -> (u8, u32) {
        match self {
            Lit::F32(x) => (0, x.to_bits()),
            Lit::I32(x) => (1, x as u32),
            Lit::U32(x) => (2, x),
            Lit::Bool(x) => (3, x as u32),
        }
    }
}

impl Eq for Lit {}

impl std::hash::Hash for Lit {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key().hash(h)
    }
}

/// The entry point's builtin inputs a kernel reads (each a `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Builtin {
    /// `workgroup_id`'s component 0, 1 or 2.
    WorkgroupId(u8),
    /// `local_invocation_id`'s component 0, 1 or 2.
    LocalId(u8),
    SubgroupInvocationId,
    SubgroupId,
    NumSubgroups,
    SubgroupSize,
}

impl Builtin {
    /// Whether it needs subgroup operations.
    pub fn subgroups(self) -> bool {
        !matches!(self, Builtin::WorkgroupId(_) | Builtin::LocalId(_))
    }
}

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

/// A function variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: Ty,
    /// `Some(n)`: an array of `n` elements of `ty`.
    pub len: Option<u32>,
}

/// A counted loop: `index` runs from `start` while below `end` (or above,
/// for a negative `step`... written as `Down`), by `step`.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// The index, an `i32` value defined for the body ([`Op::LoopIndex`]).
    pub index: V,
    pub start: V,
    pub end: V,
    pub step: LoopStep,
    pub body: Block,
    /// Every invocation of the workgroup runs the loop alike.
    pub uniform: bool,
    /// At most this many trips (for the loop budget).
    pub trips: u64,
}

/// How a loop's index moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoopStep {
    /// `i = i + k` while `i < end`.
    Up(i32),
    /// `i = i / 2` while `i > end` (a tree's halving strides).
    Halve,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Defines a value (a WGSL `let`).
    Let(V),
    /// Declares a variable, with its initial value when given.
    Var(VarId, Init),
    /// `var[index] = value` (no index: the whole scalar variable).
    Assign(VarId, Option<V>, V),
    /// `mem[index] = value` (a buffer or a workgroup array).
    Store(Mem, V, V),
    Loop(Loop),
    If(If),
    /// `workgroupBarrier()`.
    Barrier,
}

/// A variable's initial value.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    None,
    /// A scalar or vector variable's value.
    Value(V),
    /// An array variable's elements, each given.
    Elements(Vec<V>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct If {
    pub cond: V,
    pub then: Block,
    pub els: Option<Block>,
    pub uniform: bool,
}

/// Statements in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

/// How a kernel views a storage buffer's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// The element type of the array declared (`f32`, `vec4<f32>`, `vec4<u64>`).
    pub ty: Ty,
}

/// A storage buffer a kernel binds.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferDecl {
    /// The program's buffer (or slot) it binds.
    pub buffer: BufferId,
    pub name: String,
    pub access: Access,
    pub view: View,
}

/// A workgroup array.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedDecl {
    pub name: String,
    pub ty: Ty,
    pub len: u32,
}

/// A module-scope array of constants (`var<private>` with its values).
#[derive(Clone, Debug, PartialEq)]
pub struct PrivateDecl {
    pub name: String,
    pub ty: Ty,
    pub values: Vec<Lit>,
}

/// One compute entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub workgroup_size: u32,
    pub bindings: Vec<BufferDecl>,
    pub shared: Vec<SharedDecl>,
    pub privates: Vec<PrivateDecl>,
    pub vars: Vec<Var>,
    pub values: Vec<Value>,
    pub body: Block,
    /// A comment the printers put above the kernel.
    pub comment: String,
}

impl Kernel {
    pub fn value(&self, v: V) -> &Value {
        &self.values[v.0 as usize]
    }

    pub fn var(&self, v: VarId) -> &Var {
        &self.vars[v.0 as usize]
    }

    /// The type of an element of `mem` as declared.
    pub fn mem_ty(&self, mem: Mem) -> Option<Ty> {
        match mem {
            Mem::Buffer(b) => self.bindings.get(b as usize).map(|d| d.view.ty),
            Mem::Shared(s) => self.shared.get(s as usize).map(|d| d.ty),
            Mem::Private(p) => self.privates.get(p as usize).map(|d| d.ty),
            Mem::Var(v) => self.vars.get(v.0 as usize).map(|d| d.ty),
        }
    }

    /// Orders the bindings by the buffers they bind (binding `i` the `i`th
    /// smallest [`BufferId`]), renumbering every reference to them.
    pub fn sort_bindings(&mut self) {
        let mut order: Vec<usize> = (0..self.bindings.len()).collect();
        order.sort_by_key(|&i| self.bindings[i].buffer);
        let mut new_of = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of[old] = new as u32;
        }
        let old = std::mem::take(&mut self.bindings);
        self.bindings = order.iter().map(|&i| old[i].clone()).collect();
        let renumber = |m: &mut Mem| {
            if let Mem::Buffer(b) = m {
                *b = new_of[*b as usize];
            }
        };
        for v in &mut self.values {
            if let Op::Load(m, _) = &mut v.op {
                renumber(m);
            }
        }
        self.body.walk_mut(&mut |s| {
            if let Stmt::Store(m, _, _) = s {
                renumber(m);
            }
        });
    }

    /// The WGSL extensions the kernel uses (subgroup operations or
    /// builtins: `subgroups`).
    pub fn extensions(&self) -> std::collections::BTreeSet<texpr_target::Extension> {
        let subgroups = self.values.iter().any(|v| match v.op {
            Op::Subgroup(..) => true,
            Op::Builtin(b) => b.subgroups(),
            _ => false,
        });
        subgroups
            .then_some(texpr_target::Extension::Subgroups)
            .into_iter()
            .collect()
    }

    /// The builtins the kernel reads.
    pub fn builtins(&self) -> std::collections::BTreeSet<Builtin> {
        (self.values.iter())
            .filter_map(|v| match v.op {
                Op::Builtin(b) => Some(b),
                _ => None,
            })
            .collect()
    }

    /// How often each value is used (by values and statements), by value.
    pub fn use_counts(&self) -> Vec<u32> {
        let mut uses = vec![0u32; self.values.len()];
        for v in &self.values {
            for o in v.op.operands() {
                uses[o.0 as usize] += 1;
            }
        }
        self.body.walk(&mut |s| {
            for o in s.operands() {
                uses[o.0 as usize] += 1;
            }
        });
        uses
    }
}

impl Stmt {
    /// The values a statement reads itself (not its blocks').
    pub fn operands(&self) -> Vec<V> {
        match self {
            Stmt::Let(_) | Stmt::Barrier => Vec::new(),
            Stmt::Var(_, Init::None) => Vec::new(),
            Stmt::Var(_, Init::Value(v)) => vec![*v],
            Stmt::Var(_, Init::Elements(vs)) => vs.clone(),
            Stmt::Assign(_, i, v) => i.iter().copied().chain([*v]).collect(),
            Stmt::Store(_, i, v) => vec![*i, *v],
            Stmt::Loop(l) => vec![l.start, l.end],
            Stmt::If(i) => vec![i.cond],
        }
    }
}

impl Block {
    /// Calls `f` on every statement (mutably), nested ones after their parent.
    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Stmt)) {
        for s in &mut self.stmts {
            f(s);
            match s {
                Stmt::Loop(l) => l.body.walk_mut(f),
                Stmt::If(i) => {
                    i.then.walk_mut(f);
                    if let Some(e) = &mut i.els {
                        e.walk_mut(f);
                    }
                }
                _ => {}
            }
        }
    }

    /// Calls `f` on every statement, nested ones after their parent.
    pub fn walk(&self, f: &mut dyn FnMut(&Stmt)) {
        for s in &self.stmts {
            f(s);
            match s {
                Stmt::Loop(l) => l.body.walk(f),
                Stmt::If(i) => {
                    i.then.walk(f);
                    if let Some(e) = &i.els {
                        e.walk(f);
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests;
