//! What `compile`, `eval`, `check` and `tune` share: the source (text, or a
//! path to a `.te` file), `defines`, the front end, the target and the
//! schedule a program compiles with.

use crate::errors::{Named, compile_error};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyDictMethods};
use texpr::{Schedule, ScheduleChoice, Target};
use texpr_runtime::GpuInfo;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;
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

/// `defines={"N": 4096}` as the front end's overrides.
pub fn defines(d: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, i64)>> {
    let Some(d) = d else { return Ok(Vec::new()) };
    d.iter()
        .map(|(k, v)| {
            let k: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("defines: names are str"))?;
            let v: i64 = v.extract().map_err(|_| {
                PyTypeError::new_err(format!("defines[{k:?}]: a param's value is an int"))
            })?;
            Ok((k, v))
        })
        .collect()
}

/// Parses and checks `src` with `overrides`; `CompileError` on errors. The
/// warnings come back with the program.
pub fn frontend(
    py: Python<'_>,
    src: &Named,
    overrides: &[(String, i64)],
) -> PyResult<(Program, Vec<Diagnostic>)> {
    let (file, mut diags) = texpr_syntax::parse(&src.text);
    if diags.iter().any(|d| d.is_error()) {
        return Err(compile_error(py, src, &diags));
    }
    match texpr_syntax::check(&file, overrides) {
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
