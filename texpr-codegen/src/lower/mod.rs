//! Lowering a scheduled program to the kernel IR ([`crate::kir`]): one
//! kernel per item (and per loop step advanced alone), built with
//! [`kir::Builder`] from the item's grid root, with the accounts the limit
//! checks need (`checks.rs`).
//!
//! The rules are those of the text writer this replaced: every fold in
//! index order, unrolled within the kernel's budget of statements
//! (`cost.rs`); reads in bounds (guarded ones clamp and select); workgroup
//! memory filled cooperatively between barriers, which stand only in
//! uniform control flow (E0391); a runtime value wherever WGSL defines an
//! operation at run time only (`ops.rs`). One file a concern:
//!
//! - `item.rs`: the entry point (grid id, dispatch padding, loop steps,
//!   bindings in buffer order); `fused.rs`: a loop run whole in one
//!   workgroup's kernel; `spine.rs`: the grid body's `let`s and its
//!   final value, elements written through the layout's inverse;
//! - `elem.rs`: one element of an expression; `index` terms; `fold.rs`:
//!   folds, `online.rs` the online `lse` pair; `group.rs`: workgroup
//!   trees and subgroup reductions;
//! - `read.rs`: `let`-bound vectors and reads; `vector.rs`: register
//!   tiles; `prefetch.rs`: registers loaded a trip ahead; `spill.rs`:
//!   arrays past the memory budget in scratch buffers;
//! - `vec4.rs`, `wide.rs`, `lanes.rs`: four or eight
//!   elements a load (aligned by the IR's exact division, `term::divide`),
//!   and loads shared by a subgroup's lanes.

pub mod cost;
mod elem;
mod fold;
mod fused;
mod group;
mod item;
mod lanes;
mod mma;
mod online;
mod ops;
mod prefetch;
mod read;
mod spill;
mod spine;
mod state;
mod update;
mod vec4;
mod vector;
mod wide;

pub use fused::{LoopItem, loop_kernel};
pub use item::{InLoop, KernelText, kernel, step_kernel};
pub use lanes::Lanes;
pub use update::{init_kernel, write_back_kernel};

use crate::buffers::{BufferTable, SLOT_BASE};
use crate::kir::{self, BinOp as KBin, Builder, Builtin, Ty, V};
use crate::plan::{Access, BufferId, BufferPlan};
use cost::Cost;
use std::collections::BTreeMap;
use texpr_ir::ElemTy;
use texpr_ir::term::{self, Folded};
use texpr_ir::{Diagnostic, Span, TermOp};
use texpr_ir::{Program, VarId, VecRef};
use texpr_target::Target;

pub type R<T> = Result<T, Diagnostic>;

/// The entry point of kernel number `k`, which computes `item`.
pub fn entry_point(k: usize, item: &str) -> String {
    format!("k{k}_{item}")
}

/// An `i32` index: a constant or a value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ix {
    Const(i64),
    Val(V),
}

/// Where a `let`-bound vector lives.
#[derive(Clone, Debug)]
pub enum Loc {
    /// An array: a function variable, workgroup memory, a private array of
    /// constants or a constant buffer.
    Array(kir::Mem),
    /// A length-1 value.
    Scalar(V),
    /// A short vector, one value per element (a register tile).
    Regs(Vec<V>),
    /// Registers held in variables (a prefetched tile, `prefetch.rs`).
    Vars(Vec<kir::VarId>),
    /// An array in a scratch buffer, one slot per invocation (`spill.rs`).
    Spilled(kir::Mem),
}

/// The target's cooperative-matrix configurations and subgroup sizes.
#[derive(Clone, Debug, Default)]
pub struct CoopCaps {
    pub configs: Vec<texpr_target::CoopMatrix>,
    pub subgroup: Option<(u32, u32)>,
}

/// The statements a fold's loop adds around its body's copies: the
/// accumulator's declaration, the loop, and the read after it.
const LOOP_STATEMENTS: u64 = 4;

/// A kernel's budgets (from [`texpr_target::DeviceLimits`]).
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Function-memory elements per invocation.
    pub private: u64,
    /// Statements unrolling may add.
    pub unrolled: u64,
}

/// Function memory one invocation holds: an array or a register vector,
/// with the source responsible.
#[derive(Clone, Debug)]
pub struct PrivateDecl {
    pub what: String,
    pub len: u64,
    pub span: Span,
}

