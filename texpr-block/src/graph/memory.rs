//! Memory held per rank while a schedule runs, and the budget-aware choice of the next task.
//!
//! The model is the executor's: every chunk and every copy is one buffer on
//! its rank (a copy that makes a returned chunk is that chunk's buffer). An
//! input chunk is held from the start when a task of its own rank reads it
//! or it is returned; a task's output from the task's start. A buffer is
//! freed when the last task of its own rank that reads it starts (after that
//! task's output is allocated); a chunk only other ranks read is freed as
//! soon as it is made, its bytes travelling as messages; returned chunks
//! stay. Reads by other ranks never hold memory on the owner.

use super::node::{Graph, NodeId, NodeKind};
use super::tasks::Tasks;
use std::collections::BTreeSet;

/// One buffer: its rank, its size, and how many tasks of its rank still read it.
#[derive(Clone, Debug)]
struct Buffer {
    rank: usize,
    bytes: u64,
    readers_left: usize,
    /// Part of the returned tensor: never freed.
    kept: bool,
}

/// Bytes held per rank, buffer by buffer.
#[derive(Clone, Debug)]
pub struct Memory {
    pub held: Vec<u64>,
    pub peak: Vec<u64>,
    pub over_budget: bool,
    bufs: Vec<Buffer>,
    /// The node of each buffer (a chunk or a copy).
    nodes: Vec<NodeId>,
    /// The buffer each task makes.
    made: Vec<usize>,
    /// The buffers of its own rank each task reads.
    reads: Vec<Vec<usize>>,
}

impl Memory {
    pub fn new(g: &Graph, t: &Tasks, n_ranks: usize) -> Memory {
        let succs = g.succs();
        let preds = g.preds();
        let mut nodes = Vec::new();
        let mut index = vec![usize::MAX; g.nodes.len()];
        for n in g.ids() {
            if buffer_node(g, &succs, n) == Some(n) {
                index[n.0 as usize] = nodes.len();
                nodes.push(n);
            }
        }
        let buf = |n: NodeId| buffer_node(g, &succs, n).map(|b| index[b.0 as usize]);
        let mut bufs: Vec<Buffer> = nodes
            .iter()
            .map(|&n| Buffer {
                rank: g.kind(n).rank().expect("buffers have ranks").0,
                bytes: g.kind(n).bytes(),
                readers_left: 0,
                kept: feeds_sink(g, &succs, n),
            })
            .collect();
        let made: Vec<usize> = t.ids.iter().map(|&n| made_by(g, &succs, n, &buf)).collect();
        let reads: Vec<Vec<usize>> = (0..t.ids.len())
            .map(|k| local_reads(g, t, k, &buf, &bufs))
            .collect();
        for rs in &reads {
            for &b in rs {
                bufs[b].readers_left += 1;
            }
        }
        let mut held = vec![0u64; n_ranks];
        for (b, &n) in bufs.iter().zip(&nodes) {
            let is_input = matches!(g.kind(n), NodeKind::TensorChunk { .. })
                && !preds[n.0 as usize].iter().any(|p| g.kind(*p).is_task());
            if is_input && (b.readers_left > 0 || b.kept) {
                held[b.rank] += b.bytes;
            }
        }
        Memory {
            peak: held.clone(),
            held,
            over_budget: false,
            bufs,
            nodes,
            made,
            reads,
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
        let out = |k: usize| self.bufs[self.made[k]].bytes;
        let fits = |k: &usize| self.held[rank(*k)] + out(*k) <= budget;
        let pressed = |k: usize| self.held[rank(k)] > budget / 2;
        let net = |k: usize| out(k) as i64 - self.freed_by(k) as i64;
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

    /// Bytes freed once task `k` has started (its output counted first).
    fn freed_by(&self, k: usize) -> u64 {
        let last = |b: usize| self.bufs[b].readers_left == 1 && !self.bufs[b].kept;
        let made = &self.bufs[self.made[k]];
        let made_free = if made.readers_left == 0 && !made.kept {
            made.bytes
        } else {
            0
        };
        let inputs: u64 = self.reads[k]
            .iter()
            .filter(|&&b| last(b))
            .map(|&b| self.bufs[b].bytes)
            .sum();
        inputs + made_free
    }

    /// Task `k` starts: its output is allocated, then the buffers it was the
    /// last local reader of are freed (and its output, when no task of its
    /// rank reads it). Returns the nodes of the freed buffers.
    pub fn start(&mut self, k: usize) -> Vec<NodeId> {
        let m = self.made[k];
        let r = self.bufs[m].rank;
        self.held[r] += self.bufs[m].bytes;
        self.peak[r] = self.peak[r].max(self.held[r]);
        let mut freed = Vec::new();
        for i in 0..self.reads[k].len() {
            let b = self.reads[k][i];
            self.bufs[b].readers_left -= 1;
            if self.bufs[b].readers_left == 0 && !self.bufs[b].kept {
                freed.push(b);
            }
        }
        if self.bufs[m].readers_left == 0 && !self.bufs[m].kept {
            freed.push(m);
        }
        for &b in &freed {
            self.held[self.bufs[b].rank] -= self.bufs[b].bytes;
        }
        freed.into_iter().map(|b| self.nodes[b]).collect()
    }

    /// Whether an input chunk is held from the start (a task of its rank reads
    /// it, or it is returned); ask before any task starts.
    pub fn holds_input(&self, chunk: NodeId) -> bool {
        self.nodes
            .binary_search(&chunk)
            .is_ok_and(|b| self.bufs[b].readers_left > 0 || self.bufs[b].kept)
    }

    /// The node of the buffer task `k` makes (a chunk, or a copy).
    pub fn made_node(&self, k: usize) -> NodeId {
        self.nodes[self.made[k]]
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

/// The buffer task `n` makes: a shard or reduce its chunk (or partial), a copy its own buffer.
fn made_by(
    g: &Graph,
    succs: &[Vec<NodeId>],
    n: NodeId,
    buf: &impl Fn(NodeId) -> Option<usize>,
) -> usize {
    let out = match g.kind(n) {
        NodeKind::TensorCopy { .. } => n,
        _ => succs[n.0 as usize]
            .iter()
            .copied()
            .find(|&s| g.kind(s).is_data())
            .expect("a shard or reduce makes a chunk or partial"),
    };
    buf(out).expect("tasks make buffers")
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
