//! Lowering a scheduled item to the kernel IR ([`crate::kir`]): the same
//! rules as the text writer in `wgsl/` (the order of every fold, the guards,
//! the unrolling within the kernel's budget, the cooperative fills and
//! barriers), building typed values with [`kir::Builder`] instead of lines.
//!
//! This is the first part of the port (issue #26): it covers the kernels
//! built from loops, arrays and workgroup fills. A kernel that needs a part
//! not ported yet ([`Unported`]: register tiles, prefetches, workgroup and
//! subgroup trees, online `lse` pairs, spills, and the `vec4` / wide loads
//! the text writer chose for it) is written by the text writer instead, so
//! every kernel keeps the strategy it had; `emit` says which path each
//! kernel took (`KernelText::kir`).
//!
//! Expects a kernel the text writer wrote without error (its diagnostics,
//! limits and buffer set stand); guarantees a kernel binding the same
//! buffers in the same order, computing the same elements.

mod elem;
mod fold;
mod group;
mod online;
mod ops;
mod read;
mod spine;
mod vector;

use crate::buffers::{BufferTable, SLOT_BASE};
use crate::grid::grid_root;
use crate::kir::{self, BinOp as KBin, Builder, Builtin, Ty, V};
use crate::plan::{BufferId, BufferPlan, Kernel as Plan};
use crate::wgsl::cost::Cost;
use crate::wgsl::ctx::buffer_var;
use crate::wgsl::module::InLoop;
use std::collections::BTreeMap;
use texpr_syntax::ast::ElemTy;
use texpr_syntax::ir::{Expr, LoopId, Program, VarId, VecRef};
use texpr_syntax::{Diagnostic, Span};
use texpr_target::Target;

/// A part of the language this lowering does not build yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unported(pub &'static str);

/// Why lowering stopped: a part not ported, or an error in the program.
#[derive(Debug)]
pub enum Fail {
    Unported(&'static str),
    Error(Diagnostic),
}

impl From<Diagnostic> for Fail {
    fn from(d: Diagnostic) -> Fail {
        Fail::Error(d)
    }
}

pub type R<T> = Result<T, Fail>;

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
}

/// The state of one kernel being lowered.
#[derive(Debug)]
pub struct Lower<'p> {
    pub p: &'p Program,
    pub bufs: &'p BufferTable,
    pub k: usize,
    pub b: Builder,
    pub idx: BTreeMap<VarId, Ix>,
    pub vecs: BTreeMap<VarId, Loc>,
    /// Each bound buffer's binding.
    bound: BTreeMap<BufferId, u32>,
    pub within: Option<LoopId>,
    pub group_size: u64,
    /// The local id, as an `i32`.
    pub l: Option<V>,
    /// Statements unrolling may add; the longest register vector.
    pub unrolled_budget: u64,
    pub cost: Cost,
    /// The accumulators an enclosing fold offers to a fold in its tail,
    /// and whether the fold just built folded into them (`fold.rs`).
    pub fold_into: Option<fold::FoldInto>,
    pub absorbed: bool,
    /// Each online pair's `s`, by its `m` (`online.rs`).
    pub pairs: BTreeMap<kir::VarId, kir::VarId>,
    /// Where each register vector's values stand, and its array copy once
    /// a read at a run-time index needed one (`vector.rs`).
    pub regs_at: BTreeMap<VarId, (kir::build::Mark, Option<kir::Mem>)>,
}

/// The kir type of an element type.
pub fn ty(e: ElemTy) -> Ty {
    match e {
        ElemTy::F32 => Ty::F32,
        ElemTy::I32 => Ty::I32,
        ElemTy::U32 => Ty::U32,
        ElemTy::Bool => Ty::BOOL,
    }
}

