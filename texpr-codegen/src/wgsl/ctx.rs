//! The state of one kernel being written: the function writer, what index
//! variables and local vectors are bound to, and which buffers it touches.

use super::writer::{Mark, Writer};
use crate::buffers::BufferTable;
use crate::plan::{BufferId, BufferPlan};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use texpr_syntax::ast::{ElemTy, ReduceOp};
use texpr_syntax::ir::{Program, Scalar, Term, VarId, VecRef};
use texpr_syntax::{Diagnostic, Span};
use texpr_target::Target;

/// Where a `let`-bound vector lives.
#[derive(Clone, Debug)]
pub enum Loc {
    /// A `var` array (function or workgroup memory).
    Array(String),
    /// A length-1 value held in a WGSL `let`.
    Scalar(String),
    /// A short vector unrolled into one WGSL value per element (a register
    /// tile); constant-index reads name the element directly.
    Regs(Vec<String>),
    /// An array in a global scratch buffer (the buffer's WGSL name), one
    /// slot per invocation (see `spill.rs`).
    Spilled(String),
}

/// An `i32` index: a constant or the name of a WGSL value.
#[derive(Clone, Debug, PartialEq)]
pub enum Ix {
    Const(i64),
    Name(String),
}

impl fmt::Display for Ix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ix::Const(c) => write!(f, "{}", super::lit::i32_lit(*c as i32)),
            Ix::Name(n) => f.write_str(n),
        }
    }
}

/// Function memory one invocation holds: an array or a register vector,
/// with the source responsible.
#[derive(Clone, Debug)]
pub struct PrivateDecl {
    pub what: String,
    pub len: u64,
    pub span: Span,
}

/// A kernel's budgets (from [`texpr_target::DeviceLimits`]).
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Function-memory elements per invocation.
    pub private: u64,
    /// Statements unrolling may add.
    pub unrolled: u64,
    /// The longest `let@reg` vector kept unrolled in registers (a register
    /// tile).
    pub register_vector: u64,
}

/// A `var<workgroup>` array a kernel declares, with the source responsible.
#[derive(Clone, Debug)]
pub struct SharedDecl {
    pub name: String,
    pub elem: ElemTy,
    pub len: u64,
    pub span: Span,
}

/// A thread-level loop open now: its variable, this copy's index, its trips.
#[derive(Clone, Debug)]
pub struct Trip {
    pub var: VarId,
    pub at: Ix,
    pub n: u64,
}

/// A prefetched register tile waiting for the next trip's load.
#[derive(Clone, Debug)]
pub struct Pending {
    pub trip: Trip,
    pub value: texpr_syntax::ir::Expr,
    pub names: Vec<String>,
}

#[derive(Debug)]
pub struct Ctx<'p> {
    pub p: &'p Program,
    pub bufs: &'p BufferTable,
    pub kernel: usize,
    /// The item the kernel computes.
    pub item: String,
    pub w: Writer,
    pub idx: BTreeMap<VarId, Ix>,
    pub vecs: BTreeMap<VarId, Loc>,
    pub used: BTreeSet<BufferId>,
    /// Buffers this kernel declares as `array<vec4<T>>` (see `vec4.rs`).
    pub vec4: BTreeSet<BufferId>,
    /// Buffers this kernel declares as `array<vec4<u64>>`, eight `f32`s an
    /// entry, and whether the device loads that way
    /// ([`texpr_target::Target::wide_loads`], see `vec4.rs`).
    pub octo: BTreeSet<BufferId>,
    pub wide_loads: bool,
    /// The reads the open wide folds loaded eight at a time (`wide.rs`).
    pub wide: Vec<WideRead>,
    pub shared: Vec<SharedDecl>,
    /// Module-scope arrays holding vector literals, `(name, initializer)`,
    /// one per distinct literal (see [`Ctx::literal_array`]).
    pub literals: Vec<(String, String)>,
    /// Invocations per workgroup (set by the kernel body).
    pub group_size: u64,
    /// The kernel uses subgroup operations: the entry point takes the
    /// subgroup builtins (`sgl`, `sgid`, `nsg`, `sgs`).
    pub subgroups: bool,
    /// Subgroups whose lanes may share register tile loads (`lanes.rs`).
    pub lanes: Option<Lanes>,
    pub budget: Budget,
    /// Function-memory arrays and register vectors declared so far; how
    /// many elements of them are live at this point of the kernel (a
    /// `let`'s vector dies with its body) and the most at any point.
    pub private: Vec<PrivateDecl>,
    pub live_private: u64,
    pub peak_private: u64,
    /// Where each register vector's values stand, and its array copy once
    /// a read at a run-time index needed one (see `locals.rs`).
    pub regs_at: BTreeMap<VarId, (Mark, Option<String>)>,
    /// Scratch buffers for arrays over the budget (`spill.rs`), numbered
    /// from `first_spill`, with the `let` each holds.
    pub spills: Vec<(BufferPlan, Span)>,
    pub spill_of: BTreeMap<VarId, BufferId>,
    pub first_spill: u32,
    /// The buffer this kernel writes (bound read-write, like its spills).
    pub out: Option<BufferId>,
    /// The loop the item is computed in, if any (its states and step are
    /// slots here, see [`crate::buffers`]).
    pub within: Option<texpr_syntax::ir::LoopId>,
    /// Slots this kernel writes besides its output (a loop's next step).
    pub writes: BTreeSet<BufferId>,
    /// Invocations of the kernel (padded dispatch times workgroup size),
    /// the WGSL expression of an invocation's linear id, where it goes and
    /// whether it was written.
    pub invocations: u64,
    pub inv_expr: String,
    pub inv_at: Option<Mark>,
    pub inv_written: bool,
    /// The thread-level loops open now (innermost last) and the prefetches
    /// waiting for the next trip's load (see `prefetch.rs`).
    pub trips: Vec<Trip>,
    pub pending: Vec<Pending>,
    /// The accumulators an enclosing `reduce` offers to a `reduce` of the
    /// same fold in its body's tail (see [`Ctx::vector`]): that one folds
    /// into them instead of into a set of its own.
    pub fold_into: Option<FoldInto>,
}

