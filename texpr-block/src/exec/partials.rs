//! `--check` of a sum's partials, in the order the ranks make and combine
//! them, so that a lost tile cannot hide in the whole sum's bound.
//!
//! The result of `sum` over 512x512 values in `[-1, 1)` is held to about 4
//! (its bound covers every order of 262,144 terms), and a few of its 64 tile
//! sums are smaller than that: a run that dropped one of them would pass a
//! check of the result alone. So under `--check` each rank also records
//! every partial of a sum or mean it makes ([`recorded`]): after each step
//! (one tile of the operand added to the partial before it) and after each
//! TensorReduce (members' partials combined); the source rank gathers them
//! and [`check`] holds each to what it should be given the partial it was
//! made from:
//! - a step's partial within the tile's part's own tolerance (the
//!   interpreter's bound of that part, [`super::reference::dense_parts`])
//!   plus one rounding of the add, of the partial before it plus the part;
//! - a TensorReduce's value within one rounding per member of the sum of
//!   the members' recorded partials (a single member copied exactly).
//!
//! Each tolerance is a tile's, not the whole sum's, so a step that drops
//! its tile (or adds another) fails unless that tile's part is within its
//! own rounding bound of 0. Max, min and product reductions are checked by
//! their result alone (a max or min rounds nothing).

use super::dense::Matrix;
use crate::air::{Agg, Op, Program, Reg, SumAxis};
use crate::codes;
use crate::graph::node::Work;
use crate::graph::{Graph, NodeId, NodeKind};
use std::collections::BTreeMap;
use texpr_interp::accuracy::{Reference, tolerance};
use texpr_ir::Diagnostic;

/// A fault a test injects into a run, to show that `--check` catches it
/// (`Job::fault`; no command-line flag sets one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The step of reduction `op` that reads tile `src_tile` of its operand
    /// adds nothing: its partial is the one before it (zero for the first).
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

/// The worst partial beyond its tolerance, and how many elements were.
#[derive(Default)]
struct Worst {
    count: usize,
    compared: usize,
    unchecked: usize,
    /// Excess over the tolerance, what, got, want, tolerance.
    worst: Option<(f64, String, f64, f64, f64)>,
}

impl Worst {
    fn hold(&mut self, what: impl Fn() -> String, got: f32, want: f64, tol: Option<f64>) {
        let Some(tol) = tol.filter(|_| got.is_finite() && want.is_finite()) else {
            self.unchecked += 1;
            return;
        };
        self.compared += 1;
        let diff = (f64::from(got) - want).abs();
        if diff <= tol {
            return;
        }
        self.count += 1;
        let excess = diff / tol.max(1e-300);
        if self.worst.as_ref().is_none_or(|w| excess > w.0) {
            self.worst = Some((excess, what(), f64::from(got), want, tol));
        }
    }
}

/// Rounding of one `f32` addition of values as large as `m`, with room for
/// the partials' growth and a flushed subnormal (the interpreter's `EPS`
/// and `TINY`).
fn rounding(m: f64) -> f64 {
    f64::from(f32::EPSILON) * m + f64::from(f32::MIN_POSITIVE)
}

