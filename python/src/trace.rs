//! Calls inside a function `texpr.jit` traces: a kernel given any tracer
//! (`texpr._jit.Traced`) records the call in the trace instead of running.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

/// `texpr._jit.Traced`, imported once.
fn traced_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static TRACED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    TRACED.import(py, "texpr._jit", "Traced")
}

/// Whether any input of a call is a tracer: the call is inside a function
/// `texpr.jit` traces.
pub fn traced(inputs: &Bound<'_, PyDict>) -> PyResult<bool> {
    let ty = traced_type(inputs.py())?;
    for v in inputs.values() {
        if v.is_instance(ty)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The call recorded as a stage of its trace: tracers for its outputs.
pub fn record<'py>(
    kernel: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = kernel.py();
    py.import("texpr._jit")?
        .getattr("_record")?
        .call1((kernel, inputs))
}
