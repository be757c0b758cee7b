//! The real `fathom` binary for the HTTP benches: started on a free loopback port with a
//! temporary data directory, its CPU time and RSS read from `/proc/{pid}`, and a keep-alive
//! HTTP/1.1 client with no dependencies (request line, `Content-Length` bodies).
//!
//! Not every bench uses every item.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A keep-alive HTTP/1.1 connection.
pub struct Conn {
    r: BufReader<TcpStream>,
}

impl Conn {
    pub fn open(addr: &str) -> Conn {
        let s = TcpStream::connect(addr).expect("the server accepts loopback connections");
        s.set_nodelay(true).ok();
        s.set_read_timeout(Some(Duration::from_secs(300))).ok();
        Conn { r: BufReader::new(s) }
    }

    /// Sends one request and reads the whole response: (status, body).
    pub fn request(&mut self, method: &str, path: &str, ctype: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let s = self.r.get_mut();
        s.write_all(head.as_bytes()).expect("the server reads requests");
        s.write_all(body).expect("the server reads request bodies");
        let mut line = String::new();
        self.r.read_line(&mut line).expect("the server answers with a status line");
        let status: u16 =
            line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("status line {line:?}"));
        let mut len = 0usize;
        loop {
            line.clear();
            self.r.read_line(&mut line).expect("the server sends headers");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().expect("Content-Length is a number");
                }
                assert!(
                    !(k.eq_ignore_ascii_case("transfer-encoding")),
                    "chunked responses are not read by this client: {l}"
                );
            }
        }
        let mut buf = vec![0; len];
        self.r.read_exact(&mut buf).expect("the server sends Content-Length bytes");
        (status, buf)
    }

    /// A JSON request that must answer 200; returns the body.
    pub fn ok(&mut self, method: &str, path: &str, body: &str) -> Vec<u8> {
        let (s, b) = self.request(method, path, "application/json", body.as_bytes());
        assert_eq!(s, 200, "{method} {path}: {}", String::from_utf8_lossy(&b));
        b
    }
}

/// A running `fathom` process; killed on drop.
pub struct Server {
    child: Child,
    pub addr: String,
    _dir: tempfile::TempDir,
}

impl Server {
    /// Starts the binary; returns it with the time from spawn to a green `_cluster/health`.
    pub fn start() -> (Server, Duration) {
        Server::start_with(&[], true)
    }

    /// [`Server::start`] with more `-E key=value` settings; `wait_green` waits for a green
    /// cluster (a node of a cluster that is still forming does not).
    pub fn start_with(extra: &[String], wait_green: bool) -> (Server, Duration) {
        let dir = tempfile::tempdir().expect("tempdir");
        let t0 = Instant::now();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fathom"));
        for e in extra {
            cmd.args(["-E", e]);
        }
        let mut child = cmd
            .args(["-E", &format!("path.data={}", dir.path().display()), "-E", "http.port=9300-9399"])
            .env("FATHOM_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the fathom binary");
        let mut out = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut line = String::new();
        out.read_line(&mut line).expect("the binary prints its address");
        let addr = line.trim().strip_prefix("fathom listening on http://").expect("listening line").to_string();
        if wait_green {
            let mut c = Conn::open(&addr);
            c.ok("GET", "/_cluster/health?wait_for_status=green&timeout=10s", "");
        }
        let green = t0.elapsed();
        (Server { child, addr, _dir: dir }, green)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Utime + stime of the server process (10 ms ticks).
    pub fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let f: Vec<&str> = after.split_whitespace().collect();
        let ticks: u64 =
            f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0) + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
        Duration::from_secs_f64(ticks as f64 / 100.0)
    }

    /// Resident set size in kB.
    pub fn rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `_bulk` bodies of `batch` index actions (auto ids) each.
pub fn bulk_bodies(lines: &[String], batch: usize) -> Vec<Vec<u8>> {
    lines
        .chunks(batch)
        .map(|chunk| {
            let mut body = Vec::with_capacity(chunk.iter().map(|l| l.len() + 32).sum());
            for l in chunk {
                body.extend_from_slice(br#"{"index":{}}"#);
                body.push(b'\n');
                body.extend_from_slice(l.as_bytes());
                body.push(b'\n');
            }
            body
        })
        .collect()
}

/// What the bulk client reads of a `_bulk` answer.
#[derive(serde::Deserialize)]
struct BulkAck {
    errors: bool,
    items: Vec<serde::de::IgnoredAny>,
}

/// Sends `bodies` to `/{index}/_bulk` over `clients` connections; asserts no item failed and
/// returns the number of acknowledged items.
pub fn bulk_load(addr: &str, index: &str, bodies: &[Vec<u8>], clients: usize) -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let acked = AtomicUsize::new(0);
    let tree = std::env::var_os("FATHOM_BULK_CLIENT_TREE").is_some();
    std::thread::scope(|sc| {
        for _ in 0..clients {
            sc.spawn(|| {
                let mut c = Conn::open(addr);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(body) = bodies.get(i) else { break };
                    let (s, resp) = c.request("POST", &format!("/{index}/_bulk"), "application/x-ndjson", body);
                    assert_eq!(s, 200, "bulk: {}", String::from_utf8_lossy(&resp));
                    // Checked as a client that only wants the outcome does it: `errors` and the
                    // item count, without a JSON tree of the ~180 KB answer (a tree cost this
                    // client several ms per bulk on the server's two cores).
                    // `$FATHOM_BULK_CLIENT_TREE` parses the whole tree instead (the earlier client,
                    // to measure what that cost).
                    if tree {
                        let v: serde_json::Value = serde_json::from_slice(&resp).expect("bulk response is JSON");
                        assert_eq!(v["errors"], false, "bulk had errors");
                        acked.fetch_add(v["items"].as_array().map_or(0, Vec::len), Ordering::Relaxed);
                        continue;
                    }
                    let ack: BulkAck = serde_json::from_slice(&resp).expect("bulk response is JSON");
                    assert!(!ack.errors, "bulk had errors: {}", String::from_utf8_lossy(&resp));
                    acked.fetch_add(ack.items.len(), Ordering::Relaxed);
                }
            });
        }
    });
    acked.into_inner()
}
