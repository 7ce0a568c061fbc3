//! Memory held per rank while a schedule runs, and the budget-aware choice of the next task.
//!
//! The model is the executor's, allocation by allocation. A rank holds each
//! matrix's chunks it owns in one allocation (`graph/slots.rs`: the padded
//! local tile layout); a copy that makes a chunk writes that chunk's slot.
//! Every other copy (a panel) and every partial is an allocation of its own.
//! An input matrix's allocation is held from the start when a task of its
//! own rank reads one of its chunks or one is returned; a computed matrix's
//! from the start of the first task that makes one of its chunks there; a
//! panel's or partial's from its task's start. An allocation is freed once
//! every task of its rank that makes or reads it has started (after that
//! task's output is allocated): a matrix's after the last reader of its last
//! chunk. Returned matrices stay. Reads by other ranks never hold memory on
//! the owner (a chunk only they read is sent as soon as it is made).

use super::node::{Graph, NodeId, NodeKind};
use super::slots::Slots;
use super::tasks::Tasks;
use crate::air::Reg;
use std::collections::{BTreeMap, BTreeSet};

/// An allocation of the model (an index into its list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct AllocId(pub usize);

/// What an allocation holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Holder {
    /// The chunks of a register this rank owns.
    Matrix(Reg),
    /// One panel (a copy) or partial.
    Own(NodeId),
}

/// Where a chunk, copy or partial lives: `len` elements from `offset` of an allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub alloc: AllocId,
    pub offset: usize,
    pub len: usize,
}

/// One allocation: its rank, its size, and how many tasks of its rank still make or read it.
#[derive(Clone, Debug)]
struct Buffer {
    holder: Holder,
    rank: usize,
    bytes: u64,
    users_left: usize,
    /// Part of the returned tensor: never freed.
    kept: bool,
    /// Allocated and not yet freed.
    live: bool,
}

/// Bytes held per rank, allocation by allocation.
#[derive(Clone, Debug)]
pub struct Memory {
    pub held: Vec<u64>,
    pub peak: Vec<u64>,
    pub over_budget: bool,
    bufs: Vec<Buffer>,
    /// Where each chunk, copy and partial lives.
    places: BTreeMap<NodeId, Place>,
    /// The node each task makes (a chunk, partial or copy).
    made_nodes: Vec<NodeId>,
    /// The allocation each task makes into.
    made: Vec<usize>,
    /// The allocations of its own rank each task reads.
    reads: Vec<Vec<usize>>,
    /// Input chunks held from the start.
    inputs_held: BTreeSet<NodeId>,
}

impl Memory {
    pub fn new(g: &Graph, t: &Tasks, n_ranks: usize) -> Memory {
        let succs = g.succs();
        let preds = g.preds();
        let slots = Slots::new(g);
        let mut bufs: Vec<Buffer> = slots
            .allocs
            .iter()
            .map(|a| Buffer {
                holder: Holder::Matrix(a.reg),
                rank: a.rank,
                bytes: a.len() as u64 * 4,
                users_left: 0,
                kept: false,
                live: false,
            })
            .collect();
        let mut places = BTreeMap::new();
        for n in g.ids() {
            if let Some(s) = slots.of(n) {
                places.insert(
                    n,
                    Place {
                        alloc: AllocId(s.alloc),
                        offset: s.offset,
                        len: s.len,
                    },
                );
            }
        }
        for n in g.ids() {
            let own = match g.kind(n) {
                NodeKind::Partial { .. } => true,
                NodeKind::TensorCopy { .. } => buffer_node(g, &succs, n) == Some(n),
                _ => false,
            };
            if own {
                let bytes = g.kind(n).bytes();
                bufs.push(Buffer {
                    holder: Holder::Own(n),
                    rank: g.kind(n).rank().expect("buffers have ranks").0,
                    bytes,
                    users_left: 0,
                    kept: false,
                    live: false,
                });
                let alloc = AllocId(bufs.len() - 1);
                places.insert(
                    n,
                    Place {
                        alloc,
                        offset: 0,
                        len: (bytes / 4) as usize,
                    },
                );
            }
        }
        let buf = |n: NodeId| {
            buffer_node(g, &succs, n)
                .and_then(|b| places.get(&b))
                .map(|p| p.alloc.0)
        };
        let made_nodes: Vec<NodeId> = t
            .ids
            .iter()
            .map(|&n| buffer_node(g, &succs, made_by(g, &succs, n)).expect("tasks make buffers"))
            .collect();
        let made: Vec<usize> = made_nodes
            .iter()
            .map(|&n| buf(n).expect("tasks make buffers"))
            .collect();
        let reads: Vec<Vec<usize>> = (0..t.ids.len())
            .map(|k| local_reads(g, t, k, &buf, &bufs))
            .collect();
        for (k, rs) in reads.iter().enumerate() {
            for &b in rs {
                bufs[b].users_left += 1;
            }
            bufs[made[k]].users_left += 1;
        }
        let read_here: BTreeSet<NodeId> = t
            .reads
            .iter()
            .zip(&t.ids)
            .flat_map(|(rs, &task)| {
                let rank = g.kind(task).rank();
                rs.iter()
                    .copied()
                    .filter(move |&n| g.kind(n).rank() == rank)
            })
            .collect();
        let mut inputs_held = BTreeSet::new();
        for n in g.ids() {
            let Some(b) = buf(n) else { continue };
            let kept = feeds_sink(g, &succs, n);
            bufs[b].kept |= kept;
            let is_input = matches!(g.kind(n), NodeKind::TensorChunk { .. })
                && !preds[n.0 as usize].iter().any(|p| g.kind(*p).is_task());
            if is_input && (kept || read_here.contains(&n)) {
                inputs_held.insert(n);
            }
        }
        let mut held = vec![0u64; n_ranks];
        for &n in &inputs_held {
            let b = &mut bufs[buf(n).expect("an input chunk has a slot")];
            if !b.live {
                b.live = true;
                held[b.rank] += b.bytes;
            }
        }
        Memory {
            peak: held.clone(),
            held,
            over_budget: false,
            bufs,
            places,
            made_nodes,
            made,
            reads,
            inputs_held,
        }
    }

