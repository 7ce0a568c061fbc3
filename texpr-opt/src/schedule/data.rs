//! Schedules as data: one [`Strategy`] per item (global or output), chosen
//! by [`ScheduleChoice`]. The text form is in [`super::text`].
//!
//! An item the schedule does not name gets [`Strategy::Default`]. A
//! schedule applies to the optimized program (`optimize` on, what every
//! strategy but the baseline is measured on) or to the program as written
//! (`optimize` off: the baseline, where the optimizing passes do not run and
//! so the items are the ones the source writes).

use std::collections::BTreeMap;
pub use texpr_ir::Loads;

/// How one item root is mapped onto grid, workgroup and thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// One element per invocation (`super::default`); for an item whose
    /// levels the source writes, those levels completed (`super::fill`).
    Default,
    /// Each invocation computes `per_thread` consecutive elements; `group`
    /// invocations per workgroup. For elementwise items.
    Coarsen {
        group: u64,
        per_thread: u64,
        loads: Loads,
    },
    /// `compute R |r| BODY`: one invocation per row (all of `BODY`, its
    /// reductions and their epilogue in one invocation), `group` rows per
    /// workgroup. For row-wise reductions (softmax, layernorm, matvec).
    Rows { group: u64, loads: Loads },
    /// `compute R |r| BODY`: one workgroup of `group` invocations per row.
    /// Each scalar `let` of the row is a `let@shared` whose reductions are
    /// workgroup trees (`reduce@group`), and the row's elements (or its final
    /// reduction) are split across the invocations, neighbouring invocations
    /// on neighbouring elements. What GPUs want for long rows (softmax,
    /// layernorm, matvec). `combine`: the trees in workgroup memory
    /// (`Tree`), or subgroup operations and one fold of the subgroups'
    /// partials (`Subgroup`); `Serial` is refused.
    WideRows { group: u64, combine: Combine },
    /// `compute R |r| BODY` with `BODY` `let`s then `compute C |c|
    /// F(reduce T |j| E)` (attention): the row streams over `j` as flash
    /// attention does. Its vector `let`s (the scores) are recomputed where
    /// read instead of stored, its scalar `let`s (the log-sum-exp) are
    /// online folds in registers, and the columns are the final fold's
    /// vector accumulator, with the work that does not depend on the column
    /// (a score, its exponential) done once per `j`. `group / split` rows a
    /// workgroup, `split` invocations a row, each `C / split` columns.
    Flash { group: u64, split: u64 },
    /// `compute M |i| compute N |j| S`: workgroups of `group[0] x group[1]`
    /// invocations, each computing a `reg[0] x reg[1]` register tile, operands
    /// loaded once per reduction step into register tiles. With
    /// `shared: Some(KB)` the workgroup first stages each operand's block of
    /// `KB` reduction steps in workgroup memory (`let@shared`, filled by all
    /// invocations, between barriers), and the register tiles load from there:
    /// each operand element is read from global memory once per workgroup
    /// instead of once per invocation. [`Staging`] says how the blocks are
    /// laid out and filled.
    ///
    /// `kstep: Some(KS)` (register tiles only) advances the reduction `KS`
    /// steps per register load: each operand's register tile holds its `KS`
    /// steps' elements, nested so that the operand's unit-stride index runs
    /// innermost (code generation reads such runs as `vec4`: an `A` row
    /// along `K` as well as a `B` row along `N`), and each step's products
    /// are combined before they join the accumulators.
    Tile {
        group: [u64; 2],
        reg: [u64; 2],
        shared: Option<Staging>,
        kstep: Option<u64>,
        /// `lanes=on` (with `kstep`): the register tiles are `let@lanes`,
        /// loaded once per subgroup where its lanes read the same runs and
        /// broadcast (a device with one subgroup width).
        lanes: bool,
        loads: Loads,
    },
    /// A contraction in tensor cores: `BM x BN` blocks of the result, one
    /// workgroup of `group` invocations (whole subgroups) each, the block's
    /// folds a `let@mma` computed with cooperative matrices (`mma.rs`).
    Mma { block: [u64; 2], group: u64 },
    /// `reduce N |i| E`: `parts` partial folds of `N / parts` terms each, one
    /// per invocation, `group` invocations per workgroup, written to a global
    /// buffer; then one invocation folds the partials (a second kernel).
    ///
    /// `combine` says how a workgroup combines its invocations' folds
    /// ([`Combine`]): with `Tree` or `Subgroup` each workgroup writes one
    /// partial (`parts / group` in all, and no second kernel when
    /// `parts == group`).
    MultiPass {
        parts: u64,
        group: u64,
        combine: Combine,
        loads: Loads,
    },
    /// A scalar fold `F(reduce N |i| E)`: `groups` workgroups of `group`
    /// invocations (a grid sized to the device) sweep the terms, four
    /// consecutive ones per invocation per sweep (a `vec4` load), into four
    /// accumulators each; `chunk` consecutive quads per invocation before
    /// the grid's stride (1: neighbouring invocations on neighbouring quads,
    /// what GPUs coalesce; all of its sweeps: one contiguous run per
    /// invocation, what llvmpipe streams fastest). A workgroup combines its
    /// invocations' folds as `combine` says; then one invocation folds the
    /// partials and the terms no sweep covered and applies the epilogue `F`
    /// (a second kernel).
    GridStride {
        groups: u64,
        group: u64,
        chunk: u64,
        /// Consecutive terms an invocation takes per sweep: 4 (a `vec4`), or 8
        /// (one `vec4<u64>` load with `loads=wide`; two `vec4`s otherwise).
        width: u64,
        combine: Combine,
        loads: Loads,
    },
    /// A 2D elementwise item read transposed (`out[a*C + b] = f(x[b*R + a])`,
    /// [`super::shape::Transposed`]): a workgroup of `tile x rows`
    /// invocations per `tile x tile` block of the result. Each transposed
    /// read's block is staged in a `let@shared` of `tile x (tile + 1)`
    /// elements (a column of padding against bank conflicts), filled with
    /// neighbouring invocations on neighbouring input addresses; after the
    /// barrier each invocation computes `tile / rows` elements of the block,
    /// neighbouring invocations on neighbouring output addresses.
    Transpose { tile: u64, rows: u64 },
    /// An item of a loop's block computed by one workgroup of `group`
    /// invocations, each `ceil(L / group)` consecutive elements
    /// (`super::in_loop`). When every item of a loop takes it with one
    /// `group` (a loop with no loop inside it, itself in none), the whole
    /// loop runs in one dispatch of that workgroup: one kernel loops over
    /// the steps, a barrier after each item (`Loop::group`).
    Loop { group: u64 },
}

