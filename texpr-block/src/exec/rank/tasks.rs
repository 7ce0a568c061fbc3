//! The compute tasks of a rank: a block's body, a reduction's step, a
//! factorization's or solve's step, and a reduce of partials.

use super::Rank;
use crate::air::{Agg, Op, Reg};
use crate::codes;
use crate::exec::device::Slice;
use crate::exec::outbox::{RankError, values_of};
use crate::graph::{NodeId, NodeKind};
use crate::stage::{BlockTask, Kernel};
use std::collections::VecDeque;
use texpr_ir::Diagnostic;

impl Rank<'_, '_> {
    pub(super) fn shard(
        &mut self,
        made: NodeId,
        op: Reg,
        tile: (u64, u64),
        kernel: &Kernel,
    ) -> Result<(), RankError> {
        let next = self.bodies.get_mut(&op).and_then(VecDeque::pop_front);
        let Some(BlockTask { ctx, value: body }) = next.filter(|t| (t.ctx.i, t.ctx.j) == tile)
        else {
            return Err(RankError::Own(Diagnostic::error(
                codes::KERNEL_RUN,
                format!(
                    "block ({}, {}) of %{} is not the next its stage lowered in plan order (a bug of this layer)",
                    tile.0,
                    tile.1,
                    self.job.p.inst(op).name
                ),
            )));
        };
        debug_assert_eq!(ctx.dims.len(), body.out_len);
        let mut inputs = Vec::with_capacity(body.inputs.len());
        for pn in &body.inputs {
            inputs.push(self.panel_buf(pn)?);
        }
        self.launch(made, kernel, body.out_len, &inputs)
    }

    /// A step of a reduction: one tile of the operand (read in place, or a
    /// copy of another rank's), added to this rank's partial so far.
    pub(super) fn step(
        &mut self,
        node: NodeId,
        made: NodeId,
        op: Reg,
        part: crate::graph::node::Part,
        kernel: &Kernel,
    ) -> Result<(), RankError> {
        let job = self.job;
        let body = crate::stage::kernel::partial_body(job.p, op, part.src_tile, part.accumulate);
        let dropped = crate::exec::partials::Fault::DropTile {
            op,
            src_tile: part.src_tile,
        };
        if job.fault == Some(dropped) {
            return self.drop_tile(node, made, op, part.accumulate, body.out_len);
        }
        let read = body.inputs.last().expect("a step reads its tile");
        let mut inputs = Vec::with_capacity(2);
        if part.accumulate {
            inputs.push(self.partial_before(node)?);
        }
        inputs.push(self.panel_buf(read)?);
        self.launch(made, kernel, body.out_len, &inputs)
    }

    /// A step that loses its tile (`Fault::DropTile`, tests only): its
    /// partial is the one before it, or for the first step the reduction's
    /// identity (0 for a sum or mean, 1 for a product, an infinity for a
    /// max or min).
    fn drop_tile(
        &mut self,
        node: NodeId,
        made: NodeId,
        op: Reg,
        accumulate: bool,
        len: u64,
    ) -> Result<(), RankError> {
        let out = self.alloc(made, len as usize)?;
        if accumulate {
            let before = self.partial_before(node)?;
            self.dev.copy(before, out)?;
        } else {
            let identity = match self.job.p.inst(op).op {
                Op::Reduce(Agg::Prod, ..) => 1.0,
                Op::Reduce(Agg::Max, ..) => f32::NEG_INFINITY,
                Op::Reduce(Agg::Min, ..) => f32::INFINITY,
                _ => 0.0,
            };
            self.dev.write(out, &vec![identity; len as usize])?;
        }
        Ok(())
    }