    /// Picks the ready task of highest priority that fits in `budget` on its
    /// rank; if none fits, the one needing least memory.
    pub fn pick(
        &mut self,
        g: &Graph,
        t: &Tasks,
        ready: &BTreeSet<usize>,
        prio: &[u64],
        budget: u64,
    ) -> usize {
        let rank = |k: usize| g.kind(t.ids[k]).rank().expect("tasks have ranks").0;
        let fits = |k: &usize| self.held[rank(*k)] + self.new_bytes(*k) <= budget;
        let pressed = |k: usize| self.held[rank(k)] > budget / 2;
        let net = |k: usize| self.new_bytes(k) as i64 - self.freed_by(k) as i64;
        // Under memory pressure, tasks that free memory go first.
        let key = |k: usize| (pressed(k) && net(k) <= 0, prio[k], std::cmp::Reverse(k));
        let best = ready.iter().filter(|k| fits(k)).max_by_key(|&&k| key(k));
        if let Some(&k) = best {
            return k;
        }
        // Nothing fits: the task that frees the most (or allocates the least).
        let k = *ready
            .iter()
            .min_by_key(|&&k| (net(k), k))
            .expect("ready is not empty");
        self.over_budget = true;
        k
    }

    /// Whether task `k` fits in `budget` on its rank and no rank is under
    /// memory pressure (each holds at most half the budget): then
    /// [`Memory::pick`] ranks every fitting task by its priority and index
    /// alone.
    pub fn fits_unpressed(&self, g: &Graph, t: &Tasks, k: usize, budget: u64) -> bool {
        let r = g.kind(t.ids[k]).rank().expect("tasks have ranks").0;
        self.held.iter().all(|&h| h <= budget / 2) && self.held[r] + self.new_bytes(k) <= budget
    }

    /// Bytes task `k` allocates when it starts (0 when its matrix's allocation is already held).
    fn new_bytes(&self, k: usize) -> u64 {
        let m = &self.bufs[self.made[k]];
        if m.live { 0 } else { m.bytes }
    }

    /// The allocations task `k` makes or reads, each with how many of its uses `k` is.
    fn uses(&self, k: usize) -> Vec<(usize, usize)> {
        let mut uses: Vec<(usize, usize)> = self.reads[k].iter().map(|&b| (b, 1)).collect();
        match uses.iter_mut().find(|(b, _)| *b == self.made[k]) {
            Some(u) => u.1 += 1,
            None => uses.push((self.made[k], 1)),
        }
        uses
    }

    /// Bytes freed once task `k` has started (its output counted first).
    fn freed_by(&self, k: usize) -> u64 {
        self.uses(k)
            .into_iter()
            .filter(|&(b, n)| self.bufs[b].users_left == n && !self.bufs[b].kept)
            .map(|(b, _)| self.bufs[b].bytes)
            .sum()
    }

    /// Task `k` starts: its output's allocation is made (unless held), then
    /// the allocations it was the last local user of are freed (its output's
    /// too, when no task of its rank reads or makes it after). Returns the
    /// freed allocations.
    pub fn start(&mut self, k: usize) -> Vec<AllocId> {
        let m = self.made[k];
        let r = self.bufs[m].rank;
        if !self.bufs[m].live {
            self.bufs[m].live = true;
            self.held[r] += self.bufs[m].bytes;
        }
        self.peak[r] = self.peak[r].max(self.held[r]);
        let mut freed = Vec::new();
        for (b, n) in self.uses(k) {
            let buf = &mut self.bufs[b];
            buf.users_left -= n;
            if buf.users_left == 0 && !buf.kept && buf.live {
                buf.live = false;
                self.held[buf.rank] -= buf.bytes;
                freed.push(AllocId(b));
            }
        }
        freed.sort_unstable();
        freed
    }

