//! `texpr._texpr`, the extension module under the `texpr` Python package
//! (python/pysrc/texpr): a thin layer over the Rust libraries.
//!
//! - `compile` and `Kernel` (`kernel.rs`): `texpr::compile` for a device's
//!   target, run with `texpr_runtime::Gpu::run` (its pipeline cache makes
//!   each pipeline once), timed with the runtime's harness;
//! - `texpr.jit` (`jit.rs`, `trace.rs`): kernel calls traced into one program;
//! - `eval` and `check` (`interp.rs`): the interpreter and the front end;
//! - `tune` (`tune.rs`): `texpr_tune`'s search and schedule cache;
//! - `devices` and `Device` (`device.rs`): adapters, opened lazily, reopened after a loss;
//! - `block_run` (`block.rs`): `texpr_block`'s executor on threads;
//! - device arrays (`darray.rs`): `DeviceArray`, `asarray`, `from_dlpack`,
//!   and how a call moves data (device arrays stay on the device);
//! - numpy in and out (`arrays.rs`), errors as exceptions (`errors.rs`),
//!   sources, defines, targets and schedules (`program.rs`).
//!
//! Every call that computes releases the GIL, and runs inside
//! `errors::guarded`, so a panic in texpr reaches Python as an ordinary
//! `RuntimeError`, never across the FFI boundary.

mod arrays;
mod block;
mod cache;
mod call;
mod darray;
mod device;
mod errors;
mod interp;
mod jit;
mod kernel;
mod program;
mod signals;
mod trace;
mod tune;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::Ordering;

/// What this process has done, as counts: `compiles` (programs compiled),
/// `cache_hits` (modules read from the disk cache instead, `cache.rs`),
/// `signal_checks` (the checks for Ctrl-C made between submissions of calls
/// on the main thread, `signals.rs`).
#[pyfunction]
fn stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("compiles", cache::COMPILES.load(Ordering::Relaxed))?;
    d.set_item("cache_hits", cache::HITS.load(Ordering::Relaxed))?;
    d.set_item("signal_checks", signals::CHECKS.load(Ordering::Relaxed))?;
    Ok(d)
}

#[pymodule]
fn _texpr(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CompileError", py.get_type::<errors::CompileError>())?;
    m.add("DeviceError", py.get_type::<errors::DeviceError>())?;
    m.add("BlockError", py.get_type::<errors::BlockError>())?;
    m.add_class::<errors::PyDiagnostic>()?;
    m.add_class::<device::PyDevice>()?;
    m.add_class::<kernel::Kernel>()?;
    m.add_class::<darray::PyDeviceArray>()?;
    m.add_function(wrap_pyfunction!(darray::asarray, m)?)?;
    m.add_function(wrap_pyfunction!(darray::from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(darray::transfers, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::compile, m)?)?;
    m.add_function(wrap_pyfunction!(interp::eval, m)?)?;
    m.add_function(wrap_pyfunction!(interp::check, m)?)?;
    m.add_function(wrap_pyfunction!(tune::tune, m)?)?;
    m.add_function(wrap_pyfunction!(device::devices, m)?)?;
    m.add_function(wrap_pyfunction!(block::run, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(jit::compose_text, m)?)?;
    Ok(())
}
