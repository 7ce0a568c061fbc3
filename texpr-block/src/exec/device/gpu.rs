//! A GPU as a device: tiles in resident device buffers, work recorded and submitted without waiting.
//!
//! Each distinct body is compiled once for the GPU's limits and prepared
//! (pipelines made); its scratch buffers (globals, partial sums) are made once
//! and reused by every run of it, which the queue's order makes safe. Copies
//! and dispatches are recorded into one list of commands that [`flush`]
//! submits; buffer writes land before the next submit's commands.
//!
//! [`flush`]: TileDevice::flush

use super::{BufId, KernelId, ReadId, SchedulePicker, TileDevice, compile_body, device_error};
use crate::codes;
use std::collections::BTreeMap;
use texpr_codegen::BufferRole;
use texpr_runtime::{Commands, DeviceBuffer, Gpu, HostBuffer, PendingRead, ResidentModule};
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::ElemTy;

/// A compiled body: its prepared module and the scratch buffers it owns,
/// by buffer position in the module's plan.
struct Body {
    prepared: ResidentModule,
    scratch: BTreeMap<usize, DeviceBuffer>,
}

/// A rank's view of a GPU.
pub struct GpuDevice<'g> {
    gpu: &'g Gpu,
    pick: &'g SchedulePicker,
    bufs: Vec<Option<DeviceBuffer>>,
    bodies: Vec<Body>,
    by_source: BTreeMap<String, KernelId>,
    commands: Option<Commands<'g>>,
    reads: Vec<Option<PendingRead>>,
    scratch: u64,
    /// Where a tile is written before it is copied into a panel column by column.
    staging: Option<DeviceBuffer>,
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
            by_source: BTreeMap::new(),
            commands: None,
            reads: Vec::new(),
            scratch: 0,
            staging: None,
        }
    }

    fn buf(&self, b: BufId) -> Result<&DeviceBuffer, Diagnostic> {
        self.bufs
            .get(b.0)
            .and_then(Option::as_ref)
            .ok_or_else(|| device_error("a buffer", format!("b{} is not allocated", b.0)))
    }

    fn make_buffer(&self, len: usize) -> Result<DeviceBuffer, Diagnostic> {
        self.gpu
            .create_buffer(ElemTy::F32, len as u64)
            .map_err(|e| {
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
            let old = self.staging.take().map_or(0, |s| s.bytes());
            let made = self.make_buffer(len)?;
            self.scratch = self.scratch - old + made.bytes();
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

    fn compile(&mut self, kernel: &str) -> Result<KernelId, Diagnostic> {
        if let Some(&k) = self.by_source.get(kernel) {
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
                    .create_buffer(plan.elem, plan.len)
                    .map_err(|e| gpu_error("a block body's scratch buffer", e))?;
                if !plan.init.is_empty() {
                    let init = texpr_runtime::HostBuffer {
                        elem: plan.elem,
                        data: plan.init.clone(),
                    };
                    self.gpu
                        .write_buffer(&b, 0, &init)
                        .map_err(|e| gpu_error("a block body's constant", e))?;
                }
                self.scratch += b.bytes();
                scratch.insert(at, b);
            }
        }
        let k = KernelId(self.bodies.len());
        self.bodies.push(Body { prepared, scratch });
        self.by_source.insert(kernel.to_string(), k);
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
        Ok(BufId(self.bufs.len() - 1))
    }

    fn free(&mut self, b: BufId) {
        if let Some(slot) = self.bufs.get_mut(b.0) {
            *slot = None;
        }
    }

    fn write(&mut self, b: BufId, offset: usize, data: &[f32]) -> Result<(), Diagnostic> {
        self.gpu
            .write_buffer(self.buf(b)?, offset as u64, &HostBuffer::from_f32(data))
            .map_err(|e| gpu_error("a write to the GPU", e))
    }

    /// One write of the whole tile into the staging buffer, then a device
    /// copy per column; submitted at once, so the next write to the staging
    /// buffer lands after these copies.
    fn write_columns(
        &mut self,
        b: BufId,
        (offset, ld): (usize, usize),
        rows: usize,
        data: &[f32],
    ) -> Result<(), Diagnostic> {
        self.grow_staging(data.len())?;
        let staging = self.staging.as_ref().expect("made above");
        self.gpu
            .write_buffer(staging, 0, &HostBuffer::from_f32(data))
            .map_err(|e| gpu_error("a write to the GPU", e))?;
        self.buf(b)?;
        let mut commands = self.commands.take().unwrap_or_else(|| self.gpu.commands());
        let dst = self.buf(b)?;
        for k in 0..data.len() / rows.max(1) {
            let (from, to) = ((k * rows) as u64, (offset + k * ld) as u64);
            commands
                .copy(staging, from, dst, to, rows as u64)
                .map_err(|e| gpu_error("a copy on the GPU", e))?;
        }
        commands.submit().map_err(|e| gpu_error("a submit", e))
    }

    fn copy(
        &mut self,
        (src, so): (BufId, usize),
        (dst, d_o): (BufId, usize),
        len: usize,
    ) -> Result<(), Diagnostic> {
        let mut commands = self.commands.take().unwrap_or_else(|| self.gpu.commands());
        let done = commands.copy(
            self.buf(src)?,
            so as u64,
            self.buf(dst)?,
            d_o as u64,
            len as u64,
        );
        self.commands = Some(commands);
        done.map_err(|e| gpu_error("a copy on the GPU", e))
    }

    fn run(&mut self, k: KernelId, inputs: &[BufId], out: BufId) -> Result<(), Diagnostic> {
        let mut commands = self.commands.take().unwrap_or_else(|| self.gpu.commands());
        let done = self.record_run(&mut commands, k, inputs, out);
        self.commands = Some(commands);
        done
    }

    fn flush(&mut self) -> Result<(), Diagnostic> {
        match self.commands.take() {
            Some(c) if !c.is_empty() => c.submit().map_err(|e| gpu_error("a submit", e)),
            _ => Ok(()),
        }
    }

    fn start_read(&mut self, b: BufId) -> Result<ReadId, Diagnostic> {
        self.flush()?;
        let read = self
            .gpu
            .start_read(self.buf(b)?)
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
    /// Records body `k` on its inputs, output and scratch buffers, in the module's buffer order.
    fn record_run(
        &self,
        commands: &mut Commands<'_>,
        k: KernelId,
        inputs: &[BufId],
        out: BufId,
    ) -> Result<(), Diagnostic> {
        let body = &self.bodies[k.0];
        let mut bound: Vec<&DeviceBuffer> = Vec::new();
        for (at, plan) in body.prepared.buffers().iter().enumerate() {
            let b = match plan.role {
                BufferRole::Input(i) => {
                    self.buf(*inputs.get(i as usize).ok_or_else(|| {
                        device_error("a block body", format!("has no input {i}"))
                    })?)?
                }
                BufferRole::Output(_) => self.buf(out)?,
                _ => &body.scratch[&at],
            };
            bound.push(b);
        }
        commands
            .dispatch(&body.prepared, &bound)
            .map_err(|e| gpu_error("a block body on the GPU", e))
    }
}
