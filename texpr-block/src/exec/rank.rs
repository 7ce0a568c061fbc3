//! One rank of a distributed run: its own tiles on its own device, its own tasks in plan order.
//!
//! The same code runs every rank, whether ranks are threads of one process
//! or MPI processes; only the [`Transport`] differs. A rank:
//! 1. loads the input tiles it owns from a [`TileSource`] onto its device
//!    (those only other ranks read go straight into messages);
//! 2. runs its tasks in the plan's order: a TensorCopy assembles a panel
//!    from its own chunks (device copies) and received tiles (host writes),
//!    a BlockShard runs its block body, compiled once per distinct body;
//!    a chunk other ranks read is read back and sent as soon as it is made;
//! 3. frees each buffer after its last use on this rank, exactly where the
//!    plan's memory model does, and never holds more than the budget;
//! 4. reads its tiles of the result into its [`LocalPart`].

use super::device::{BufId, Slice, TileDevice};
use super::job::Job;
use super::local_part::LocalPart;
use super::outbox::{Outbox, RankError, words_of};
use super::source::TileSource;
use super::stats::RankStats;
use super::transport::Transport;
use crate::air::Reg;
use crate::codes;
use crate::dist::{GlobalTileIndex, TileElementSize};
use crate::graph::memory::{AllocId, Holder, Memory, Place};
use crate::graph::node::Work;
use crate::graph::{NodeId, NodeKind};
use crate::stage::{BlockBody, BlockMatrixStage, BlockTask};
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;
use texpr_ir::Diagnostic;

mod tasks;

/// What a rank ends with: its part of the result and its counters.
#[derive(Clone, Debug, PartialEq)]
pub struct RankOutcome {
    pub part: LocalPart,
    pub stats: RankStats,
    /// The partials it recorded (`Job::record`), one after another.
    pub partials: Vec<f32>,
}

/// A rank while it runs.
pub(super) struct Rank<'r, 'a> {
    pub job: &'r Job<'a>,
    pub me: usize,
    pub dev: &'r mut dyn TileDevice,
    pub tr: &'r mut dyn Transport,
    pub outbox: Outbox,
    /// The device buffer (and its bytes) of each allocation this rank
    /// holds: a matrix's tiles, a panel or a partial.
    allocs: BTreeMap<AllocId, (BufId, u64)>,
    mem: Memory,
    held: u64,
    pub stats: RankStats,
    /// Each stage's blocks this rank computes, still to run, in plan order.
    bodies: BTreeMap<Reg, VecDeque<BlockTask<BlockBody>>>,
    /// The partials recorded for `--check` (`Job::record`), by node.
    recorded: BTreeMap<NodeId, Vec<f32>>,
}

/// The blocks rank `me` computes of each stage, as the stage's `to_ir`
/// lowers them with the plan's order of this rank's shards as its
/// `ordering` (the seed's): the shards then take their bodies in turn.
fn planned_bodies(job: &Job<'_>, me: usize) -> BTreeMap<Reg, VecDeque<BlockTask<BlockBody>>> {
    let mut order: BTreeMap<Reg, Vec<(u64, u64)>> = BTreeMap::new();
    for step in job.plan.steps.iter().filter(|s| s.rank.0 == me) {
        if let NodeKind::BlockShard {
            op,
            tile,
            work: Work::Block,
            ..
        } = job.g.kind(step.node)
        {
            order.entry(*op).or_default().push(*tile);
        }
    }
    order
        .into_iter()
        .map(|(op, tiles)| {
            let stage = BlockMatrixStage::new(job.p, op);
            (op, stage.to_ir(|_, body| body, Some(&tiles)).into())
        })
        .collect()
}

/// Compiles every distinct block body rank `me` runs (before its run
/// starts); the time it took and how many there were.
pub fn compile_bodies(
    job: &Job<'_>,
    me: usize,
    dev: &mut dyn TileDevice,
) -> Result<(u64, u64), RankError> {
    let start = Instant::now();
    let before = dev.compiled();
    for step in job.plan.steps.iter().filter(|s| s.rank.0 == me) {
        if let NodeKind::BlockShard { kernel, .. } = job.g.kind(step.node) {
            dev.compile(kernel)?;
        }
    }
    let n = (dev.compiled() - before) as u64;
    Ok((start.elapsed().as_nanos() as u64, n))
}

