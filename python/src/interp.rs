//! `texpr.eval` (the reference interpreter, which defines what a program
//! means: the same outputs as a kernel's call) and `texpr.check` (the
//! diagnostics of the front end, as a list).

use crate::arrays::{outputs, read_inputs};
use crate::errors::{PyDiagnostic, diagnostics, guarded};
use crate::program::{self, named};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Runs `source` in the interpreter on numpy inputs (by name); returns
/// what calling the compiled kernel returns. `CompileError` for a program
/// error, `ValueError` when evaluation fails (e.g. over its memory budget).
#[pyfunction]
#[pyo3(signature = (source, defines = None, **inputs))]
pub fn eval<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    defines: Option<&Bound<'py, PyDict>>,
    inputs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let src = named(py, source)?;
    let overrides = program::defines(defines)?;
    let (p, _warnings) = program::frontend(py, &src, &overrides)?;
    let values = read_inputs(&p.inputs, inputs)?;
    let outs = py.detach(|| {
        guarded("evaluating", || {
            texpr_interp::eval(&p, &values)
                .map_err(|e| PyValueError::new_err(format!("evaluation failed: {e}")))
        })
    })?;
    outputs(py, p.outputs.iter().map(|o| o.name.clone()), outs)
}

/// Parses and checks `source` (with `defines`): every diagnostic, errors
/// and warnings, as a list of `texpr.Diagnostic` (empty: the program is
/// well-formed). Never raises for a program error.
#[pyfunction]
#[pyo3(signature = (source, defines = None))]
pub fn check(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    defines: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<PyDiagnostic>> {
    let src = named(py, source)?;
    let overrides = program::defines(defines)?;
    let (file, mut diags) = texpr_syntax::parse(&src.text);
    if !diags.iter().any(|d| d.is_error())
        && let Err(more) = texpr_syntax::check(&file, &overrides)
    {
        diags.extend(more);
    }
    Ok(diagnostics(&src, &diags))
}
