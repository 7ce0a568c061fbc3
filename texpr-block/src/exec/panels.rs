//! TensorCopy on a rank: a panel assembled in one device buffer from chunks, wherever they live.
//!
//! A panel is a rectangle of tiles of a register (never a view: a panel of
//! a view is the panel of the matrix it views, which the reading kernel
//! reads through its index map), laid side by side into one column-major
//! buffer. A chunk of this rank is copied on the device, one copy per tile
//! when the panel is one tile high, one per tile column otherwise; a chunk
//! of another rank arrives as a message and is written from the host. No
//! tile of this rank ever goes through the host.

use super::device::Slice;
use super::outbox::{RankError, values_of};
use super::rank::Rank;
use crate::air::{Dims, Reg};
use crate::graph::{NodeId, PanelRef};
use crate::stage::kernel::panel as panel_of;

/// Where a tile goes in a panel: element offsets and the panel's row count.
#[derive(Clone, Copy, Debug)]
struct Slot {
    buf: Slice,
    row: usize,
    col: usize,
    panel_rows: usize,
    dims: Dims,
}

impl Slot {
    /// Element offset of column `b` of the tile in the panel.
    fn at(&self, b: usize) -> usize {
        self.row + (self.col + b) * self.panel_rows
    }
    /// Whether the tile is one contiguous range of the panel.
    fn contiguous(&self) -> bool {
        self.dims.rows as usize == self.panel_rows
    }
}

impl Rank<'_, '_> {
    /// Assembles panel `panel` into the new buffer of `made`.
    pub(super) fn copy_task(&mut self, made: NodeId, panel: PanelRef) -> Result<(), RankError> {
        let p = self.job.p;
        let ty = p.ty(panel.reg);
        let dims = panel_of(p, "x", panel.reg, panel.rows, panel.cols).dims;
        let buf = self.alloc(made, dims.len() as usize)?;
        let mut col = 0usize;
        for j in panel.cols.0..panel.cols.1 {
            let mut row = 0usize;
            for i in panel.rows.0..panel.rows.1 {
                let slot = Slot {
                    buf,
                    row,
                    col,
                    panel_rows: dims.rows as usize,
                    dims: ty.tile_dims(i, j),
                };
                self.place(panel.reg, (i, j), slot)?;
                row += slot.dims.rows as usize;
            }
            col += ty.tile_dims(panel.rows.0, j).cols as usize;
        }
        Ok(())
    }

    /// Puts tile `tile` of `reg` into `slot`.
    fn place(&mut self, reg: Reg, tile: (u64, u64), slot: Slot) -> Result<(), RankError> {
        let job = self.job;
        let chunk = job.chunks[&(reg, tile)];
        if job.owner(chunk) == self.me {
            return self.copy_tile(self.buf(chunk)?, slot);
        }
        let id = job
            .comm
            .of_chunk(chunk)
            .expect("a remote chunk has a message");
        let values = values_of(&self.receive(id)?);
        self.write_tile(&values, slot)
    }

    fn copy_tile(&mut self, src: Slice, slot: Slot) -> Result<(), RankError> {
        let rows = slot.dims.rows as usize;
        if slot.contiguous() {
            let len = slot.dims.len() as usize;
            return Ok(self
                .dev
                .copy(src.sub(0, len), slot.buf.sub(slot.at(0), len))?);
        }
        for b in 0..slot.dims.cols as usize {
            self.dev
                .copy(src.sub(b * rows, rows), slot.buf.sub(slot.at(b), rows))?;
        }
        Ok(())
    }

    fn write_tile(&mut self, values: &[f32], slot: Slot) -> Result<(), RankError> {
        if slot.contiguous() {
            return Ok(self
                .dev
                .write(slot.buf.sub(slot.at(0), values.len()), values)?);
        }
        let rows = slot.dims.rows as usize;
        let rest = slot.buf.sub(slot.at(0), slot.buf.len - slot.at(0));
        Ok(self
            .dev
            .write_columns(rest, slot.panel_rows, rows, values)?)
    }
}
