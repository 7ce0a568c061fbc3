//! `--check` of a sum's partials, in the order the ranks make and combine
//! them, so that a lost tile cannot hide in the whole sum's bound.
//!
//! The result of `sum` over 512x512 values in `[-1, 1)` in tiles of 64 is
//! held to 2.22 on a sum of -88.3 (its bound covers every order of 262,144
//! terms), and 2 of its 64 tile sums (-0.29 and 1.70) are smaller than
//! that: a run that dropped either would pass a check of the result alone.
//! So under `--check` each rank also records every partial of a sum or
//! mean it makes ([`recorded`]): after each step (one tile of the operand
//! added to the partial before it) and after each TensorReduce (members'
//! partials combined); the source rank gathers them and [`check`] holds
//! each to what it should be given the partial it was made from
//! (`partials/hold.rs`):
//! - a step's partial within the tile's part's own tolerance (the
//!   interpreter's bound of that part, [`super::reference::dense_parts`]:
//!   0.034 for a 64x64 tile) plus one rounding of the add, of the partial
//!   before it plus the part;
//! - a TensorReduce's value within one rounding per member of the sum of
//!   the members' recorded partials (a single member copied exactly).
//!
//! First, [`cover`] walks the graph back from each output tile: its steps
//! read every operand tile it sums exactly once. A partial not gathered,
//! or not compared (non-finite, no bound), leaves the check incomplete
//! (E0548 unless `--allow-unchecked`); one beyond its tolerance is E0544 at
//! the reduction's line.
//!
//! So a step that loses its tile is off by exactly that tile's part and
//! fails unless the part is within its own tolerance of 0; one that adds
//! its tile twice fails where the part is beyond twice that, and a partial
//! off by more than twice its tolerance always fails. The report says how
//! far the nearest part is (8.5 tolerances in the example). Max, min and
//! product reductions are checked by their result alone: a max or min
//! rounds nothing, so it is held within its operand's own tolerance (none
//! for an input) and losing the tile that holds the extreme fails unless
//! another comes within that, while losing any other leaves the result as
//! it is; a product within its relative bound.

use super::dense::Matrix;
use crate::air::{Agg, Op, Program, Reg};
use crate::graph::node::Work;
use crate::graph::{Graph, NodeId, NodeKind};
use std::collections::BTreeMap;
use texpr_interp::accuracy::Reference;
use texpr_ir::Diagnostic;

mod cover;
mod hold;

pub use cover::cover;
use hold::{Step, Worst, mismatch, rounding};

/// A fault a test injects into a run, to show that `--check` catches it
/// (`Job::fault`; no command-line flag sets one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The step of reduction `op` that reads tile `src_tile` of its operand
    /// adds nothing: its partial is the one before it (for the first, the
    /// reduction's identity).
    DropTile { op: Reg, src_tile: (u64, u64) },
}

/// Whether `op` is a sum or mean, whose partials `--check` records.
fn is_sum(p: &Program, op: Reg) -> bool {
    matches!(p.inst(op).op, Op::Reduce(Agg::Sum | Agg::Mean, ..))
}

/// The data node a task makes.
fn made(g: &Graph, succs: &[Vec<NodeId>], task: NodeId) -> Option<NodeId> {
    succs[task.0 as usize]
        .iter()
        .copied()
        .find(|&s| g.kind(s).is_data())
}

/// Per rank, the partials of sums and means it records under `--check`
/// (what each step and each TensorReduce there makes), by node id, with
/// their lengths in elements.
pub fn recorded(g: &Graph, p: &Program, n_ranks: usize) -> Vec<Vec<(NodeId, usize)>> {
    let succs = g.succs();
    let mut out = vec![Vec::new(); n_ranks];
    for n in g.ids() {
        let (op, rank) = match g.kind(n) {
            NodeKind::BlockShard {
                op,
                rank,
                work: Work::Reduce(_),
                ..
            } => (*op, *rank),
            NodeKind::TensorReduce { tensor, rank, .. } => (*tensor, *rank),
            _ => continue,
        };
        if !is_sum(p, op) {
            continue;
        }
        if let Some(m) = made(g, &succs, n) {
            out[rank.0].push((m, (g.kind(m).bytes() / 4) as usize));
        }
    }
    for r in &mut out {
        r.sort_unstable();
    }
    out
}

/// What [`check`] found: a line for the report, how many partial elements
/// it compared of how many the ranks should have recorded, and what it
/// could not compare (for `--allow-unchecked` to accept or not).
#[derive(Debug)]
pub struct Checked {
    pub text: String,
    pub compared: usize,
    pub total: usize,
    pub skipped: Option<String>,
}

