//! Translog append on a real `FsDirectory` in a tempdir (fsync cost matters): `request`
//! durability (add + `ensure_synced` per operation, one writer and four concurrent writers
//! sharing fsyncs by group commit) versus `async` (add only; the background syncer fsyncs every
//! `sync_interval`). Fathom only: tantivy has no write-ahead log. Operations carry a real
//! `_source` from the text corpus when it is present (else a fixed 400-byte document).

mod common;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::Corpus;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fathom::engine::store::FsDirectory;
use fathom::engine::translog::{Durability, Operation, Translog, TranslogConfig, NO_OPS_PERFORMED};

fn sources() -> Vec<Vec<u8>> {
    match Corpus::Text.load_n(1000) {
        Some(lines) => lines.into_iter().map(String::into_bytes).collect(),
        None => vec![format!("{{\"title\":\"fixed\",\"body\":\"{}\"}}", "lorem ipsum ".repeat(32)).into_bytes()],
    }
}

struct Log {
    _dir: tempfile::TempDir,
    t: Arc<Translog>,
    seq: AtomicI64,
    sources: Vec<Vec<u8>>,
}

impl Log {
    fn new(durability: Durability) -> Log {
        let dir = tempfile::tempdir().expect("tempdir");
        let fs = FsDirectory::open(dir.path()).expect("fs directory");
        let config = TranslogConfig { durability, ..TranslogConfig::default() };
        let t = Translog::create(Arc::new(fs), [7; 16], 1, NO_OPS_PERFORMED, config).expect("create translog");
        Log { _dir: dir, t: Arc::new(t), seq: AtomicI64::new(0), sources: sources() }
    }

    fn op(&self) -> Operation {
        let seq_no = self.seq.fetch_add(1, Ordering::Relaxed);
        let source = self.sources[seq_no as usize % self.sources.len()].clone();
        Operation::Index { id: seq_no.to_string(), routing: None, source, seq_no, primary_term: 1, version: 1 }
    }

    /// Keeps the tempdir small between samples (not timed).
    fn roll_and_trim(&self) {
        let g = self.t.roll_generation().expect("roll");
        self.t.trim_unreferenced(g).expect("trim");
    }
}

fn translog(c: &mut Criterion) {
    let mut g = c.benchmark_group("translog/append");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(1));

    let log = Log::new(Durability::Request);
    g.bench_function("request_1_writer", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let loc = log.t.add(&log.op()).expect("add");
                assert!(log.t.ensure_synced(loc).expect("sync"), "each request op is fsynced by its own writer");
            }
            let el = start.elapsed();
            log.roll_and_trim();
            el
        })
    });

    // Four writers: per-op latency is wall time / ops (throughput view of group commit).
    g.bench_function("request_4_writers", |b| {
        b.iter_custom(|iters| {
            let per = iters.div_ceil(4);
            let start = Instant::now();
            std::thread::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|| {
                        for _ in 0..per {
                            let loc = log.t.add(&log.op()).expect("add");
                            log.t.ensure_synced(loc).expect("sync");
                        }
                    });
                }
            });
            let el = start.elapsed();
            log.roll_and_trim();
            el.mul_f64(iters as f64 / (per * 4) as f64)
        })
    });
    assert!(log.seq.load(Ordering::Relaxed) > 0, "request ops were appended");
    drop(log);

    let log = Log::new(Durability::Async);
    let _syncer = log.t.start_async_syncer();
    g.bench_function("async", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                log.t.add(&log.op()).expect("add");
            }
            let el = start.elapsed();
            assert_eq!(log.t.stats().operations, iters, "every async op was appended");
            log.roll_and_trim();
            el
        })
    });
    g.finish();
}

criterion_group!(benches, translog);
criterion_main!(benches);