impl<'p> Lower<'p> {
    /// A kernel named `entry` binding `used` (in that order) as `plan` does.
    fn new(
        p: &'p Program,
        bufs: &'p BufferTable,
        k: usize,
        (plan, used, comment): (&Plan, &[BufferId], String),
        target: &Target,
    ) -> R<Lower<'p>> {
        let mut b = Builder::new(plan.entry_point.clone(), comment);
        b.set_workgroup_size(plan.workgroup_size[0]);
        let mut bound = BTreeMap::new();
        for (binding, &id) in plan.bindings.iter().zip(used) {
            let bp = plan_of(bufs, id).ok_or(Fail::Unported("a spill buffer"))?;
            let i = b.bind(id, buffer_var(k, &bp.name), binding.access, ty(bp.elem));
            bound.insert(id, i);
        }
        let limits = &target.limits;
        Ok(Lower {
            p,
            bufs,
            k,
            b,
            idx: BTreeMap::new(),
            vecs: BTreeMap::new(),
            bound,
            within: None,
            group_size: 1,
            l: None,
            unrolled_budget: limits.max_unrolled_statements,
            cost: Cost {
                register_vector: limits.max_unrolled_elements,
            },
            fold_into: None,
            absorbed: false,
            pairs: BTreeMap::new(),
            regs_at: BTreeMap::new(),
        })
    }

    /// The memory of a buffer the kernel binds.
    pub fn buffer(&self, id: BufferId) -> R<kir::Mem> {
        (self.bound.get(&id).map(|&i| kir::Mem::Buffer(i)))
            .ok_or(Fail::Unported("an unbound buffer"))
    }

    /// The buffer holding an input, global or state.
    pub fn vec_buffer(&self, v: VecRef) -> Option<R<kir::Mem>> {
        let id = self.bufs.of(v, self.p, self.within)?;
        Some(self.buffer(id))
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
            Fail::Error(Diagnostic::error(
                "E0392",
                format!(
                    "internal error: index variable `{}` is not bound",
                    self.p.var(v).name
                ),
            ))
        })
    }

    /// The local id (bound by the spine before any element is computed).
    pub fn local(&mut self) -> V {
        match self.l {
            Some(l) => l,
            None => {
                let lid = self.b.builtin(Builtin::LocalId(0));
                let l = self.b.value(kir::Op::Convert(lid), Ty::I32, "l");
                self.l = Some(l);
                l
            }
        }
    }

    /// Whether `copies` copies of a body of about `each` statements fit the
    /// kernel's budget of unrolled statements.
    pub fn may_unroll(&self, copies: u64, each: u64) -> bool {
        let extra = copies.saturating_sub(1).saturating_mul(each);
        self.b.unrolled().saturating_add(extra) <= self.unrolled_budget
    }

    /// `u` halved until `u` copies of `each` statements fit the budget.
    pub fn fit_unroll(&self, mut u: u64, each: u64) -> u64 {
        while u > 1 && !self.may_unroll(u, each) {
            u /= 2;
        }
        u
    }

    /// `a op b` on `i32`s, folding constants where the result is defined.
    pub fn arith(&mut self, op: KBin, a: Ix, b: Ix) -> Ix {
        use texpr_syntax::ast::TermOp;
        let top = match op {
            KBin::Add => Some(TermOp::Add),
            KBin::Sub => Some(TermOp::Sub),
            KBin::Mul => Some(TermOp::Mul),
            KBin::Div => Some(TermOp::Div),
            KBin::Rem => Some(TermOp::Rem),
            _ => None,
        };
        if let (Ix::Const(x), Ix::Const(y), Some(t)) = (a, b, top)
            && let Some(r) = texpr_syntax::ir::term::fold(t, x, y)
            && i32::try_from(r).is_ok()
        {
            return Ix::Const(r);
        }
        match (op, b) {
            (KBin::Add | KBin::Sub, Ix::Const(0)) | (KBin::Mul | KBin::Div, Ix::Const(1)) => {
                return a;
            }
            _ => {}
        }
        if let (KBin::Add | KBin::Mul, Ix::Const(c)) = (op, a)
            && c == (op == KBin::Mul) as i64
        {
            return b;
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

/// The plan of a program buffer or slot (`None` for a spill buffer).
fn plan_of(bufs: &BufferTable, id: BufferId) -> Option<&BufferPlan> {
    match id.0 >= SLOT_BASE {
        true => Some(bufs.plan_of(id)),
        false => bufs.plans.get(id.0 as usize),
    }
}

/// What the text writer decided for a kernel that lowering takes as given:
/// its plan (bindings, workgroup size) and the buffers it binds in order.
#[derive(Debug)]
pub struct Given<'a> {
    pub plan: &'a Plan,
    pub used: &'a [BufferId],
}

/// Kernel number `k` for item `name` (root `root`) writing `out`, as the
/// text writer planned it (`given`); [`Unported`] when it needs a part not
/// ported yet.
pub fn kernel(
    p: &Program,
    bufs: &BufferTable,
    k: usize,
    (name, root, out): (&str, &Expr, BufferId),
    in_loop: &InLoop,
    target: &Target,
    given: Given<'_>,
) -> Result<Result<kir::Kernel, Unported>, Diagnostic> {
    let comment = format!("kernel {k}: {name}");
    let run = || -> R<kir::Kernel> {
        let mut cx = Lower::new(p, bufs, k, (given.plan, given.used, comment), target)?;
        cx.within = in_loop.within;
        let sh = grid_root(root)?;
        spine::item(&mut cx, &sh, root, out, given.plan)?;
        for &l in &in_loop.ticks {
            spine::advance_step(&mut cx, l, true)?;
        }
        Ok(cx.b.finish())
    };
    finish(run())
}

/// Kernel number `k` that only advances loop `l`'s step.
pub fn step_kernel(
    p: &Program,
    bufs: &BufferTable,
    k: usize,
    l: LoopId,
    target: &Target,
    given: Given<'_>,
) -> Result<Result<kir::Kernel, Unported>, Diagnostic> {
    let comment = format!("kernel {k}: step{l}");
    let run = || -> R<kir::Kernel> {
        let mut cx = Lower::new(p, bufs, k, (given.plan, given.used, comment), target)?;
        cx.within = Some(l);
        spine::advance_step(&mut cx, l, false)?;
        Ok(cx.b.finish())
    };
    finish(run())
}

fn finish(r: R<kir::Kernel>) -> Result<Result<kir::Kernel, Unported>, Diagnostic> {
    match r {
        Ok(k) => Ok(Ok(k)),
        Err(Fail::Unported(what)) => Ok(Err(Unported(what))),
        Err(Fail::Error(d)) => Err(d),
    }
}

/// A span-less internal error for a read with no storage.
pub fn unbound(span: Span) -> Fail {
    Fail::Error(
        Diagnostic::error("E0392", "internal error: a vector read has no storage")
            .with_primary(span, "this read"),
    )
}
