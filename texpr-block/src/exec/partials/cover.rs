//! The shape of a sum's partials: every tile of its operand enters each
//! output tile exactly once, through the steps and reduces the ranks run.
//!
//! Holding each partial to the one before it plus its tile's part
//! ([`super::check`]) vouches for the values along the graph; this vouches
//! for the graph: walking back from the reduce that makes each output tile
//! of a sum or mean, through the partials it combines and the steps that
//! made them, reaches one step for every operand tile the output tile sums
//! (a row's, a column's, or all), and no other.

use super::is_sum;
use crate::air::{Program, Reg, SumAxis};
use crate::codes;
use crate::graph::node::Work;
use crate::graph::{Graph, NodeId, NodeKind};
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;

/// Every output tile of every sum or mean of `q` in `g`: its steps read each
/// of its operand tiles once. How many output tiles it walked, or E0544 at
/// the sum naming a tile added other than once.
pub fn cover(q: &Program, g: &Graph) -> Result<usize, Diagnostic> {
    let (preds, succs) = (g.preds(), g.succs());
    let mut walked = 0;
    for n in g.ids() {
        let NodeKind::TensorReduce { tensor, tile, .. } = g.kind(n) else {
            continue;
        };
        let makes_chunk = succs[n.0 as usize]
            .iter()
            .any(|&s| matches!(g.kind(s), NodeKind::TensorChunk { .. }));
        if !is_sum(q, *tensor) || !makes_chunk {
            continue;
        }
        let mut count: BTreeMap<(u64, u64), usize> =
            operand_tiles(q, *tensor, *tile).map(|t| (t, 0)).collect();
        for src in steps_into(g, &preds, n, *tensor, *tile) {
            let seen = src.and_then(|s| count.get_mut(&s));
            match (seen, src) {
                (Some(c), _) => *c += 1,
                (None, src) => return Err(stray(q, *tensor, *tile, src)),
            }
        }
        if let Some((t, &c)) = count.iter().find(|(_, c)| **c != 1) {
            return Err(uncovered(q, *tensor, *tile, *t, c));
        }
        walked += 1;
    }
    Ok(walked)
}

/// The operand tiles output tile `o` of reduction `r` sums (as the graph
/// builder lists them, `graph/build/reduce.rs`).
fn operand_tiles(q: &Program, r: Reg, o: (u64, u64)) -> impl Iterator<Item = (u64, u64)> {
    let crate::air::Op::Reduce(_, axis, x) = q.inst(r).op else {
        unreachable!("a reduction")
    };
    let n = q.ty(x).n_tiles();
    let (rows, cols) = match axis {
        SumAxis::Rows => (o.0..o.0 + 1, 0..n.cols),
        SumAxis::Cols => (0..n.rows, o.1..o.1 + 1),
        SumAxis::All => (0..n.rows, 0..n.cols),
    };
    cols.flat_map(move |j| rows.clone().map(move |i| (i, j)))
}

/// The operand tile of every step behind `from` (walking back through
/// partials and reduces); `None` for a step of another reduction or
/// output tile.
fn steps_into(
    g: &Graph,
    preds: &[Vec<NodeId>],
    from: NodeId,
    r: Reg,
    o: (u64, u64),
) -> Vec<Option<(u64, u64)>> {
    let mut out = Vec::new();
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        let behind = match g.kind(n) {
            NodeKind::BlockShard {
                op,
                tile,
                work: Work::Reduce(part),
                ..
            } => {
                out.push((*op == r && *tile == o).then_some(part.src_tile));
                true
            }
            NodeKind::TensorReduce { .. } | NodeKind::Partial { .. } => true,
            _ => false,
        };
        if behind {
            let back = preds[n.0 as usize].iter().copied();
            stack.extend(back.filter(|&p| is_partial_path(g.kind(p))));
        }
    }
    out
}

/// Whether a predecessor is on a partial's way: a partial, or the task
/// that made it (a step or a reduce), not a tile a step reads.
fn is_partial_path(k: &NodeKind) -> bool {
    matches!(
        k,
        NodeKind::Partial { .. }
            | NodeKind::TensorReduce { .. }
            | NodeKind::BlockShard {
                work: Work::Reduce(_),
                ..
            }
    )
}

/// E0544: a step behind output tile `o` of `r` reads a tile `o` does not sum.
fn stray(q: &Program, r: Reg, o: (u64, u64), src: Option<(u64, u64)>) -> Diagnostic {
    let what = match src {
        Some(t) => format!(
            "add its operand's tile ({}, {}), which it does not sum",
            t.0, t.1
        ),
        None => "include a step of another output tile or reduction".to_string(),
    };
    fail(q, r, o, what)
}

/// E0544: operand tile `t` enters output tile `o` of `r` `c` times, not once.
fn uncovered(q: &Program, r: Reg, o: (u64, u64), t: (u64, u64), c: usize) -> Diagnostic {
    let what = match c {
        0 => format!("never add its operand's tile ({}, {})", t.0, t.1),
        c => format!("add its operand's tile ({}, {}) {c} times", t.0, t.1),
    };
    fail(q, r, o, what)
}

fn fail(q: &Program, r: Reg, o: (u64, u64), what: String) -> Diagnostic {
    let name = &q.inst(r).name;
    Diagnostic::error(
        codes::CHECK_FAILED,
        format!(
            "the steps behind %{name} ({}, {}) {what}: each tile it sums must enter it once (a bug of this layer)",
            o.0, o.1
        ),
    )
    .with_primary(q.inst(r).span, "this reduction")
}
