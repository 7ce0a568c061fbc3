//! A static file server for pages that import the npm package: the
//! repository's `npm/`, `playground/` and `examples/` folders and the
//! test's own pages, on 127.0.0.1 in a thread of its own, with `POST
//! /results` for a page's answer. Any file server would do for the
//! playground; this one is the test's, so it needs nothing installed.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::http::{Listener, Request};

/// The folders of the repository the server serves.
pub const FOLDERS: [&str; 3] = ["npm", "playground", "examples"];

/// A running server; dropping it stops the thread.
#[derive(Debug)]
pub struct Site {
    url: String,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    results: Receiver<String>,
}

impl Site {
    /// Serves [`FOLDERS`] of `root` and each of `pages` (`(path, text)`,
    /// e.g. `("/test/npm.html", PAGE)`, its type by the path's extension)
    /// at a port the system picks.
    pub fn start(root: &Path, pages: Vec<(&'static str, &'static str)>) -> Result<Site, String> {
        let server = Listener::bind()?;
        let port = server.port();
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, results) = channel();
        let root = root.to_path_buf();
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                if let Some(request) = server.recv_timeout(Duration::from_millis(100)) {
                    answer(request, &root, &pages, &tx);
                }
            }
        });
        Ok(Site {
            url: format!("http://127.0.0.1:{port}"),
            stop,
            thread: Some(thread),
            results,
        })
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The body of the next `POST /results`, or `Err` at `deadline` or as
    /// soon as `alive` gives `Err` (the browser ended), asked a few times a second.
    pub fn results(
        &self,
        deadline: Instant,
        mut alive: impl FnMut() -> Result<(), String>,
    ) -> Result<String, String> {
        loop {
            alive()?;
            let now = Instant::now();
            if now >= deadline {
                return Err("no results from the page in time".into());
            }
            let wait = (deadline - now).min(Duration::from_millis(250));
            if let Ok(body) = self.results.recv_timeout(wait) {
                return Ok(body);
            }
        }
    }
}

/// Serves `pages` beside [`FOLDERS`] of the repository, opens `path` in
/// `chromium` and gives what the page posts to `/results` as JSON, within
/// `wait`; panics with the browser's log when the page posts nothing, and
/// when it posts `{error}`.
pub fn page_results(
    chromium: &Path,
    pages: Vec<(&'static str, &'static str)>,
    path: &str,
    wait: Duration,
) -> serde_json::Value {
    let site = Site::start(&crate::npm::root(), pages).expect("a server");
    let mut page = super::Page::open(chromium, &format!("{}{path}", site.url())).expect("Chromium");
    let deadline = Instant::now() + wait;
    let body = (site.results(deadline, || page.alive()))
        .unwrap_or_else(|e| panic!("{e}\n-- the browser's log:\n{}", page.log_tail()));
    drop(page);
    let r: serde_json::Value = serde_json::from_str(&body).expect("the page posts JSON");
    assert!(r.get("error").is_none(), "the page failed: {}", r["error"]);
    r
}

impl Drop for Site {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn answer(request: Request, root: &Path, pages: &[(&str, &str)], tx: &Sender<String>) {
    let url = (request.url.split(['?', '#']).next())
        .unwrap_or("")
        .to_string();
    if request.method == "POST" && url == "/results" {
        let body = String::from_utf8_lossy(&request.body).into_owned();
        request.respond(204, "text/plain", b"");
        let _ = tx.send(body);
        return;
    }
    if let Some((path, text)) = pages.iter().find(|(p, _)| *p == url) {
        let ext = path.rsplit('.').next().unwrap_or("html");
        request.respond(200, content_type(ext), text.as_bytes());
        return;
    }
    match file(root, &url).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b))) {
        Some((path, bytes)) => {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            request.respond(200, content_type(ext), &bytes);
        }
        None => request.respond(404, "text/plain", b""),
    }
}

/// The file `url` names under one of [`FOLDERS`] of `root` (a folder's
/// `index.html` for a path ending in `/`), never outside them.
fn file(root: &Path, url: &str) -> Option<PathBuf> {
    let rel = Path::new(url.trim_start_matches('/'));
    let mut parts = rel.components();
    let first = parts.next()?;
    if !FOLDERS.iter().any(|f| first.as_os_str() == *f) {
        return None;
    }
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let path = root.join(rel);
    match url.ends_with('/') {
        true => Some(path.join("index.html")),
        false => Some(path).filter(|p| p.is_file()),
    }
}

/// The Content-Type of a file by its extension (WebAssembly must be
/// `application/wasm` for streaming compilation, modules JavaScript).
fn content_type(ext: &str) -> &'static str {
    match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "wasm" => "application/wasm",
        "ts" | "te" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_only_files_of_its_folders() {
        let root = crate::npm::root();
        assert_eq!(
            file(&root, "/examples/softmax.te"),
            Some(root.join("examples/softmax.te"))
        );
        assert_eq!(
            file(&root, "/playground/"),
            Some(root.join("playground/index.html"))
        );
        for outside in [
            "/Cargo.toml",
            "/examples/../Cargo.toml",
            "/npm/../../etc/passwd",
            "/",
            "/examples/none.te",
        ] {
            assert_eq!(file(&root, outside), None, "{outside}");
        }
    }
}
