//! Register tiles loaded once per subgroup, for devices whose loads cost
//! per lane.
//!
//! On llvmpipe a subgroup is one SIMD vector of invocations: `L`
//! consecutive local ids (`L` = 8 with 256-bit AVX), and a load instruction
//! is a loop over the lanes, one bounds-checked scalar load each. A
//! register tile that every lane of a subgroup loads alike is then `L`
//! times the loads it needs. Matmul's A tile is one: the rows an
//! invocation multiplies depend on the local id `l` only as `l / TJ`.
//!
//! A `vec4` register tile ([`super::vec4`]) of `R` runs, `R` a multiple of
//! `L`, whose index reads `l` only as `l / D` (`D` a multiple of `L`) and
//! otherwise only constants, the workgroup id and the thread-level loops
//! open around it, is loaded shared: lane `s` (`subgroup_invocation_id`)
//! loads runs `s, s + L, ...`, and every run is taken from the lane that
//! holds it with `subgroupBroadcast` (an extract and a splat on llvmpipe).
//! The values are the loads' own. It needs uniform control flow (every
//! lane reaches the broadcast) and a workgroup of whole subgroups.
//!
//! Only [`texpr_target::DeviceKind::Cpu`] targets with one subgroup size
//! take it ([`Lanes::of`]): on a GPU a load every lane makes alike is one
//! memory transaction already. On llvmpipe the shared rows take matmul's
//! 8x8 register tiles from 16 loads per four steps of K to 9 and make them
//! 1.4-1.6x faster at 1024^3 (BENCHMARKS.md, session 10).

use super::ctx::{Ctx, Ix, Lanes};
use super::vec4::QuadTile;
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::TermOp;
use texpr_syntax::ir::{Term, TermKind, VarId};

impl Ctx<'_> {
    /// `L` when register tile `q` can be loaded once per subgroup.
    fn shared_width(&self, q: &QuadTile<'_>) -> Option<u64> {
        let lanes = self.lanes?;
        let (r, runs) = q.outer?;
        (lanes.local.is_some()
            && runs.is_multiple_of(lanes.width)
            && self.w.uniform()
            && self.lane_uniform(q.index, &[r, q.var], &lanes))
        .then_some(lanes.width)
    }

    /// Whether `t` has one value across a subgroup's lanes once the
    /// variables in `free` are fixed.
    fn lane_uniform(&self, t: &Term, free: &[VarId], lanes: &Lanes) -> bool {
        match &t.kind {
            TermKind::Const(_) => true,
            TermKind::Var(v) => {
                free.contains(v)
                    || Some(*v) == lanes.grid
                    || matches!(self.idx.get(v), Some(Ix::Const(_)))
                    || self.trips.iter().any(|trip| trip.var == *v)
            }
            TermKind::Binary(TermOp::Div, a, b) if matches!(a.kind, TermKind::Var(v) if Some(v) == lanes.local) =>
            {
                matches!(b.kind, TermKind::Const(d) if d > 0 && (d as u64).is_multiple_of(lanes.width))
            }
            TermKind::Binary(_, a, b) => {
                self.lane_uniform(a, free, lanes) && self.lane_uniform(b, free, lanes)
            }
        }
    }

    /// The elements of `q` loaded once per subgroup, when it can be (see
    /// the module docs): run after run, four components of each `vec4`.
    pub(super) fn shared_tile_elements(
        &mut self,
        q: &QuadTile<'_>,
    ) -> Result<Option<Vec<String>>, Diagnostic> {
        let (Some(width), Some((r, runs))) = (self.shared_width(q), q.outer) else {
            return Ok(None);
        };
        self.subgroups = true;
        let buf = self.buffer(q.id);
        let quads = q.n / 4;
        let lane = self.w.let_("i32", "i32(sgl)");
        let mut held = Vec::with_capacity((runs / width * quads) as usize);
        for p in 0..runs / width {
            let run = match p {
                0 => lane.clone(),
                p => self.w.let_("i32", format!("{lane} + {}i", p * width)),
            };
            self.idx.insert(r, Ix::Name(run));
            for k in 0..quads as i64 {
                let copy = self.w.enter_copy(p * quads + k as u64);
                let at = self.part_index(q.index, q.var, 4 * k, 4)?;
                held.push(self.w.let_("vec4<f32>", format!("{buf}[{at}]")));
                self.w.leave_copy(copy);
            }
        }
        let mut out = Vec::with_capacity((runs * q.n) as usize);
        for run in 0..runs {
            let (p, from) = (run / width, run % width);
            for k in 0..quads {
                let copy = self.w.enter_copy(run * quads + k);
                let mine = &held[(p * quads + k) as usize];
                let v = self
                    .w
                    .let_("vec4<f32>", format!("subgroupBroadcast({mine}, {from}u)"));
                self.components(&v, &mut out);
                self.w.leave_copy(copy);
            }
        }
        Ok(Some(out))
    }
}