/// Runs rank `me` of `job` on `dev`, talking through `tr`.
pub fn run_rank(
    job: &Job<'_>,
    me: usize,
    dev: &mut dyn TileDevice,
    tr: &mut dyn Transport,
    source: &dyn TileSource,
) -> Result<RankOutcome, RankError> {
    let start = Instant::now();
    let mut rank = Rank {
        job,
        me,
        outbox: Outbox::over(&job.comm, me, 0..job.comm.n_chunk_messages)
            .with_watchdog(job.watchdog),
        dev,
        tr,
        allocs: BTreeMap::new(),
        mem: Memory::new(job.g, &job.tasks, job.n_ranks()),
        held: 0,
        stats: RankStats::default(),
        bodies: planned_bodies(job, me),
        recorded: BTreeMap::new(),
    };
    rank.load_inputs(source)?;
    for step in job.plan.steps.iter().filter(|s| s.rank.0 == me) {
        let (t0, waited, posting) = (Instant::now(), rank.outbox.waited, rank.outbox.posting);
        rank.task(step.node)?;
        let messages = (rank.outbox.waited - waited) + (rank.outbox.posting - posting);
        rank.stats.compute_ns += t0.elapsed().saturating_sub(messages).as_nanos() as u64;
    }
    let part = rank.result()?;
    rank.finish_messages()?;
    rank.stats.run_ns = start.elapsed().as_nanos() as u64;
    let mut partials = Vec::new();
    for &(node, len) in job.record.get(me).into_iter().flatten() {
        // One not recorded (none is) stays unchecked, not misplaced.
        let values = rank.recorded.remove(&node);
        partials.extend(values.unwrap_or_else(|| vec![f32::NAN; len]));
    }
    Ok(RankOutcome {
        part,
        stats: rank.stats,
        partials,
    })
}

impl Rank<'_, '_> {
    /// The range of `node` (a chunk, copy or partial of `len` elements),
    /// allocating its allocation (its matrix's, on the first chunk of it
    /// here) within the budget.
    pub fn alloc(&mut self, node: NodeId, len: usize) -> Result<Slice, RankError> {
        let place = self.place_of(node)?;
        if place.len != len {
            return Err(self.bug(format!(
                "node n{} of {len} elements has a slot of {}",
                node.0, place.len
            )));
        }
        if !self.allocs.contains_key(&place.alloc) {
            let total = self.mem.alloc_len(place.alloc);
            let bytes = total as u64 * 4;
            let scratch = self.dev.scratch_bytes();
            if self.held + bytes + scratch > self.job.budget {
                return Err(RankError::Own(Diagnostic::error(
                    codes::OUT_OF_MEMORY,
                    format!(
                        "its tiles and panels would need {} B and its kernels {scratch} B, over the budget of {} B",
                        self.held + bytes,
                        self.job.budget
                    ),
                )));
            }
            let b = self.dev.alloc(total)?;
            self.held += bytes;
            self.stats.peak = self.stats.peak.max(self.held);
            if matches!(self.mem.holder(place.alloc), Holder::Matrix(_)) {
                self.stats.matrices += 1;
            }
            self.allocs.insert(place.alloc, (b, bytes));
        }
        self.buf(node)
    }

    /// The range of a chunk, copy or partial this rank holds.
    pub fn buf(&self, node: NodeId) -> Result<Slice, RankError> {
        let place = self.place_of(node)?;
        let &(buf, _) = self
            .allocs
            .get(&place.alloc)
            .ok_or_else(|| self.bug(format!("rank {} does not hold node n{}", self.me, node.0)))?;
        Ok(Slice {
            buf,
            offset: place.offset,
            len: place.len,
        })
    }

