//! Removes every node with no path to Sink (the seed: it cannot be observed, so it need not run).

use super::node::{Graph, NodeId, NodeKind};

/// The graph without nodes that cannot reach Sink; node ids are renumbered in order.
pub fn prune(g: &Graph) -> Graph {
    let preds = g.preds();
    let mut live = vec![false; g.nodes.len()];
    let mut stack: Vec<NodeId> = g
        .ids()
        .filter(|&n| matches!(g.kind(n), NodeKind::Sink))
        .collect();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut live[n.0 as usize], true) {
            continue;
        }
        stack.extend(preds[n.0 as usize].iter().copied());
    }
    let mut map = vec![None; g.nodes.len()];
    let mut out = Graph {
        placement: g.placement,
        ..Graph::default()
    };
    for n in g.ids().filter(|n| live[n.0 as usize]) {
        map[n.0 as usize] = Some(out.add(g.kind(n).clone()));
    }
    for &(a, b) in &g.edges {
        if let (Some(a), Some(b)) = (map[a.0 as usize], map[b.0 as usize]) {
            out.edge(a, b);
        }
    }
    out.normalize();
    out
}
