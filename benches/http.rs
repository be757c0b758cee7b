//! The server over HTTP: `_bulk` ingestion with `request` durability (every bulk acknowledged
//! after its translog fsync) next to tantivy's in-process indexing of the same documents; idle
//! RSS; time from process start to a green `_cluster/health`.
//!
//! The server is the real `fathom` binary (`CARGO_BIN_EXE_fathom`, built by cargo for benches),
//! started on a free loopback port with a temporary data directory. Its CPU time is read from
//! `/proc/{pid}/stat`, so "server CPU-s" excludes the load generator.
//!
//! Lines of the `http_bulk/{corpus}` groups: `fathom_http_bulk` (2 client connections, 1,000
//! documents per bulk) and `tantivy_in_process` (one indexing thread, commit at the end: the
//! engine-level baseline of `benches/indexing.rs`). Each iteration ingests the corpus sample
//! into a new index and asserts every document was acknowledged.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{tantivy_index, Corpus, TantivyTokens};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use serde_json::Value;

const BATCH: usize = 1_000;
const CLIENTS: usize = 2;

static RUNS: Mutex<BTreeMap<(String, String), Vec<(f64, f64)>>> = Mutex::new(BTreeMap::new());

/// A keep-alive HTTP/1.1 connection.
struct Conn {
    r: BufReader<TcpStream>,
}

impl Conn {
    fn open(addr: &str) -> Conn {
        let s = TcpStream::connect(addr).expect("connect to the server");
        s.set_nodelay(true).ok();
        s.set_read_timeout(Some(Duration::from_secs(120))).ok();
        Conn { r: BufReader::new(s) }
    }

    fn request(&mut self, method: &str, path: &str, ctype: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n", body.len());
        let s = self.r.get_mut();
        s.write_all(head.as_bytes()).expect("write");
        s.write_all(body).expect("write");
        let mut line = String::new();
        self.r.read_line(&mut line).expect("status line");
        let status: u16 = line.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status");
        let mut len = 0usize;
        loop {
            line.clear();
            self.r.read_line(&mut line).expect("header");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(": ") {
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.parse().expect("length");
                }
            }
        }
        let mut buf = vec![0; len];
        self.r.read_exact(&mut buf).expect("body");
        (status, buf)
    }
}

struct Server {
    child: Child,
    addr: String,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start() -> (Server, Duration) {
        let dir = tempfile::tempdir().expect("tempdir");
        let t0 = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_fathom"))
            .args(["-E", &format!("path.data={}", dir.path().display()), "-E", "http.port=9300-9399"])
            .env("FATHOM_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the fathom binary");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        out.read_line(&mut line).expect("listening line");
        let addr = line.trim().strip_prefix("fathom listening on http://").expect("listening line").to_string();
        let mut c = Conn::open(&addr);
        let (status, _) = c.request("GET", "/_cluster/health?wait_for_status=green&timeout=10s", "application/json", b"");
        assert_eq!(status, 200, "cluster did not turn green");
        let green = t0.elapsed();
        (Server { child, addr, _dir: dir }, green)
    }

    fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let f: Vec<&str> = after.split_whitespace().collect();
        let ticks: u64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0) + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
        Duration::from_secs_f64(ticks as f64 / 100.0)
    }

    fn rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn mapping(corpus: Corpus) -> String {
    let m = corpus.mapping().to_json();
    serde_json::json!({"settings": {"number_of_shards": 1, "number_of_replicas": 0}, "mappings": m}).to_string()
}