    fn place_of(&self, node: NodeId) -> Result<Place, RankError> {
        self.mem
            .place(node)
            .ok_or_else(|| self.bug(format!("node n{} has no place in memory", node.0)))
    }

    fn bug(&self, what: String) -> RankError {
        RankError::Own(Diagnostic::error(
            codes::KERNEL_RUN,
            format!("{what} (a bug of this layer)"),
        ))
    }

    fn free(&mut self, a: AllocId) {
        if let Some((b, bytes)) = self.allocs.remove(&a) {
            self.dev.free(b);
            self.held -= bytes;
        }
    }

    /// Waits for message `id`; the words of a received one.
    pub fn receive(&mut self, id: usize) -> Result<Vec<u32>, RankError> {
        self.outbox.wait(&self.job.comm, id, self.dev, self.tr)?;
        Ok(self.tr.data(id).to_vec())
    }

    fn load_inputs(&mut self, source: &dyn TileSource) -> Result<(), RankError> {
        let job = self.job;
        let inputs = job.p.inputs();
        for r in job.p.leaves() {
            let ty = job.p.ty(r);
            // An input's tiles come from the source; a random matrix's from its seed.
            let seed = match job.p.inst(r).op {
                crate::air::Op::Random(seed) => Some(seed),
                _ => None,
            };
            for tile in job.owned_tiles(r, self.me)? {
                let Some(&chunk) = job.chunks.get(&(r, tile)) else {
                    continue;
                };
                let message = job.comm.of_chunk(chunk);
                let kept = self.mem.holds_input(chunk);
                if message.is_none() && !kept {
                    continue;
                }
                let d = ty.tile_dims(tile.0, tile.1);
                let (r0, c0) = (
                    (tile.0 * ty.tile.rows) as usize,
                    (tile.1 * ty.tile.cols) as usize,
                );
                let rows = r0..r0 + d.rows as usize;
                let cols = c0..c0 + d.cols as usize;
                let data = match seed {
                    Some(seed) => super::source::RandomSource { seed }.block(0, rows, cols),
                    None => {
                        let k = inputs.iter().position(|&x| x == r).expect("an input");
                        source.block(k, rows, cols)
                    }
                }
                .map_err(|d| self.input_error(r, d))?;
                if kept {
                    let slot = self.alloc(chunk, data.len())?;
                    self.dev.write(slot, &data)?;
                }
                if let Some(id) = message {
                    self.outbox.send_words(id, words_of(&data));
                }
            }
        }
        self.outbox.pump(&self.job.comm, self.dev, self.tr)
    }

    fn input_error(&self, r: Reg, d: Diagnostic) -> RankError {
        let name = &self.job.p.inst(r).name;
        let note = format!("while rank {} read its tiles of input %{name}", self.me);
        RankError::Own(d.with_note(note))
    }

    /// Runs one task of this rank, then frees what it was the last to read.
    fn task(&mut self, node: NodeId) -> Result<(), RankError> {
        let job = self.job;
        let k = job.task(node);
        let made = self.mem.made_node(k);
        match job.g.kind(node) {
            NodeKind::TensorCopy { panel, .. } => {
                self.copy_task(made, *panel)?;
                self.stats.copies += 1;
            }
            NodeKind::BlockShard {
                op,
                tile,
                kernel,
                work,
                ..
            } => {
                match work {
                    Work::Reduce(part) => self.step(node, made, *op, *part, kernel)?,
                    Work::Linalg(step) => self.linalg(node, made, *op, *tile, *step, kernel)?,
                    Work::Block => self.shard(made, *op, *tile, kernel)?,
                }
                self.stats.shards += 1;
            }
            NodeKind::TensorReduce { .. } => self.reduce(node, made)?,
            _ => {}
        }
        self.record(made)?;
        if let Some(id) = job.comm.of_chunk(made) {
            let read = self.dev.start_read(self.buf(made)?)?;
            self.outbox.send_read(id, read);
        }
        for a in self.mem.start(k) {
            self.free(a);
        }
        self.dev.flush()?;
        self.outbox.pump(&job.comm, self.dev, self.tr)
    }