/// The subgroups of a kernel whose loads may be shared (see `lanes.rs`).
#[derive(Clone, Copy, Debug)]
pub struct Lanes {
    /// Invocations per subgroup, `L`.
    pub width: u64,
    /// The workgroup's local id variable and the grid's, once bound.
    pub local: Option<VarId>,
    pub grid: Option<VarId>,
}

impl Lanes {
    /// The subgroups of a kernel of `w` invocations on `target`, when its
    /// loads are worth sharing.
    pub fn of(target: &Target, w: u64) -> Option<Lanes> {
        let width = target.subgroup_width()?;
        (target.cpu() && width > 1 && w.is_multiple_of(width)).then_some(Lanes {
            width,
            local: None,
            grid: None,
        })
    }
}

/// A read of a wide fold: its eight elements of this eighth of the trip,
/// and which of them the current step reads.
#[derive(Clone, Debug)]
pub struct WideRead {
    pub vec: VecRef,
    pub index: Term,
    pub var: VarId,
    pub names: Vec<String>,
    pub at: usize,
}

/// Accumulators a fold offers to the fold in its body's tail.
#[derive(Clone, Debug)]
pub struct FoldInto {
    pub op: ReduceOp,
    pub elem: ElemTy,
    pub accs: Vec<String>,
}

