//! Graphviz DOT export of a block graph (deterministic: nodes and edges in id order).

use super::node::{Graph, NodeKind, ViewKind, kind_name};
use crate::air::SumAxis;
use std::fmt::Write as _;

/// The graph as a DOT `digraph`.
pub fn to_dot(g: &Graph, title: &str) -> String {
    let mut out = format!(
        "digraph \"{title}\" {{\n  rankdir=LR;\n  node [fontname=\"monospace\", fontsize=10];\n"
    );
    for n in g.ids() {
        let k = g.kind(n);
        let _ = writeln!(
            out,
            "  n{} [label=\"{}\", shape={}];",
            n.0,
            label(k),
            shape(k)
        );
    }
    for (a, b) in &g.edges {
        let _ = writeln!(out, "  n{} -> n{};", a.0, b.0);
    }
    out.push_str("}\n");
    out
}

fn shape(k: &NodeKind) -> &'static str {
    match k {
        NodeKind::Source | NodeKind::Sink => "doublecircle",
        NodeKind::Tensor { .. } => "box3d",
        NodeKind::BlockOp { .. } => "component",
        NodeKind::BlockShard { .. } => "box",
        NodeKind::TensorChunk { .. } => "note",
        NodeKind::TensorView { .. } => "parallelogram",
        NodeKind::TensorCopy { .. } => "cds",
        NodeKind::Partial { .. } => "note",
        NodeKind::TensorReduce { .. } => "invtrapezium",
    }
}

fn label(k: &NodeKind) -> String {
    let name = kind_name(k);
    match k {
        NodeKind::Source | NodeKind::Sink => name.to_string(),
        NodeKind::Tensor { name: n, ty, .. } => format!("{name}\\n%{n} {ty}"),
        NodeKind::BlockOp { operation_id, op } => format!("{name} #{operation_id}\\n{op}"),
        NodeKind::BlockShard {
            op,
            tile,
            rank,
            flops,
            ..
        } => {
            format!(
                "{name} #{} ({}, {})\\n{rank} {flops} flop",
                op.0, tile.0, tile.1
            )
        }
        NodeKind::TensorChunk {
            tensor,
            tile,
            rank,
            bytes,
        } => {
            format!(
                "{name} #{} ({}, {})\\n{rank} {bytes} B",
                tensor.0, tile.0, tile.1
            )
        }
        NodeKind::TensorView { view } => format!("{name}\\n{}", view_text(view)),
        NodeKind::TensorCopy { rank, bytes, .. } => format!("{name}\\n{rank} {bytes} B"),
        NodeKind::Partial {
            tensor,
            tile,
            rank,
            stage,
            bytes,
        } => format!(
            "{name} #{} ({}, {}) stage {stage}\\n{rank} {bytes} B",
            tensor.0, tile.0, tile.1
        ),
        NodeKind::TensorReduce {
            tile,
            rank,
            agg,
            along,
            bytes,
            ..
        } => format!(
            "{name} {} ({}, {}) along {}\\n{rank} {bytes} B",
            agg.name(),
            tile.0,
            tile.1,
            if *along == SumAxis::Rows {
                "row"
            } else {
                "column"
            }
        ),
    }
}

pub fn view_text(v: &ViewKind) -> String {
    match v {
        ViewKind::Concat { rows, cols } => format!("concat {rows}x{cols}"),
        ViewKind::Transpose => "transpose".into(),
        ViewKind::Reverse { rows, cols } => match (rows, cols) {
            (true, true) => "reverse both".into(),
            (true, false) => "reverse rows".into(),
            _ => "reverse cols".into(),
        },
        ViewKind::Slice { row, col } => format!("slice +{row},+{col}"),
    }
}
