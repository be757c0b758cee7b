//! Ingest pipelines over HTTP: the server CPU per document of `_bulk` into an index whose
//! `index.default_pipeline` parses each log line (dissect of `request`, date of `@timestamp`,
//! set of a constant), next to the same bulk into an index without a pipeline. Issue 22's
//! target: the pipeline costs at most 2x the plain bulk CPU per document.
//!
//! The pipeline stands in for OpenSearch's "grok + date + set" example: it was written before
//! Fathom had a grok processor, so dissect does the pattern work (split of the request line into verb, path
//! and HTTP version). Server CPU comes from `/proc/{pid}/stat` (the load generator excluded).

mod common;
mod fathom_server;

use std::time::Duration;

use common::Corpus;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use fathom_server::{bulk_bodies, bulk_load, Conn, Server};

const BATCH: usize = 1_000;
const CLIENTS: usize = 2;
const DOCS: usize = 50_000;

const PIPELINE: &str = r#"{"processors": [
    {"dissect": {"field": "request", "pattern": "%{verb} %{path} %{http_version}"}},
    {"date": {"field": "@timestamp", "formats": ["UNIX"], "target_field": "ts"}},
    {"set": {"field": "source", "value": "bench"}}
]}"#;

fn settings(pipeline: bool) -> String {
    let mut s = serde_json::json!({"settings": {"number_of_shards": 1, "number_of_replicas": 0}});
    if pipeline {
        s["settings"]["index.default_pipeline"] = serde_json::json!("logs");
    }
    s.to_string()
}

/// Server CPU of one ingestion of `bodies` into a new index.
fn run(server: &Server, index: &str, pipeline: bool, bodies: &[Vec<u8>], docs: usize) -> Duration {
    let mut c = Conn::open(&server.addr);
    c.ok("PUT", &format!("/{index}"), &settings(pipeline));
    let cpu0 = server.cpu();
    let acked = bulk_load(&server.addr, index, bodies, CLIENTS);
    let cpu = server.cpu().saturating_sub(cpu0);
    assert_eq!(acked, docs, "every document acknowledged");
    c.ok("DELETE", &format!("/{index}"), "");
    cpu
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn bench(c: &mut Criterion) {
    let Some(lines) = Corpus::Logs.load_n(DOCS) else { return };
    let (server, _) = Server::start();
    Conn::open(&server.addr).ok("PUT", "/_ingest/pipeline/logs", PIPELINE);
    let bodies = bulk_bodies(&lines, BATCH);
    let mut g = c.benchmark_group("ingest_pipeline/logs");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(lines.len() as u64));
    let mut cpu: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut n = 0;
    for (i, (name, pipeline)) in [("plain_bulk", false), ("bulk_with_pipeline", true)].into_iter().enumerate() {
        g.bench_function(name, |b| {
            // Criterion's time here is server CPU: the figure the target is about.
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    n += 1;
                    let d = run(&server, &format!("bench-{n}"), pipeline, &bodies, lines.len());
                    cpu[i].push(d.as_secs_f64());
                    total += d;
                }
                total
            })
        });
    }
    g.finish();
    let per_doc = |v: &Vec<f64>| median(v.clone()) / lines.len() as f64 * 1e6;
    let (plain, piped) = (per_doc(&cpu[0]), per_doc(&cpu[1]));
    eprintln!("\n== ingest pipeline ({} log docs, {BATCH}/bulk, {CLIENTS} connections), medians ==", lines.len());
    eprintln!("plain bulk:          {plain:>8.2} µs server CPU per document");
    eprintln!("bulk with pipeline:  {piped:>8.2} µs server CPU per document");
    eprintln!("ratio: {:.2}  (target ≤ 2.0)", piped / plain);
}

criterion_group!(benches, bench);
criterion_main!(benches);
