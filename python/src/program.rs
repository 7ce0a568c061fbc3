//! What `compile`, `eval`, `check` and `tune` share: the source (text, or a
//! path to a `.te` file), `defines`, the front end, the target and the
//! schedule a program compiles with.

use crate::errors::{Named, compile_error, guarded};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyDictMethods, PyInt};
use texpr::{Schedule, ScheduleChoice, Target};
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_runtime::GpuInfo;
use texpr_tune::cache::Cache;
use texpr_tune::schedule_source::Chosen;

/// A source given as text (reported as `<source>`) or as a path
/// (`pathlib.Path` or any `os.PathLike`: read as UTF-8, reported by the path as given).
pub fn named(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Named> {
    if let Ok(text) = source.extract::<String>() {
        return Ok(Named {
            name: "<source>".into(),
            text,
        });
    }
    let fspath = py.import("os")?.getattr("fspath")?;
    let path: String = fspath
        .call1((source,))
        .and_then(|p| p.extract())
        .map_err(|_| {
            PyTypeError::new_err(
                "source is a program's text (str) or a path to a .te file (os.PathLike)",
            )
        })?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("cannot read `{path}`: {e}")))?;
    Ok(Named { name: path, text })
}

/// `defines={"N": 4096}` as the front end's overrides: each value an `int`
/// (a `bool` is refused, though Python counts it an `int`, and so is a
/// value without `__index__`, such as a float) within the language's range of a
/// param, a 64-bit signed integer (`texprc -D` reads the same).
pub fn defines(d: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, i64)>> {
    let Some(d) = d else { return Ok(Vec::new()) };
    d.iter()
        .map(|(k, v)| {
            let k: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("defines: names are str"))?;
            Ok((k.clone(), define(&k, &v)?))
        })
        .collect()
}

/// One define's value: an int (not a bool) in `i64`'s range.
fn define(name: &str, v: &Bound<'_, PyAny>) -> PyResult<i64> {
    let kind = v
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    if v.is_instance_of::<PyBool>() || kind == "bool_" || kind == "bool" {
        return Err(PyTypeError::new_err(format!(
            "defines['{name}'] is a bool ({v}): a param's value is an int, e.g. defines={{'{name}': 1}}"
        )));
    }
    if !v.is_instance_of::<PyInt>() && !v.hasattr("__index__").unwrap_or(false) {
        return Err(PyTypeError::new_err(format!(
            "defines['{name}'] is a {kind}: a param's value is an int"
        )));
    }
    v.extract::<i64>().map_err(|_| {
        PyValueError::new_err(format!(
            "defines['{name}'] = {v} is out of range: a param's value is a 64-bit signed integer, from -2**63 to 2**63 - 1"
        ))
    })
}

/// Parses and checks `src` with `overrides`; `CompileError` on errors. The
/// warnings come back with the program.
pub fn frontend(
    py: Python<'_>,
    src: &Named,
    overrides: &[(String, i64)],
) -> PyResult<(Program, Vec<Diagnostic>)> {
    let (file, mut diags) = guarded("parsing", || Ok(texpr_syntax::parse(&src.text)))?;
    if diags.iter().any(|d| d.is_error()) {
        return Err(compile_error(py, src, &diags));
    }
    match guarded("checking", || Ok(texpr_syntax::check(&file, overrides)))? {
        Ok(p) => Ok((p, diags)),
        Err(more) => {
            diags.extend(more);
            Err(compile_error(py, src, &diags))
        }
    }
}

/// `target=`: a built-in's name (`"wgpu-default"`, `"llvmpipe"`,
/// `"nvidia"`, ...) or a target description's text (`key = value` lines,
/// as `texprc target` and `Device.target` print). `None`: the device's.
pub fn target(py: Python<'_>, t: Option<&str>) -> PyResult<Option<Target>> {
    let Some(t) = t else { return Ok(None) };
    if !t.contains('=') {
        return Target::builtin(t)
            .map(Some)
            .map_err(|e| PyValueError::new_err(format!("target `{t}`: {e}")));
    }
    let _ = py;
    Target::parse(t)
        .map(Some)
        .map_err(|e| PyValueError::new_err(format!("not a target description: {e}")))
}

/// `schedule=`: `None` (the cache's tuned schedule for this device, else
/// the heuristic's, as `texprc run` chooses), `"heuristic"`, `"default"`,
/// or a schedule's text (`item: strategy key=value` lines).
pub fn schedule(program: &Program, s: Option<&str>, device: Option<&GpuInfo>) -> PyResult<Chosen> {
    match s.map(str::trim) {
        None => Ok(Chosen::tuned_or_heuristic(program, device, &Cache::open_default())),
        Some("heuristic") => Ok(Chosen::heuristic()),
        Some("default") => Ok(Chosen::default_schedule()),
        Some(text) => text.parse::<Schedule>().map(|s| Chosen::pinned(s, "the schedule given".into())).map_err(|e| {
            PyValueError::new_err(format!(
                "not a schedule (line {}): {}; a schedule has one `item: strategy key=value...` a line, e.g. `c: tile group=8x8 reg=4x4`; the strategies: {}",
                e.line,
                e.message,
                texpr::schedule_syntax().join("; ")
            ))
        }),
    }
}

/// The schedule choice a chosen schedule compiles with.
pub fn choice(c: &Chosen) -> ScheduleChoice {
    c.choice.clone()
}
