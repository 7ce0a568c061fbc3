//! Resident modules: modules run on device arrays the caller arranges,
//! bound whole or by ranges.
//!
//! [`Gpu::launch`] binds one array per input and makes the outputs. A
//! caller that keeps its data on the device across many runs, laid out its
//! own way (the block executor keeps each rank's tiles in a few large
//! arrays for a whole program), instead:
//! - makes [`DeviceArray`]s ([`Gpu::zeros`]) and writes host words into
//!   them at an element offset ([`Gpu::write_host`]); dropping one frees it
//!   once the device is done with it;
//! - prepares a module once ([`Gpu::prepare_resident`]: its pipelines, from
//!   the cache);
//! - records copies between its buffers and dispatches of a prepared module
//!   on its buffers into [`Commands`] (one buffer, or a range of one
//!   ([`BufferRange`]), per buffer of the module's plan, inputs, outputs and
//!   scratch alike; a loop's kernels once per step, its states alternating
//!   between their two buffers) and submits them without waiting; a range
//!   starts at a multiple of the device's `min_storage_buffer_offset_alignment`,
//!   and an array may exceed the largest binding as long as each range bound fits;
//! - reads a buffer, or a range of one, back with a [`PendingRead`], polled
//!   ([`Gpu::finish_read`]) so that the caller can do other work meanwhile,
//!   or waited for.
//!
//! Every fallible wgpu call runs inside error scopes, as in [`Gpu::run`], and
//! its error names the step (a lost device is reported as lost first).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::array::DeviceArray;
use super::buffers::{Step, byte_size, read_staging};
use super::pipeline::Pipeline;
use super::{Gpu, HostBuffer, RuntimeError, scope::scoped};
use texpr_codegen::plan::{BufferPlan, Module};
use texpr_ir::ElemTy;

/// Elements `offset..offset + len` of a resident buffer, as a dispatch binds or a read reads them.
#[derive(Clone, Copy, Debug)]
pub struct BufferRange<'b> {
    pub buffer: &'b DeviceArray,
    pub offset: u64,
    pub len: u64,
}

impl<'b> BufferRange<'b> {
    /// The whole of `buffer`.
    pub fn whole(buffer: &'b DeviceArray) -> BufferRange<'b> {
        BufferRange {
            buffer,
            offset: 0,
            len: buffer.len(),
        }
    }
}

/// A module whose pipelines are made, ready to dispatch on caller-owned buffers.
#[derive(Debug)]
pub struct ResidentModule {
    module: Module,
    pipelines: Vec<Arc<Pipeline>>,
}

impl ResidentModule {
    pub fn module(&self) -> &Module {
        &self.module
    }
    /// The buffers a dispatch binds, in order: one [`DeviceArray`] (or a
    /// range of one) each.
    pub fn buffers(&self) -> &[BufferPlan] {
        &self.module.buffers
    }
}

/// Copies and dispatches recorded for one submit.
#[derive(Debug)]
pub struct Commands<'g> {
    gpu: &'g Gpu,
    encoder: wgpu::CommandEncoder,
    recorded: usize,
}

/// A buffer being read back: poll it with [`Gpu::finish_read`].
#[derive(Debug)]
pub struct PendingRead {
    staging: wgpu::Buffer,
    elem: ElemTy,
    len: u64,
    /// 0: in flight, 1: mapped, 2: failed.
    state: Arc<AtomicU8>,
    error: Arc<Mutex<Option<String>>>,
}

impl Gpu {
    /// Writes `data` (one word an element) into `dst` from element
    /// `offset` on; it lands before the commands of the next submit run.
    pub fn write_host(
        &self,
        dst: &DeviceArray,
        offset: u64,
        data: &HostBuffer,
    ) -> Result<(), RuntimeError> {
        self.on_device(dst)?;
        in_bounds(dst, offset, data.len() as u64)?;
        let written = scoped(&self.device, || {
            let bytes = data.bytes();
            self.queue.write_buffer(dst.buffer(), offset * 4, &bytes);
            self.counters.uploaded(bytes.len() as u64);
        });
        let during = || "writing a resident buffer".to_string();
        self.checked(during, written, |message| RuntimeError::Buffer {
            name: "resident".into(),
            message,
        })
    }

