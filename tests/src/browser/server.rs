//! The test's side of the page: a local HTTP server (`http.rs`) that serves
//! the page and the shaders and takes the page's results.

use std::time::{Duration, Instant};

use super::http::{Listener, Request};

/// The page the browser loads (its script is the browser's half of the driver).
const PAGE: &str = include_str!("page.html");
/// The npm package's table of WebGPU features and limits, which the page
/// imports (one table for JavaScript).
const WEBGPU_JS: &str = include_str!("../../../npm/webgpu.js");

/// A server on 127.0.0.1 (a secure context, so WebGPU is offered) at a port
/// the system picks.
pub(crate) struct Host {
    server: Listener,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host").field("url", &self.url()).finish()
    }
}

impl Host {
    pub(crate) fn bind() -> Result<Host, String> {
        Ok(Host {
            server: Listener::bind()?,
        })
    }

    /// The page's address.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.server.port())
    }

    /// Serves `GET /` (the page), `GET /npm/webgpu.js` and `GET /shaders`
    /// (`shaders`, JSON) until
    /// the page posts `/results`, whose body it returns. Gives up with
    /// `Err` at `deadline`, or as soon as `alive` returns `Err` (the
    /// browser ended), which it asks a few times a second.
    pub(crate) fn serve(
        &self,
        shaders: &str,
        deadline: Instant,
        mut alive: impl FnMut() -> Result<(), String>,
    ) -> Result<String, String> {
        let mut served = Vec::new();
        loop {
            alive()?;
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "no results from the page in time (requests served: {served:?})"
                ));
            }
            let wait = (deadline - now).min(Duration::from_millis(250));
            let Some(request) = self.server.recv_timeout(wait) else {
                continue;
            };
            served.push(format!("{} {}", request.method, request.url));
            match (request.method.as_str(), request.url.as_str()) {
                ("GET", "/") => respond(request, PAGE, "text/html; charset=utf-8"),
                ("GET", "/shaders") => respond(request, shaders, "application/json"),
                ("GET", "/npm/webgpu.js") => {
                    respond(request, WEBGPU_JS, "text/javascript; charset=utf-8")
                }
                ("POST", "/results") => {
                    let body = String::from_utf8(request.body.clone())
                        .map_err(|e| format!("reading the page's results: {e}"));
                    respond(request, "", "text/plain");
                    return body;
                }
                _ => request.respond(404, "text/plain", b""),
            }
        }
    }
}

fn respond(request: Request, body: &str, content_type: &str) {
    // A browser that went away is noticed by the caller's `alive`.
    request.respond(200, content_type, body.as_bytes());
}