    /// Reads `made` back when the job records it (`--check` of a sum's partials).
    fn record(&mut self, made: NodeId) -> Result<(), RankError> {
        let job = self.job;
        let records = job
            .record
            .get(self.me)
            .is_some_and(|r| r.binary_search_by_key(&made, |&(n, _)| n).is_ok());
        if records {
            let read = self.dev.start_read(self.buf(made)?)?;
            let data = self.outbox.read(&job.comm, read, self.dev, self.tr)?;
            self.recorded.insert(made, data);
        }
        Ok(())
    }

    /// The range a panel is read from on this rank: its copy here, else the chunk's slot.
    fn panel_buf(&self, pn: &crate::stage::Panel) -> Result<Slice, RankError> {
        let job = self.job;
        let panel = crate::graph::PanelRef {
            reg: pn.src,
            rows: pn.rows,
            cols: pn.cols,
        };
        let node = match job.copies.get(&(panel, self.me)) {
            Some(&c) => c,
            None => job.chunks[&(pn.src, (pn.rows.0, pn.cols.0))],
        };
        self.buf(node)
    }

    /// Reads this rank's tiles of the result into its local part: one read
    /// per buffer they live in (the returned matrix's allocation; a copy
    /// here of a tile a returned view reads from another rank), covering
    /// its tiles' slots.
    fn result(&mut self) -> Result<LocalPart, RankError> {
        let job = self.job;
        let ret = job.p.ret;
        let d = job.distribution(ret)?;
        let at = job.position(self.me);
        let mut part = LocalPart::new(&d, at);
        let mut tiles = Vec::new();
        for tile in job.owned_tiles(ret, self.me)? {
            // A returned view: the tile it views (here, or copied here), read through its map.
            let pn = crate::stage::kernel::panel(
                job.p,
                "out",
                ret,
                (tile.0, tile.0 + 1),
                (tile.1, tile.1 + 1),
            );
            let slice = self.panel_buf(&pn)?;
            tiles.push((tile, pn, slice));
        }
        let mut spans: BTreeMap<BufId, (usize, usize)> = BTreeMap::new();
        for (_, _, s) in &tiles {
            let span = spans.entry(s.buf).or_insert((s.offset, s.offset + s.len));
            *span = (span.0.min(s.offset), span.1.max(s.offset + s.len));
        }
        let mut reads = Vec::new();
        for (&buf, &(lo, hi)) in &spans {
            let whole = Slice {
                buf,
                offset: lo,
                len: hi - lo,
            };
            reads.push((buf, lo, self.dev.start_read(whole)?));
        }
        let mut read = BTreeMap::new();
        for (buf, lo, r) in reads {
            read.insert(
                buf,
                (lo, self.outbox.read(&job.comm, r, self.dev, self.tr)?),
            );
        }
        for (tile, pn, s) in tiles {
            let (lo, data) = &read[&s.buf];
            let values = &data[s.offset - lo..s.offset - lo + s.len];
            let values = if pn.map.is_identity() {
                values.to_vec()
            } else {
                pn.map.apply(pn.seen(), values)
            };
            let g = GlobalTileIndex::new(tile.0 as usize, tile.1 as usize);
            let local = d.local_tile_index(g, at).expect("this rank owns the tile");
            let dims = job.p.ty(ret).tile_dims(tile.0, tile.1);
            let size = TileElementSize::new(dims.rows as usize, dims.cols as usize);
            part.put_tile(local, size, &values);
        }
        self.stats.scratch = self.dev.scratch_bytes();
        self.stats.buffers = self.dev.allocations();
        Ok(part)
    }

    /// Waits until every chunk message of this rank has gone or arrived.
    fn finish_messages(&mut self) -> Result<(), RankError> {
        self.outbox.drain(&self.job.comm, self.dev, self.tr)?;
        let c = self.tr.counters();
        self.stats.sent = c.sent;
        self.stats.received = c.received;
        self.stats.wait_ns = self.outbox.waited.as_nanos() as u64;
        self.stats.comm_ns = self.outbox.posting.as_nanos() as u64;
        Ok(())
    }
}
