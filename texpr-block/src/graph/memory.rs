//! Memory held per rank while a schedule runs, and the budget-aware choice of the next task.

use super::node::{Graph, NodeId, NodeKind};
use super::schedule::Tasks;
use std::collections::BTreeSet;

/// Bytes held per rank: what each live chunk or copy costs and how many readers it waits for.
#[derive(Debug)]
pub struct Memory {
    pub held: Vec<u64>,
    pub peak: Vec<u64>,
    pub over_budget: bool,
    /// Remaining readers (tasks) of each task's output; returned chunks never free.
    readers_left: Vec<usize>,
    keep: Vec<bool>,
    /// Bytes each task allocates.
    out: Vec<u64>,
}

impl Memory {
    pub fn new(g: &Graph, t: &Tasks, n_ranks: usize) -> Memory {
        let mut held = vec![0u64; n_ranks];
        let preds = g.preds();
        let succs = g.succs();
        for n in g.ids() {
            if let NodeKind::TensorChunk { rank, bytes, .. } = g.kind(n)
                && !preds[n.0 as usize].iter().any(|p| g.kind(*p).is_task())
            {
                held[rank.0] += bytes;
            }
        }
        let mut readers_left = vec![0; t.ids.len()];
        for ds in &t.deps {
            for &d in ds {
                readers_left[d] += 1;
            }
        }
        let keep = t.ids.iter().map(|&n| feeds_sink(g, &succs, n)).collect();
        let out = t.ids.iter().map(|&n| out_bytes(g, &succs, n)).collect();
        Memory {
            peak: held.clone(),
            held,
            over_budget: false,
            readers_left,
            keep,
            out,
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
        let fits = |k: &usize| self.held[rank(*k)] + self.out[*k] <= budget;
        let pressed = |k: usize| self.held[rank(k)] > budget / 2;
        let key = |k: usize| {
            let net = self.out[k] as i64 - self.freed_by(t, k) as i64;
            // Under memory pressure, tasks that free memory go first.
            (pressed(k) && net <= 0, prio[k], std::cmp::Reverse(k))
        };
        let best = ready.iter().filter(|k| fits(k)).max_by_key(|&&k| key(k));
        if let Some(&k) = best {
            return k;
        }
        // Nothing fits: the task that frees the most (or allocates the least).
        self.over_budget = true;
        *ready
            .iter()
            .min_by_key(|&&k| (self.out[k] as i64 - self.freed_by(t, k) as i64, k))
            .expect("ready is not empty")
    }

    /// Bytes freed once task `k` has run (inputs it is the last reader of).
    fn freed_by(&self, t: &Tasks, k: usize) -> u64 {
        t.deps[k]
            .iter()
            .filter(|&&d| self.readers_left[d] == 1 && !self.keep[d])
            .map(|&d| self.out[d])
            .sum()
    }

    /// Task `k` runs: its output is allocated, inputs whose last reader it is are freed.
    pub fn start(&mut self, g: &Graph, t: &Tasks, k: usize) {
        let r = g.kind(t.ids[k]).rank().expect("tasks have ranks").0;
        self.held[r] += self.out[k];
        self.peak[r] = self.peak[r].max(self.held[r]);
        for &d in &t.deps[k] {
            self.readers_left[d] -= 1;
            if self.readers_left[d] == 0 && !self.keep[d] {
                let rd = g.kind(t.ids[d]).rank().expect("tasks have ranks").0;
                self.held[rd] -= self.out[d];
            }
        }
    }
}

/// Bytes a task allocates (its output chunk, or its copy).
fn out_bytes(g: &Graph, succs: &[Vec<NodeId>], n: NodeId) -> u64 {
    match g.kind(n) {
        NodeKind::TensorCopy { bytes, .. } => *bytes,
        _ => succs[n.0 as usize].iter().map(|&b| g.kind(b).bytes()).sum(),
    }
}

/// Whether a task's output is (part of) the returned tensor.
fn feeds_sink(g: &Graph, succs: &[Vec<NodeId>], n: NodeId) -> bool {
    let succ = |x: NodeId| succs[x.0 as usize].iter().copied();
    succ(n).any(|c| succ(c).any(|t| succ(t).any(|s| matches!(g.kind(s), NodeKind::Sink))))
}
