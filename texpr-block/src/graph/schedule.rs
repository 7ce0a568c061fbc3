//! Schedulers of a block graph: the seed's greedy one and a critical-path one within a memory budget.
//!
//! Tasks are the BlockShards and TensorCopys. A task depends on the tasks
//! that produce the chunks and copies it reads (through views). Each rank
//! runs its tasks one at a time in schedule order; a task starts when its
//! rank is free and its inputs have arrived. The cost model (abstract time
//! units): a task takes its flops (a copy: its bytes), and a transfer
//! between ranks takes `bytes * TRANSFER_COST`. A chunk crosses to a rank
//! once however many tasks there read it: `sent` and `received` count each
//! (chunk, reading rank) pair once, as the executor moves them.
//!
//! Memory: a rank holds its input chunks from the start, a task's output
//! from when it starts until its last reader has run (returned chunks stay).
//! The critical-path scheduler only starts a task that fits in the budget
//! when another ready task does; when none fits it runs the smallest and the
//! plan records the overrun.

use super::node::{Graph, NodeId, NodeKind};
use super::tasks::{Tasks, tasks};
use crate::dist::CommunicatorRank;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// Time units per byte moved between ranks.
pub const TRANSFER_COST: u64 = 4;

/// One scheduled task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub node: NodeId,
    pub rank: CommunicatorRank,
    pub start: u64,
    pub end: u64,
}

/// A schedule and what it costs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub makespan: u64,
    /// Bytes each rank sends and receives.
    pub sent: Vec<u64>,
    pub received: Vec<u64>,
    /// Highest bytes held at once, per rank.
    pub peak: Vec<u64>,
    /// Whether some task had to run beyond the memory budget.
    pub over_budget: bool,
}

/// Which scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Any task whose inputs are done, lowest node id first (the seed's scheduler).
    Greedy,
    /// Longest remaining path first, within `budget` bytes per rank.
    CriticalPath { budget: u64 },
}

/// Schedules the graph (which should be pruned) on `n_ranks` ranks.
pub fn schedule(g: &Graph, n_ranks: usize, policy: Policy) -> Plan {
    let t = tasks(g);
    match policy {
        Policy::Greedy => {
            let order = list_order(&t, |ready, _| ready.first().copied());
            simulate(g, &t, &order, n_ranks, None)
        }
        Policy::CriticalPath { budget } => {
            let prio = priorities(g, &t);
            let mut mem = super::memory::Memory::new(g, &t, n_ranks);
            let mut best = BestFirst::new(&prio);
            let o = list_order(&t, |ready, became| {
                best.push(became);
                let pick = match best.top(ready) {
                    Some(k) if mem.fits_unpressed(g, &t, k, budget) => best.take(),
                    _ => mem.pick(g, &t, ready, &prio, budget),
                };
                mem.start(pick);
                Some(pick)
            });
            simulate(g, &t, &o, n_ranks, Some(mem))
        }
    }
}

/// The ready tasks by priority (highest first, then lowest index), each
/// pushed once when it becomes ready: a pick is `O(log tasks)` whenever the
/// best of them fits the budget and no rank is under memory pressure (always
/// without a budget), when it is exactly what
/// [`super::memory::Memory::pick`]'s scan of every ready task would choose;
/// otherwise the scan picks.
struct BestFirst<'p> {
    prio: &'p [u64],
    heap: BinaryHeap<(u64, Reverse<usize>)>,
}

