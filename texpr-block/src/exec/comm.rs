//! The messages of a run: which chunk travels from which rank to which, how, and in what order.
//!
//! Every rank derives the same list from the same plan. A chunk that a
//! TensorCopy on another rank reads is one message from its owner to every
//! rank that reads it (a rank receives a chunk once). A message to every
//! other rank of the owner's grid row is a broadcast on the row communicator
//! (the A panels of a SUMMA matmul), to every other rank of its column one on
//! the column communicator (the B panels); any other is a send to each
//! receiver. Messages are ordered by the plan step that makes their chunk
//! (inputs first), then by chunk: each rank posts its messages in this order,
//! so collectives on a communicator match, and a message only ever waits for
//! data that earlier messages carry, which makes the order deadlock-free.
//!
//! The partials a TensorReduce combines are one message too, in which every
//! rank holding one of them takes part: an MPI reduce on the grid row (or
//! column) communicator when they are the whole row (column) and the result
//! cannot depend on the order (a max or min, or a sum of two), otherwise
//! sends to the reducing rank, which combines them in rank order: every run
//! and transport gives the same bits. It is ordered by the plan step of the
//! TensorReduce, before the chunks that step makes.
//!
//! After the plan's messages come the start of the run (every rank tells the
//! source rank it is ready, the source rank answers go) and its end: each
//! rank's share of the result to the source rank (when the result is
//! gathered), the partials it recorded (under `--check`), each rank's
//! counters, and the source rank's word that all is done.

use crate::air::{Agg, SumAxis};
use crate::dist::{CommunicatorRank, GridSize};
use crate::graph::tasks::Tasks;
use crate::graph::{Graph, NodeId, NodeKind, Plan};
use std::collections::BTreeMap;

/// How a message travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// A broadcast from the sender to its grid row.
    Row,
    /// A broadcast from the sender to its grid column.
    Col,
    /// One point-to-point send to each receiver.
    Direct,
}

/// What a message carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// A chunk (tile) of a tensor, compact column-major.
    Chunk(NodeId),
    /// The partials a TensorReduce (this node) combines.
    Reduce(NodeId),
    /// A rank's local part of the result, gathered to the source rank.
    Result,
    /// The partials of sums a rank recorded for `--check` ([`crate::exec::partials`]).
    Partials,
    /// A rank's counters, sent to the source rank.
    Counters,
    /// The source rank's word that every rank has finished.
    Done,
    /// A rank's word to the source rank that it is ready to start.
    Ready,
    /// The source rank's word that every rank is ready: the run starts.
    Go,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub payload: Payload,
    pub from: usize,
    /// Receivers, ascending.
    pub to: Vec<usize>,
    pub route: Route,
    /// Length in 4-byte words.
    pub len: usize,
    /// A reduce: what it combines and which ranks take part (`from` and
    /// `to[0]` are the reducing rank).
    pub reduce: Option<ReduceSpec>,
}

/// How the partials of a reduce message combine, and whose they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceSpec {
    pub agg: Agg,
    /// The ranks holding a partial, ascending (the reducing rank among them).
    pub members: Vec<usize>,
}

impl Message {
    /// Whether rank `r` sends, receives or contributes to the message.
    pub fn involves(&self, r: usize) -> bool {
        match &self.reduce {
            Some(spec) => spec.members.contains(&r),
            None => self.from == r || self.to.contains(&r),
        }
    }
    /// Bytes the sender sends: once per receiver.
    pub fn bytes_sent(&self) -> u64 {
        self.len as u64 * 4 * self.to.len() as u64
    }
    /// Bytes one receiver receives.
    pub fn bytes_received(&self) -> u64 {
        self.len as u64 * 4
    }
}

/// Words of a rank's counters message.
pub const COUNTER_WORDS: usize = 28;

/// Every message of a run, in the order ranks post them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommPlan {
    pub messages: Vec<Message>,
    /// How many of `messages` carry chunks (the plan's transfers): the first ones.
    pub n_chunk_messages: usize,
    /// The start of the run (ready and go words).
    pub start: std::ops::Range<usize>,
    /// The end of the run (result shares, counters, done).
    pub end: std::ops::Range<usize>,
    /// The message carrying each chunk that crosses ranks (and each partial to its reduce).
    by_chunk: BTreeMap<NodeId, usize>,
    /// The message of each TensorReduce whose partials are on several ranks.
    by_reduce: BTreeMap<NodeId, usize>,
}

