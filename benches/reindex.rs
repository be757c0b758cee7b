//! `_reindex` next to `_bulk` ingestion of the same documents on the same server (issue 22:
//! reindex at least 0.8× the bulk docs/s).
//!
//! Each iteration bulk-loads the corpus sample into a new index (`fathom_http_bulk`: 2
//! connections, 1,000 documents per bulk, as `benches/http.rs`), then reindexes that index into
//! another new one (`fathom_reindex`: one request, batches of 1,000, one slice per shard of
//! the 1-shard source) and asserts every document was created. The server is the real binary.

mod common;
mod fathom_server;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::Corpus;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use fathom_server::{bulk_bodies, bulk_load, Conn, Server};

const BATCH: usize = 1_000;
const CLIENTS: usize = 2;

static RUNS: Mutex<BTreeMap<String, Vec<f64>>> = Mutex::new(BTreeMap::new());

fn mapping(corpus: Corpus) -> String {
    let m = corpus.mapping().to_json();
    serde_json::json!({"settings": {"number_of_shards": 1, "number_of_replicas": 0}, "mappings": m}).to_string()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn bench_corpus(c: &mut Criterion, corpus: Corpus) {
    let Some(lines) = corpus.load() else { return };
    let (server, _) = Server::start();
    let bodies = bulk_bodies(&lines, BATCH);
    let mut g = c.benchmark_group(format!("reindex/{}", corpus.name()));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(lines.len() as u64));
    let mut n = 0;
    g.bench_function("fathom_http_bulk_then_reindex", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                let mut conn = Conn::open(&server.addr);
                let (src, dst) = (format!("src-{n}"), format!("dst-{n}"));
                conn.ok("PUT", &format!("/{src}"), &mapping(corpus));
                conn.ok("PUT", &format!("/{dst}"), &mapping(corpus));
                let t0 = Instant::now();
                let acked = bulk_load(&server.addr, &src, &bodies, CLIENTS);
                let bulk = t0.elapsed();
                assert_eq!(acked, lines.len());
                conn.ok("POST", &format!("/{src}/_refresh"), "");
                let body = format!(r#"{{"source":{{"index":"{src}","size":{BATCH}}},"dest":{{"index":"{dst}"}}}}"#);
                let t1 = Instant::now();
                let resp = conn.ok("POST", "/_reindex", &body);
                let reindex = t1.elapsed();
                let v: serde_json::Value = serde_json::from_slice(&resp).expect("reindex answer is JSON");
                assert_eq!(v["created"].as_u64(), Some(lines.len() as u64), "{v}");
                conn.ok("DELETE", &format!("/{src},{dst}"), "");
                let mut runs = RUNS.lock().expect("runs");
                runs.entry("bulk".into()).or_default().push(lines.len() as f64 / bulk.as_secs_f64());
                runs.entry("reindex".into()).or_default().push(lines.len() as f64 / reindex.as_secs_f64());
                total += bulk + reindex;
            }
            total
        })
    });
    g.finish();
    let runs = RUNS.lock().expect("runs");
    let bulk = median(runs.get("bulk").cloned().unwrap_or_default());
    let reindex = median(runs.get("reindex").cloned().unwrap_or_default());
    eprintln!("\n== reindex {} ({} docs), medians ==", corpus.name(), lines.len());
    eprintln!("_bulk ({CLIENTS} connections, {BATCH}/bulk): {bulk:>10.0} docs/s");
    eprintln!("_reindex (1 request, {BATCH}/batch):      {reindex:>10.0} docs/s");
    eprintln!("ratio (reindex ÷ bulk): {:.2}  (target ≥ 0.8)", reindex / bulk);
}

fn benches(c: &mut Criterion) {
    let only = std::env::var("FATHOM_REINDEX_CORPORA").unwrap_or_else(|_| "text,logs".into());
    for corpus in [Corpus::Text, Corpus::Logs] {
        if only.split(',').any(|x| x == corpus.name()) {
            bench_corpus(c, corpus);
        }
    }
}

criterion_group!(group, benches);
criterion_main!(group);
