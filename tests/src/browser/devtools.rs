//! The Chrome DevTools Protocol over a browser started with
//! `--remote-debugging-port=0`: attaching to its page, evaluating script
//! there (to drive a page as a user would) and taking screenshots. Messages
//! go over a WebSocket ([tungstenite](https://crates.io/crates/tungstenite)).

use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};
use tungstenite::{Message, WebSocket};

/// A connection to one page of a browser.
#[derive(Debug)]
pub struct DevTools {
    socket: WebSocket<TcpStream>,
    session: String,
    next_id: u64,
}

impl DevTools {
    /// Connects to the browser whose profile is `profile` (it writes its
    /// port to `DevToolsActivePort` there once listening) and attaches to
    /// its first page. Gives up at `deadline`.
    pub fn attach(profile: &Path, deadline: Instant) -> Result<DevTools, String> {
        let file = profile.join("DevToolsActivePort");
        let (port, path) = loop {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                break (port.to_string(), path.to_string());
            }
            if Instant::now() >= deadline {
                return Err(format!("the browser wrote no {}", file.display()));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let addr = format!("127.0.0.1:{port}");
        let stream = TcpStream::connect(&addr).map_err(|e| format!("DevTools at {addr}: {e}"))?;
        let (socket, _) = tungstenite::client(format!("ws://{addr}{path}"), stream)
            .map_err(|e| format!("DevTools handshake: {e}"))?;
        let mut tools = DevTools {
            socket,
            session: String::new(),
            next_id: 1,
        };
        let started = Instant::now();
        let target = loop {
            let targets = tools.call("Target.getTargets", json!({}), deadline)?;
            // The page the test opened (served from 127.0.0.1), before any
            // other page the browser may hold (a blank start page).
            let pages: Vec<&Json> = (targets["targetInfos"].as_array().into_iter().flatten())
                .filter(|t| t["type"] == "page")
                .collect();
            let served = |t: &&Json| {
                t["url"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("http://127.0.0.1"))
            };
            let settled = Instant::now() >= started + Duration::from_secs(10);
            let page = (pages.iter().copied().find(|t| served(t)))
                .or(pages.first().copied().filter(|_| settled))
                .and_then(|t| t["targetId"].as_str().map(str::to_string));
            match page {
                Some(id) => break id,
                None if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
                None => return Err("the browser has no page".into()),
            }
        };
        let attached = tools.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            deadline,
        )?;
        tools.session = (attached["sessionId"].as_str())
            .ok_or("no session from Target.attachToTarget")?
            .to_string();
        Ok(tools)
    }

    /// Calls `method` (on the attached page, once attached) and returns
    /// its result; events that arrive meanwhile are skipped.
    pub fn call(&mut self, method: &str, params: Json, deadline: Instant) -> Result<Json, String> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        (self.socket.send(Message::Text(msg.to_string().into())))
            .map_err(|e| format!("{method}: {e}"))?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!("{method}: no answer in time"));
            }
            let _ = self.socket.get_mut().set_read_timeout(Some(left));
            let text = match self.socket.read().map_err(|e| format!("{method}: {e}"))? {
                Message::Text(t) => t.to_string(),
                _ => continue,
            };
            let reply: Json = serde_json::from_str(&text).map_err(|e| format!("{method}: {e}"))?;
            if reply["id"] != json!(id) {
                continue;
            }
            if let Some(err) = reply.get("error") {
                return Err(format!("{method}: {err}"));
            }
            return Ok(reply["result"].clone());
        }
    }

    /// Evaluates `expression` in the page, awaiting it when it is a
    /// promise: its value (as JSON), or `Err` with the exception it threw.
    pub fn evaluate(&mut self, expression: &str, deadline: Instant) -> Result<Json, String> {
        let params = json!({"expression": expression, "awaitPromise": true, "returnByValue": true});
        let result = self.call("Runtime.evaluate", params, deadline)?;
        if let Some(e) = result.get("exceptionDetails") {
            let text = e["exception"]["description"].as_str().map(str::to_string);
            return Err(text.unwrap_or_else(|| e.to_string()));
        }
        Ok(result["result"]["value"].clone())
    }

    /// Saves a PNG of the page as it is shown (`width` x `height` CSS
    /// pixels, the whole page's height where it is taller) at `path`.
    pub fn screenshot(
        &mut self,
        path: &Path,
        width: u32,
        height: u32,
        deadline: Instant,
    ) -> Result<(), String> {
        let metrics =
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false});
        self.call("Emulation.setDeviceMetricsOverride", metrics, deadline)?;
        let params = json!({"format": "png", "captureBeyondViewport": true});
        let shot = self.call("Page.captureScreenshot", params, deadline)?;
        let data = shot["data"].as_str().ok_or("no screenshot data")?;
        let png = (data_encoding::BASE64.decode(data.as_bytes()))
            .map_err(|e| format!("the screenshot's base64: {e}"))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(path, png).map_err(|e| format!("{}: {e}", path.display()))
    }
}
