//! The task-level view of a block graph: the BlockShards and TensorCopys, what
//! each depends on, and the chunks each reads (through views).

use super::node::{Graph, NodeId, NodeKind};
use std::collections::BTreeSet;

/// The task-level view of a graph.
#[derive(Debug)]
pub struct Tasks {
    pub ids: Vec<NodeId>,
    /// Dependencies of each task (indices into `ids`).
    pub deps: Vec<Vec<usize>>,
    /// Chunks and partials (with their rank and bytes) each task reads, directly or through views.
    pub reads: Vec<Vec<NodeId>>,
}

/// Finds the tasks, their dependencies and the chunks they read.
pub fn tasks(g: &Graph) -> Tasks {
    let preds = g.preds();
    let ids: Vec<NodeId> = g.ids().filter(|&n| g.kind(n).is_task()).collect();
    let index = |n: NodeId| ids.binary_search(&n).ok();
    let mut deps = Vec::new();
    let mut reads = Vec::new();
    for &t in &ids {
        let (mut d, mut r) = (BTreeSet::new(), BTreeSet::new());
        let mut stack: Vec<NodeId> = preds[t.0 as usize].clone();
        let mut seen = BTreeSet::new();
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            match g.kind(n) {
                NodeKind::BlockShard { .. }
                | NodeKind::TensorCopy { .. }
                | NodeKind::TensorReduce { .. } => {
                    d.extend(index(n));
                }
                NodeKind::TensorChunk { .. } | NodeKind::Partial { .. } => {
                    r.insert(n);
                    stack.extend(preds[n.0 as usize].iter().filter(|p| g.kind(**p).is_task()));
                }
                NodeKind::TensorView { .. } => stack.extend(preds[n.0 as usize].iter().copied()),
                _ => {}
            }
        }
        deps.push(d.into_iter().collect());
        reads.push(r.into_iter().collect());
    }
    Tasks { ids, deps, reads }
}
