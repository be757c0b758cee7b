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
mod fathom_server;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{tantivy_index, Corpus, TantivyTokens};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use fathom_server::{bulk_bodies, bulk_load, Conn, Server};

const BATCH: usize = 1_000;
const CLIENTS: usize = 2;

static RUNS: Mutex<BTreeMap<(String, String), Vec<(f64, f64)>>> = Mutex::new(BTreeMap::new());

fn mapping(corpus: Corpus) -> String {
    let m = corpus.mapping().to_json();
    serde_json::json!({"settings": {"number_of_shards": 1, "number_of_replicas": 0}, "mappings": m}).to_string()
}

/// Ingests `lines` into a new index over HTTP; returns (wall, server CPU).
fn http_ingest(server: &Server, index: &str, corpus: Corpus, lines: &[String]) -> (Duration, Duration) {
    let mut c = Conn::open(&server.addr);
    c.ok("PUT", &format!("/{index}"), &mapping(corpus));
    let bodies = bulk_bodies(lines, BATCH);
    let cpu0 = server.cpu();
    let t0 = Instant::now();
    let acked = bulk_load(&server.addr, index, &bodies, CLIENTS);
    let wall = t0.elapsed();
    let cpu = server.cpu().saturating_sub(cpu0);
    assert_eq!(acked, lines.len(), "every document acknowledged");
    c.ok("DELETE", &format!("/{index}"), "");
    (wall, cpu)
}

fn record(corpus: Corpus, line: &str, wall: Duration, cpu: Duration) {
    RUNS.lock()
        .expect("runs")
        .entry((corpus.name().into(), line.into()))
        .or_default()
        .push((wall.as_secs_f64(), cpu.as_secs_f64()));
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn bench_corpus(c: &mut Criterion, corpus: Corpus) {
    let Some(lines) = corpus.load() else { return };
    let (server, _) = Server::start();
    let mut g = c.benchmark_group(format!("http_bulk/{}", corpus.name()));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
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
    eprintln!(
        "\n== http_bulk {} ({} docs, {CLIENTS} connections, {BATCH}/bulk, durability=request), medians ==",
        corpus.name(),
        lines.len()
    );
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
    eprintln!(
        "start to green (5 starts, empty data dir): median {:.1} ms, max {:.1} ms (target < 200 ms)",
        median(greens.clone()),
        greens.iter().cloned().fold(0.0, f64::max)
    );
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