impl CommPlan {
    /// The chunk messages of `plan` on `grid`.
    pub fn new(g: &Graph, t: &Tasks, plan: &Plan, grid: GridSize) -> CommPlan {
        let step_of = plan_steps(t, plan);
        let mut readers: BTreeMap<NodeId, Vec<usize>> = BTreeMap::new();
        for (k, &n) in t.ids.iter().enumerate() {
            let NodeKind::TensorCopy { rank, .. } = g.kind(n) else {
                continue;
            };
            for &c in &t.reads[k] {
                if g.kind(c).rank() != Some(*rank) {
                    readers.entry(c).or_default().push(rank.0);
                }
            }
        }
        let producer = producers(g, t);
        let made_at = |c: NodeId| {
            producer
                .get(&c)
                .and_then(|&k| step_of[k])
                .map_or(-1, |s| s as i64)
        };
        let preds = g.preds();
        let mut order: Vec<(i64, u8, NodeId)> =
            readers.keys().map(|&c| (made_at(c), 1, c)).collect();
        for (k, &n) in t.ids.iter().enumerate() {
            if matches!(g.kind(n), NodeKind::TensorReduce { .. }) && preds[n.0 as usize].len() > 1 {
                order.push((step_of[k].map_or(-1, |s| s as i64), 0, n));
            }
        }
        order.sort_unstable();
        let mut cp = CommPlan::default();
        for (_, kind, c) in order {
            if kind == 0 {
                cp.push_reduce(g, &preds[c.0 as usize], c, grid);
                continue;
            }
            let mut to = readers.remove(&c).unwrap_or_default();
            to.sort_unstable();
            to.dedup();
            let from = g.kind(c).rank().expect("chunks have ranks").0;
            cp.by_chunk.insert(c, cp.messages.len());
            cp.messages.push(Message {
                payload: Payload::Chunk(c),
                from,
                route: route(grid, from, &to),
                to,
                len: (g.kind(c).bytes() / 4) as usize,
                reduce: None,
            });
        }
        cp.n_chunk_messages = cp.messages.len();
        cp
    }

    /// The message combining the partials `parts` of TensorReduce `node`.
    fn push_reduce(&mut self, g: &Graph, parts: &[NodeId], node: NodeId, grid: GridSize) {
        let NodeKind::TensorReduce {
            rank,
            agg,
            along,
            bytes,
            ..
        } = g.kind(node)
        else {
            unreachable!("a reduce")
        };
        let mut members: Vec<usize> = parts
            .iter()
            .filter_map(|&p| g.kind(p).rank().map(|r| r.0))
            .collect();
        members.sort_unstable();
        let root = rank.0;
        let others: Vec<usize> = members.iter().copied().filter(|&r| r != root).collect();
        let line = match along {
            SumAxis::Rows => Route::Row,
            _ => Route::Col,
        };
        // MPI may add three or more partials in any order: a sum of that
        // many goes to the reducing rank, which adds in rank order, so that
        // every run and transport gives the same bits (max and min are exact).
        let exact = agg.exact() || members.len() <= 2;
        let whole = exact && route(grid, root, &others) == line;
        let id = self.messages.len();
        for &p in parts {
            self.by_chunk.insert(p, id);
        }
        self.by_reduce.insert(node, id);
        self.messages.push(Message {
            payload: Payload::Reduce(node),
            from: root,
            to: vec![root],
            route: if whole { line } else { Route::Direct },
            len: (*bytes / 4) as usize,
            reduce: Some(ReduceSpec { agg: *agg, members }),
        });
    }

    /// Adds the start of the run (every rank's ready word to `source`, its go
    /// word to all) and the end: result shares (`result_len[r]` words from
    /// rank `r`, when `gather`), recorded partials (`partial_len[r]` words,
    /// where not 0), counters, and the done word.
    pub fn with_ends(
        mut self,
        source: usize,
        result_len: &[usize],
        gather: bool,
        partial_len: &[usize],
    ) -> CommPlan {
        let n = result_len.len();
        let first = self.messages.len();
        self.push_to_source(Payload::Ready, source, n, |_| 1);
        self.push_from_source(Payload::Go, source, n);
        self.start = first..self.messages.len();
        let first = self.messages.len();
        if gather {
            self.push_to_source(Payload::Result, source, n, |r| result_len[r]);
        }
        self.push_to_source(Payload::Partials, source, n, |r| partial_len[r]);
        self.push_to_source(Payload::Counters, source, n, |_| COUNTER_WORDS);
        self.push_from_source(Payload::Done, source, n);
        self.end = first..self.messages.len();
        self
    }