    /// Whether an input chunk is held from the start (a task of its rank reads
    /// it, or it is returned); ask before any task starts.
    pub fn holds_input(&self, chunk: NodeId) -> bool {
        self.inputs_held.contains(&chunk)
    }

    /// The node task `k` makes (a chunk, partial or copy).
    pub fn made_node(&self, k: usize) -> NodeId {
        self.made_nodes[k]
    }

    /// Where a chunk, copy or partial lives (a copy that makes a chunk: the chunk's slot).
    pub fn place(&self, n: NodeId) -> Option<Place> {
        self.places.get(&n).copied()
    }

    /// Elements allocation `a` holds.
    pub fn alloc_len(&self, a: AllocId) -> usize {
        (self.bufs[a.0].bytes / 4) as usize
    }

    /// What allocation `a` holds.
    pub fn holder(&self, a: AllocId) -> Holder {
        self.bufs[a.0].holder
    }

    /// What rank `rank` ever holds: each matrix (one allocation: the
    /// register and its bytes, in register order), then how many panels and
    /// partials (an allocation each).
    pub fn holdings(&self, rank: usize) -> (Vec<(Reg, u64)>, usize) {
        let used: BTreeSet<usize> = self
            .made
            .iter()
            .copied()
            .chain(
                self.inputs_held
                    .iter()
                    .filter_map(|n| self.places.get(n).map(|p| p.alloc.0)),
            )
            .filter(|&b| self.bufs[b].rank == rank)
            .collect();
        let mut matrices = Vec::new();
        let mut own = 0;
        for b in used {
            match self.bufs[b].holder {
                Holder::Matrix(r) => matrices.push((r, self.bufs[b].bytes)),
                Holder::Own(_) => own += 1,
            }
        }
        matrices.sort_unstable();
        (matrices, own)
    }
}

/// The buffer a chunk, partial or copy lives in: a chunk or partial is its
/// own; a copy that makes a chunk is that chunk's, any other copy its own.
/// `None` for other nodes.
fn buffer_node(g: &Graph, succs: &[Vec<NodeId>], n: NodeId) -> Option<NodeId> {
    match g.kind(n) {
        NodeKind::TensorChunk { .. } | NodeKind::Partial { .. } => Some(n),
        NodeKind::TensorCopy { .. } => Some(
            succs[n.0 as usize]
                .iter()
                .copied()
                .find(|&s| matches!(g.kind(s), NodeKind::TensorChunk { .. }))
                .unwrap_or(n),
        ),
        _ => None,
    }
}

/// The node task `n` makes: a shard or reduce its chunk (or partial), a copy itself.
fn made_by(g: &Graph, succs: &[Vec<NodeId>], n: NodeId) -> NodeId {
    match g.kind(n) {
        NodeKind::TensorCopy { .. } => n,
        _ => succs[n.0 as usize]
            .iter()
            .copied()
            .find(|&s| g.kind(s).is_data())
            .expect("a shard or reduce makes a chunk or partial"),
    }
}

/// The buffers of its own rank task `k` reads: chunks (directly or through
/// views) and the copies it depends on.
fn local_reads(
    g: &Graph,
    t: &Tasks,
    k: usize,
    buf: &impl Fn(NodeId) -> Option<usize>,
    bufs: &[Buffer],
) -> Vec<usize> {
    let rank = g.kind(t.ids[k]).rank().expect("tasks have ranks").0;
    let copies = t.deps[k]
        .iter()
        .map(|&d| t.ids[d])
        .filter(|&n| matches!(g.kind(n), NodeKind::TensorCopy { .. }));
    let mut out: Vec<usize> = t.reads[k]
        .iter()
        .copied()
        .chain(copies)
        .filter_map(buf)
        .filter(|&b| bufs[b].rank == rank)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a buffer is (part of) the returned tensor: its tensor, or the
/// views a returned view reads it through, flow to Sink.
fn feeds_sink(g: &Graph, succs: &[Vec<NodeId>], n: NodeId) -> bool {
    let succ = |x: NodeId| succs[x.0 as usize].iter().copied();
    let mut stack: Vec<NodeId> = succ(n).collect();
    while let Some(t) = stack.pop() {
        match g.kind(t) {
            // A returned input's chunk.
            NodeKind::Sink => return true,
            NodeKind::Tensor { .. } if succ(t).any(|s| matches!(g.kind(s), NodeKind::Sink)) => {
                return true;
            }
            NodeKind::TensorView {
                view: super::node::ViewKind::Concat { .. },
            } => {}
            NodeKind::TensorView { .. } => stack.extend(succ(t)),
            _ => {}
        }
    }
    false
}
