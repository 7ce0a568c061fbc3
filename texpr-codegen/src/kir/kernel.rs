//! A kernel's structure: variables, statements and blocks (loops, `if`s),
//! the buffers, workgroup and private arrays it declares, and [`Kernel`]
//! with the questions every printer and pass asks of it (types of memory,
//! builtins and extensions used, use counts).

use super::{Builtin, Lit, Mem, Op, Ty, V, Value, VarId};
use crate::buffer_id::{Access, BufferId};
use texpr_ir::Span;

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
    /// `storageBarrier()`: the workgroup's writes to storage buffers before
    /// it are seen by its reads after it (with a [`Stmt::Barrier`]).
    StorageBarrier,
    /// A load, multiply-add or store of cooperative matrices.
    Coop(super::CoopStmt),
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
    /// What it holds in the program's words (`` `x` ``, ``state `s` ``),
    /// for errors; empty when unknown (then its name is used). Not printed.
    pub what: String,
}

/// A workgroup array.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedDecl {
    pub name: String,
    pub ty: Ty,
    pub len: u32,
    /// The source it holds (for the budget's errors; not printed).
    pub span: Span,
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
    /// Cooperative matrices, by [`super::CoopId`].
    pub coops: Vec<super::Coop>,
    pub values: Vec<Value>,
    pub body: Block,
    /// A comment the printers put above the kernel.
    pub comment: String,
    /// The source it computes, for the passes' errors (not printed).
    pub spans: Spans,
}

/// Where a kernel comes from in the source: what the limit checks point at
/// (nothing, [`Span::DUMMY`], for a kernel read from kernel-IR text).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spans {
    /// The item (or loop) the kernel computes.
    pub item: Span,
    /// The node that sets the workgroup size.
    pub workgroup_size: Span,
}

impl Kernel {
    /// A kernel with nothing declared and an empty body.
    pub fn empty(name: String, workgroup_size: u32, comment: String) -> Kernel {
        Kernel {
            name,
            workgroup_size,
            bindings: Vec::new(),
            shared: Vec::new(),
            privates: Vec::new(),
            vars: Vec::new(),
            coops: Vec::new(),
            values: Vec::new(),
            body: Block::default(),
            comment,
            spans: Spans::default(),
        }
    }

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

    /// The WGSL extensions the kernel uses (subgroup operations or
    /// builtins: `subgroups`; `f16`; cooperative matrices).
    pub fn extensions(&self) -> std::collections::BTreeSet<texpr_target::Extension> {
        let subgroups = self.values.iter().any(|v| match v.op {
            Op::Subgroup(..) => true,
            Op::Builtin(b) => b.subgroups(),
            _ => false,
        });
        let f16 = |t: Ty| t.scalar == super::Scalar::F16;
        let halves = self.values.iter().any(|v| f16(v.ty))
            || self.vars.iter().any(|v| f16(v.ty))
            || self.bindings.iter().any(|b| f16(b.view.ty))
            || self.shared.iter().any(|s| f16(s.ty))
            || self.privates.iter().any(|p| f16(p.ty));
        let mut out = std::collections::BTreeSet::new();
        if !self.coops.is_empty() {
            out.insert(texpr_target::Extension::CooperativeMatrix);
        }
        let halves = halves || self.coops.iter().any(|c| c.scalar == super::Scalar::F16);
        if subgroups {
            out.insert(texpr_target::Extension::Subgroups);
        }
        if halves {
            out.insert(texpr_target::Extension::F16);
        }
        out
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

    /// Rewrites every operand of every value and statement through `f`.
    pub fn map_operands(&mut self, f: &mut dyn FnMut(V) -> V) {
        for v in &mut self.values {
            v.op.map_operands(f);
        }
        self.body.walk_mut(&mut |s| s.map_operands(f));
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
    /// Rewrites each value it reads itself (not its blocks') through `f`.
    pub fn map_operands(&mut self, f: &mut dyn FnMut(V) -> V) {
        match self {
            Stmt::Let(_) | Stmt::Barrier | Stmt::StorageBarrier => {}
            Stmt::Var(_, Init::None) => {}
            Stmt::Var(_, Init::Value(v)) => *v = f(*v),
            Stmt::Var(_, Init::Elements(vs)) => vs.iter_mut().for_each(|v| *v = f(*v)),
            Stmt::Assign(_, i, v) => {
                if let Some(i) = i {
                    *i = f(*i);
                }
                *v = f(*v);
            }
            Stmt::Store(_, i, v) => {
                *i = f(*i);
                *v = f(*v);
            }
            Stmt::Loop(l) => {
                l.start = f(l.start);
                l.end = f(l.end);
            }
            Stmt::If(i) => i.cond = f(i.cond),
            Stmt::Coop(c) => c.map_operands(f),
        }
    }

    /// The values a statement reads itself (not its blocks').
    pub fn operands(&self) -> Vec<V> {
        match self {
            Stmt::Let(_) | Stmt::Barrier | Stmt::StorageBarrier => Vec::new(),
            Stmt::Var(_, Init::None) => Vec::new(),
            Stmt::Var(_, Init::Value(v)) => vec![*v],
            Stmt::Var(_, Init::Elements(vs)) => vs.clone(),
            Stmt::Assign(_, i, v) => i.iter().copied().chain([*v]).collect(),
            Stmt::Store(_, i, v) => vec![*i, *v],
            Stmt::Loop(l) => vec![l.start, l.end],
            Stmt::If(i) => vec![i.cond],
            Stmt::Coop(c) => c.operands(),
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
