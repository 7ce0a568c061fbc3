//! A distributed run as every rank sees it: the program, graph, plan, messages, and lookups into them.
//!
//! Every rank builds the same [`Job`] from the same program, so ranks agree
//! on every chunk, copy and message without talking about them.

use super::comm::CommPlan;
use super::local_part::local_layout;
use crate::air::{Program, Reg};
use crate::codes;
use crate::dist::{Distribution, GlobalTileIndex, RankIndex2D};
use crate::graph::tasks::{Tasks, tasks};
use crate::graph::{Graph, GridConfig, NodeId, NodeKind, PanelRef, Plan};
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;

/// Everything a rank needs to know about a run, the same on every rank.
#[derive(Debug)]
pub struct Job<'a> {
    pub p: &'a Program,
    pub g: &'a Graph,
    pub plan: &'a Plan,
    pub cfg: GridConfig,
    pub tasks: Tasks,
    pub comm: CommPlan,
    /// Bytes of buffers each rank may hold.
    pub budget: u64,
    /// Whether the result is gathered to the source rank.
    pub gather: bool,
    /// The chunk node of each (register, tile).
    pub chunks: BTreeMap<(Reg, (u64, u64)), NodeId>,
    /// The copy node of each (panel, rank).
    pub copies: BTreeMap<(PanelRef, usize), NodeId>,
    /// How long a rank may wait without progress (no message or device
    /// read completing) before it stops with E0564: some rank hangs.
    pub watchdog: std::time::Duration,
    /// Per rank, the most elements of one tile it writes from the host into
    /// a panel taller than the tile (the device stages it: kernel scratch).
    pub staging: Vec<usize>,
    /// The predecessors of every node of the graph.
    pub preds: Vec<Vec<NodeId>>,
    /// Per rank, the partials of sums it records for `--check` and their
    /// lengths, by node id (empty unless [`Job::record_partials`]).
    pub record: Vec<Vec<(NodeId, usize)>>,
    /// A fault injected into the run, for tests of `--check` only.
    pub fault: Option<super::partials::Fault>,
}

/// The messages of a run (see [`CommPlan::with_ends`]).
fn messages(
    p: &Program,
    g: &Graph,
    t: &Tasks,
    plan: &Plan,
    cfg: GridConfig,
    gather: bool,
    partial_len: &[usize],
) -> Result<CommPlan, Diagnostic> {
    let result = cfg.distribution(p.ty(p.ret))?;
    let result_len: Vec<usize> = cfg
        .grid
        .ranks()
        .map(|r| local_layout(&result, r).min_mem_size())
        .collect();
    let source = cfg.grid.rank_of(cfg.source).0;
    Ok(CommPlan::new(g, t, plan, cfg.grid).with_ends(source, &result_len, gather, partial_len))
}

/// The watchdog's default: two minutes without any progress.
pub const DEFAULT_WATCHDOG: std::time::Duration = std::time::Duration::from_secs(120);