/// The state of one kernel being lowered, each concern's in its group
/// (`state.rs`).
#[derive(Debug)]
pub struct Lower<'p> {
    pub p: &'p Program,
    pub bufs: &'p BufferTable,
    pub k: usize,
    /// The item the kernel computes.
    pub item: String,
    pub b: Builder,
    pub idx: BTreeMap<VarId, Ix>,
    pub vecs: BTreeMap<VarId, Loc>,
    pub binds: state::Binds,
    pub reads: state::Reads,
    pub spilling: state::Spilling,
    pub accounts: state::Accounts,
    pub unroll: state::Unroll,
    pub regs: state::Regs,
    pub group: state::Group,
    /// What the target offers cooperative matrices (`mma.rs`).
    pub coop: CoopCaps,
}

/// The kir type of an element type.
pub fn ty(e: ElemTy) -> Ty {
    match e {
        ElemTy::F32 => Ty::F32,
        ElemTy::F16 => Ty::F16,
        ElemTy::I32 => Ty::I32,
        ElemTy::U32 => Ty::U32,
        ElemTy::Bool => Ty::BOOL,
    }
}

impl<'p> Lower<'p> {
    /// Kernel number `k` (`entry`, `comment`), its spill buffers numbered
    /// from `first_spill`, for `target`.
    /// Lowering of kernel number `k`, named for `item` (its entry point is
    /// [`entry_point`]), whose spilled buffers are numbered from `first_spill`.
    pub fn new(
        p: &'p Program,
        bufs: &'p BufferTable,
        (k, first_spill): (usize, u32),
        item: &str,
        target: &Target,
    ) -> Lower<'p> {
        let limits = &target.limits;
        Lower {
            p,
            bufs,
            k,
            item: item.to_string(),
            b: Builder::new(entry_point(k, item), format!("kernel {k}: {item}")),
            idx: BTreeMap::new(),
            vecs: BTreeMap::new(),
            binds: state::Binds::default(),
            reads: state::Reads::default(),
            spilling: state::Spilling::new(first_spill),
            accounts: state::Accounts::default(),
            unroll: state::Unroll {
                budget: Budget {
                    private: limits.max_private_elements,
                    unrolled: limits.max_unrolled_statements,
                },
                unroll_cap: None,
                cost: Cost {
                    unrolls: true,
                    register_vector: limits.max_unrolled_elements,
                },
            },
            regs: state::Regs::default(),
            group: state::Group {
                group_size: 1,
                l: None,
            },
            coop: CoopCaps {
                configs: target.features.cooperative_matrix.clone(),
                subgroup: target.features.subgroup_size,
            },
        }
    }

    /// The plan of buffer `id`: the program's (a slot's), or one of this
    /// kernel's spills.
    pub fn plan(&self, id: BufferId) -> &BufferPlan {
        if id.0 >= SLOT_BASE {
            return self.bufs.plan_of(id);
        }
        match id.0.checked_sub(self.spilling.first_spill) {
            Some(i) => &self.spilling.spills[i as usize].0,
            None => &self.bufs.plans[id.0 as usize],
        }
    }

    /// The memory of buffer `id`, bound at its first use: read-write when
    /// the kernel writes it (its output, a slot it advances, a spill),
    /// else read-only; viewed as its element type, or four or eight of
    /// them an entry (`vec4.rs`).
    pub fn buffer(&mut self, id: BufferId) -> kir::Mem {
        let id = self.binds.slots_as.get(&id).copied().unwrap_or(id);
        if let Some(&b) = self.binds.bound.get(&id) {
            return kir::Mem::Buffer(b);
        }
        let spill = id.0 >= self.spilling.first_spill && id.0 < SLOT_BASE;
        let access = match Some(id) == self.binds.out || self.binds.writes.contains(&id) || spill {
            true => Access::ReadWrite,
            false => Access::Read,
        };
        let plan = self.plan(id);
        let (name, elem) = (format!("b{}_{}", self.k, plan.name), plan.elem);
        let view = match (self.reads.vec4.contains(&id), self.reads.octo.contains(&id)) {
            (true, _) => vec4::vec4_of(elem),
            (false, true) => vec4::OCTO,
            _ => ty(elem),
        };
        let b = self.b.bind(id, name, access, view);
        self.binds.bound.insert(id, b);
        kir::Mem::Buffer(b)
    }

    /// The buffer holding an input, global or state.
    pub fn vec_buffer(&mut self, v: VecRef) -> Option<kir::Mem> {
        let id = self.bufs.of(v, self.p, self.binds.within)?;
        Some(self.buffer(id))
    }

    /// Records `len` elements of function memory (`what`, from `span`).
    pub fn note_private(&mut self, what: String, len: u64, span: Span) {
        self.accounts.private.push(PrivateDecl { what, len, span });
        self.accounts.live_private += len;
        self.accounts.peak_private = self.accounts.peak_private.max(self.accounts.live_private);
    }

    /// An index as a value.
    pub fn ix(&mut self, ix: Ix) -> V {
        match ix {
            Ix::Const(c) => self.b.i32(c as i32),
            Ix::Val(v) => v,
        }
    }

    pub fn index_var(&self, v: VarId) -> R<Ix> {
        self.idx.get(&v).copied().ok_or_else(|| {
            Diagnostic::error(
                "E0392",
                format!(
                    "internal error: index variable `{}` is not bound",
                    self.p.var(v).name
                ),
            )
        })
    }

    /// The local id (bound by the spine before any element is computed).
    pub fn local(&mut self) -> V {
        match self.group.l {
            Some(l) => l,
            None => {
                let lid = self.b.builtin(Builtin::LocalId(0));
                let l = self.b.value(kir::Op::Convert(lid), Ty::I32, "l");
                self.group.l = Some(l);
                l
            }
        }
    }

    /// Whether `copies` copies of a body of about `each` statements fit the
    /// kernel's budget of unrolled statements.
    pub fn may_unroll(&self, copies: u64, each: u64) -> bool {
        let used = self.b.unrolled();
        let extra = copies.saturating_sub(1).saturating_mul(each);
        let within_cap = self.unroll.unroll_cap.is_none_or(|cap| {
            // Under an element's cap, every copy and the loop's own
            // statements count (the cap leaves nothing over).
            used.saturating_add(copies.saturating_mul(each) + LOOP_STATEMENTS) <= cap
        });
        within_cap && used.saturating_add(extra) <= self.unroll.budget.unrolled
    }

    /// What an element costs at least, its folds loops: twice the estimate
    /// ([`Cost::looped`]; the estimates leave out a fold's accumulator and
    /// reads, and one that is too high only keeps a fold in a loop).
    pub fn least(&self, estimate: impl Fn(Cost) -> u64) -> u64 {
        estimate(self.unroll.cost.looped()).saturating_mul(2)
    }

    /// Lowers element `i` of `n` unrolled ones with `f`, keeping free for
    /// each element after it `least` statements (its cost with every fold
    /// a loop, [`Cost::looped`]): unrolling an early element's folds never
    /// leaves a later one without room ([`Lower::unroll_cap`]).
    pub fn within_share<T>(
        &mut self,
        i: u64,
        n: u64,
        least: u64,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let outer = self.unroll.unroll_cap;
        let limit = outer.map_or(self.unroll.budget.unrolled, |c| {
            c.min(self.unroll.budget.unrolled)
        });
        // And a 32nd of the budget for what follows the vector.
        let later =
            n.saturating_sub(i + 1).saturating_mul(least) + self.unroll.budget.unrolled / 32;
        self.unroll.unroll_cap = Some(limit.saturating_sub(later));
        let out = f(self);
        self.unroll.unroll_cap = outer;
        out
    }

    /// `u` halved until `u` copies of `each` statements fit the budget.
    pub fn fit_unroll(&self, mut u: u64, each: u64) -> u64 {
        while u > 1 && !self.may_unroll(u, each) {
            u /= 2;
        }
        u
    }

    /// `a op b` on `i32`s, by the IR's one set of index rules
    /// ([`term::fold_identity`]: constants folded where the result is
    /// defined, `x+0`, `x*1` and the like) before any code is emitted.
    pub fn arith(&mut self, op: KBin, a: Ix, b: Ix) -> Ix {
        let top = match op {
            KBin::Add => Some(TermOp::Add),
            KBin::Sub => Some(TermOp::Sub),
            KBin::Mul => Some(TermOp::Mul),
            KBin::Div => Some(TermOp::Div),
            KBin::Rem => Some(TermOp::Rem),
            _ => None,
        };
        let value = |x: Ix| match x {
            Ix::Const(c) => Some(c),
            Ix::Val(_) => None,
        };
        match top.and_then(|t| term::fold_identity(t, value(a), value(b))) {
            Some(Folded::Const(r)) => return Ix::Const(r),
            Some(Folded::Left) => return a,
            Some(Folded::Right) => return b,
            None => {}
        }
        // Two literals whose operation is not defined here: a run-time
        // operand, so no compiler evaluates it as a constant expression.
        let a = match (a, b) {
            (Ix::Const(x), Ix::Const(_)) => self.b.const_var(kir::Lit::I32(x as i32)),
            _ => self.ix(a),
        };
        let bv = match b {
            Ix::Const(0) if matches!(op, KBin::Div | KBin::Rem) => {
                self.b.const_var(kir::Lit::I32(0))
            }
            _ => self.ix(b),
        };
        Ix::Val(self.b.binary(op, a, bv))
    }
}

/// A span-less internal error for a read with no storage.
pub fn unbound(span: Span) -> Diagnostic {
    Diagnostic::error("E0392", "internal error: a vector read has no storage")
        .with_primary(span, "this read")
}
