//! What [`Lower`](super::Lower) keeps while it builds one kernel, grouped
//! by concern: the buffers bound, how reads are widened and shared, the
//! spill scratch space, the function-memory accounts, the unrolling budget,
//! register tiles and accumulators, and the workgroup.

use super::{Budget, PrivateDecl, V, fold, lanes, prefetch, wide};
use crate::kir;
use crate::plan::{BufferId, BufferPlan};
use std::collections::{BTreeMap, BTreeSet};
use texpr_ir::Span;
use texpr_ir::{Loads, LoopId, VarId};

use super::cost::Cost;
use super::lanes::Lanes;

/// The buffers the kernel binds.
#[derive(Debug, Default)]
pub struct Binds {
    /// Each bound buffer's binding (bound at first use; sorted by buffer
    /// by the kir pass `order_bindings`).
    pub bound: BTreeMap<BufferId, u32>,
    /// The buffer the kernel writes and the slots it advances (bound
    /// read-write, like its spills).
    pub out: Option<BufferId>,
    pub writes: BTreeSet<BufferId>,
    /// The loop the item is computed in (its states and step are slots).
    pub within: Option<LoopId>,
    /// The buffer bound for a slot, in a kernel that runs its loop whole
    /// (`fused.rs`: each step binds its states' buffers itself).
    pub slots_as: BTreeMap<BufferId, BufferId>,
}

/// How reads move elements: widened, shared by lanes, fetched ahead.
#[derive(Debug)]
pub struct Reads {
    /// Buffers viewed four (`vec4<f32>`) or eight (`vec4<u64>`) elements an
    /// entry (`vec4.rs`, `wide.rs`), and how many the schedule lets the
    /// kernel move an access (its item's `loads=`).
    pub vec4: BTreeSet<BufferId>,
    pub octo: BTreeSet<BufferId>,
    pub loads: Loads,
    /// The reads the open wide folds loaded eight at a time (`wide.rs`).
    pub wide: Vec<wide::WideRead>,
    /// Subgroups whose lanes may share register tile loads (`lanes.rs`).
    pub lanes: Option<Lanes>,
    /// Lowering a `let@lanes` value: its register tiles may be loaded once
    /// per subgroup.
    pub share_lanes: bool,
    /// Prefetches waiting for the next trip's load (`prefetch.rs`).
    pub pending: Vec<prefetch::Pending>,
    /// The thread-level loops open now, innermost last.
    pub trips: Vec<lanes::Trip>,
}

impl Default for Reads {
    fn default() -> Reads {
        Reads {
            vec4: BTreeSet::new(),
            octo: BTreeSet::new(),
            loads: Loads::Vec4,
            wide: Vec::new(),
            lanes: None,
            share_lanes: false,
            pending: Vec::new(),
            trips: Vec::new(),
        }
    }
}

/// Arrays over the memory budget, in scratch buffers (`spill.rs`).
#[derive(Debug)]
pub struct Spilling {
    /// Invocations of the kernel (padded dispatch times workgroup size);
    /// the group id an invocation's linear id is computed from, where that
    /// id goes and, once built, its value.
    pub invocations: u64,
    pub g: Option<V>,
    pub inv_at: Option<kir::build::Mark>,
    pub inv: Option<V>,
    /// Scratch buffers for arrays over the budget, numbered from
    /// `first_spill`, with the `let` each holds.
    pub spills: Vec<(BufferPlan, Span)>,
    pub spill_of: BTreeMap<VarId, BufferId>,
    pub first_spill: u32,
}

impl Spilling {
    pub fn new(first_spill: u32) -> Spilling {
        Spilling {
            invocations: 1,
            g: None,
            inv_at: None,
            inv: None,
            spills: Vec::new(),
            spill_of: BTreeMap::new(),
            first_spill,
        }
    }
}

/// Function memory declared so far, live now and at most at once (E0318).
#[derive(Debug, Default)]
pub struct Accounts {
    pub private: Vec<PrivateDecl>,
    pub live_private: u64,
    pub peak_private: u64,
    /// Private arrays of literals already counted, by memory.
    pub literals: BTreeSet<kir::Mem>,
}

/// What unrolling may add (E0319).
#[derive(Debug)]
pub struct Unroll {
    pub budget: Budget,
    /// While the elements of an unrolled vector are lowered, the unrolled
    /// statements the current element may bring the kernel to: the budget
    /// less what the elements after it need at least.
    pub unroll_cap: Option<u64>,
    pub cost: Cost,
}

/// Register tiles and the accumulators folds share.
#[derive(Debug, Default)]
pub struct Regs {
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

/// The workgroup: its size and the local id, as an `i32`.
#[derive(Debug)]
pub struct Group {
    pub group_size: u64,
    pub l: Option<V>,
}
