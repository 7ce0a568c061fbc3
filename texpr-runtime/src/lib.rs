//! The wgpu runtime: opens a device, runs a kernel plan ([`texpr_codegen::plan::Module`]) on it.
//!
//! - [`Gpu::open`] picks an adapter ([`AdapterChoice`], from `TEXPR_ADAPTER` or a
//!   flag), requests the adapter's own limits and subgroups where present, and
//!   installs handlers that record device loss and uncaptured errors instead of
//!   panicking;
//! - device arrays ([`DeviceArray`]: a buffer, an element type and a shape)
//!   and programs run on them: [`Gpu::load`] makes an [`Executable`] of a
//!   plan, [`Gpu::launch`] submits its kernels on input arrays into new
//!   output arrays without waiting, so chained launches never touch the
//!   host; [`Gpu::upload`] and [`Gpu::read_into`] cross to and from the host
//!   (a read is what waits), and [`Gpu::transfers`] counts each crossing;
//! - [`Gpu::run`] is that path for host buffers: it uploads inputs,
//!   launches the plan's kernels in order and reads back the outputs
//!   ([`RunResult`]);
//! - [`Gpu::prepare`] and [`Gpu::time`] are the timing harness (module
//!   `harness`): sequences prepared and warmed, then timed round-robin, by
//!   the GPU's own timestamps where it has them and by the wall clock;
//!   [`Gpu::bench`] times one program that way;
//! - resident modules ([`ResidentModule`], [`Commands`]): run modules on device arrays
//!   the caller lays out, bound whole or by ranges;
//! - [`Gpu::reusable`] and [`Gpu::rerun`]: one module run again and again on
//!   new inputs, its executable and arrays made once (module `rerun`);
//! - [`Gpu::target`] describes the device (limits, features, profile) for
//!   planning: a [`Target`] built from the adapter;
//! - every wait is bounded by the device's progress (module `progress`): it
//!   fails (E0415) only after [`Gpu::wait_limit`] in which the device
//!   completed no work at all, so work other threads queued on the same
//!   device never times a run out, and a hung kernel is still reported.
//!
//! Shader modules and pipelines are cached by (WGSL hash, entry point, layout).
//! Every wgpu call that can fail runs inside error scopes, and failures come
//! back as [`RuntimeError`]s naming the step (shader module, a kernel's
//! pipeline, a buffer, the kernels of a submit, readback). After every step
//! the device-lost callback's record is checked first, so a lost device is
//! reported as lost ([`RuntimeError::DeviceLost`], naming the step that found
//! it) rather than as the errors that follow from it. A lost device runs
//! nothing more: [`Gpu::reopen`] opens a new device (and an empty pipeline
//! cache) on the same adapter; [`Gpu::destroy`] loses one on purpose. WGSL is
//! not validated here beyond what wgpu does itself (the code generator
//! validates with naga before).
//!
//! ```no_run
//! use texpr_codegen::emit;
//! use texpr_runtime::{Gpu, HostBuffer};
//!
//! let gpu = Gpu::open_from_env().expect("a GPU adapter");
//! // A scheduled program (`texpr::compile` schedules any program).
//! let src = "input x: f32[4]\noutput y = compute@grid 1 |g| compute@group 4 |l| x[l] * 2.0";
//! let program = texpr_syntax::frontend(src, &[]).expect("checks");
//! let module = emit(&program, gpu.target()).expect("compiles");
//! let x = HostBuffer::from_f32(&[1.0, 2.0, 3.0, 4.0]);
//! let result = gpu.run(&module, &[x]).expect("runs");
//! assert_eq!(result.outputs[0].to_f32(), vec![2.0, 4.0, 6.0, 8.0]);
//! println!("{} in {:?}", gpu.info(), result.gpu_time);
//! ```

mod adapter;
mod array;
mod buffers;
mod error;
mod exec;
mod harness;
mod host;
mod interrupt;
mod launch;
mod pipeline;
mod pool;
mod progress;
pub mod raw;
mod rerun;
mod resident;
mod scope;
mod timing;

pub use adapter::{AdapterChoice, GpuInfo};
pub use array::{DeviceArray, Transfers};
pub use buffers::BufferPool;
pub use error::RuntimeError;
pub use exec::{MAX_QUEUED, RunResult};
pub use harness::{CUT_AFTER, Prepared, Sample, Timing, TimingPlan, Timings};
pub use host::HostBuffer;
pub use interrupt::interruptible;
pub use launch::Executable;
pub use pool::{POOL_BUFFERS, POOL_BYTES, PoolStats};
pub use progress::WAIT_LIMIT;
pub use rerun::Reusable;
pub use resident::{BufferRange, Commands, PendingRead, ResidentModule};

