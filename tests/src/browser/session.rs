//! One browser session: the server, the process, the shaders in one page load.

use std::path::Path;
use std::time::{Duration, Instant};

use super::chromium::Process;
use super::server::Host;
use super::verdict::{Report, Shader};

/// Starts ONE headless `chromium` on the driver's page, has it compile every
/// shader (module and pipelines, on a device with WebGPU's default limits)
/// and returns its report, a verdict per shader in order. `Err` says why no
/// report came (the browser did not start, ended early, or the page failed
/// or did not answer within `timeout`), with the end of the browser's log.
/// The process is ended before this returns.
pub fn check(chromium: &Path, shaders: &[Shader], timeout: Duration) -> Result<Report, String> {
    let host = Host::bind()?;
    let list: Vec<_> = shaders.iter().map(Shader::to_json).collect();
    let json = serde_json::Value::Array(list).to_string();
    let mut browser = Process::start(chromium, &host.url())?;
    let alive = |b: &mut Process| match b.exited() {
        Some(status) => Err(format!("the browser ended early ({status})")),
        None => Ok(()),
    };
    let deadline = Instant::now() + timeout;
    let body = host.serve(&json, deadline, || alive(&mut browser));
    let report = body.and_then(|body| Report::from_json(&body, shaders.len()));
    report.map_err(|e| {
        format!(
            "{e}\n-- the browser's log (last lines):\n{}",
            browser.log_tail()
        )
    })
}
