//! The wgpu runtime: opens a device, runs a kernel plan ([`crate::plan::Module`]) on it.
//!
//! - [`Gpu::open`] picks an adapter ([`AdapterChoice`], from `TEXPR_ADAPTER` or a
//!   flag), requests the adapter's own limits and subgroups where present, and
//!   installs handlers that record device loss and uncaptured errors instead of
//!   panicking;
//! - [`Gpu::run`] uploads inputs, dispatches the plan's kernels in order and
//!   reads back the outputs ([`RunResult`]);
//! - [`Gpu::bench`] uploads once and times repeated dispatches;
//! - [`Gpu::target`] describes the device (limits, features, profile) for
//!   planning: a [`Target`] built from the adapter.
//!
//! Shader modules and pipelines are cached by (WGSL hash, entry point, layout).
//! Every wgpu call that can fail runs inside error scopes, and failures come
//! back as [`RuntimeError`]s. WGSL is not validated here beyond what wgpu does
//! itself (the code generator validates with naga before).
//!
//! ```no_run
//! use texpr_codegen::emit;
//! use texpr_codegen::runtime::{Gpu, HostBuffer};
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
mod buffers;
mod error;
mod exec;
mod host;
mod pipeline;
pub mod raw;
mod scope;
mod timing;

pub use adapter::{AdapterChoice, GpuInfo};
pub use error::RuntimeError;
pub use exec::RunResult;
pub use host::HostBuffer;

use std::sync::{Arc, Mutex};

use texpr_target::Target;

/// An open device and queue, with its pipeline cache. Shareable across threads.
#[derive(Debug)]
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: GpuInfo,
    target: Target,
    wgpu_limits: wgpu::Limits,
    /// Errors reported by the uncaptured-error handler or the device-lost callback.
    sink: Arc<ErrorSink>,
    cache: Mutex<pipeline::Cache>,
}

/// What the device reported outside any error scope.
#[derive(Debug, Default)]
struct ErrorSink {
    lost: Mutex<Option<String>>,
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

    /// Fails when the device was lost or reported an error no scope caught.
    fn check_health(&self) -> Result<(), RuntimeError> {
        if let Some(msg) = self.sink.lost.lock().ok().and_then(|l| l.clone()) {
            return Err(RuntimeError::DeviceLost(msg));
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
