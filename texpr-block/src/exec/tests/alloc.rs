//! One device allocation per matrix and rank, counted on the interpreter device.

use super::*;
use crate::graph::NodeKind;
use crate::graph::memory::Memory;
use std::collections::BTreeSet;

/// The registers rank `r` holds tiles of: those it computes a tile of, and
/// those a task of its own reads a tile of (found from the graph, not from
/// the memory model).
fn held_registers(g: &crate::graph::Graph, r: usize) -> BTreeSet<crate::air::Reg> {
    let preds = g.preds();
    let t = tasks(g);
    let read_here: BTreeSet<crate::graph::NodeId> = t
        .reads
        .iter()
        .zip(&t.ids)
        .filter(|(_, task)| g.kind(**task).rank().map(|x| x.0) == Some(r))
        .flat_map(|(rs, _)| rs.iter().copied())
        .collect();
    g.ids()
        .filter_map(|n| match g.kind(n) {
            NodeKind::TensorChunk { tensor, rank, .. } if rank.0 == r => {
                let computed = preds[n.0 as usize].iter().any(|p| g.kind(*p).is_task());
                (computed || read_here.contains(&n)).then_some(*tensor)
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_fused_chain_holds_one_allocation_per_matrix_however_many_tiles() {
    // 20 tiles each of %a, %b and the result on one rank: three buffers.
    let src = "func ew {
  %a = input : f32[9x7, 2x2]
  %b = input : f32[9x7, 2x2]
  %c = add %a, %b
  %d = map relu, %c
  ret %d
}";
    let s = setup(src, (1, 1), (0, 0), u64::MAX);
    let out = run(&s, u64::MAX).unwrap();
    let st = &out.gathered.stats[0];
    assert_eq!((st.matrices, st.buffers), (3, 3), "{st:?}");
    assert_eq!(st.peak, s.plan.peak[0]);
    // each allocation is the padded local layout: 20 slots of 256 B, the
    // last (the 1x1 corner tile) one element long
    assert_eq!(st.peak, 3 * (19 * 256 + 4));
}

#[test]
fn every_rank_holds_one_allocation_per_matrix_it_owns_tiles_of() {
    for src in [GEMM, VIEWS] {
        for (grid, source) in GRIDS {
            let s = setup(src, grid, source, u64::MAX);
            let out = run(&s, u64::MAX).unwrap_or_else(|d| panic!("{d}"));
            let mem = Memory::new(&s.g, &tasks(&s.g), s.cfg.n_ranks());
            for (r, st) in out.gathered.stats.iter().enumerate() {
                let (matrices, own) = mem.holdings(r);
                let regs: BTreeSet<_> = matrices.iter().map(|(reg, _)| *reg).collect();
                assert_eq!(regs, held_registers(&s.g, r), "{grid:?} rank {r}");
                assert_eq!(st.matrices, matrices.len() as u64, "{grid:?} rank {r}");
                // the device made one buffer per matrix, panel and partial, no more
                assert_eq!(
                    st.buffers,
                    (matrices.len() + own) as u64,
                    "{grid:?} rank {r}"
                );
                assert_eq!(st.peak, s.plan.peak[r], "{grid:?} rank {r}");
            }
        }
    }
}
