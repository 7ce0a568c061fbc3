//! Devices: `texpr.devices()` lists the adapters, `texpr.Device(choice)`
//! picks one. A device is opened on first use and shared by every kernel
//! compiled for it (and by threads calling them at once); when a run finds
//! it lost, the run raises `DeviceError` and the next call opens a new one
//! on the same adapter.
//!
//! A device belongs to the process that opened it: after `fork` the child
//! has the parent's memory but none of its driver threads, so a slot records
//! the process id with its device and a child's first call opens its own
//! (the parent's is leaked in the child, never dropped: dropping it would
//! wait on those threads).

use crate::errors::device_error;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex, OnceLock};
use texpr_runtime::{AdapterChoice, Gpu, RuntimeError};

/// An adapter choice and the device open on it, if any, with the id of the
/// process that opened it.
#[derive(Debug)]
pub struct Slot {
    choice: AdapterChoice,
    gpu: Mutex<Option<Arc<Gpu>>>,
    pid: std::sync::atomic::AtomicU32,
}

/// `value` (something of a device) when process `opened_by` is this one;
/// else this is a fork's child, and `value` is leaked: its driver's threads
/// did not survive the fork, so dropping it could wait forever.
pub fn forget_if_inherited<T>(value: T, opened_by: u32) -> Option<T> {
    if opened_by == std::process::id() {
        Some(value)
    } else {
        std::mem::forget(value);
        None
    }
}

impl Slot {
    pub fn new(choice: AdapterChoice) -> Slot {
        Slot {
            choice,
            gpu: Mutex::new(None),
            pid: std::sync::atomic::AtomicU32::new(std::process::id()),
        }
    }

    /// The id of the process whose device the slot holds.
    pub fn pid(&self) -> u32 {
        self.pid.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The open device, opening one when there is none. A device lost since
    /// the last call is handed out once more, forgotten, so that the run on it
    /// reports the loss (`DeviceError`, E0404) and the next call opens a new
    /// one. Blocks (without the GIL, as its callers run it) while another
    /// thread opens it.
    pub fn gpu(&self) -> Result<Arc<Gpu>, RuntimeError> {
        let mut held = self.held();
        if let Some(g) = held.as_ref() {
            let g = g.clone();
            if g.is_lost() {
                *held = None;
            }
            return Ok(g);
        }
        let g = Arc::new(Gpu::open(&self.choice)?);
        g.set_pipeline_limit(pipeline_limit());
        *held = Some(g.clone());
        Ok(g)
    }

    /// The held device, after leaking one a parent process opened.
    fn held(&self) -> std::sync::MutexGuard<'_, Option<Arc<Gpu>>> {
        let mut held = self.gpu.lock().unwrap_or_else(|p| p.into_inner());
        let now = std::process::id();
        if self.pid() != now {
            if let Some(inherited) = held.take() {
                std::mem::forget(inherited);
            }
            self.pid.store(now, std::sync::atomic::Ordering::Release);
        }
        held
    }

    /// The device, if one is open (not opening one).
    pub fn current(&self) -> Option<Arc<Gpu>> {
        self.held().clone()
    }

    /// After an error of `gpu`: forgets it when it was lost, so the next call reopens.
    pub fn after_error(&self, gpu: &Arc<Gpu>, e: &RuntimeError) {
        if matches!(e, RuntimeError::DeviceLost { .. }) || gpu.is_lost() {
            let mut held = self.held();
            if held.as_ref().is_some_and(|h| Arc::ptr_eq(h, gpu)) {
                *held = None;
            }
        }
    }
}