    /// Makes (or finds in the cache) the pipelines of every kernel of `module`.
    pub fn prepare_resident(&self, module: &Module) -> Result<ResidentModule, RuntimeError> {
        self.check_health()?;
        let count = module.dispatch_count();
        if count > super::buffers::MAX_DISPATCHES {
            return Err(RuntimeError::BadPlan(format!(
                "{count} dispatches (a loop's kernels once per step): at most {} run in one go",
                super::buffers::MAX_DISPATCHES
            )));
        }
        let pipelines = module
            .kernels
            .iter()
            .map(|k| self.pipeline(&module.wgsl, k))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ResidentModule {
            module: module.clone(),
            pipelines,
        })
    }

    /// An empty list of commands.
    pub fn commands(&self) -> Commands<'_> {
        Commands {
            gpu: self,
            encoder: self.device.create_command_encoder(&Default::default()),
            recorded: 0,
        }
    }

    /// Starts reading `src` back; the copy is submitted now.
    pub fn start_read(&self, src: &DeviceArray) -> Result<PendingRead, RuntimeError> {
        self.start_read_range(BufferRange::whole(src))
    }

    /// Starts reading a range of a buffer back; the copy is submitted now.
    pub fn start_read_range(&self, range: BufferRange<'_>) -> Result<PendingRead, RuntimeError> {
        let src = range.buffer;
        self.on_device(src)?;
        in_bounds(src, range.offset, range.len)?;
        let bytes = byte_size(src.elem(), range.len);
        let staging = scoped(&self.device, || {
            let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("resident readback"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = self.device.create_command_encoder(&Default::default());
            let from = range.offset * src.elem().bytes();
            encoder.copy_buffer_to_buffer(src.buffer(), from, &staging, 0, bytes);
            self.submit([encoder.finish()]);
            staging
        });
        let during = || "starting to read a resident buffer back".to_string();
        let staging = self.checked(during, staging, RuntimeError::Readback)?;
        let state = Arc::new(AtomicU8::new(0));
        let error = Arc::new(Mutex::new(None));
        let (s, e) = (Arc::clone(&state), Arc::clone(&error));
        staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |res| match res {
                Ok(()) => s.store(1, Ordering::Release),
                Err(err) => {
                    if let Ok(mut slot) = e.lock() {
                        *slot = Some(err.to_string());
                    }
                    s.store(2, Ordering::Release);
                }
            });
        Ok(PendingRead {
            staging,
            elem: src.elem(),
            len: range.len,
            state,
            error,
        })
    }

    /// The words of a pending read if the device has finished it, without waiting.
    pub fn finish_read(&self, read: &PendingRead) -> Result<Option<HostBuffer>, RuntimeError> {
        self.poll_device()?;
        match read.state.load(Ordering::Acquire) {
            0 => Ok(None),
            1 => {
                self.counters.read(byte_size(read.elem, read.len));
                read_mapped(read).map(Some)
            }
            _ => {
                let msg = read.error.lock().ok().and_then(|e| e.clone());
                Err(RuntimeError::Readback(msg.unwrap_or_default()))
            }
        }
    }

    /// Lets the device finish work and run callbacks, without waiting; fails
    /// when the device was lost or reported an uncaught error.
    pub fn poll_device(&self) -> Result<(), RuntimeError> {
        let polled = self.device.poll(wgpu::PollType::Poll);
        let during = || "polling the device".to_string();
        self.checked(during, polled.map_err(|e| e.to_string()), |message| {
            RuntimeError::Execution {
                during: during(),
                message,
            }
        })?;
        self.check_health()
    }
}

