//! `texpr.compile` and `texpr.Kernel`: a program compiled once for a
//! device, loaded there by the first call (`texpr_runtime::Executable`) and
//! launched by every call on device arrays or numpy arrays (`darray.rs`),
//! with the GIL released while the GPU works.

use crate::arrays::{describe, read_inputs};
use crate::cache::{self, Compiled};
use crate::device::{PyDevice, Slot, default_slot, open};
use crate::errors::{compile_error, device_error, guarded};
use crate::program::{self, named};
use crate::signals::detached;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Arc;
use texpr::Options;
use texpr_ir::Program;
use texpr_runtime::{Gpu, HostBuffer, RuntimeError};
use texpr_tune::values::to_host;

/// A compiled program bound to a device. Call it with the program's inputs
/// as keyword arguments (numpy arrays): `kernel(x=..., y=...)`.
#[pyclass(frozen, module = "texpr", name = "Kernel")]
#[derive(Debug)]
pub struct Kernel {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// The checked program (inputs, outputs, types).
    program: Program,
    compiled: Compiled,
    /// Where the schedule came from (`heuristic`, `default`, `tuned for ...`).
    origin: String,
    /// The source's name (`<source>` or the path).
    name: String,
    slot: Arc<Slot>,
    /// Its executable on the device and the arrays calls on numpy arrays
    /// run on (`darray.rs`).
    launcher: crate::call::Launcher,
}

/// Compiles `source` (a program's text, or a path to a `.te` file) for a
/// device; see docs/python.md.
#[pyfunction]
#[pyo3(signature = (source, defines = None, target = None, schedule = None, device = None))]
pub fn compile(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    defines: Option<&Bound<'_, PyDict>>,
    target: Option<&str>,
    schedule: Option<&str>,
    device: Option<&PyDevice>,
) -> PyResult<Kernel> {
    let src = named(py, source)?;
    let overrides = program::defines(defines)?;
    let (program, _warnings) = program::frontend(py, &src, &overrides)?;
    let slot = device.map_or_else(default_slot, |d| d.slot.clone());
    let gpu = open(py, &slot)?;
    let target = program::target(py, target)?.unwrap_or_else(|| gpu.target().clone());
    let chosen = program::schedule(&program, schedule, Some(gpu.info()))?;
    let opts = Options {
        target,
        overrides,
        schedule: program::choice(&chosen),
    };
    // The disk cache's module, else a compile (kept there for the next process).
    let compiler = cache::compiler(extension_file(py).as_deref());
    let key = compiler
        .map(|c| cache::Key::new(&src.text, &opts.overrides, &opts.target, &opts.schedule, &c));
    let compiled = match key.as_ref().and_then(|k| py.detach(|| cache::read(k))) {
        Some(c) => c,
        None => {
            let c = py
                .detach(|| guarded("compiling", || Ok(texpr::compile(&program, &opts))))?
                .map_err(|d| compile_error(py, &src, &d))?;
            cache::COMPILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let c = Compiled {
                module: c.module,
                schedule: c.schedule,
            };
            if let Some(k) = &key {
                py.detach(|| cache::write(k, &c));
            }
            c
        }
    };
    Ok(Kernel {
        inner: Arc::new(Inner {
            program,
            compiled,
            origin: chosen.origin.to_string(),
            name: src.name,
            slot,
            launcher: Default::default(),
        }),
    })
}

/// The extension module's file, as Python loaded it (`texpr._texpr.__file__`).
fn extension_file(py: Python<'_>) -> Option<String> {
    let m = py.import("texpr._texpr").ok()?;
    m.getattr("__file__").ok()?.extract().ok()
}

impl Kernel {
    /// The checked program it compiles.
    pub(crate) fn program(&self) -> &Program {
        &self.inner.program
    }

    /// The device it runs on.
    pub(crate) fn slot(&self) -> &Arc<Slot> {
        &self.inner.slot
    }
}

impl Inner {
    /// `f` on `gpu`; an error as `DeviceError`, after forgetting a lost device.
    fn on<T>(
        &self,
        gpu: &Arc<Gpu>,
        f: impl FnOnce(&Gpu) -> Result<T, RuntimeError>,
    ) -> PyResult<T> {
        f(gpu).map_err(|e| {
            self.slot.after_error(gpu, &e);
            device_error(&e)
        })
    }
}

