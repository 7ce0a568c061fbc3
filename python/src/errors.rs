//! Python's view of texpr's errors: the exception types, coded diagnostics
//! as `texpr.Diagnostic` objects, and runtime errors as exceptions.
//!
//! A program error raises [`CompileError`], whose `str` is the text the
//! command line prints (`texpr_ir::diag::render`) and whose
//! `diagnostics` lists them one by one; a device error raises
//! [`DeviceError`] with the runtime's code in its text. Wrong inputs raise
//! Python's own `TypeError` and `ValueError` (see `arrays.rs`).

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyMemoryError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use texpr_ir::{Diagnostic as Diag, Severity};
use texpr_runtime::RuntimeError;

create_exception!(
    texpr,
    CompileError,
    PyException,
    "A program that does not parse, check or compile. `str(e)` is the text `texprc` prints; `e.diagnostics` lists the coded, located diagnostics."
);
create_exception!(
    texpr,
    DeviceError,
    PyRuntimeError,
    "The GPU failed: no adapter, a lost device (the next call reopens it), a kernel that failed to run. The text starts with the runtime's code (E04xx)."
);
create_exception!(
    texpr,
    BlockError,
    PyException,
    "A block program that does not parse, plan or run. `str(e)` is the text `texprc block` prints; `e.diagnostics` lists them."
);

/// One coded diagnostic, located in its source by line and column (1-based,
/// the first primary label's start; `None` for a diagnostic about no span).
#[pyclass(frozen, module = "texpr", name = "Diagnostic", get_all)]
#[derive(Clone, Debug)]
pub struct PyDiagnostic {
    /// The stable code, e.g. `"E0101"` (docs/language.md lists them all).
    pub code: String,
    /// `"error"` or `"warning"`.
    pub severity: String,
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The labels' messages, primary first.
    pub labels: Vec<String>,
    pub notes: Vec<String>,
}

#[pymethods]
impl PyDiagnostic {
    fn __repr__(&self) -> String {
        let at = match (self.line, self.column) {
            (Some(l), Some(c)) => format!(" at {l}:{c}"),
            _ => String::new(),
        };
        format!(
            "<texpr.Diagnostic {}[{}]{at}: {}>",
            self.severity, self.code, self.message
        )
    }

    fn __str__(&self) -> String {
        format!("{}[{}]: {}", self.severity, self.code, self.message)
    }
}

impl PyDiagnostic {
    /// `d` located in `source` (whose byte offsets its spans are).
    pub fn of(d: &Diag, source: &str) -> PyDiagnostic {
        let mut labels: Vec<_> = d.labels.iter().collect();
        labels.sort_by_key(|l| !l.primary);
        let at = labels
            .first()
            .map(|l| line_col(source, l.span.start as usize));
        PyDiagnostic {
            code: d.code.to_string(),
            severity: match d.severity {
                Severity::Error => "error".into(),
                Severity::Warning => "warning".into(),
            },
            message: d.message.clone(),
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
            labels: labels.iter().map(|l| l.message.clone()).collect(),
            notes: d.notes.clone(),
        }
    }
}

/// 1-based line and column (in characters) of byte `at` of `source`.
fn line_col(source: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// A source and the name it is reported under (a file's path as given, or `<source>`).
#[derive(Clone, Debug)]
pub struct Named {
    pub name: String,
    pub text: String,
}

/// The diagnostics of `src` as a list of `texpr.Diagnostic`.
pub fn diagnostics(src: &Named, diags: &[Diag]) -> Vec<PyDiagnostic> {
    diags
        .iter()
        .map(|d| PyDiagnostic::of(d, &src.text))
        .collect()
}

/// An exception of type `E` whose text is the rendered diagnostics and
/// whose `diagnostics` attribute lists them.
fn with_diagnostics<E: pyo3::PyTypeInfo>(py: Python<'_>, src: &Named, diags: &[Diag]) -> PyErr {
    let text = texpr_ir::diag::render(&src.name, &src.text, diags);
    let err = PyErr::from_type(py.get_type::<E>(), text);
    let list = diagnostics(src, diags);
    let attach = PyList::new(py, list).and_then(|l| err.value(py).setattr("diagnostics", l));
    match attach {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// [`CompileError`] for `diags` against `src`.
pub fn compile_error(py: Python<'_>, src: &Named, diags: &[Diag]) -> PyErr {
    with_diagnostics::<CompileError>(py, src, diags)
}

/// [`BlockError`] for `diags` against `src`.
pub fn block_error(py: Python<'_>, src: &Named, diags: &[Diag]) -> PyErr {
    with_diagnostics::<BlockError>(py, src, diags)
}

/// [`DeviceError`]: the runtime's diagnostic (code, explanation, wgpu's
/// text in a note) as one text; Python's `MemoryError` (with the same
/// text) for memory the host could not allocate (E0418).
pub fn device_error(e: &RuntimeError) -> PyErr {
    let d = e.to_diagnostic();
    let mut text = format!("{}: {}", d.code, d.message);
    for n in &d.notes {
        text.push_str("\n  note: ");
        text.push_str(n);
    }
    match e {
        RuntimeError::HostMemory { .. } => PyMemoryError::new_err(text),
        _ => DeviceError::new_err(text),
    }
}

/// Runs `f`, turning a panic inside texpr into a [`DeviceError`] naming
/// it, so that no panic reaches Python as a `PanicException` (which
/// `except Exception` does not catch).
pub fn guarded<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let why = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(PyRuntimeError::new_err(format!(
                "internal error in texpr while {what}: {why} (a bug: please report it)"
            )))
        }
    }
}