impl<'p> BestFirst<'p> {
    fn new(prio: &'p [u64]) -> BestFirst<'p> {
        BestFirst {
            prio,
            heap: BinaryHeap::new(),
        }
    }

    fn push(&mut self, became: &[usize]) {
        self.heap
            .extend(became.iter().map(|&k| (self.prio[k], Reverse(k))));
    }

    /// The best ready task (tasks picked by [`super::memory::Memory::pick`]'s
    /// scan stay in the heap until they surface here).
    fn top(&mut self, ready: &BTreeSet<usize>) -> Option<usize> {
        while let Some(&(_, Reverse(k))) = self.heap.peek() {
            if ready.contains(&k) {
                return Some(k);
            }
            self.heap.pop();
        }
        None
    }

    /// Takes the best ready task (after [`BestFirst::top`] found it).
    fn take(&mut self) -> usize {
        let (_, Reverse(k)) = self.heap.pop().expect("top found a ready task");
        k
    }
}

/// Orders tasks by repeatedly picking one whose dependencies have run;
/// `pick` is told the tasks that became ready since its last call.
fn list_order(
    t: &Tasks,
    mut pick: impl FnMut(&BTreeSet<usize>, &[usize]) -> Option<usize>,
) -> Vec<usize> {
    let n = t.ids.len();
    let mut users = vec![Vec::new(); n];
    let mut missing: Vec<usize> = t.deps.iter().map(Vec::len).collect();
    for (k, ds) in t.deps.iter().enumerate() {
        for &d in ds {
            users[d].push(k);
        }
    }
    let mut became: Vec<usize> = (0..n).filter(|&k| missing[k] == 0).collect();
    let mut ready: BTreeSet<usize> = became.iter().copied().collect();
    let mut order = Vec::with_capacity(n);
    // A program whose result is an input (or a view of one) has no task.
    if ready.is_empty() {
        return order;
    }
    while let Some(k) = pick(&ready, &became) {
        became.clear();
        ready.remove(&k);
        order.push(k);
        for &u in &users[k] {
            missing[u] -= 1;
            if missing[u] == 0 {
                ready.insert(u);
                became.push(u);
            }
        }
        if ready.is_empty() {
            break;
        }
    }
    order
}

/// A task's cost in time units.
pub fn cost(g: &Graph, n: NodeId) -> u64 {
    match g.kind(n) {
        NodeKind::BlockShard { flops, .. } => (*flops).max(1),
        NodeKind::TensorCopy { bytes, .. } | NodeKind::TensorReduce { bytes, .. } => {
            (*bytes).max(1)
        }
        _ => 0,
    }
}

/// Longest path (in cost) from each task to the end of the graph.
fn priorities(g: &Graph, t: &Tasks) -> Vec<u64> {
    let mut prio: Vec<u64> = t.ids.iter().map(|&n| cost(g, n)).collect();
    // Tasks are in node-id order, and ids follow data flow, so users come later.
    for k in (0..t.ids.len()).rev() {
        for &d in &t.deps[k] {
            prio[d] = prio[d].max(prio[k] + cost(g, t.ids[d]));
        }
    }
    prio
}

/// Times the tasks in `order` and counts the bytes moved.
fn simulate(
    g: &Graph,
    t: &Tasks,
    order: &[usize],
    n_ranks: usize,
    mem: Option<super::memory::Memory>,
) -> Plan {
    let mut free = vec![0u64; n_ranks];
    let mut end = vec![0u64; t.ids.len()];
    let (mut sent, mut received) = (vec![0u64; n_ranks], vec![0u64; n_ranks]);
    // When each chunk reached each rank that reads it from elsewhere: a rank
    // receives a chunk once, however many of its tasks read it.
    let mut arrived: BTreeMap<(NodeId, usize), u64> = BTreeMap::new();
    let mut steps = Vec::with_capacity(order.len());
    for &k in order {
        let node = t.ids[k];
        let rank = g.kind(node).rank().expect("tasks have ranks");
        let mut ready_at = free[rank.0];
        for &c in &t.reads[k] {
            let (from, bytes) = (
                g.kind(c).rank().expect("chunks have ranks"),
                g.kind(c).bytes(),
            );
            let producer = t.deps[k]
                .iter()
                .copied()
                .find(|&d| produces(g, t.ids[d], c));
            let avail = producer.map_or(0, |d| end[d]);
            let arrive = if from == rank {
                avail
            } else {
                *arrived.entry((c, rank.0)).or_insert_with(|| {
                    sent[from.0] += bytes;
                    received[rank.0] += bytes;
                    avail + bytes * TRANSFER_COST
                })
            };
            ready_at = ready_at.max(arrive);
        }
        for &d in &t.deps[k] {
            ready_at = ready_at.max(end[d]);
        }
        end[k] = ready_at + cost(g, node);
        free[rank.0] = end[k];
        steps.push(Step {
            node,
            rank,
            start: ready_at,
            end: end[k],
        });
    }
    let makespan = end.iter().copied().max().unwrap_or(0);
    let (peak, over_budget) = match mem {
        Some(m) => (m.peak, m.over_budget),
        None => {
            let mut m = super::memory::Memory::new(g, t, n_ranks);
            for &k in order {
                m.start(k);
            }
            (m.peak, false)
        }
    };
    Plan {
        steps,
        makespan,
        sent,
        received,
        peak,
        over_budget,
    }
}

fn produces(g: &Graph, task: NodeId, chunk: NodeId) -> bool {
    g.edges.binary_search(&(task, chunk)).is_ok()
}