impl Commands<'_> {
    /// Records a copy of `len` elements from `src` at `src_offset` to `dst` at `dst_offset`.
    pub fn copy(
        &mut self,
        src: &DeviceArray,
        src_offset: u64,
        dst: &DeviceArray,
        dst_offset: u64,
        len: u64,
    ) -> Result<(), RuntimeError> {
        self.gpu.on_device(src)?;
        self.gpu.on_device(dst)?;
        in_bounds(src, src_offset, len)?;
        in_bounds(dst, dst_offset, len)?;
        self.encoder.copy_buffer_to_buffer(
            src.buffer(),
            src_offset * 4,
            dst.buffer(),
            dst_offset * 4,
            len * 4,
        );
        self.recorded += 1;
        Ok(())
    }

    /// Records every kernel of `prepared` on `buffers`, one per buffer of its
    /// plan (the buffer's element type, and at least its length).
    pub fn dispatch(
        &mut self,
        prepared: &ResidentModule,
        buffers: &[&DeviceArray],
    ) -> Result<(), RuntimeError> {
        let ranges: Vec<BufferRange<'_>> = buffers.iter().map(|b| BufferRange::whole(b)).collect();
        self.dispatch_ranges(prepared, &ranges)
    }

    /// Records every kernel of `prepared` on ranges of buffers, one per
    /// buffer of its plan (the buffer's element type, and at least its
    /// length; starting at a multiple of the device's
    /// `min_storage_buffer_offset_alignment`, and no longer than its
    /// `max_storage_buffer_binding_size`).
    pub fn dispatch_ranges(
        &mut self,
        prepared: &ResidentModule,
        buffers: &[BufferRange<'_>],
    ) -> Result<(), RuntimeError> {
        let plans = prepared.buffers();
        if plans.len() != buffers.len() {
            return Err(RuntimeError::InputCount {
                expected: plans.len(),
                got: buffers.len(),
            });
        }
        let limits = &self.gpu.wgpu_limits;
        let align = u64::from(limits.min_storage_buffer_offset_alignment).max(1);
        let mut handles = Vec::with_capacity(buffers.len());
        for (index, (plan, range)) in plans.iter().zip(buffers).enumerate() {
            let buf = range.buffer;
            self.gpu.on_device(buf)?;
            if plan.elem != buf.elem() || range.len < plan.len {
                return Err(RuntimeError::InputMismatch {
                    index,
                    name: plan.name.clone(),
                    expected_elem: plan.elem,
                    expected_len: plan.len,
                    got_elem: buf.elem(),
                    got_len: range.len,
                });
            }
            in_bounds(buf, range.offset, range.len)?;
            let (offset, size) = (
                range.offset * buf.elem().bytes(),
                byte_size(buf.elem(), range.len),
            );
            if offset % align != 0 || size > limits.max_storage_buffer_binding_size {
                return Err(RuntimeError::BadPlan(format!(
                    "buffer `{}` bound at byte {offset} ({size} B): bindings start at multiples of {align} B and hold at most {} B",
                    plan.name, limits.max_storage_buffer_binding_size
                )));
            }
            handles.push(super::buffers::BoundBuffer {
                buffer: buf.buffer().clone(),
                range: Some((offset, size)),
            });
        }
        let (variants, order) =
            self.gpu
                .bind_dispatches(&prepared.module, &prepared.pipelines, &handles)?;
        let refs: Vec<&Step> = order.iter().map(|&v| &variants[v as usize]).collect();
        super::exec::encode(&mut self.encoder, &refs, None);
        self.recorded += refs.len();
        Ok(())
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.recorded == 0
    }

    /// Submits the recorded commands (and any buffer writes before them) without waiting.
    pub fn submit(self) -> Result<(), RuntimeError> {
        let Commands { gpu, encoder, .. } = self;
        let submitted = scoped(&gpu.device, || {
            gpu.submit([encoder.finish()]);
        });
        let during = || "submitting resident copies and kernels".to_string();
        gpu.checked(during, submitted, |message| RuntimeError::Execution {
            during: during(),
            message,
        })?;
        gpu.check_health()
    }
}

fn in_bounds(buf: &DeviceArray, offset: u64, len: u64) -> Result<(), RuntimeError> {
    if offset.checked_add(len).is_some_and(|end| end <= buf.len()) {
        return Ok(());
    }
    Err(RuntimeError::BadPlan(format!(
        "elements {offset}..{} of a buffer of {}",
        offset.saturating_add(len),
        buf.len()
    )))
}

fn read_mapped(read: &PendingRead) -> Result<HostBuffer, RuntimeError> {
    read_staging(&read.staging, read.elem, read.len)
}
