//! Register tiles loaded once per subgroup: on a CPU device with one
//! subgroup width `L`, a tile of `R` runs (`R` a multiple of `L`) whose
//! index every lane of a subgroup computes alike (it reads the local id
//! only as `l / D`, `L` dividing `D`) is loaded by lane `s` for runs
//! `s, s + L, ...`, and each run broadcast from its lane
//! (`subgroupBroadcast`): matmul's A rows.

use super::vec4::QuadTile;
use super::{Ix, Lower, R};
use crate::kir::{Builtin, SgOp, Ty, V};
use texpr_ir::TermOp;
use texpr_ir::{Expr, Term, TermKind, VarId};
use texpr_target::Target;

/// The subgroups of a kernel whose loads may be shared.
#[derive(Clone, Copy, Debug)]
pub struct Lanes {
    /// Invocations per subgroup, `L`.
    pub width: u64,
    /// The workgroup's local id variable and the grid's, once bound.
    pub local: Option<VarId>,
    pub grid: Option<VarId>,
}

impl Lanes {
    /// The subgroups of a kernel of `w` invocations on `target`, when
    /// their loads can be shared: the device has one subgroup width, and
    /// it divides `w`. Which loads are shared the schedule says (`let@lanes`).
    pub fn of(target: &Target, w: u64) -> Option<Lanes> {
        let width = target.subgroup_width()?;
        (width > 1 && w.is_multiple_of(width)).then_some(Lanes {
            width,
            local: None,
            grid: None,
        })
    }
}

/// A thread-level loop open now: its variable, this copy's index, trips.
#[derive(Clone, Debug)]
pub struct Trip {
    pub var: VarId,
    pub at: Ix,
    pub n: u64,
}

impl Lower<'_> {
    /// A `let@lanes` register vector: loaded once per subgroup where
    /// [`Self::shared_width`] allows, else per lane as a `let@reg`.
    pub fn lane_shared_vector(&mut self, var: VarId, value: &Expr) -> R<super::Loc> {
        let before = std::mem::replace(&mut self.reads.share_lanes, true);
        let loc = self.local_vector(var, value);
        self.reads.share_lanes = before;
        loc
    }

    /// `L` when register tile `q` is a `let@lanes` one and can be loaded
    /// once per subgroup.
    fn shared_width(&self, q: &QuadTile<'_>) -> Option<u64> {
        let lanes = self.reads.lanes.filter(|_| self.reads.share_lanes)?;
        let (r, runs) = q.outer?;
        (lanes.local.is_some()
            && runs.is_multiple_of(lanes.width)
            && self.b.uniform()
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
                    || self.reads.trips.iter().any(|trip| trip.var == *v)
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

    /// The elements of `q` loaded once per subgroup, when it can be: run
    /// after run, four components of each `vec4`.
    pub fn shared_tile_elements(&mut self, q: &QuadTile<'_>) -> R<Option<Vec<V>>> {
        let (Some(width), Some((r, runs))) = (self.shared_width(q), q.outer) else {
            return Ok(None);
        };
        let mem = self.buffer(q.id);
        let quads = q.n / 4;
        let sgl = self.b.builtin(Builtin::SubgroupInvocationId);
        let lane = self.b.convert(Ty::I32, sgl);
        let mut held = Vec::with_capacity((runs / width * quads) as usize);
        for p in 0..runs / width {
            let run = self.arith(
                crate::kir::BinOp::Add,
                Ix::Val(lane),
                Ix::Const((p * width) as i64),
            );
            self.idx.insert(r, run);
            for k in 0..quads as i64 {
                let copy = self.b.enter_copy(p * quads + k as u64);
                let at = self.part_index(q.index, q.var, 4 * k, 4)?;
                held.push(self.b.load(mem, at));
                self.b.leave_copy(copy);
            }
        }
        let mut out = Vec::with_capacity((runs * q.n) as usize);
        for run in 0..runs {
            let (p, from) = (run / width, run % width);
            for k in 0..quads {
                let copy = self.b.enter_copy(run * quads + k);
                let mine = held[(p * quads + k) as usize];
                let from = self.b.u32(from as u32);
                let v = self.b.subgroup(SgOp::Broadcast, vec![mine, from])?;
                out.extend(self.components(v));
                self.b.leave_copy(copy);
            }
        }
        Ok(Some(out))
    }
}