impl<'a> Job<'a> {
    /// The job of running `plan`; `gather`: the result goes to the source rank.
    pub fn new(
        p: &'a Program,
        g: &'a Graph,
        plan: &'a Plan,
        cfg: GridConfig,
        budget: u64,
        gather: bool,
    ) -> Result<Job<'a>, Diagnostic> {
        let t = tasks(g);
        let none = vec![0; cfg.n_ranks()];
        let comm = messages(p, g, &t, plan, cfg, gather, &none)?;
        let mut chunks = BTreeMap::new();
        let mut copies = BTreeMap::new();
        for n in g.ids() {
            match g.kind(n) {
                NodeKind::TensorChunk { tensor, tile, .. } => {
                    chunks.insert((*tensor, *tile), n);
                }
                NodeKind::TensorCopy { rank, panel, .. } => {
                    copies.insert((*panel, rank.0), n);
                }
                _ => {}
            }
        }
        Ok(Job {
            p,
            g,
            plan,
            cfg,
            tasks: t,
            comm,
            budget,
            gather,
            chunks,
            copies,
            watchdog: DEFAULT_WATCHDOG,
            staging: Vec::new(),
            preds: g.preds(),
            record: Vec::new(),
            fault: None,
        }
        .with_staging())
    }

    /// The job with every rank recording its partials of sums and sending
    /// them to the source rank (for `--check`, [`super::partials`]).
    pub fn record_partials(mut self) -> Result<Job<'a>, Diagnostic> {
        let record = super::partials::recorded(self.g, self.p, self.n_ranks());
        let lens: Vec<usize> = record
            .iter()
            .map(|r| r.iter().map(|(_, len)| len).sum())
            .collect();
        self.comm = messages(
            self.p,
            self.g,
            &self.tasks,
            self.plan,
            self.cfg,
            self.gather,
            &lens,
        )?;
        self.record = record;
        Ok(self)
    }

    /// Fills [`Job::staging`]: every tile a TensorCopy places from the host
    /// (another rank's) into a panel taller than the tile.
    fn with_staging(mut self) -> Job<'a> {
        let mut staging = vec![0usize; self.n_ranks()];
        for &n in &self.tasks.ids {
            let NodeKind::TensorCopy { rank, panel, .. } = self.g.kind(n) else {
                continue;
            };
            if panel.rows.1 - panel.rows.0 < 2 {
                continue;
            }
            let ty = self.p.ty(panel.reg);
            for j in panel.cols.0..panel.cols.1 {
                for i in panel.rows.0..panel.rows.1 {
                    let owner = self.owner(self.chunks[&(panel.reg, (i, j))]);
                    if owner != rank.0 {
                        let len = ty.tile_dims(i, j).len() as usize;
                        staging[rank.0] = staging[rank.0].max(len);
                    }
                }
            }
        }
        self.staging = staging;
        self
    }

    /// Fails before rank `me` starts when its planned peak of tiles and
    /// panels plus its device's kernel scratch (`scratch` bytes, its bodies
    /// compiled and staging made) is over the budget.
    pub fn check_rank_budget(&self, me: usize, scratch: u64) -> Result<(), Diagnostic> {
        let peak = self.plan.peak[me];
        if peak.saturating_add(scratch) <= self.budget {
            return Ok(());
        }
        Err(Diagnostic::error(
            codes::BUDGET,
            format!(
                "the plan does not fit the budget of {} B on this rank: {peak} B of tiles and panels and {scratch} B of kernel scratch",
                self.budget
            ),
        )
        .with_note("kernel scratch is what the device's compiled block bodies hold (partial results, staging); raise --budget"))
    }

    pub fn n_ranks(&self) -> usize {
        self.cfg.n_ranks()
    }

    /// The source rank (holds every matrix's top-left tile; gathers the result).
    pub fn source(&self) -> usize {
        self.cfg.grid.rank_of(self.cfg.source).0
    }

    /// The grid position of rank `r`.
    pub fn position(&self, r: usize) -> RankIndex2D {
        self.cfg.grid.index_of(crate::dist::CommunicatorRank(r))
    }

    /// The task index of a task node.
    pub fn task(&self, n: NodeId) -> usize {
        self.tasks
            .ids
            .binary_search(&n)
            .expect("plan steps are tasks")
    }

    /// The rank that holds a chunk.
    pub fn owner(&self, chunk: NodeId) -> usize {
        self.g.kind(chunk).rank().expect("chunks have ranks").0
    }

    /// The distribution of register `r`.
    pub fn distribution(&self, r: Reg) -> Result<Distribution, Diagnostic> {
        self.cfg.distribution(self.p.ty(r))
    }

    /// The tiles of `r` that rank `me` owns, as global tile indices.
    pub fn owned_tiles(&self, r: Reg, me: usize) -> Result<Vec<(u64, u64)>, Diagnostic> {
        let d = self.distribution(r)?;
        let at = self.position(me);
        Ok(d.tiles()
            .filter(|&t| d.rank_global_tile(t) == at)
            .map(|t: GlobalTileIndex| (t.row() as u64, t.col() as u64))
            .collect())
    }

    /// Fails before any work when the plan needs more than the budget on some rank.
    pub fn check_budget(&self) -> Result<(), Diagnostic> {
        let over: Vec<String> = self
            .plan
            .peak
            .iter()
            .enumerate()
            .filter(|&(_, &peak)| peak > self.budget)
            .map(|(r, peak)| format!("rank {r} needs {peak} B"))
            .collect();
        if over.is_empty() {
            return Ok(());
        }
        Err(Diagnostic::error(
            codes::BUDGET,
            format!(
                "the plan does not fit the budget of {} B per rank: {}",
                self.budget,
                over.join(", ")
            ),
        )
        .with_note(
            "a rank holds a task's inputs and output at once; raise --budget or use smaller tiles",
        ))
    }
}
