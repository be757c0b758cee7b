//! A minimal HTTP/1.1 client over std sockets for the integration tests, and a server starter on
//! an ephemeral port with a temporary data directory.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use fathom::node::NodeSettings;
use serde_json::Value;

/// A response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Sends one request (Connection: close) with optional extra headers.
pub fn send(addr: SocketAddr, method: &str, path: &str, body: Option<&[u8]>, headers: &[(&str, &str)]) -> Resp {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.unwrap_or_default();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) && !body.is_empty() {
        req.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("header end");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(": ").map(|(a, b)| (a.to_string(), b.to_string()))).collect();
    Resp { status, headers, body: raw[split + 4..].to_vec() }
}

/// [`send`] that gives `None` instead of panicking when the connection fails or the answer
/// takes longer than `timeout` (a node killed or paused under the request).
pub fn try_send(addr: SocketAddr, method: &str, path: &str, body: &[u8], timeout: Duration) -> Option<Resp> {
    let mut s = TcpStream::connect_timeout(&addr, timeout).ok()?;
    s.set_read_timeout(Some(timeout)).ok()?;
    s.set_write_timeout(Some(timeout)).ok()?;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\nContent-Type: application/json\r\n\r\n",
        body.len()
    );
    s.write_all(req.as_bytes()).ok()?;
    s.write_all(body).ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(": ").map(|(a, b)| (a.to_string(), b.to_string()))).collect();
    Some(Resp { status, headers, body: raw[split + 4..].to_vec() })
}

pub fn get(addr: SocketAddr, path: &str) -> Resp {
    send(addr, "GET", path, None, &[])
}

pub fn put(addr: SocketAddr, path: &str, body: &str) -> Resp {
    send(addr, "PUT", path, Some(body.as_bytes()), &[])
}

pub fn post(addr: SocketAddr, path: &str, body: &str) -> Resp {
    send(addr, "POST", path, Some(body.as_bytes()), &[])
}

pub fn delete(addr: SocketAddr, path: &str) -> Resp {
    send(addr, "DELETE", path, None, &[])
}

/// A server on an ephemeral port; stops (cleanly) when dropped unless `crash` is used.
pub struct TestServer {
    pub rt: tokio::runtime::Runtime,
    pub running: Option<fathom::http::Running>,
    pub addr: SocketAddr,
}

impl TestServer {
    pub fn start(data: &std::path::Path, extra: &[(&str, &str)]) -> TestServer {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let data_s = data.to_string_lossy().to_string();
        // An ephemeral transport port too: many test servers run at once.
        let mut pairs: Vec<(&str, &str)> =
            vec![("path.data", data_s.as_str()), ("http.port", "0"), ("transport.port", "0")];
        pairs.extend_from_slice(extra);
        let settings = NodeSettings::from_pairs(&pairs);
        let running = rt.block_on(fathom::http::start(settings)).expect("server starts");
        let addr = running.addr;
        TestServer { rt, running: Some(running), addr }
    }

    /// Stops cleanly (flush, close).
    pub fn stop(mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}
