//! A headless browser on one page of a [`super::Site`], optionally with
//! the DevTools Protocol to drive it ([`super::DevTools`]).

use std::path::Path;
use std::time::Instant;

use super::chromium::Process;
use super::devtools::DevTools;

/// The browser's window, in CSS pixels (the screenshots' width).
pub const WINDOW: (u32, u32) = (1400, 1000);

/// A running browser on a page; dropping it ends the browser.
#[derive(Debug)]
pub struct Page {
    process: Process,
}

impl Page {
    /// Starts ONE headless Chromium (docs/browser.md's flags) on `url`,
    /// with `--remote-debugging-port=0` so that [`Page::devtools`] can attach.
    pub fn open(chromium: &Path, url: &str) -> Result<Page, String> {
        let size = format!("--window-size={},{}", WINDOW.0, WINDOW.1);
        let process = Process::start_with(chromium, url, &["--remote-debugging-port=0", &size])?;
        Ok(Page { process })
    }

    /// `Err` once the browser has ended.
    pub fn alive(&mut self) -> Result<(), String> {
        match self.process.exited() {
            Some(status) => Err(format!("the browser ended early ({status})")),
            None => Ok(()),
        }
    }

    /// The DevTools Protocol on the page.
    pub fn devtools(&self, deadline: Instant) -> Result<DevTools, String> {
        DevTools::attach(self.process.profile(), deadline)
    }

    /// The browser's last lines of output (for a failure message).
    pub fn log_tail(&self) -> String {
        self.process.log_tail()
    }
}