/// Checks every recorded partial of `q`'s sums (see the module doc); `parts`
/// are [`super::reference::dense_parts`] of `q`. What it compared, or E0544
/// at the sum naming the worst partial (or the tile its graph does not add
/// exactly once, [`cover::cover`]).
pub fn check(
    q: &Program,
    g: &Graph,
    parts: &[(Reg, Reference)],
    values: &BTreeMap<NodeId, Vec<f32>>,
) -> Result<Checked, Diagnostic> {
    cover::cover(q, g)?;
    let mut walk = Walk {
        q,
        g,
        preds: g.preds(),
        parts: parts.iter().map(|(r, x)| (*r, x)).collect(),
        values,
        w: Worst::default(),
    };
    let succs = g.succs();
    let (mut steps, mut reduces, mut missing, mut missing_elems) = (0usize, 0usize, 0, 0);
    for n in g.ids() {
        let Some(m) = made(g, &succs, n).filter(|_| records(q, g.kind(n))) else {
            continue;
        };
        let len = (g.kind(m).bytes() / 4) as usize;
        let Some(got) = recorded_as(values, &m, len) else {
            missing += 1;
            missing_elems += len;
            continue;
        };
        match g.kind(n) {
            NodeKind::TensorReduce { .. } => reduces += usize::from(walk.reduce(n, got)),
            _ => steps += usize::from(walk.step(n, got)),
        }
    }
    let w = walk.w;
    if let Some(miss) = w.worst {
        return Err(mismatch(q, &miss, w.count, w.compared));
    }
    let lightest = w.lightest.as_ref().map_or(String::new(), |l| l.text(q));
    let skipped = (missing > 0 || w.unchecked > 0).then(|| {
        format!(
            "{missing} partials not gathered, {} partial elements non-finite or without a bound",
            w.unchecked
        )
    });
    Ok(Checked {
        text: format!(
            "check of the partials: {steps} steps and {reduces} reduces of sums, {} elements each within its tile's tolerance{lightest}",
            w.compared
        ),
        compared: w.compared,
        total: w.compared + w.unchecked + missing_elems,
        skipped,
    })
}

/// The recorded partial `n`, of `len` elements.
fn recorded_as<'v>(
    values: &'v BTreeMap<NodeId, Vec<f32>>,
    n: &NodeId,
    len: usize,
) -> Option<&'v Vec<f32>> {
    values.get(n).filter(|v| v.len() == len)
}

/// [`check`]'s walk over the graph's steps and reduces of sums.
struct Walk<'a> {
    q: &'a Program,
    g: &'a Graph,
    preds: Vec<Vec<NodeId>>,
    parts: BTreeMap<Reg, &'a Reference>,
    values: &'a BTreeMap<NodeId, Vec<f32>>,
    w: Worst,
}

impl Walk<'_> {
    /// Holds step `n`'s partial `got`; whether it could (its tile's part
    /// and the partial before it known).
    fn step(&mut self, n: NodeId, got: &[f32]) -> bool {
        let NodeKind::BlockShard {
            op,
            tile,
            rank,
            work: Work::Reduce(part),
            ..
        } = self.g.kind(n)
        else {
            unreachable!("a step of a sum")
        };
        let before = match part.accumulate {
            false => Some(None),
            true => self.preds[n.0 as usize]
                .iter()
                .find(|&&b| matches!(self.g.kind(b), NodeKind::Partial { .. }))
                .and_then(|b| recorded_as(self.values, b, got.len()))
                .map(Some),
        };
        let (Some(reference), Some(before)) = (self.parts.get(op), before) else {
            self.w.unchecked += got.len();
            return false;
        };
        let step = Step {
            q: self.q,
            op: *op,
            tile: *tile,
            rank: rank.0,
            part: *part,
            reference,
        };
        step.hold(&mut self.w, got, before);
        true
    }

    /// Holds reduce `n`'s value `got` to the sum of its members' partials;
    /// whether it could (every member's partial known).
    fn reduce(&mut self, n: NodeId, got: &[f32]) -> bool {
        let NodeKind::TensorReduce {
            tensor, tile, rank, ..
        } = self.g.kind(n)
        else {
            unreachable!("a reduce of a sum")
        };
        let preds = &self.preds[n.0 as usize];
        let members: Vec<&Vec<f32>> = preds
            .iter()
            .filter_map(|p| recorded_as(self.values, p, got.len()))
            .collect();
        if members.len() != preds.len() {
            self.w.unchecked += got.len();
            return false;
        }
        for (e, &v) in got.iter().enumerate() {
            let sum: f64 = members.iter().map(|m| f64::from(m[e])).sum();
            let mag: f64 = members.iter().map(|m| f64::from(m[e].abs())).sum();
            let tol = (members.len() as f64 - 1.0) * rounding(mag);
            let what = || {
                format!(
                    "%{} ({}, {}) combined from {} partials on rank {}, element {e}",
                    self.q.inst(*tensor).name,
                    tile.0,
                    tile.1,
                    members.len(),
                    rank.0
                )
            };
            self.w.hold(*tensor, what, v, sum, Some(tol));
        }
        true
    }
}

/// Whether `--check` records what task `k` makes: a step or reduce of a sum or mean.
fn records(p: &Program, k: &NodeKind) -> bool {
    match k {
        NodeKind::BlockShard {
            op,
            work: Work::Reduce(_),
            ..
        } => is_sum(p, *op),
        NodeKind::TensorReduce { tensor, .. } => is_sum(p, *tensor),
        _ => false,
    }
}

/// The inputs of `q` (a planned program) from those of `p`, the program it
/// was planned from, matched by name.
pub fn inputs_of(q: &Program, p: &Program, inputs: &[Matrix]) -> Option<Vec<Matrix>> {
    let names: Vec<&str> = p
        .inputs()
        .into_iter()
        .map(|r| p.inst(r).name.as_str())
        .collect();
    q.inputs()
        .into_iter()
        .map(|r| {
            let k = names.iter().position(|&n| n == q.inst(r).name)?;
            inputs.get(k).cloned()
        })
        .collect()
}