    /// A step of a factorization or solve: its tile's version before it
    /// (a Partial here) or the operand's tile, and finished tiles (here,
    /// or copies of other ranks').
    pub(super) fn linalg(
        &mut self,
        node: NodeId,
        made: NodeId,
        op: Reg,
        tile: (u64, u64),
        step: crate::stage::linalg::TileStep,
        kernel: &Kernel,
    ) -> Result<(), RankError> {
        let job = self.job;
        let lb = crate::stage::linalg::body(job.p, op, tile, step);
        let mut inputs = Vec::with_capacity(lb.body.inputs.len() + 1);
        if lb.version {
            inputs.push(self.partial_before(node)?);
        }
        for pn in &lb.body.inputs {
            inputs.push(self.panel_buf(pn)?);
        }
        self.launch(made, kernel, lb.body.out_len, &inputs)?;
        if step == crate::stage::linalg::TileStep::Potrf {
            self.positive_pivots(made, op, tile.0)?;
        }
        Ok(())
    }

    /// A factored diagonal tile `(k, k)` of `op` (a cholesky): every
    /// diagonal element of its factor is a positive number, else the matrix
    /// is not positive definite (E0549, naming the first failing column, as
    /// `pspotrf`'s INFO does). A pivot that is not positive makes its
    /// diagonal element NaN (`sqrt` of a negative) or 0, and every pivot
    /// after it NaN, so the first such element is the first failing column.
    /// The owner checks before the tile goes to any other rank, so the
    /// first failing tile's owner stops the run and nothing is written.
    fn positive_pivots(&mut self, made: NodeId, op: Reg, k: u64) -> Result<(), RankError> {
        let job = self.job;
        let read = self.dev.start_read(self.buf(made)?)?;
        let data = self.outbox.read(&job.comm, read, self.dev, self.tr)?;
        let ty = job.p.ty(op);
        let m = ty.tile_dims(k, k).rows as usize;
        let Some(c) = (0..m).find(|&c| data[c + c * m].is_nan() || data[c + c * m] <= 0.0) else {
            return Ok(());
        };
        let column = k as usize * ty.tile.rows as usize + c;
        let name = &job.p.inst(op).name;
        Err(RankError::Own(
            Diagnostic::error(
                codes::NOT_POSITIVE_DEFINITE,
                format!(
                    "cholesky %{name}: the matrix is not positive definite: its factor's diagonal at column {column} is {} (the leading minor of order {} is not positive definite; pspotrf's INFO = {})",
                    data[c + c * m],
                    column + 1,
                    column + 1
                ),
            )
            .with_note("columns count from 0; nothing is written"),
        ))
    }

    /// Compiles `kernel` (once per rank) and runs it on `inputs` into
    /// `made`'s new buffer of `len` elements.
    fn launch(
        &mut self,
        made: NodeId,
        kernel: &Kernel,
        len: u64,
        inputs: &[Slice],
    ) -> Result<(), RankError> {
        let k = self.dev.compile(kernel)?;
        let out = self.alloc(made, len as usize)?;
        self.dev.run(k, inputs, out)?;
        Ok(())
    }

    /// The buffer of the Partial task `node` reads: the reduction's partial
    /// or the factorization's tile version before it.
    pub(super) fn partial_before(&self, node: NodeId) -> Result<Slice, RankError> {
        let job = self.job;
        let before = job.preds[node.0 as usize]
            .iter()
            .copied()
            .find(|&n| matches!(job.g.kind(n), NodeKind::Partial { .. }))
            .expect("a later step reads the partial or version before it");
        self.buf(before)
    }

    /// A TensorReduce on this (the reducing) rank: every member's partial
    /// combined into `made` (with one member, its partial copied on the device).
    pub(super) fn reduce(&mut self, node: NodeId, made: NodeId) -> Result<(), RankError> {
        let job = self.job;
        let len = (job.g.kind(node).bytes() / 4) as usize;
        let out = self.alloc(made, len)?;
        match job.comm.reduce_of(node) {
            Some(id) => {
                let words = self.receive(id)?;
                self.dev.write(out, &values_of(&words))?;
            }
            None => {
                let part = job.preds[node.0 as usize][0];
                let src = self.buf(part)?;
                self.dev.copy(src, out)?;
            }
        }
        Ok(())
    }
}
