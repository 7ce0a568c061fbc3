//! A GPU as a device: tiles in device arrays, work recorded and submitted without waiting.
//!
//! A buffer (a `texpr_runtime::DeviceArray` of f32) is a matrix's allocation on the rank (its tiles in slots at
//! multiples of 256 B), a panel or a partial; a kernel binds ranges of them
//! (wgpu's `BufferBinding { offset, size }`). A kernel whose output range
//! shares a buffer with one of its inputs (WebGPU forbids binding a buffer
//! writable and readable in one dispatch), and a copy within one buffer,
//! go through a temporary buffer.
//!
//! Each distinct body is compiled once for the GPU's limits and prepared
//! (pipelines made); its scratch buffers (globals, partial sums) are made once
//! and reused by every run of it, which the queue's order makes safe. Copies
//! and dispatches are recorded into one list of commands that [`flush`]
//! submits; buffer writes land before the next submit's commands.
//!
//! [`flush`]: TileDevice::flush

use super::{
    BufId, KernelId, KernelIds, ReadId, SchedulePicker, Slice, TileDevice, compile_body,
    device_error, within, write_fits,
};
use crate::codes;
use crate::stage::Kernel;
use std::collections::BTreeMap;
use texpr_codegen::BufferRole;
use texpr_ir::Diagnostic;
use texpr_ir::ElemTy;
use texpr_runtime::{
    BufferRange, Commands, DeviceArray, Gpu, HostBuffer, PendingRead, ResidentModule,
};

/// A compiled body: its prepared module and the scratch buffers it owns,
/// by buffer position in the module's plan.
struct Body {
    prepared: ResidentModule,
    scratch: BTreeMap<usize, DeviceArray>,
}

/// A rank's view of a GPU.
pub struct GpuDevice<'g> {
    gpu: &'g Gpu,
    pick: &'g SchedulePicker,
    bufs: Vec<Option<DeviceArray>>,
    bodies: Vec<Body>,
    ids: KernelIds,
    commands: Option<Commands<'g>>,
    reads: Vec<Option<PendingRead>>,
    scratch: u64,
    /// Where a tile is written before it is copied into a panel column by column.
    staging: Option<DeviceArray>,
    /// Buffers made by `alloc`.
    made: u64,
}

impl std::fmt::Debug for GpuDevice<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuDevice")
            .field("gpu", &self.gpu.info().to_string())
            .field("buffers", &self.bufs.len())
            .field("kernels", &self.bodies.len())
            .finish()
    }
}

impl<'g> GpuDevice<'g> {
    pub fn new(gpu: &'g Gpu, pick: &'g SchedulePicker) -> GpuDevice<'g> {
        GpuDevice {
            gpu,
            pick,
            bufs: Vec::new(),
            bodies: Vec::new(),
            ids: KernelIds::default(),
            commands: None,
            reads: Vec::new(),
            scratch: 0,
            staging: None,
            made: 0,
        }
    }

    fn buf(&self, b: BufId) -> Result<&DeviceArray, Diagnostic> {
        self.bufs
            .get(b.0)
            .and_then(Option::as_ref)
            .ok_or_else(|| device_error("a buffer", format!("b{} is not allocated", b.0)))
    }

    /// The range of its buffer slice `s` is.
    fn range(&self, s: Slice) -> Result<BufferRange<'_>, Diagnostic> {
        let buffer = self.buf(s.buf)?;
        within(s, buffer.len() as usize, "a range")?;
        Ok(BufferRange {
            buffer,
            offset: s.offset as u64,
            len: s.len as u64,
        })
    }

    fn make_buffer(&self, len: usize) -> Result<DeviceArray, Diagnostic> {
        self.gpu.zeros(ElemTy::F32, &[len as u64]).map_err(|e| {
            Diagnostic::error(
                codes::OUT_OF_MEMORY,
                format!("the GPU cannot make a buffer of {len} elements: {e}"),
            )
        })
    }
}

impl GpuDevice<'_> {
    /// A staging buffer of at least `len` elements (counted as scratch).
    fn grow_staging(&mut self, len: usize) -> Result<(), Diagnostic> {
        if self
            .staging
            .as_ref()
            .is_none_or(|s| (s.len() as usize) < len)
        {
            let old = self.staging.take().map_or(0, |s| s.device_bytes());
            let made = self.make_buffer(len)?;
            self.scratch = self.scratch - old + made.device_bytes();
            self.staging = Some(made);
        }
        Ok(())
    }
}

