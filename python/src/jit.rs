//! `texpr.jit`'s composing half (the tracing is python/pysrc/texpr/_jit.py,
//! and a kernel called on tracers hands the call to it, `trace.rs`):
//! `_compose` turns a trace's stages into one program's text
//! (`texpr_ir::compose`), which `texpr.compile` then compiles like any
//! source.

use crate::kernel::Kernel;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Arc;
use texpr_ir::compose::{Result as Returned, Source, Stage, compose};
use texpr_ir::{Input, print};

/// A stage's input as the trace gives it: `("in", input, 0)` or
/// `("out", stage, output)`.
type Given = (String, usize, usize);

fn source((kind, a, b): Given) -> PyResult<Source> {
    match kind.as_str() {
        "in" => Ok(Source::Input(a)),
        "out" => Ok(Source::Output {
            stage: a,
            output: b,
        }),
        _ => Err(PyValueError::new_err(format!("a source of kind `{kind}`"))),
    }
}

/// The text of the program the stages compose to: `inputs` as `(name,
/// kernel, kernel's input)` (the type is that input's), `stages` as
/// `(kernel, sources)`, `results` as `(name, stage, output)`.
#[pyfunction]
#[pyo3(name = "_compose")]
pub fn compose_text(
    inputs: Vec<(String, Bound<'_, Kernel>, String)>,
    stages: Vec<(Bound<'_, Kernel>, Vec<Given>)>,
    results: Vec<(String, usize, usize)>,
) -> PyResult<String> {
    let slot = stages.first().map(|(k, _)| k.get().slot().clone());
    for (k, _) in &stages {
        if slot
            .as_ref()
            .is_some_and(|s| !Arc::ptr_eq(s, k.get().slot()))
        {
            return Err(PyValueError::new_err(
                "texpr.jit: the traced kernels are on different devices",
            ));
        }
    }
    let inputs = (inputs.iter())
        .map(|(name, k, of)| {
            let p = k.get().program();
            let i = p
                .inputs
                .iter()
                .find(|i| &i.name == of)
                .ok_or_else(|| PyTypeError::new_err(format!("no input `{of}`")))?;
            Ok(Input {
                name: name.clone(),
                ..i.clone()
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let sources = (stages.iter())
        .map(|(_, s)| s.iter().cloned().map(source).collect::<PyResult<Vec<_>>>())
        .collect::<PyResult<Vec<_>>>()?;
    let stages: Vec<Stage<'_>> = (stages.iter().zip(&sources))
        .map(|((k, _), s)| Stage {
            program: k.get().program(),
            inputs: s,
        })
        .collect();
    let results: Vec<Returned> = (results.into_iter())
        .map(|(name, stage, output)| Returned {
            name,
            stage,
            output,
        })
        .collect();
    let p = compose(&inputs, &stages, &results)
        .map_err(|e| PyTypeError::new_err(format!("texpr.jit: {e}")))?;
    Ok(print::program(&p))
}
