//! `texpr.compile` and `texpr.Kernel`: a program compiled once for a
//! device, its pipelines, buffers and bind groups made on the first call and
//! reused by the next ones (`texpr_runtime::Reusable`: each call writes its
//! inputs, dispatches and reads back), run on numpy arrays with the GIL
//! released while the GPU works.

use crate::arrays::{describe, outputs, read_inputs};
use crate::device::{PyDevice, Slot, default_slot, forget_if_inherited, open};
use crate::errors::{compile_error, device_error, guarded};
use crate::program::{self, named};
use crate::signals::detached;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::{Arc, Mutex};
use texpr::{Compiled, Options};
use texpr_interp::Value;
use texpr_runtime::{Gpu, HostBuffer, Reusable, RuntimeError};
use texpr_syntax::ir::Program;
use texpr_tune::values::{to_host, to_value};

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
    /// Buffers and bind groups made by earlier calls, each on the device
    /// that made it (and the id of the process that did): a call takes one
    /// (or makes one) and puts it back, so threads calling at once each run
    /// on their own.
    reusable: Mutex<Vec<(Arc<Gpu>, u32, Reusable)>>,
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
    let compiled = py
        .detach(|| guarded("compiling", || Ok(texpr::compile(&program, &opts))))?
        .map_err(|d| compile_error(py, &src, &d))?;
    Ok(Kernel {
        inner: Arc::new(Inner {
            program,
            compiled,
            origin: chosen.origin.to_string(),
            name: src.name,
            slot,
            reusable: Mutex::new(Vec::new()),
        }),
    })
}

impl Inner {
    /// Runs on the slot's device without the GIL; a lost device is
    /// forgotten so that the next call reopens it.
    fn run(&self, py: Python<'_>, host: Vec<HostBuffer>) -> PyResult<Vec<Value>> {
        let result = detached(py, || {
            guarded("running a kernel", || {
                let gpu = self.slot.gpu().map_err(|e| device_error(&e))?;
                let reusable = match self.take(&gpu) {
                    Some(r) => r,
                    None => self.on(&gpu, |g| g.reusable(&self.compiled.module, &host))?,
                };
                let outputs = self.on(&gpu, |g| g.rerun(&reusable, &host))?;
                self.put_back(gpu, reusable);
                Ok(outputs.iter().map(to_value).collect())
            })
        })?;
        Ok(result)
    }

    /// A reusable run made on `gpu` by an earlier call (those made on a
    /// device since lost are dropped, those a parent process made leaked).
    fn take(&self, gpu: &Arc<Gpu>) -> Option<Reusable> {
        let mut pool = self.reusable.lock().unwrap_or_else(|p| p.into_inner());
        let mut kept = Vec::new();
        for (g, pid, r) in pool.drain(..) {
            if let Some((g, r)) = forget_if_inherited((g, r), pid) {
                if Arc::ptr_eq(&g, gpu) {
                    kept.push((g, pid, r));
                }
            }
        }
        *pool = kept;
        pool.pop().map(|(_, _, r)| r)
    }

    fn put_back(&self, gpu: Arc<Gpu>, r: Reusable) {
        let mut pool = self.reusable.lock().unwrap_or_else(|p| p.into_inner());
        pool.push((gpu, std::process::id(), r));
    }

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
    /// declared dtype and size; any shape of that size, read row-major);
    /// returns one array for a program with one output, else a dict from
    /// output name to array.
    #[pyo3(signature = (**inputs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        inputs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guarded("calling a kernel", || {
            let p = &self.inner.program;
            let values = read_inputs(&p.inputs, inputs)?;
            let host: Vec<HostBuffer> = values.iter().map(to_host).collect();
            let outs = self.inner.run(py, host)?;
            outputs(py, p.outputs.iter().map(|o| o.name.clone()), outs)
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