/// Ingests `lines` into a new index over HTTP; returns (wall, server CPU).
fn http_ingest(server: &Server, index: &str, corpus: Corpus, lines: &[String]) -> (Duration, Duration) {
    let mut c = Conn::open(&server.addr);
    let (s, b) = c.request("PUT", &format!("/{index}"), "application/json", mapping(corpus).as_bytes());
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&b));
    let bodies: Vec<Vec<u8>> = lines
        .chunks(BATCH)
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
        .collect();
    let cpu0 = server.cpu();
    let t0 = Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let acked = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|sc| {
        for _ in 0..CLIENTS {
            sc.spawn(|| {
                let mut c = Conn::open(&server.addr);
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(body) = bodies.get(i) else { break };
                    let (s, resp) = c.request("POST", &format!("/{index}/_bulk"), "application/x-ndjson", body);
                    assert_eq!(s, 200);
                    let v: Value = serde_json::from_slice(&resp).expect("bulk response");
                    assert_eq!(v["errors"], false, "bulk had errors");
                    acked.fetch_add(v["items"].as_array().map_or(0, Vec::len), std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    let wall = t0.elapsed();
    let cpu = server.cpu().saturating_sub(cpu0);
    assert_eq!(acked.into_inner(), lines.len(), "every document acknowledged");
    let (s, _) = c.request("DELETE", &format!("/{index}"), "application/json", b"");
    assert_eq!(s, 200);
    (wall, cpu)
}

fn record(corpus: Corpus, line: &str, wall: Duration, cpu: Duration) {
    RUNS.lock().expect("runs").entry((corpus.name().into(), line.into())).or_default().push((wall.as_secs_f64(), cpu.as_secs_f64()));
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn bench_corpus(c: &mut Criterion, corpus: Corpus) {
    let Some(lines) = corpus.load() else { return };
    let (server, _) = Server::start();
    let mut g = c.benchmark_group(format!("http_bulk/{}", corpus.name()));
    g.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(lines.len() as u64));
    let mut n = 0;
    g.bench_function("fathom_http_bulk", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                let (wall, cpu) = http_ingest(&server, &format!("bench-{n}"), corpus, &lines);
                record(corpus, "fathom_http_bulk", wall, cpu);
                total += wall;
            }
            total
        })
    });
    g.bench_function("tantivy_in_process", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let dir = tempfile::tempdir().expect("tempdir");
                let t0 = Instant::now();
                let index = tantivy_index(dir.path(), corpus, &lines, TantivyTokens::Fathom);
                let wall = t0.elapsed();
                let docs = index.reader().expect("reader").searcher().num_docs() as usize;
                assert_eq!(docs, lines.len());
                record(corpus, "tantivy_in_process", wall, wall);
                total += wall;
            }
            total
        })
    });
    g.finish();
    let runs = RUNS.lock().expect("runs");
    let k = lines.len() as f64;
    let get = |l: &str| runs.get(&(corpus.name().to_string(), l.to_string())).cloned().unwrap_or_default();
    let f = get("fathom_http_bulk");
    let t = get("tantivy_in_process");
    let f_rate = median(f.iter().map(|(w, _)| k / w).collect());
    let f_cpu = median(f.iter().map(|(_, c)| k / c.max(1e-3)).collect());
    let t_rate = median(t.iter().map(|(w, _)| k / w).collect());
    eprintln!("\n== http_bulk {} ({} docs, {CLIENTS} connections, {BATCH}/bulk, durability=request), medians ==", corpus.name(), lines.len());
    eprintln!("fathom over HTTP:    {f_rate:>10.0} docs/s   {f_cpu:>10.0} docs per server CPU-s");
    eprintln!("tantivy in-process:  {t_rate:>10.0} docs/s");
    eprintln!("ratio (HTTP docs/s ÷ tantivy docs/s): {:.2}  (target ≥ 0.8)", f_rate / t_rate);
}

fn bench_start(_c: &mut Criterion) {
    let mut greens = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..5 {
        let (s, green) = Server::start();
        greens.push(green.as_secs_f64() * 1000.0);
        std::thread::sleep(Duration::from_millis(500));
        rss.push(s.rss_kb() as f64 / 1024.0);
    }
    eprintln!("\n== start ==");
    eprintln!("start to green (5 starts, empty data dir): median {:.1} ms, max {:.1} ms (target < 200 ms)", median(greens.clone()), greens.iter().cloned().fold(0.0, f64::max));
    eprintln!("idle RSS after start: median {:.1} MB (target < 50 MB)", median(rss));
}

fn benches(c: &mut Criterion) {
    bench_start(c);
    let only = std::env::var("FATHOM_HTTP_CORPORA").unwrap_or_else(|_| "text,logs".into());
    for corpus in [Corpus::Text, Corpus::Logs] {
        if only.split(',').any(|x| x == corpus.name()) {
            bench_corpus(c, corpus);
        }
    }
}

criterion_group!(http_benches, benches);
criterion_main!(http_benches);