impl Strategy {
    /// How the item's kernel moves elements: the strategy's `loads=` (four
    /// at a time for the strategies without the key).
    pub fn loads(&self) -> Loads {
        self.clone().loads_key().map_or(Loads::Vec4, |l| *l)
    }

    /// The strategy with `loads=` set to `to`, if it has the key.
    pub fn with_loads(&self, to: Loads) -> Option<Strategy> {
        let mut s = self.clone();
        *s.loads_key()? = to;
        Some(s)
    }

    /// The strategies that take `loads=`: their field.
    fn loads_key(&mut self) -> Option<&mut Loads> {
        match self {
            Strategy::Coarsen { loads, .. }
            | Strategy::Rows { loads, .. }
            | Strategy::Tile { loads, .. }
            | Strategy::MultiPass { loads, .. }
            | Strategy::GridStride { loads, .. } => Some(loads),
            Strategy::Default
            | Strategy::WideRows { .. }
            | Strategy::Flash { .. }
            | Strategy::Mma { .. }
            | Strategy::Transpose { .. }
            | Strategy::Loop { .. } => None,
        }
    }

    /// Invocations per workgroup.
    pub fn group_size(&self) -> u64 {
        match self {
            Strategy::Default => 1,
            Strategy::Coarsen { group, .. }
            | Strategy::Rows { group, .. }
            | Strategy::WideRows { group, .. }
            | Strategy::Flash { group, .. }
            | Strategy::MultiPass { group, .. }
            | Strategy::GridStride { group, .. }
            | Strategy::Mma { group, .. }
            | Strategy::Loop { group } => *group,
            Strategy::Tile { group, .. } => group[0] * group[1],
            Strategy::Transpose { tile, rows } => tile * rows,
        }
    }
}