use std::sync::{Arc, Mutex};

use texpr_target::Target;

/// An open device and queue, with its pipeline cache. Shareable across threads.
#[derive(Debug)]
pub struct Gpu {
    /// The adapter choice it was opened with (for [`Gpu::reopen`]).
    choice: AdapterChoice,
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: GpuInfo,
    target: Target,
    wgpu_limits: wgpu::Limits,
    /// Errors reported by the uncaptured-error handler or the device-lost callback.
    sink: Arc<ErrorSink>,
    cache: Mutex<pipeline::Cache>,
    /// Submissions made and completed, and the wait limit (`progress.rs`).
    progress: progress::Progress,
    /// What crossed between host and device (`array.rs`).
    counters: array::Counters,
    /// Buffers of dropped arrays and finished reads, kept for reuse (`pool.rs`).
    pool: Arc<pool::Pool>,
    /// A number no other device of this process has: what device arrays
    /// and executables remember of the device that made them (wgpu's own
    /// identifiers repeat across instances).
    serial: u64,
}

/// What the device reported outside any error scope.
#[derive(Debug, Default)]
struct ErrorSink {
    /// wgpu's reason, set by the device-lost callback.
    lost: Mutex<Option<String>>,
    /// The step that first found the device lost.
    found_during: Mutex<Option<String>>,
    uncaptured: Mutex<Vec<String>>,
}

impl Gpu {
    /// The adapter this device runs on.
    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    /// The device as the optimizer and code generator need it: its limits,
    /// features and profile.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The raw wgpu limits the device was opened with.
    pub fn wgpu_limits(&self) -> &wgpu::Limits {
        &self.wgpu_limits
    }

    /// Number of cached pipelines (for tests and reports).
    pub fn cached_pipelines(&self) -> usize {
        self.cache.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// Whether the device was lost (nothing more runs on it; see [`Gpu::reopen`]).
    pub fn is_lost(&self) -> bool {
        self.sink.lost.lock().is_ok_and(|l| l.is_some())
    }

    /// Destroys the device, as a driver fault or reset would lose it: every
    /// later run fails with [`RuntimeError::DeviceLost`]. For tests of recovery.
    pub fn destroy(&self) {
        self.device.destroy();
        // wgpu reports the loss when it next maintains the device.
        let _ = self.device.poll(wgpu::PollType::Poll);
    }

    /// A new device and queue (with an empty pipeline cache, and this one's
    /// [`Gpu::wait_limit`]) on the adapter this one was opened with: how a
    /// program goes on after a device loss.
    pub fn reopen(&self) -> Result<Gpu, RuntimeError> {
        let gpu = Gpu::open(&self.choice)?;
        gpu.set_wait_limit(self.wait_limit());
        Ok(gpu)
    }

    /// [`RuntimeError::DeviceLost`] when the device was lost, naming the step
    /// that first found it (`during`, when that is this one).
    fn lost(&self, during: impl FnOnce() -> String) -> Option<RuntimeError> {
        let reason = self.sink.lost.lock().ok().and_then(|l| l.clone())?;
        let mut found = self.sink.found_during.lock().ok()?;
        let during = found.get_or_insert_with(during).clone();
        Some(RuntimeError::DeviceLost { during, reason })
    }

    /// The result of a step: a lost device first (whatever the step's own
    /// error, which follows from it), else the step's error made by `fail`.
    fn checked<T>(
        &self,
        during: impl FnOnce() -> String,
        result: Result<T, String>,
        fail: impl FnOnce(String) -> RuntimeError,
    ) -> Result<T, RuntimeError> {
        if result.is_err() && !self.is_lost() {
            // A loss wgpu has not reported yet shows when it maintains the device.
            let _ = self.device.poll(wgpu::PollType::Poll);
        }
        match self.lost(during) {
            Some(lost) => Err(lost),
            None => result.map_err(fail),
        }
    }

    /// Fails when the device was lost or reported an error no scope caught.
    fn check_health(&self) -> Result<(), RuntimeError> {
        if let Some(lost) = self.lost(|| "starting a run".into()) {
            return Err(lost);
        }
        let errors: Vec<String> = match self.sink.uncaptured.lock() {
            Ok(mut u) => std::mem::take(&mut *u),
            Err(_) => Vec::new(),
        };
        if errors.is_empty() {
            Ok(())
        } else {
            Err(RuntimeError::Uncaptured(errors.join("\n")))
        }
    }
}