#[pymethods]
impl Kernel {
    /// Runs the program on the GPU: inputs by name (numpy arrays of the
    /// declared dtype and size, any shape of that size, read row-major, or
    /// device arrays); returns one array for a program with one output,
    /// else a dict from output name to array: device arrays when any input
    /// is one (launched, not waited for), else numpy arrays.
    /// Inside a function `texpr.jit` traces, a call on tracers records
    /// the call and returns tracers.
    #[pyo3(signature = (**inputs))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
        inputs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some(kw) = inputs
            && crate::trace::traced(kw)?
        {
            return crate::trace::record(slf.as_any(), kw);
        }
        guarded("calling a kernel", || {
            let i = &slf.get().inner;
            let module = &i.compiled.module;
            crate::call::call(py, &i.program, module, &i.slot, &i.launcher, inputs)
        })
    }

    /// Times the kernels on the GPU with the runtime's harness (what
    /// `texprc bench` reports): inputs uploaded once, `warmups` untimed
    /// runs, then the median of `runs`. Inputs by name as for a call, or
    /// none for the interpreter's random inputs of `seed`. Returns a dict:
    /// `median_s` (the GPU's own timestamps where the device has them, else
    /// the wall clock), `gpu_s` (or None), `wall_s`, `runs`.
    #[pyo3(signature = (runs = 20, warmups = 3, seed = 1, **inputs))]
    fn bench<'py>(
        &self,
        py: Python<'py>,
        runs: usize,
        warmups: usize,
        seed: u64,
        inputs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = &self.inner.program;
        let values = match inputs.filter(|d| !d.is_empty()) {
            Some(_) => read_inputs(&p.inputs, inputs)?,
            None => texpr_interp::random_inputs(p, seed),
        };
        let host: Vec<HostBuffer> = values.iter().map(to_host).collect();
        let inner = &self.inner;
        let timing = detached(py, || {
            guarded("timing a kernel", || {
                let gpu = inner.slot.gpu().map_err(|e| device_error(&e))?;
                inner.on(&gpu, |g| {
                    g.bench(&inner.compiled.module, &host, warmups, runs.max(1))
                })
            })
        })?;
        let d = PyDict::new(py);
        d.set_item("median_s", timing.primary().as_secs_f64())?;
        d.set_item("gpu_s", timing.gpu().map(|g| g.as_secs_f64()))?;
        d.set_item("wall_s", timing.wall().as_secs_f64())?;
        d.set_item("runs", timing.samples.len())?;
        Ok(d)
    }

    /// The WGSL module every kernel's entry point is in.
    #[getter]
    fn wgsl(&self) -> &str {
        &self.inner.compiled.module.wgsl
    }

    /// The schedule compiled with, as a schedule file's text (one line per
    /// item; `compile(..., schedule=k.schedule)` compiles the same module).
    #[getter]
    fn schedule(&self) -> String {
        self.inner.compiled.schedule.to_string()
    }

    /// Where the schedule came from: `heuristic`, `default`, `pinned from
    /// the schedule given`, or `tuned for DEVICE (T ms)` (the cache's).
    #[getter]
    fn schedule_origin(&self) -> &str {
        &self.inner.origin
    }

    /// The kernels in dispatch order: dicts with `entry_point`,
    /// `workgroup_size`, `dispatch` (workgroups in x, y, z),
    /// `workgroup_storage_bytes` and `bindings` (`group`, `binding`,
    /// `buffer`, `access`).
    #[getter]
    fn kernels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let m = &self.inner.compiled.module;
        let list = PyList::empty(py);
        for k in &m.kernels {
            let d = PyDict::new(py);
            d.set_item("entry_point", &k.entry_point)?;
            d.set_item("workgroup_size", k.workgroup_size.to_vec())?;
            d.set_item("dispatch", k.dispatch.to_vec())?;
            d.set_item("workgroup_storage_bytes", k.workgroup_storage_bytes)?;
            let binds = PyList::empty(py);
            for b in &k.bindings {
                let bd = PyDict::new(py);
                bd.set_item("group", b.group)?;
                bd.set_item("binding", b.binding)?;
                bd.set_item("buffer", &m.buffers[b.buffer.0 as usize].name)?;
                bd.set_item(
                    "access",
                    match b.access {
                        texpr::Access::Read => "read",
                        texpr::Access::ReadWrite => "read_write",
                    },
                )?;
                binds.append(bd)?;
            }
            d.set_item("bindings", binds)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// The inputs: a dict from name to `(dtype, length)`.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for i in &self.inner.program.inputs {
            d.set_item(&i.name, (crate::arrays::dtype_name(i.ty.elem), i.ty.len))?;
        }
        Ok(d)
    }

    /// The outputs: a dict from name to `(dtype, length)`.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for o in &self.inner.program.outputs {
            let ty = o.value.ty;
            d.set_item(&o.name, (crate::arrays::dtype_name(ty.elem), ty.len))?;
        }
        Ok(d)
    }

    /// The device the kernel runs on.
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice {
            slot: self.inner.slot.clone(),
        }
    }

    fn __repr__(&self) -> String {
        let i = &self.inner;
        let m = &i.compiled.module;
        let kernels: Vec<String> = m
            .kernels
            .iter()
            .map(|k| {
                let [x, y, z] = k.workgroup_size;
                let [a, b, c] = k.dispatch;
                format!("{} {x}x{y}x{z} on {a}x{b}x{c} groups", k.entry_point)
            })
            .collect();
        let outs: Vec<String> = i
            .program
            .outputs
            .iter()
            .map(|o| {
                format!(
                    "`{}`: {}[{}]",
                    o.name,
                    o.value.ty.elem.name(),
                    o.value.ty.len
                )
            })
            .collect();
        format!(
            "<texpr.Kernel {}: inputs {}; outputs {}; {} kernel(s): {}; schedule: {}>",
            i.name,
            describe(&i.program.inputs),
            outs.join(", "),
            m.kernels.len(),
            kernels.join(", "),
            i.origin
        )
    }
}