/// How a staged [`Strategy::Tile`] (`shared=KB`) lays out and fills its
/// operand blocks in workgroup memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Staging {
    /// Reduction steps per block (`shared=KB`).
    pub kb: u64,
    /// Elements of padding after each row of a block (`pad=P`, 0 when not
    /// written): a row stride that is not a multiple of the bank count, so
    /// that invocations reading down a column hit different banks.
    pub pad: u64,
    /// Whether the invocations fill the blocks with `vec4` loads of the
    /// operand along its unit-stride index (`vec4=on`).
    pub vec4: bool,
    /// Whether those loads run one block ahead (`prefetch=on`, with
    /// `vec4=on`): the next block's registers are loaded while the current
    /// block computes, then stored after it (double buffering through
    /// registers).
    pub prefetch: bool,
}

/// How a [`Strategy::MultiPass`] combines the folds of one workgroup's
/// invocations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Combine {
    /// Not at all: every invocation writes its partial to the global, and
    /// one invocation folds all `parts` of them.
    #[default]
    Serial,
    /// A `reduce@group` tree in workgroup memory: one partial per workgroup.
    Tree,
    /// A `reduce@subgroup`: subgroup operations, then a fold of the
    /// per-subgroup partials; one partial per workgroup. Needs a device with
    /// subgroups.
    Subgroup,
}

impl Combine {
    pub const ALL: [Combine; 3] = [Combine::Serial, Combine::Tree, Combine::Subgroup];

    pub fn name(self) -> &'static str {
        match self {
            Combine::Serial => "serial",
            Combine::Tree => "tree",
            Combine::Subgroup => "subgroup",
        }
    }
}

/// A schedule: the strategy of each named item, in order, and whether it
/// applies to the optimized program.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Schedule {
    /// Whether the optimizing passes run first (`optimize = off` in the text
    /// form: the items are the program's as written).
    pub optimize: bool,
    pub items: Vec<(String, Strategy)>,
}

impl Default for Schedule {
    /// Empty, on the optimized program.
    fn default() -> Schedule {
        Schedule {
            optimize: true,
            items: Vec::new(),
        }
    }
}

impl Schedule {
    /// The strategy for `item` (the default when not named).
    pub fn get(&self, item: &str) -> Strategy {
        self.items
            .iter()
            .find(|(n, _)| n == item)
            .map(|(_, s)| s.clone())
            .unwrap_or(Strategy::Default)
    }

    /// The strategy of every named item, looked up by name in O(log n)
    /// (the first entry for a name, as [`Schedule::get`] finds it).
    pub fn by_item(&self) -> BTreeMap<&str, &Strategy> {
        let mut m = BTreeMap::new();
        for (n, s) in &self.items {
            m.entry(n.as_str()).or_insert(s);
        }
        m
    }

    /// Sets the strategy for `item`, replacing an earlier one.
    pub fn set(&mut self, item: &str, s: Strategy) {
        match self.items.iter_mut().find(|(n, _)| n == item) {
            Some(slot) => slot.1 = s,
            None => self.items.push((item.to_string(), s)),
        }
    }
}

/// Where the schedule comes from: what [`crate::choose`] starts from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ScheduleChoice {
    /// The baseline: the optimizing passes off, one element per invocation
    /// for every item.
    Default,
    /// The heuristic's, for the target ([`super::heuristic`]).
    #[default]
    Heuristic,
    /// A schedule to follow as given (pinned in a file): an item whose
    /// strategy does not fit is an error.
    Given(Schedule),
    /// A schedule measured before (tuned): an item whose strategy no longer
    /// fits (the compiler or the device changed) falls back to the
    /// heuristic's candidates, then the default, with a warning (E0220).
    Tuned(Schedule),
}