fn gpu_error(what: &str, e: texpr_runtime::RuntimeError) -> Diagnostic {
    device_error(what, format!("{e} ({})", e.code()))
}

impl TileDevice for GpuDevice<'_> {
    fn describe(&self) -> String {
        self.gpu.info().to_string()
    }

    fn compile(&mut self, kernel: &Kernel) -> Result<KernelId, Diagnostic> {
        if let Some(k) = self.ids.get(kernel) {
            return Ok(k);
        }
        let compiled = compile_body(kernel, self.gpu.target(), self.pick)?;
        let prepared = self
            .gpu
            .prepare_resident(&compiled.module)
            .map_err(|e| gpu_error("a block body's pipeline", e))?;
        let mut scratch = BTreeMap::new();
        for (at, plan) in prepared.buffers().iter().enumerate() {
            // Globals, scratch, constants, and a loop's states and steps:
            // the body's own, made once (a constant filled once).
            if !matches!(plan.role, BufferRole::Input(_) | BufferRole::Output(_)) {
                let b = self
                    .gpu
                    .zeros(plan.elem, &[plan.len])
                    .map_err(|e| gpu_error("a block body's scratch buffer", e))?;
                if !plan.init.is_empty() {
                    let init = texpr_runtime::HostBuffer {
                        elem: plan.elem,
                        data: plan.init.clone(),
                    };
                    self.gpu
                        .write_host(&b, 0, &init)
                        .map_err(|e| gpu_error("a block body's constant", e))?;
                }
                self.scratch += b.device_bytes();
                scratch.insert(at, b);
            }
        }
        let k = KernelId(self.bodies.len());
        self.bodies.push(Body { prepared, scratch });
        self.ids.insert(kernel, k);
        Ok(k)
    }

    fn compiled(&self) -> usize {
        self.bodies.len()
    }

    fn scratch_bytes(&self) -> u64 {
        self.scratch
    }

    fn reserve_staging(&mut self, len: usize) -> Result<(), Diagnostic> {
        if len > 0 {
            self.grow_staging(len)?;
        }
        Ok(())
    }

    fn alloc(&mut self, len: usize) -> Result<BufId, Diagnostic> {
        let b = self.make_buffer(len)?;
        self.bufs.push(Some(b));
        self.made += 1;
        Ok(BufId(self.bufs.len() - 1))
    }

    fn free(&mut self, b: BufId) {
        if let Some(slot) = self.bufs.get_mut(b.0) {
            *slot = None;
        }
    }

    fn allocations(&self) -> u64 {
        self.made
    }

    fn write(&mut self, dst: Slice, data: &[f32]) -> Result<(), Diagnostic> {
        write_fits(dst, data)?;
        let r = self.range(dst)?;
        self.gpu
            .write_host(r.buffer, r.offset, &HostBuffer::from_f32(data))
            .map_err(|e| gpu_error("a write to the GPU", e))
    }

    /// One write of the whole tile into the staging buffer, then a device
    /// copy per column; submitted at once, so the next write to the staging
    /// buffer lands after these copies.
    fn write_columns(
        &mut self,
        dst: Slice,
        ld: usize,
        rows: usize,
        data: &[f32],
    ) -> Result<(), Diagnostic> {
        self.grow_staging(data.len())?;
        let staging = self.staging.as_ref().expect("made above");
        self.gpu
            .write_host(staging, 0, &HostBuffer::from_f32(data))
            .map_err(|e| gpu_error("a write to the GPU", e))?;
        let mut commands = self.commands.take().unwrap_or_else(|| self.gpu.commands());
        for k in 0..data.len() / rows.max(1) {
            let to = self.range(dst.sub(k * ld, rows))?;
            commands
                .copy(
                    staging,
                    (k * rows) as u64,
                    to.buffer,
                    to.offset,
                    rows as u64,
                )
                .map_err(|e| gpu_error("a copy on the GPU", e))?;
        }
        commands.submit().map_err(|e| gpu_error("a submit", e))
    }

    fn copy(&mut self, src: Slice, dst: Slice) -> Result<(), Diagnostic> {
        if src.len != dst.len {
            return Err(device_error(
                "a copy",
                format!("{} elements into a range of {}", src.len, dst.len),
            ));
        }
        let mut commands = self.commands.take().unwrap_or_else(|| self.gpu.commands());
        let done = self.record_copy(&mut commands, src, dst);
        self.commands = Some(commands);
        done
    }

    fn run(&mut self, k: KernelId, inputs: &[Slice], out: Slice) -> Result<(), Diagnostic> {
        let mut commands = self.commands.take().unwrap_or_else(|| self.gpu.commands());
        let done = if inputs.iter().any(|i| i.buf == out.buf) {
            // Written through a temporary buffer, then copied into place.
            self.make_buffer(out.len).and_then(|tmp| {
                self.record_run(&mut commands, k, inputs, BufferRange::whole(&tmp))?;
                let to = self.range(out)?;
                commands
                    .copy(&tmp, 0, to.buffer, to.offset, to.len)
                    .map_err(|e| gpu_error("a copy on the GPU", e))
            })
        } else {
            self.range(out)
                .and_then(|to| self.record_run(&mut commands, k, inputs, to))
        };
        self.commands = Some(commands);
        done
    }

    fn flush(&mut self) -> Result<(), Diagnostic> {
        match self.commands.take() {
            Some(c) if !c.is_empty() => c.submit().map_err(|e| gpu_error("a submit", e)),
            _ => Ok(()),
        }
    }

    fn start_read(&mut self, src: Slice) -> Result<ReadId, Diagnostic> {
        self.flush()?;
        let read = self
            .gpu
            .start_read_range(self.range(src)?)
            .map_err(|e| gpu_error("a read from the GPU", e))?;
        self.reads.push(Some(read));
        Ok(ReadId(self.reads.len() - 1))
    }

    fn try_read(&mut self, r: ReadId) -> Result<Option<Vec<f32>>, Diagnostic> {
        let Some(read) = self.reads.get(r.0).and_then(Option::as_ref) else {
            return Ok(None);
        };
        let got = self
            .gpu
            .finish_read(read)
            .map_err(|e| gpu_error("a read from the GPU", e))?;
        Ok(got.map(|h| {
            self.reads[r.0] = None;
            h.to_f32()
        }))
    }
}