impl<'p> Ctx<'p> {
    pub fn new(p: &'p Program, bufs: &'p BufferTable, kernel: usize, budget: Budget) -> Ctx<'p> {
        Ctx {
            p,
            bufs,
            kernel,
            item: String::new(),
            w: Writer::default(),
            idx: BTreeMap::new(),
            vecs: BTreeMap::new(),
            used: BTreeSet::new(),
            vec4: BTreeSet::new(),
            octo: BTreeSet::new(),
            wide_loads: false,
            wide: Vec::new(),
            shared: Vec::new(),
            literals: Vec::new(),
            group_size: 1,
            subgroups: false,
            lanes: None,
            budget,
            private: Vec::new(),
            live_private: 0,
            peak_private: 0,
            regs_at: BTreeMap::new(),
            spills: Vec::new(),
            spill_of: BTreeMap::new(),
            first_spill: bufs.plans.len() as u32,
            out: None,
            within: None,
            writes: BTreeSet::new(),
            invocations: 1,
            inv_expr: "l".into(),
            inv_at: None,
            inv_written: false,
            trips: Vec::new(),
            pending: Vec::new(),
            fold_into: None,
        }
    }

    /// The plan of buffer `id`: the program's (a slot's), or one of this
    /// kernel's spills.
    pub fn plan(&self, id: BufferId) -> &BufferPlan {
        if id.0 >= crate::buffers::SLOT_BASE {
            return self.bufs.plan_of(id);
        }
        match id.0.checked_sub(self.first_spill) {
            Some(i) => &self.spills[i as usize].0,
            None => &self.bufs.plans[id.0 as usize],
        }
    }

    /// The buffer (or slot) holding an input, global or state for this
    /// kernel's item; `None` for local vectors.
    pub fn buf_of(&self, v: VecRef) -> Option<BufferId> {
        self.bufs.of(v, self.p, self.within)
    }

    /// Records `len` elements of function memory (`what`, from `span`).
    pub fn note_private(&mut self, what: String, len: u64, span: Span) {
        self.private.push(PrivateDecl { what, len, span });
        self.live_private += len;
        self.peak_private = self.peak_private.max(self.live_private);
    }

    /// Whether `copies` copies of a body of about `each` statements fit the
    /// kernel's budget of unrolled statements (the first copy is not
    /// unrolling).
    pub fn may_unroll(&self, copies: u64, each: u64) -> bool {
        let extra = copies.saturating_sub(1).saturating_mul(each);
        self.w.unrolled().saturating_add(extra) <= self.budget.unrolled
    }

    /// `u` (a power of two dividing a trip count), halved until `u` copies
    /// of a body of about `each` statements fit the budget.
    pub fn fit_unroll(&self, mut u: u64, each: u64) -> u64 {
        while u > 1 && !self.may_unroll(u, each) {
            u /= 2;
        }
        u
    }

    /// The WGSL name of a buffer this kernel binds (recording the use).
    pub fn buffer(&mut self, id: BufferId) -> String {
        self.used.insert(id);
        let name = buffer_var(self.kernel, &self.plan(id).name);
        if Some(id) != self.out && (id.0 < self.first_spill || id.0 >= crate::buffers::SLOT_BASE) {
            // Bound read-only: its elements never change in this kernel.
            self.w.immutable(&name);
        }
        name
    }

    /// The WGSL name of the buffer holding an input or global.
    pub fn vec_buffer(&mut self, v: VecRef) -> Option<String> {
        let id = self.buf_of(v)?;
        Some(self.buffer(id))
    }

    /// Declares a `var<workgroup>` array and returns its name.
    pub fn declare_shared(&mut self, base: &str, elem: ElemTy, len: u64, span: Span) -> String {
        let name = format!("s{}_{}", self.kernel, self.w.fresh(base));
        self.shared.push(SharedDecl {
            name: name.clone(),
            elem,
            len,
            span,
        });
        name
    }

    /// The name of an array holding the literal `vals`, never copied per
    /// read or per element (it is never written): a long literal's constant
    /// buffer (see [`crate::buffers`]), else a module-scope `var<private>`
    /// array declared once per kernel however often it is read.
    pub fn literal_array(&mut self, elem: ElemTy, vals: &[Scalar], span: Span) -> String {
        if let Some(id) = self.bufs.constant(elem, vals) {
            return self.buffer(id);
        }
        let t = super::lit::ty(elem);
        let items: Vec<String> = vals.iter().map(|v| super::lit::scalar(*v)).collect();
        let init = format!("array<{t}, {}>({})", vals.len(), items.join(", "));
        if let Some((name, _)) = self.literals.iter().find(|(_, i)| *i == init) {
            return name.clone();
        }
        let name = format!("c{}_lit_{}", self.kernel, self.literals.len());
        self.note_private("literal vector".into(), vals.len() as u64, span);
        self.literals.push((name.clone(), init));
        name
    }

    /// An index held in a named WGSL value. Constants get a `var`: naga
    /// treats a `let` of a literal as a constant expression, and would
    /// evaluate (and reject) arithmetic on it that WGSL defines at run time.
    pub fn named(&mut self, ix: &Ix) -> Ix {
        match ix {
            Ix::Const(_) => Ix::Name(self.w.const_var("i32", &ix.to_string())),
            n => n.clone(),
        }
    }

    pub fn index_var(&self, v: VarId) -> Result<Ix, Diagnostic> {
        self.idx.get(&v).cloned().ok_or_else(|| {
            Diagnostic::error(
                "E0392",
                format!(
                    "internal error: index variable `{}` is not bound",
                    self.p.var(v).name
                ),
            )
        })
    }
}

/// The WGSL name of buffer `name` in kernel `k`.
pub fn buffer_var(k: usize, name: &str) -> String {
    format!("b{k}_{name}")
}