/// Checks every recorded partial of `q`'s sums (see the module doc); `parts`
/// are [`super::reference::dense_parts`] of `q`. What it compared, or E0544
/// naming the worst partial.
pub fn check(
    q: &Program,
    g: &Graph,
    parts: &[(Reg, Reference)],
    values: &BTreeMap<NodeId, Vec<f32>>,
) -> Result<String, Diagnostic> {
    let parts: BTreeMap<Reg, &Reference> = parts.iter().map(|(r, x)| (*r, x)).collect();
    let (preds, succs) = (g.preds(), g.succs());
    let partial_before = |n: NodeId| {
        preds[n.0 as usize]
            .iter()
            .copied()
            .find(|&m| matches!(g.kind(m), NodeKind::Partial { .. }))
    };
    let mut w = Worst::default();
    let (mut steps, mut reduces) = (0usize, 0usize);
    for n in g.ids() {
        let Some(m) = made(g, &succs, n) else {
            continue;
        };
        let Some(got) = values.get(&m) else {
            continue;
        };
        match g.kind(n) {
            NodeKind::BlockShard {
                op,
                tile,
                rank,
                work: Work::Reduce(part),
                ..
            } => {
                let Some(reference) = parts.get(op) else {
                    continue;
                };
                let before = if part.accumulate {
                    partial_before(n).and_then(|b| values.get(&b))
                } else {
                    None
                };
                let want_part = reference.value.as_f32().unwrap_or(&[]);
                for (e, &v) in got.iter().enumerate() {
                    let k = part_index(q, *op, *tile, part.src_tile, e);
                    let prev = before.map_or(0.0, |b| f64::from(b[e]));
                    let pv = f64::from(want_part[k]);
                    let tol = tolerance(reference.bounds[k], true)
                        .filter(|_| reference.bounds[k].specified)
                        .map(|t| t + rounding(prev.abs() + pv.abs() + t));
                    let what = || {
                        format!(
                            "the partial of %{} ({}, {}) on rank {} after adding tile ({}, {}), element {e}",
                            q.inst(*op).name,
                            tile.0,
                            tile.1,
                            rank.0,
                            part.src_tile.0,
                            part.src_tile.1
                        )
                    };
                    w.hold(what, v, prev + pv, tol);
                }
                steps += 1;
            }
            NodeKind::TensorReduce {
                tensor, tile, rank, ..
            } if is_sum(q, *tensor) => {
                let members: Vec<&Vec<f32>> = preds[n.0 as usize]
                    .iter()
                    .filter_map(|p| values.get(p))
                    .collect();
                if members.len() != preds[n.0 as usize].len() {
                    continue;
                }
                for (e, &v) in got.iter().enumerate() {
                    let sum: f64 = members.iter().map(|m| f64::from(m[e])).sum();
                    let mag: f64 = members.iter().map(|m| f64::from(m[e].abs())).sum();
                    let tol = (members.len() as f64 - 1.0) * rounding(mag);
                    let what = || {
                        format!(
                            "%{} ({}, {}) combined from {} partials on rank {}, element {e}",
                            q.inst(*tensor).name,
                            tile.0,
                            tile.1,
                            members.len(),
                            rank.0
                        )
                    };
                    w.hold(what, v, sum, Some(tol));
                }
                reduces += 1;
            }
            _ => {}
        }
    }
    if let Some((_, what, got, want, tol)) = w.worst {
        return Err(Diagnostic::error(
            codes::CHECK_FAILED,
            format!(
                "a partial of a sum differs from the partial it was made from and its tile's part: {what} is {got:e}, want {want:e} within {tol:.3e} ({} of {} partial elements beyond their tolerance)",
                w.count, w.compared
            ),
        )
        .with_note("a step that drops its tile, or adds another, fails here even where the whole sum stays within its bound"));
    }
    let unchecked = if w.unchecked > 0 {
        format!(
            ", {} not compared (non-finite or without a bound)",
            w.unchecked
        )
    } else {
        String::new()
    };
    Ok(format!(
        "check of the partials: {steps} steps and {reduces} reduces of sums, {} elements each within its tile's tolerance{unchecked}: ok\n",
        w.compared
    ))
}

/// The index in reduction `op`'s parts ([`super::reference::dense_parts`])
/// of element `e` of output tile `tile`'s partial, in the step reading
/// operand tile `src`.
fn part_index(q: &Program, op: Reg, tile: (u64, u64), src: (u64, u64), e: usize) -> usize {
    let Op::Reduce(_, axis, x) = q.inst(op).op else {
        unreachable!("a reduction")
    };
    let ty = q.ty(x);
    let (rows, n) = (ty.shape.rows, ty.n_tiles());
    let e = e as u64;
    (match axis {
        SumAxis::Rows => (tile.0 * ty.tile.rows + e) + src.1 * rows,
        SumAxis::Cols => src.0 + (tile.1 * ty.tile.cols + e) * n.rows,
        SumAxis::All => src.0 + src.1 * n.rows,
    }) as usize
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
