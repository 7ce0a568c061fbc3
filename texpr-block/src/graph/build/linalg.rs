//! The tasks of a factorization or solve (`stage::linalg`) as BlockShards.
//!
//! Each task runs on the rank owning its tile. It reads the tile's version
//! before it (a Partial on that rank, or the operand's tile for the first
//! task on it) and finished tiles of the result or of the triangular
//! operand (its own rank's chunks, or copies of another rank's: a diagonal
//! factor goes to the ranks of its tile column, a panel tile to the ranks
//! of its tile row and column, as SUMMA broadcasts them). A task that
//! finishes its tile writes the result's chunk; the others write the
//! tile's next version. The scheduler then overlaps steps: a critical-path
//! plan runs step `k + 1`'s panel as soon as its inputs are ready, ahead of
//! step `k`'s remaining trailing updates (lookahead).

use super::Builder;
use crate::air::Reg;
use crate::graph::node::{NodeId, NodeKind, Work};
use crate::stage::linalg;
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;

impl Builder<'_> {
    /// The shards, versions and chunks of linear-algebra op `r`.
    pub(super) fn linalg(&mut self, r: Reg, op: NodeId, tensor: NodeId) -> Result<(), Diagnostic> {
        let d = self.cfg.distribution(self.p.ty(r))?;
        let mut versions: BTreeMap<(u64, u64), NodeId> = BTreeMap::new();
        for task in linalg::tasks(self.p, r) {
            let rank = self.cfg.owner(&d, task.tile);
            let lb = linalg::body(self.p, r, task.tile, task.step);
            let kind = NodeKind::BlockShard {
                op: r,
                tile: task.tile,
                rank,
                kernel: self.kernel(&lb.body.kernel),
                flops: lb.flops,
                work: Work::Linalg(task.step),
            };
            let shard = self.shard_reading(op, kind, &lb.body.inputs, rank);
            if lb.version {
                let before = versions
                    .remove(&task.tile)
                    .expect("a version is made before it is read");
                self.g.edge(before, shard);
            }
            if task.step.is_final() {
                let chunk = self.chunk(r, task.tile, &d);
                self.g.edge(shard, chunk);
                self.g.edge(chunk, tensor);
            } else {
                let part = self.g.add(NodeKind::Partial {
                    tensor: r,
                    tile: task.tile,
                    rank,
                    stage: 0,
                    bytes: lb.body.out_len * 4,
                });
                self.g.edge(shard, part);
                versions.insert(task.tile, part);
            }
        }
        Ok(())
    }
}
