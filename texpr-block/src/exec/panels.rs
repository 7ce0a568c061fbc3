//! TensorCopy on a rank: a panel assembled in one device buffer from chunks, wherever they live.
//!
//! A panel is a rectangle of tiles of a register, laid side by side into one
//! column-major buffer. Each tile is found through the views it is read
//! through (a slice shifts the tile index, a transpose swaps it and
//! transposes the data) down to a chunk. A chunk of this rank is copied on
//! the device, one copy per tile when the panel is one tile high, one per
//! tile column otherwise; a chunk of another rank arrives as a message and
//! is written from the host. A transposed tile of this rank is read back,
//! transposed on the host and written (no TExpr kernel runs for a view).

use super::device::BufId;
use super::outbox::{RankError, values_of};
use super::rank::Rank;
use crate::air::{Dims, Op, Program, Reg};
use crate::graph::{NodeId, PanelRef};
use crate::stage::kernel::panel as panel_of;

/// Where tile `(i, j)` of `reg` comes from: the register and tile of its
/// chunk, and whether the data is transposed on the way.
pub fn base_tile(p: &Program, reg: Reg, (i, j): (u64, u64)) -> (Reg, (u64, u64), bool) {
    match &p.inst(reg).op {
        Op::Transpose(src) => {
            let (r, t, transposed) = base_tile(p, *src, (j, i));
            (r, t, !transposed)
        }
        Op::Slice { src, rows, cols } => {
            let t = p.ty(*src).tile;
            base_tile(p, *src, (i + rows.start / t.rows, j + cols.start / t.cols))
        }
        _ => (reg, (i, j), false),
    }
}

/// `data` of a `rows x cols` column-major tile, transposed.
pub fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    for a in 0..cols {
        for b in 0..rows {
            out[a + b * cols] = data[b + a * rows];
        }
    }
    out
}

/// Where a tile goes in a panel: element offsets and the panel's row count.
#[derive(Clone, Copy, Debug)]
struct Slot {
    buf: BufId,
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
        let (base, base_tile, transposed) = base_tile(job.p, reg, tile);
        let chunk = job.chunks[&(base, base_tile)];
        let mine = job.owner(chunk) == self.me;
        if mine && !transposed {
            return self.copy_tile(self.buf(chunk)?, slot);
        }
        let values = if mine {
            self.read_now(self.buf(chunk)?)?
        } else {
            let id = job
                .comm
                .of_chunk(chunk)
                .expect("a remote chunk has a message");
            values_of(&self.receive(id)?)
        };
        let (rows, cols) = (slot.dims.rows as usize, slot.dims.cols as usize);
        let values = if transposed {
            transpose(&values, cols, rows)
        } else {
            values
        };
        self.write_tile(&values, slot)
    }

    fn copy_tile(&mut self, src: BufId, slot: Slot) -> Result<(), RankError> {
        let rows = slot.dims.rows as usize;
        if slot.contiguous() {
            let len = slot.dims.len() as usize;
            return Ok(self.dev.copy((src, 0), (slot.buf, slot.at(0)), len)?);
        }
        for b in 0..slot.dims.cols as usize {
            self.dev
                .copy((src, b * rows), (slot.buf, slot.at(b)), rows)?;
        }
        Ok(())
    }

    fn write_tile(&mut self, values: &[f32], slot: Slot) -> Result<(), RankError> {
        if slot.contiguous() {
            return Ok(self.dev.write(slot.buf, slot.at(0), values)?);
        }
        let rows = slot.dims.rows as usize;
        Ok(self
            .dev
            .write_columns(slot.buf, (slot.at(0), slot.panel_rows), rows, values)?)
    }
}
