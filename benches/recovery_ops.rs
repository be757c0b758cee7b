//! The translog phase of a peer recovery, below the transport: a primary engine holds `OPS`
//! operations of the logs corpus above its last commit (auto-generated ids, as `_bulk` writes
//! them); the recovering copy gets them as `prepare_translog` / `translog_ops` hand them out
//! (the snapshot, batches of `OPS_PER_BATCH` encoded and decoded as on the wire) and applies
//! them as the recovery target does (`apply_replica_ops` per batch, one sync at the end), on
//! real files in a tempdir. Issue 18's target: at least 100k ops/s. Each sample asserts the
//! copy ends with every operation processed and durable and every document searchable.
//! Measured: snapshot + encode + decode + apply + sync (the loopback transfer is not).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::Corpus;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use fathom::cluster::peer_recovery::OPS_PER_BATCH;
use fathom::cluster::replication::{decode_ops, encode_ops};
use fathom::engine::schema::Mapping;
use fathom::engine::store::{Directory, FsDirectory};
use fathom::shard::engine::{default_config, DocumentParser};
use fathom::shard::{IndexOp, ShardEngine};

/// Operations in the translog tail.
const OPS: usize = 100_000;

fn parser(mapping: Mapping) -> DocumentParser {
    let mapping = Arc::new(mapping);
    Arc::new(move |id: &str, source: &[u8]| {
        let p = mapping.parse(id, source).map_err(|e| fathom::engine::Error::InvalidArgument(e.to_string()))?;
        Ok((p.fields, p.nested))
    })
}

fn engine(dir: &std::path::Path, mapping: &Mapping) -> ShardEngine {
    let open = |d: &str| Arc::new(FsDirectory::open(dir.join(d)).expect("fs directory")) as Arc<dyn Directory>;
    let mut config = default_config(parser(mapping.clone()));
    config.background_merges = false;
    ShardEngine::open(open("index"), open("translog"), config).expect("engine opens")
}

/// A primary with `lines` written as appends and never flushed (all of them in the translog).
fn primary(dir: &std::path::Path, mapping: &Mapping, lines: &[String]) -> ShardEngine {
    let e = engine(dir, mapping);
    for (n, line) in lines.iter().enumerate() {
        let parsed = mapping.parse(&format!("a{n}"), line.as_bytes()).expect("corpus line parses");
        let op = IndexOp {
            id: format!("a{n}"),
            source: line.as_bytes().to_vec(),
            fields: parsed.fields,
            nested: parsed.nested,
            auto_generated_id: true,
            ..Default::default()
        };
        e.index(op).expect("index");
    }
    e
}

/// One translog phase into a fresh copy; its wall time.
fn recover(source: &ShardEngine, mapping: &Mapping, docs: usize) -> Duration {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = engine(dir.path(), mapping);
    let t0 = Instant::now();
    let snapshot = source.operations_from(0).expect("snapshot");
    assert_eq!(snapshot.len(), docs, "the translog holds every operation");
    for batch in snapshot.chunks(OPS_PER_BATCH) {
        let wire = encode_ops(batch);
        let ops = decode_ops(&wire).expect("decode");
        target.apply_replica_ops(&ops, &|_| false).expect("apply");
    }
    let persisted = target.sync_replica().expect("sync");
    let wall = t0.elapsed();
    assert_eq!(persisted, docs as i64 - 1, "every operation durable on the copy");
    target.refresh().expect("refresh");
    assert_eq!(target.reader().expect("reader").num_docs(), docs as u64, "every document on the copy");
    wall
}

fn benches(c: &mut Criterion) {
    let corpus = Corpus::Logs;
    let Some(lines) = corpus.load_n(OPS) else { return };
    let docs = lines.len();
    let mapping = corpus.mapping();
    let dir = tempfile::tempdir().expect("tempdir");
    let source = primary(dir.path(), &mapping, &lines);
    let mut g = c.benchmark_group("recovery_translog_phase/logs");
    g.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(docs as u64));
    let mut rates = Vec::new();
    g.bench_function("snapshot_encode_decode_apply_sync", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let w = recover(&source, &mapping, docs);
                rates.push(docs as f64 / w.as_secs_f64());
                total += w;
            }
            total
        })
    });
    g.finish();
    rates.sort_by(|a, b| a.total_cmp(b));
    let med = rates.get(rates.len() / 2).copied().unwrap_or(f64::NAN);
    eprintln!("\n== recovery translog phase, logs ({docs} ops, batches of {OPS_PER_BATCH}), median ==");
    eprintln!("{med:>10.0} ops/s  (target >= 100000)");
}

criterion_group!(recovery_benches, benches);
criterion_main!(recovery_benches);