/// Pipelines a device keeps for reuse: `$TEXPR_PIPELINES`, else
/// [`PIPELINES`]. Past it the least recently used is dropped (and made again
/// when a kernel that needs it is made again), so a process that compiles a
/// program for ever new sizes keeps its memory flat.
pub fn pipeline_limit() -> usize {
    std::env::var("TEXPR_PIPELINES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(PIPELINES)
}

/// The default of [`pipeline_limit`].
pub const PIPELINES: usize = 64;

/// The default device: `$TEXPR_ADAPTER`, else wgpu's choice.
pub fn default_slot() -> Arc<Slot> {
    static DEFAULT: OnceLock<Arc<Slot>> = OnceLock::new();
    DEFAULT
        .get_or_init(|| Arc::new(Slot::new(AdapterChoice::from_env())))
        .clone()
}

/// A GPU adapter to compile for and run on: `Device()` is the default
/// (`$TEXPR_ADAPTER`, else wgpu's choice), `Device(1)` the second adapter
/// of `texpr.devices()`, `Device("llvmpipe")` the first whose name
/// contains that text. The device opens on first use.
#[pyclass(frozen, module = "texpr", name = "Device")]
#[derive(Debug, Clone)]
pub struct PyDevice {
    pub slot: Arc<Slot>,
}

#[pymethods]
impl PyDevice {
    #[new]
    #[pyo3(signature = (choice = None))]
    fn new(choice: Option<&Bound<'_, PyAny>>) -> PyResult<PyDevice> {
        let slot = match choice {
            None => default_slot(),
            Some(c) => {
                let text = match c.extract::<usize>() {
                    Ok(i) => i.to_string(),
                    Err(_) => c.extract::<String>().map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(
                            "Device(choice): choice is an adapter's index (int) or part of its name (str)",
                        )
                    })?,
                };
                Arc::new(Slot::new(AdapterChoice::parse(&text)))
            }
        };
        Ok(PyDevice { slot })
    }

    /// The adapter's name, backend, type and driver (opens the device).
    #[getter]
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let gpu = open(py, &self.slot)?;
        info_dict(py, gpu.info())
    }

    /// The device's target description (limits, features, profile) as
    /// `texprc target` prints it: what `compile(..., target=...)` accepts.
    #[getter]
    fn target(&self, py: Python<'_>) -> PyResult<String> {
        Ok(open(py, &self.slot)?.target().to_string())
    }

    /// Pipelines the open device has made and cached (0 before it opens):
    /// a kernel called again reuses its pipelines, so this does not grow.
    #[getter]
    fn pipelines(&self) -> usize {
        self.slot.current().map_or(0, |g| g.cached_pipelines())
    }

    /// The most pipelines the device keeps (`$TEXPR_PIPELINES`, else 64):
    /// past it the least recently used is dropped.
    #[getter]
    fn pipeline_limit(&self) -> usize {
        self.slot
            .current()
            .map_or_else(pipeline_limit, |g| g.pipeline_limit())
    }

    /// The device's pool of buffers (dropped device arrays' and finished
    /// reads', kept for the next array of their size, as CuPy's memory
    /// pool): a dict with `buffers` and `bytes` held, `reused` (buffers
    /// made again from it rather than allocated) and `limit` (the most
    /// bytes it keeps). All zero before the device opens.
    #[getter]
    fn memory_pool<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = self
            .slot
            .current()
            .map(|g| g.pool_stats())
            .unwrap_or_default();
        let d = PyDict::new(py);
        d.set_item("buffers", stats.buffers)?;
        d.set_item("bytes", stats.bytes)?;
        d.set_item("reused", stats.reused)?;
        d.set_item("limit", texpr_runtime::POOL_BYTES)?;
        Ok(d)
    }

    /// Frees the buffers the pool holds (arrays alive keep theirs).
    fn free_memory_pool(&self) {
        if let Some(g) = self.slot.current() {
            g.free_pool();
        }
    }

    /// Loses the device on purpose, as a driver reset would: the next run
    /// raises `DeviceError` and the one after reopens it. For tests of recovery.
    fn lose(&self, py: Python<'_>) -> PyResult<()> {
        let gpu = open(py, &self.slot)?;
        py.detach(|| gpu.destroy());
        Ok(())
    }

    fn __repr__(&self) -> String {
        match self.slot.current() {
            Some(g) => format!("<texpr.Device {} ({})>", g.info().name, g.info().backend),
            None => format!("<texpr.Device {} (not opened yet)>", self.slot.choice),
        }
    }
}

/// The slot's device, opened without the GIL; `DeviceError` when there is none.
pub fn open(py: Python<'_>, slot: &Slot) -> PyResult<Arc<Gpu>> {
    py.detach(|| slot.gpu()).map_err(|e| device_error(&e))
}

fn info_dict<'py>(py: Python<'py>, i: &texpr_runtime::GpuInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &i.name)?;
    d.set_item("backend", &i.backend)?;
    d.set_item("device_type", &i.device_type)?;
    d.set_item("driver", &i.driver)?;
    d.set_item("driver_info", &i.driver_info)?;
    Ok(d)
}

/// Every adapter wgpu finds, in the order `Device(index)` counts: a list of
/// dicts with `index`, `name`, `backend`, `device_type`, `driver`, `driver_info`.
#[pyfunction]
pub fn devices(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let found = py.detach(Gpu::list_adapters);
    found
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let d = info_dict(py, i)?;
            d.set_item("index", k)?;
            Ok(d)
        })
        .collect()
}
