//! Ctrl-C during a call. A call computes without the GIL, so Python's
//! `KeyboardInterrupt` cannot arrive until it returns; a call on the main
//! thread (where Python runs its signal handlers) therefore runs inside
//! `texpr_runtime::interruptible`, whose check takes the GIL after each
//! submission and runs the handlers (`PyErr_CheckSignals`). When one raises,
//! the runtime stops submitting (E0419, the device usable: what it
//! submitted has completed) and the call raises what the handler raised.
//! Other threads never see a signal, and are not checked.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::ThreadId;

/// Checks made so far (one after each submission a main-thread call
/// waited for): `texpr.stats()["signal_checks"]`.
pub static CHECKS: AtomicU64 = AtomicU64::new(0);

/// Runs `f` without the GIL; on the main thread, stops it between
/// submissions when a signal handler raises, and raises that exception.
pub fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    if !on_main_thread(py) {
        return py.detach(f);
    }
    let raised: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let keep = raised.clone();
    let check = move || {
        CHECKS.fetch_add(1, Ordering::Relaxed);
        Python::attach(|py| match py.check_signals() {
            Ok(()) => false,
            Err(e) => {
                *keep.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                true
            }
        })
    };
    let result = py.detach(|| texpr_runtime::interruptible(check, f));
    let raised = raised.lock().unwrap_or_else(|p| p.into_inner()).take();
    match raised {
        Some(e) => Err(e),
        None => result,
    }
}

/// Whether this is Python's main thread (asked of `threading` until the
/// main thread is seen, then known by its id).
fn on_main_thread(py: Python<'_>) -> bool {
    static MAIN: OnceLock<ThreadId> = OnceLock::new();
    let me = std::thread::current().id();
    if let Some(main) = MAIN.get() {
        return *main == me;
    }
    let asked = (|| -> PyResult<bool> {
        let threading = py.import("threading")?;
        let ident = threading.call_method0("get_ident")?;
        ident.eq(threading.call_method0("main_thread")?.getattr("ident")?)
    })();
    let main = asked.unwrap_or(false);
    if main {
        let _ = MAIN.set(me);
    }
    main
}
