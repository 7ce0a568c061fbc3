//! Devices that hold a rank's tiles for a whole run and run its block bodies.
//!
//! The executor sees a device as buffers by index and compiled kernels by
//! index: it allocates, writes, copies, runs, reads back and frees, and
//! never touches data itself. [`interp::InterpDevice`] keeps buffers in host
//! memory and runs bodies with the reference interpreter;
//! [`gpu::GpuDevice`] keeps them in GPU buffers (the runtime's resident
//! buffers) and records work that it submits without waiting. Each distinct
//! body is compiled once per device with the optimizer's schedule for that
//! device: [`SchedulePicker`] chooses it (a tuned schedule from a cache, or
//! the heuristic).

pub mod gpu;
pub mod interp;

use crate::codes;
use crate::stage::Kernel;
use texpr::{Options, ScheduleChoice, Target};
use texpr_ir::{self as ir, Diagnostic};

/// A buffer of a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BufId(pub usize);

/// A range of a device buffer: `len` elements from element `offset` (a
/// tile's slot in its matrix's allocation, or a whole panel or partial).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Slice {
    pub buf: BufId,
    pub offset: usize,
    pub len: usize,
}

impl Slice {
    /// The whole buffer `buf` of `len` elements.
    pub fn whole(buf: BufId, len: usize) -> Slice {
        Slice {
            buf,
            offset: 0,
            len,
        }
    }

    /// `len` elements from element `at` of this slice.
    pub fn sub(self, at: usize, len: usize) -> Slice {
        debug_assert!(at + len <= self.len, "{at}+{len} within {}", self.len);
        Slice {
            buf: self.buf,
            offset: self.offset + at,
            len,
        }
    }
}

/// A compiled block body of a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KernelId(pub usize);

/// A read in flight on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReadId(pub usize);

/// Chooses the schedule of a block body (a TExpr program) for a device.
pub type SchedulePicker = dyn Fn(&ir::Program) -> ScheduleChoice + Sync;

/// The heuristic schedule for every body.
pub fn heuristic(_: &ir::Program) -> ScheduleChoice {
    ScheduleChoice::Heuristic
}

/// Where a rank's tiles live and its block bodies run.
pub trait TileDevice {
    /// What the device is, for reports.
    fn describe(&self) -> String;
    /// Compiles a block body unless it was compiled before.
    fn compile(&mut self, kernel: &Kernel) -> Result<KernelId, Diagnostic>;
    /// Distinct bodies compiled so far.
    fn compiled(&self) -> usize;
    /// Bytes the device holds for compiled bodies (their scratch buffers).
    fn scratch_bytes(&self) -> u64;
    /// Makes room, before the run, for the largest tile [`TileDevice::write_columns`]
    /// will stage (`len` elements), counted in [`TileDevice::scratch_bytes`].
    fn reserve_staging(&mut self, _len: usize) -> Result<(), Diagnostic> {
        Ok(())
    }
    /// A buffer of `len` `f32`s (a matrix's allocation on the rank, a panel
    /// or a partial). Its offsets a kernel binds at are multiples of
    /// `graph::slots::SLOT_ALIGN_BYTES`.
    fn alloc(&mut self, len: usize) -> Result<BufId, Diagnostic>;
    fn free(&mut self, b: BufId);
    /// Buffers [`TileDevice::alloc`] has made so far (not kernels' scratch or staging).
    fn allocations(&self) -> u64;
    /// Writes host values into `dst` (`data.len()` is `dst.len`).
    fn write(&mut self, dst: Slice, data: &[f32]) -> Result<(), Diagnostic>;
    /// Writes `data`, columns of `rows` values, into `dst` with column `k` at
    /// `k * ld` (a tile into a taller panel).
    fn write_columns(
        &mut self,
        dst: Slice,
        ld: usize,
        rows: usize,
        data: &[f32],
    ) -> Result<(), Diagnostic> {
        for (k, column) in data.chunks(rows.max(1)).enumerate() {
            self.write(dst.sub(k * ld, column.len()), column)?;
        }
        Ok(())
    }
    /// Copies `src` into `dst` (of the same length; not the same buffer).
    fn copy(&mut self, src: Slice, dst: Slice) -> Result<(), Diagnostic>;
    /// Runs compiled body `k` on input ranges (in the body's input order) into `out`.
    fn run(&mut self, k: KernelId, inputs: &[Slice], out: Slice) -> Result<(), Diagnostic>;
    /// Sends the work recorded so far to the device, without waiting.
    fn flush(&mut self) -> Result<(), Diagnostic>;
    /// Starts reading `src` back (after the work recorded before).
    fn start_read(&mut self, src: Slice) -> Result<ReadId, Diagnostic>;
    /// The values of a read once the device has them; `None` while in flight.
    fn try_read(&mut self, r: ReadId) -> Result<Option<Vec<f32>>, Diagnostic>;
}

/// Fails unless `s` lies within a buffer of `len` elements.
pub fn within(s: Slice, len: usize, what: &str) -> Result<(), Diagnostic> {
    match s.offset.checked_add(s.len) {
        Some(end) if end <= len => Ok(()),
        _ => Err(device_error(
            what,
            format!(
                "elements {}..{} of b{} (of {len}) are out of bounds",
                s.offset,
                s.offset.saturating_add(s.len),
                s.buf.0
            ),
        )),
    }
}

/// Compiles a block body with the optimizer for `target`, with the
/// schedule `pick` chooses.
pub fn compile_body(
    kernel: &ir::Program,
    target: &Target,
    pick: &SchedulePicker,
) -> Result<texpr::Compiled, Diagnostic> {
    let opts = Options {
        target: target.clone(),
        overrides: Vec::new(),
        schedule: pick(kernel),
    };
    texpr::compile(kernel, &opts).map_err(|ds| {
        let listing = texpr_ir::print::program(kernel);
        let text = texpr_ir::diag::render("block-body.te", &listing, &ds);
        Diagnostic::error(codes::KERNEL_RUN, "a block body does not compile")
            .with_note(format!("kernel:\n{listing}"))
            .with_note(text)
    })
}

/// The kernels a device compiled, each once, by their programs.
#[derive(Debug, Default)]
pub struct KernelIds {
    seen: Vec<(Kernel, KernelId)>,
}

impl KernelIds {
    /// The id `kernel` was compiled as, if it was (the same program, shared or not).
    pub fn get(&self, kernel: &Kernel) -> Option<KernelId> {
        let same = |k: &Kernel| std::sync::Arc::ptr_eq(k, kernel) || k == kernel;
        self.seen.iter().find(|(k, _)| same(k)).map(|&(_, id)| id)
    }

    pub fn insert(&mut self, kernel: &Kernel, id: KernelId) {
        self.seen.push((kernel.clone(), id));
    }
}

/// Fails unless `data` fills range `dst` exactly (a write's precondition).
pub fn write_fits(dst: Slice, data: &[f32]) -> Result<(), Diagnostic> {
    if data.len() == dst.len {
        return Ok(());
    }
    Err(device_error(
        "a write",
        format!("{} values into a range of {}", data.len(), dst.len),
    ))
}

/// A device error as a diagnostic.
pub fn device_error(what: &str, e: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(codes::KERNEL_RUN, format!("{what}: {e}"))
}
