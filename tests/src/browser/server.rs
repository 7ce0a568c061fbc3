//! The test's side of the page: a local HTTP server (tiny_http) that serves
//! the page and the shaders and takes the page's results.

use std::time::{Duration, Instant};

use tiny_http::{Header, Method, Request, Response, Server};

/// The page the browser loads (its script is the browser's half of the driver).
const PAGE: &str = include_str!("page.html");
/// The npm package's table of WebGPU features and limits, which the page
/// imports (one table for JavaScript).
const WEBGPU_JS: &str = include_str!("../../../npm/webgpu.js");

/// A server on 127.0.0.1 (a secure context, so WebGPU is offered) at a port
/// the system picks.
pub(crate) struct Host {
    server: Server,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host").field("url", &self.url()).finish()
    }
}

impl Host {
    pub(crate) fn bind() -> Result<Host, String> {
        let server = Server::http("127.0.0.1:0").map_err(|e| format!("cannot listen: {e}"))?;
        Ok(Host { server })
    }

    /// The page's address.
    pub(crate) fn url(&self) -> String {
        let port = self.server.server_addr().to_ip().map_or(0, |a| a.port());
        format!("http://127.0.0.1:{port}/")
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
            let Some(mut request) = self.server.recv_timeout(wait).map_err(|e| e.to_string())?
            else {
                continue;
            };
            served.push(format!("{} {}", request.method(), request.url()));
            match (request.method(), request.url()) {
                (Method::Get, "/") => respond(request, PAGE, "text/html; charset=utf-8"),
                (Method::Get, "/shaders") => respond(request, shaders, "application/json"),
                (Method::Get, "/npm/webgpu.js") => {
                    respond(request, WEBGPU_JS, "text/javascript; charset=utf-8")
                }
                (Method::Post, "/results") => {
                    let mut body = String::new();
                    let read = request.as_reader().read_to_string(&mut body);
                    respond(request, "", "text/plain");
                    read.map_err(|e| format!("reading the page's results: {e}"))?;
                    return Ok(body);
                }
                _ => {
                    let _ = request.respond(Response::empty(404));
                }
            }
        }
    }
}

fn respond(request: Request, body: &str, content_type: &str) {
    let header = Header::from_bytes("Content-Type", content_type).expect("a valid header");
    // A browser that went away is noticed by the caller's `alive`.
    let _ = request.respond(Response::from_string(body).with_header(header));
}