    /// A message of `len(r)` words from every rank `r` but `source` to it
    /// (none where `len(r)` is 0).
    fn push_to_source(
        &mut self,
        payload: Payload,
        source: usize,
        n: usize,
        len: impl Fn(usize) -> usize,
    ) {
        for r in (0..n).filter(|&r| r != source && len(r) > 0) {
            self.messages.push(Message {
                payload,
                from: r,
                to: vec![source],
                route: Route::Direct,
                len: len(r),
                reduce: None,
            });
        }
    }

    /// One word from `source` to every other rank.
    fn push_from_source(&mut self, payload: Payload, source: usize, n: usize) {
        let to: Vec<usize> = (0..n).filter(|&r| r != source).collect();
        if !to.is_empty() {
            self.messages.push(Message {
                payload,
                from: source,
                to,
                route: Route::Direct,
                len: 1,
                reduce: None,
            });
        }
    }

    /// The message that carries chunk `c` to other ranks (or partial `c` to
    /// its reduce), if any.
    pub fn of_chunk(&self, c: NodeId) -> Option<usize> {
        self.by_chunk.get(&c).copied()
    }

    /// The reduce message of TensorReduce `node`, if its partials are on several ranks.
    pub fn reduce_of(&self, node: NodeId) -> Option<usize> {
        self.by_reduce.get(&node).copied()
    }

    /// The message of `payload` sent by `from`, if any.
    pub fn find(&self, payload: Payload, from: usize) -> Option<usize> {
        self.messages
            .iter()
            .position(|m| m.payload == payload && m.from == from)
    }

    /// Bytes each rank sends and receives in the chunk messages (the plan's transfers).
    pub fn chunk_bytes(&self, n_ranks: usize) -> (Vec<u64>, Vec<u64>) {
        let (mut sent, mut received) = (vec![0u64; n_ranks], vec![0u64; n_ranks]);
        for m in &self.messages[..self.n_chunk_messages] {
            if let Some(spec) = &m.reduce {
                for &r in spec.members.iter().filter(|&&r| r != m.from) {
                    sent[r] += m.bytes_received();
                    received[m.from] += m.bytes_received();
                }
                continue;
            }
            sent[m.from] += m.bytes_sent();
            for &r in &m.to {
                received[r] += m.bytes_received();
            }
        }
        (sent, received)
    }
}

/// The step of the plan at which each task runs.
fn plan_steps(t: &Tasks, plan: &Plan) -> Vec<Option<usize>> {
    let mut step = vec![None; t.ids.len()];
    for (s, st) in plan.steps.iter().enumerate() {
        if let Ok(k) = t.ids.binary_search(&st.node) {
            step[k] = Some(s);
        }
    }
    step
}

/// The task that makes each chunk (inputs have none).
pub fn producers(g: &Graph, t: &Tasks) -> BTreeMap<NodeId, usize> {
    let succs = g.succs();
    let mut out = BTreeMap::new();
    for (k, &n) in t.ids.iter().enumerate() {
        for &s in &succs[n.0 as usize] {
            if g.kind(s).is_data() {
                out.insert(s, k);
            }
        }
    }
    out
}

/// How a message from `from` to `to` travels on `grid`.
fn route(grid: GridSize, from: usize, to: &[usize]) -> Route {
    let at = grid.index_of(CommunicatorRank(from));
    let members = |same: &dyn Fn(usize) -> bool| -> Vec<usize> {
        (0..grid.linear_size())
            .filter(|&r| r != from && same(r))
            .collect()
    };
    let row = members(&|r| grid.index_of(CommunicatorRank(r)).row() == at.row());
    let col = members(&|r| grid.index_of(CommunicatorRank(r)).col() == at.col());
    if !to.is_empty() && to == row {
        Route::Row
    } else if !to.is_empty() && to == col {
        Route::Col
    } else {
        Route::Direct
    }
}
