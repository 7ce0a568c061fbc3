//! Building a kernel: values defined in the open block (reused where the same
//! pure value is in scope), variables, stores, loops, conditionals and
//! barriers, with the accounts the limit checks need.
//!
//! Value reuse: a value whose operation reads nothing that may change while
//! the kernel runs (its operands, constants, builtins, read-only buffers,
//! private constants, variables never assigned) is *pure*; asking again for
//! a pure value already defined in an open block gives that one back, so an
//! index such as `(g * 256 + l) * 16 + t` is computed once, not once per
//! read. Loads of written memory, variables' values and subgroup operations
//! are never reused.
//!
//! Uniformity: every block is opened uniform (every invocation of the
//! workgroup enters it alike) or not; [`Builder::barrier`] and
//! [`Builder::subgroup`] refuse non-uniform control flow (E0391), so code
//! generation cannot put one there by mistake.
//!
//! Accounts: statements written inside unrolled copies after the first
//! ([`Builder::enter_copy`]), all statements. (Loop iterations are the
//! kernel's to tell: `passes::loop_iterations`.)

mod flow;

use super::*;
use flow::nonuniform;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;
use texpr_ir::{Diagnostic, Span};

/// A place in an open block where statements can be inserted later
/// ([`Builder::insert_at`]): declarations hoisted to the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark(usize);

#[derive(Debug)]
enum Open {
    Root,
    Loop {
        index: V,
        start: V,
        end: V,
        step: LoopStep,
        trips: u64,
    },
    Then(V),
    Else(V, Block),
}

#[derive(Debug)]
struct Frame {
    open: Open,
    stmts: Vec<Stmt>,
    uniform: bool,
    /// The pure values defined here, by operation and type.
    values: HashMap<(Op, Ty), V>,
    /// The reads of the constant variables declared here, by constant.
    const_vars: HashMap<Lit, V>,
}

/// A kernel under construction.
#[derive(Debug)]
pub struct Builder {
    k: Kernel,
    frames: Vec<Frame>,
    /// Free values (constants, builtins), shared by all blocks.
    free: HashMap<(Op, Ty), V>,
    /// Memory that does not change while the kernel runs.
    fixed_mem: BTreeSet<Mem>,
    /// Variables assigned somewhere (their reads are never reused).
    assigned: BTreeSet<VarId>,
    next_name: u32,
    copies: u32,
    unrolled: u64,
    statements: u64,
    /// Insertion points: (frame depth, statement index), shifted as
    /// statements are inserted.
    marks: Vec<(usize, usize)>,
    /// The top of the function body.
    top: Mark,
}

impl Builder {
    pub fn new(name: impl Into<String>, comment: impl Into<String>) -> Builder {
        Builder {
            k: Kernel::empty(name.into(), 1, comment.into()),
            frames: vec![Frame {
                open: Open::Root,
                stmts: Vec::new(),
                uniform: true,
                values: HashMap::default(),
                const_vars: HashMap::default(),
            }],
            free: HashMap::default(),
            fixed_mem: BTreeSet::new(),
            assigned: BTreeSet::new(),
            next_name: 0,
            copies: 0,
            unrolled: 0,
            statements: 0,
            marks: vec![(0, 0)],
            top: Mark(0),
        }
    }

    /// The top of the function body (for values every statement may read).
    pub fn top(&self) -> Mark {
        self.top
    }

    /// The kernel so far (its body is complete only after [`Builder::finish`]).
    pub fn kernel(&self) -> &Kernel {
        &self.k
    }

    pub fn set_workgroup_size(&mut self, w: u32) {
        self.k.workgroup_size = w;
    }

    /// `base_N` with the next number: names are unique within the kernel.
    pub fn fresh(&mut self, base: &str) -> String {
        self.next_name += 1;
        let plain = base.starts_with(|c: char| c.is_ascii_alphabetic())
            && base.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        let base: String = match plain {
            true => base.to_string(),
            false => {
                let s: String = base
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                format!("v_{s}")
            }
        };
        format!("{base}_{}", self.next_name)
    }

    /// Declares a storage buffer binding (binding number = its position).
    pub fn bind(&mut self, buffer: BufferId, name: String, access: Access, view: Ty) -> u32 {
        let i = self.k.bindings.len() as u32;
        self.k.bindings.push(BufferDecl {
            buffer,
            name,
            access,
            view: View { ty: view },
            what: String::new(),
        });
        if access == Access::Read {
            self.fixed_mem.insert(Mem::Buffer(i));
        }
        i
    }

    /// Changes how a bound buffer is viewed (before any load of it is built).
    pub fn set_view(&mut self, binding: u32, ty: Ty) {
        self.k.bindings[binding as usize].view = View { ty };
    }

    /// A workgroup array holding `span`'s value.
    pub fn declare_shared(&mut self, name: String, ty: Ty, len: u32, span: Span) -> Mem {
        self.k.shared.push(SharedDecl {
            name,
            ty,
            len,
            span,
        });
        Mem::Shared(self.k.shared.len() as u32 - 1)
    }

    /// A module-scope array of constants (one per distinct list).
    pub fn private_array(&mut self, base: &str, ty: Ty, values: Vec<Lit>) -> Mem {
        if let Some(i) = self
            .k
            .privates
            .iter()
            .position(|p| p.ty == ty && p.values == values)
        {
            return Mem::Private(i as u32);
        }
        let name = format!("c_{base}_{}", self.k.privates.len());
        self.k.privates.push(PrivateDecl { name, ty, values });
        let m = Mem::Private(self.k.privates.len() as u32 - 1);
        self.fixed_mem.insert(m);
        m
    }

