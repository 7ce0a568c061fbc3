//! A reduction's graph (`sum`, `max`, `min`, `mean` of rows, columns or
//! all): each rank's steps over its own tiles into a Partial, and the
//! TensorReduces that combine a grid row's (column's) partials on the rank
//! owning the output tile (the module doc of `build.rs`).

use super::super::node::{NodeId, NodeKind, Part, Work};
use super::Builder;
use crate::air::{Op, Reg, SumAxis};
use crate::dist::{CommunicatorRank, RankIndex2D};
use crate::stage::kernel;
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;

impl Builder<'_> {
    /// The steps, partials and reduces of reduction `r` (see the module doc).
    pub(super) fn reduction(
        &mut self,
        r: Reg,
        op: NodeId,
        tensor: NodeId,
    ) -> Result<(), Diagnostic> {
        let Op::Reduce(agg, axis, x) = self.p.inst(r).op else {
            unreachable!("a reduction")
        };
        let dr = self.cfg.distribution(self.p.ty(r))?;
        let dx = self.cfg.distribution(self.p.ty(x))?;
        let n = self.p.ty(x).n_tiles();
        let out = self.p.ty(r).n_tiles();
        for oj in 0..out.cols {
            for oi in 0..out.rows {
                let o = (oi, oj);
                let tiles: Vec<(u64, u64)> = match axis {
                    SumAxis::Rows => (0..n.cols).map(|j| (oi, j)).collect(),
                    SumAxis::Cols => (0..n.rows).map(|i| (i, oj)).collect(),
                    SumAxis::All => (0..n.cols)
                        .flat_map(|j| (0..n.rows).map(move |i| (i, j)))
                        .collect(),
                };
                let mut by_rank: BTreeMap<CommunicatorRank, Vec<(u64, u64)>> = BTreeMap::new();
                for t in tiles {
                    by_rank.entry(self.cfg.owner(&dx, t)).or_default().push(t);
                }
                let mut partials = BTreeMap::new();
                for (rank, ts) in by_rank {
                    let last = self.partial_chain(r, op, o, rank, &ts);
                    partials.insert(rank, last);
                }
                let owner = self.cfg.owner(&dr, o);
                let chunk = self.chunk(r, o, &dr);
                let bytes = self.g.kind(chunk).bytes();
                let along = match axis {
                    SumAxis::Rows => SumAxis::Rows,
                    SumAxis::Cols => SumAxis::Cols,
                    SumAxis::All => {
                        // Each grid row's partials to its rank in the owner's column, first.
                        let mut rows: BTreeMap<usize, Vec<NodeId>> = BTreeMap::new();
                        for (rank, node) in &partials {
                            rows.entry(self.cfg.grid.index_of(*rank).row())
                                .or_default()
                                .push(*node);
                        }
                        let col = self.cfg.grid.index_of(owner).col();
                        partials = BTreeMap::new();
                        for (row, nodes) in rows {
                            let root = self.cfg.grid.rank_of(RankIndex2D::new(row, col));
                            let combined = match nodes.as_slice() {
                                [only] => *only,
                                _ => {
                                    let red = self.reduce_node(
                                        r,
                                        o,
                                        root,
                                        agg,
                                        SumAxis::Rows,
                                        bytes,
                                        &nodes,
                                    );
                                    let part = self.g.add(NodeKind::Partial {
                                        tensor: r,
                                        tile: o,
                                        rank: root,
                                        stage: 1,
                                        bytes,
                                    });
                                    self.g.edge(red, part);
                                    part
                                }
                            };
                            partials.insert(root, combined);
                        }
                        SumAxis::Cols
                    }
                };
                let nodes: Vec<NodeId> = partials.values().copied().collect();
                let red = self.reduce_node(r, o, owner, agg, along, bytes, &nodes);
                self.g.edge(red, chunk);
                self.g.edge(chunk, tensor);
            }
        }
        Ok(())
    }

    /// The steps of rank `rank` reducing tiles `ts` of the operand for
    /// output tile `o`, each adding to the partial before it; the last partial.
    fn partial_chain(
        &mut self,
        r: Reg,
        op: NodeId,
        o: (u64, u64),
        rank: CommunicatorRank,
        ts: &[(u64, u64)],
    ) -> NodeId {
        let mut prev: Option<NodeId> = None;
        for &t in ts {
            let body = kernel::partial_body(self.p, r, t, prev.is_some());
            let read = body.inputs.last().expect("a step reads its tile").clone();
            let src = self.panel(&read, rank);
            let flops = body.inputs.iter().map(|pn| pn.dims.len()).sum();
            let kernel = self.kernel(&body.kernel);
            let shard = self.g.add(NodeKind::BlockShard {
                op: r,
                tile: o,
                rank,
                kernel,
                flops,
                work: Work::Reduce(Part {
                    src_tile: t,
                    accumulate: prev.is_some(),
                }),
            });
            self.g.edge(op, shard);
            self.g.edge(src, shard);
            if let Some(p) = prev {
                self.g.edge(p, shard);
            }
            let part = self.g.add(NodeKind::Partial {
                tensor: r,
                tile: o,
                rank,
                stage: 0,
                bytes: body.out_len * 4,
            });
            self.g.edge(shard, part);
            prev = Some(part);
        }
        prev.expect("every output tile reduces some tile")
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce_node(
        &mut self,
        r: Reg,
        o: (u64, u64),
        root: CommunicatorRank,
        agg: crate::air::Agg,
        along: SumAxis,
        bytes: u64,
        partials: &[NodeId],
    ) -> NodeId {
        let red = self.g.add(NodeKind::TensorReduce {
            tensor: r,
            tile: o,
            rank: root,
            agg,
            along,
            bytes,
        });
        for &p in partials {
            self.g.edge(p, red);
        }
        red
    }
}
