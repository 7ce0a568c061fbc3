//! The HTTP server the browser tests' pages load from: HTTP/1.1 on
//! 127.0.0.1 (a secure context, so WebGPU is offered), one thread per
//! connection and one request per connection (every response says
//! `Connection: close`), each request handed to the test through a channel.
//!
//! Not tiny_http: its pool of connection threads was seen leaving a
//! connection unserved. Chromium opens several connections at once for a
//! page's modules; the pool counted a thread as waiting after it had taken a
//! connection, so a new connection's task queued behind threads blocked on
//! idle kept-alive connections, its request sat unread in the socket
//! (`ss` showed 556 bytes in its receive queue), and the page's module
//! graph never ran. Here nothing waits for another connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// The longest request head (request line and headers) read.
const MAX_HEAD: usize = 64 << 10;
/// The longest request body read (the pages' results are JSON).
const MAX_BODY: usize = 256 << 20;
/// How long a connection may wait for its request's bytes.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// One request, answered by [`Request::respond`] (dropping it unanswered
/// closes the connection).
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path and query, as sent.
    pub url: String,
    pub body: Vec<u8>,
    stream: TcpStream,
}

impl Request {
    /// Sends `body` with `status` and `content_type`, then closes the
    /// connection. A browser that went away is noticed by the caller.
    pub fn respond(mut self, status: u16, content_type: &str, body: &[u8]) {
        let reason = match status {
            200 => "OK",
            204 => "No Content",
            404 => "Not Found",
            _ => "",
        };
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n\
             Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let _ = (self.stream.write_all(head.as_bytes()))
            .and_then(|()| self.stream.write_all(body))
            .and_then(|()| self.stream.flush());
    }
}

/// A listening server; dropping it stops accepting.
#[derive(Debug)]
pub struct Listener {
    addr: SocketAddr,
    requests: Receiver<Request>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Listener {
    /// Listens on 127.0.0.1 at a port the system picks.
    pub fn bind() -> Result<Listener, String> {
        let listener =
            TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot listen: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, requests) = channel();
        let flag = stop.clone();
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::Relaxed) {
                    return;
                }
                if let Ok(stream) = stream {
                    let tx = tx.clone();
                    std::thread::spawn(move || read_request(stream, &tx));
                }
            }
        });
        Ok(Listener {
            addr,
            requests,
            stop,
            accept: Some(accept),
        })
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The next request, waiting at most `wait`.
    pub fn recv_timeout(&self, wait: Duration) -> Option<Request> {
        self.requests.recv_timeout(wait).ok()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wakes the accepting thread, which then sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// Reads one request from `stream` and sends it on; a malformed or
/// oversized one is dropped (closing the connection).
fn read_request(stream: TcpStream, tx: &Sender<Request>) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader);
    let mut head = Vec::new();
    loop {
        let before = head.len();
        match reader.read_until(b'\n', &mut head) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if head.len() > MAX_HEAD {
            return;
        }
        if head[before..] == *b"\r\n" || head[before..] == *b"\n" {
            break;
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut lines = head.lines();
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let (Some(method), Some(url)) = (first.next(), first.next()) else {
        return;
    };
    let length = (lines.filter_map(|l| l.split_once(':')))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_BODY {
        return;
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let _ = tx.send(Request {
        method: method.to_string(),
        url: url.to_string(),
        body,
        stream,
    });
}