    /// A constant (an infinity or a NaN too: `passes::spell_nonfinite`
    /// makes it a run-time value once the kernel is built).
    pub fn lit(&mut self, l: Lit) -> V {
        self.free_value(Op::Const(l), Ty::scalar(l.scalar()), "c")
    }

    pub fn i32(&mut self, x: i32) -> V {
        self.lit(Lit::I32(x))
    }

    pub fn u32(&mut self, x: u32) -> V {
        self.lit(Lit::U32(x))
    }

    pub fn f32(&mut self, x: f32) -> V {
        self.lit(Lit::F32(x))
    }

    pub fn builtin(&mut self, b: Builtin) -> V {
        let name = match b {
            Builtin::WorkgroupId(_) => "wid",
            Builtin::LocalId(_) => "lid",
            Builtin::SubgroupInvocationId => "sgl",
            Builtin::SubgroupId => "sgid",
            Builtin::NumSubgroups => "nsg",
            Builtin::SubgroupSize => "sgs",
        };
        self.free_value(Op::Builtin(b), Ty::U32, name)
    }

    fn free_value(&mut self, op: Op, ty: Ty, name: &str) -> V {
        if let Some(&v) = self.free.get(&(op.clone(), ty)) {
            return v;
        }
        let v = self.push_value(op.clone(), ty, name.to_string());
        self.free.insert((op, ty), v);
        v
    }

    fn push_value(&mut self, op: Op, ty: Ty, name: String) -> V {
        self.k.values.push(Value { op, ty, name });
        V(self.k.values.len() as u32 - 1)
    }

    /// Whether an operation's result may be reused wherever it is in scope
    /// (see the module doc).
    fn pure_op(&self, op: &Op) -> bool {
        match op {
            Op::Load(m, _) => self.fixed_mem.contains(m),
            Op::ReadVar(v) => !self.assigned.contains(v),
            Op::Subgroup(..) | Op::LoopIndex => false,
            _ => true,
        }
    }

    /// The value of `op` (type `ty`), defined here unless the same pure value
    /// is in scope; `name` is its base name.
    pub fn value(&mut self, op: Op, ty: Ty, name: &str) -> V {
        if op.is_free() {
            return self.free_value(op, ty, name);
        }
        let pure = self.pure_op(&op);
        if pure {
            let key = (op.clone(), ty);
            if let Some(v) = self.frames.iter().rev().find_map(|f| f.values.get(&key)) {
                return *v;
            }
        }
        let name = self.fresh(name);
        let v = self.push_value(op.clone(), ty, name);
        self.push(Stmt::Let(v));
        if pure {
            self.frame().values.insert((op, ty), v);
        }
        v
    }

    /// `a op b` (comparisons give booleans).
    pub fn binary(&mut self, op: BinOp, a: V, b: V) -> V {
        let at = self.ty(a);
        let ty = match op.is_comparison() {
            true => Ty::vec(Scalar::Bool, at.width),
            false => at,
        };
        self.value(Op::Binary(op, a, b), ty, "t")
    }

    pub fn unary(&mut self, op: UnOp, a: V) -> V {
        let ty = self.ty(a);
        self.value(Op::Unary(op, a), ty, "t")
    }

    /// A builtin function; `All` gives a boolean, the others their first
    /// value operand's type (`Select`'s second).
    pub fn call(&mut self, f: Fun, args: Vec<V>) -> V {
        let ty = match f {
            Fun::All => Ty::BOOL,
            Fun::Select => self.ty(args[0]),
            _ => self.ty(args[0]),
        };
        self.value(Op::Call(f, args), ty, "t")
    }

    /// `cond ? t : f` (WGSL's `select(f, t, cond)`).
    pub fn select(&mut self, cond: V, t: V, f: V) -> V {
        self.call(Fun::Select, vec![f, t, cond])
    }

    pub fn convert(&mut self, ty: Ty, a: V) -> V {
        if self.ty(a) == ty {
            return a;
        }
        self.value(Op::Convert(a), ty, "t")
    }

    pub fn bitcast(&mut self, ty: Ty, a: V) -> V {
        if self.ty(a) == ty {
            return a;
        }
        self.value(Op::Bitcast(a), ty, "t")
    }

    /// `mem[index]`, of the memory's element type.
    pub fn load(&mut self, mem: Mem, index: V) -> V {
        let ty = self.k.mem_ty(mem).expect("declared memory");
        self.value(Op::Load(mem, index), ty, "t")
    }

    pub fn read_var(&mut self, v: VarId) -> V {
        let ty = self.k.var(v).ty;
        self.value(Op::ReadVar(v), ty, "t")
    }

    pub fn extract(&mut self, a: V, k: u8) -> V {
        let ty = Ty::scalar(self.ty(a).scalar);
        self.value(Op::Extract(a, k), ty, "t")
    }

    /// Component `i` (a run-time index) of vector `a`.
    pub fn component(&mut self, a: V, i: V) -> V {
        let ty = Ty::scalar(self.ty(a).scalar);
        self.value(Op::Component(a, i), ty, "t")
    }

    pub fn construct(&mut self, ty: Ty, parts: Vec<V>) -> V {
        self.value(Op::Construct(parts), ty, "q")
    }

    /// A subgroup operation: uniform control flow only (E0391).
    pub fn subgroup(&mut self, op: SgOp, args: Vec<V>) -> Result<V, Diagnostic> {
        if !self.uniform() {
            return Err(nonuniform("a subgroup operation"));
        }
        let ty = self.ty(args[0]);
        Ok(self.value(Op::Subgroup(op, args), ty, "t"))
    }
}
