//! `texpr.tune`: the schedule search of `texprc tune` (`texpr_tune`'s
//! `Tuner`), storing the winner in the same schedule cache, where
//! `compile` (and `texprc run`) then find it.

use crate::device::{PyDevice, default_slot, open};
use crate::errors::{compile_error, device_error, guarded};
use crate::program::{self, named};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::{Duration, Instant};
use texpr_tune::cache::{self, Cache};
use texpr_tune::{TuneError, Tuner};

/// What the search found, before it becomes a dict.
struct Tuned {
    schedule: String,
    ms: f64,
    heuristic_ms: Option<f64>,
    default_ms: Option<f64>,
    tried: usize,
    total: usize,
    cache: Option<String>,
}

/// Searches for the fastest schedule of `source` on a device for at most
/// `budget_s` seconds (the heuristic and default schedules are always
/// measured), each candidate checked against the interpreter and timed
/// `runs` times after `warmups`; stores the winner in the schedule cache
/// (`$TEXPR_CACHE`, else `~/.cache/texpr/schedules.txt`) and returns a dict:
/// `schedule` (text), `ms`, `heuristic_ms`, `default_ms`, `tried`, `total`, `cache`.
#[pyfunction]
#[pyo3(signature = (source, defines = None, budget_s = 10.0, runs = 5, warmups = 2, device = None))]
pub fn tune<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    defines: Option<&Bound<'py, PyDict>>,
    budget_s: f64,
    runs: usize,
    warmups: usize,
    device: Option<&PyDevice>,
) -> PyResult<Bound<'py, PyDict>> {
    let src = named(py, source)?;
    let overrides = program::defines(defines)?;
    let (p, _) = program::frontend(py, &src, &overrides)?;
    let slot = device.map_or_else(default_slot, |d| d.slot.clone());
    let gpu = open(py, &slot)?;
    let started = Instant::now();
    let budget = Duration::from_secs_f64(budget_s.clamp(0.0, 1e6));
    let found = py.detach(|| {
        guarded("tuning", || {
            // The tuner owns its device (it reopens it after a loss): a new
            // one on the same adapter, so the cache key is the same.
            let own = gpu.reopen().map_err(|e| device_error(&e))?;
            let key = cache::key(&p, &own);
            let target = own.target().clone();
            let mut tuner = match Tuner::new(&p, own, overrides, (warmups, runs.max(1))) {
                Ok(t) => t,
                Err(TuneError::Schedule(d)) => return Ok(Err(d)),
                Err(TuneError::Reference(e)) => {
                    return Err(PyValueError::new_err(format!("evaluation failed: {e}")));
                }
            };
            let baselines = tuner.baselines();
            let found = tuner.search(&baselines, started + budget, &mut |_| {});
            let Some((winner, searched_ms)) = found.best else {
                return Err(device_error_text(format!(
                    "no schedule compiled and matched the interpreter (heuristic: {}; default: {})",
                    baselines[0], baselines[1]
                )));
            };
            let [won, heur, default] = tuner.verdict(&winner);
            let ms = won.ms().unwrap_or(searched_ms);
            let mut cache = Cache::open_default();
            cache
                .put(key, winner.clone(), ms, target)
                .map_err(|e| PyOSError::new_err(format!("cannot write the schedule cache: {e}")))?;
            Ok(Ok(Tuned {
                schedule: winner.to_string(),
                ms,
                heuristic_ms: heur.ms(),
                default_ms: default.ms(),
                tried: found.tried,
                total: found.total,
                cache: cache.path().map(|p| p.display().to_string()),
            }))
        })
    })?;
    let t = found.map_err(|d| compile_error(py, &src, &d))?;
    let d = PyDict::new(py);
    d.set_item("schedule", t.schedule)?;
    d.set_item("ms", t.ms)?;
    d.set_item("heuristic_ms", t.heuristic_ms)?;
    d.set_item("default_ms", t.default_ms)?;
    d.set_item("tried", t.tried)?;
    d.set_item("total", t.total)?;
    d.set_item("cache", t.cache)?;
    Ok(d)
}

fn device_error_text(text: String) -> PyErr {
    crate::errors::DeviceError::new_err(text)
}