impl GpuDevice<'_> {
    /// Records body `k` on its input ranges, output range and scratch
    /// buffers, in the module's buffer order.
    fn record_run(
        &self,
        commands: &mut Commands<'_>,
        k: KernelId,
        inputs: &[Slice],
        out: BufferRange<'_>,
    ) -> Result<(), Diagnostic> {
        let body = &self.bodies[k.0];
        let mut bound: Vec<BufferRange<'_>> = Vec::new();
        for (at, plan) in body.prepared.buffers().iter().enumerate() {
            let b = match plan.role {
                BufferRole::Input(i) => {
                    self.range(*inputs.get(i as usize).ok_or_else(|| {
                        device_error("a block body", format!("has no input {i}"))
                    })?)?
                }
                BufferRole::Output(_) => out,
                _ => BufferRange::whole(&body.scratch[&at]),
            };
            bound.push(b);
        }
        commands
            .dispatch_ranges(&body.prepared, &bound)
            .map_err(|e| gpu_error("a block body on the GPU", e))
    }

    /// Records a copy of `src` into `dst` (through a temporary buffer when
    /// both are ranges of one buffer, which WebGPU does not copy within).
    fn record_copy(
        &self,
        commands: &mut Commands<'_>,
        src: Slice,
        dst: Slice,
    ) -> Result<(), Diagnostic> {
        let (from, to) = (self.range(src)?, self.range(dst)?);
        let copy = |c: &mut Commands<'_>, a: &DeviceArray, ao, b: &DeviceArray, bo| {
            c.copy(a, ao, b, bo, from.len)
                .map_err(|e| gpu_error("a copy on the GPU", e))
        };
        if src.buf != dst.buf {
            return copy(commands, from.buffer, from.offset, to.buffer, to.offset);
        }
        let tmp = self.make_buffer(src.len)?;
        copy(commands, from.buffer, from.offset, &tmp, 0)?;
        copy(commands, &tmp, 0, to.buffer, to.offset)
    }
}
