//! Indexing throughput, Fathom vs tantivy, on the fixed samples of the text and logs corpora.
//!
//! One indexing thread on each side, JSON parsing included, commit (fsync) at the end, a fresh
//! index in a tempdir per iteration. Criterion's time is **process CPU time** (utime + stime of
//! every thread, from `/proc/self/stat`), so its throughput line reads as docs per CPU-second;
//! the summary printed after each group also gives wall-clock docs/s and the ratio to tantivy.
//!
//! Lines: `fathom`, `tantivy` (Fathom's analyzer wrapped as a tantivy tokenizer: identical terms),
//! `tantivy_default_tokenizer` (tantivy's own tokenizer; extra line).

mod common;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{cpu_time, fathom_index, tantivy_index, Corpus, TantivyTokens};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};

/// (corpus, engine) -> per-iteration (cpu, wall).
static RUNS: Mutex<BTreeMap<(String, String), Vec<(Duration, Duration)>>> = Mutex::new(BTreeMap::new());

fn record(corpus: Corpus, engine: &str, cpu: Duration, wall: Duration) {
    RUNS.lock().expect("runs lock").entry((corpus.name().into(), engine.into())).or_default().push((cpu, wall));
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn summary(corpus: Corpus) {
    let runs = RUNS.lock().expect("runs lock");
    let n = corpus.sample() as f64;
    let rate = |engine: &str| -> Option<(f64, f64)> {
        let r = runs.get(&(corpus.name().to_string(), engine.to_string()))?;
        Some((
            median(r.iter().map(|(c, _)| n / c.as_secs_f64().max(1e-3)).collect()),
            median(r.iter().map(|(_, w)| n / w.as_secs_f64()).collect()),
        ))
    };
    let base = rate("tantivy");
    eprintln!("\n== indexing {} ({} docs), medians ==", corpus.name(), corpus.sample());
    eprintln!("{:<28} {:>14} {:>12} {:>16}", "engine", "docs/CPU-s", "docs/s wall", "CPU ratio vs tantivy");
    for engine in ["fathom", "tantivy", "tantivy_default_tokenizer"] {
        if let Some((cpu, wall)) = rate(engine) {
            let ratio = base.map(|(b, _)| cpu / b).unwrap_or(f64::NAN);
            eprintln!("{engine:<28} {cpu:>14.0} {wall:>12.0} {ratio:>16.2}");
        }
    }
}

fn bench_corpus(c: &mut Criterion, corpus: Corpus) {
    let Some(lines) = corpus.load() else { return };
    let mut g = c.benchmark_group(format!("indexing/{}", corpus.name()));
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(lines.len() as u64));

    g.bench_function("fathom", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let dir = tempfile::tempdir().expect("tempdir");
                let (c0, w0) = (cpu_time(), Instant::now());
                let w = fathom_index(dir.path(), corpus, &lines);
                let (cpu, wall) = (cpu_time() - c0, w0.elapsed());
                let docs = w.reader().expect("searcher").num_docs();
                assert_eq!(docs, lines.len() as u64, "fathom indexed every line");
                drop(w);
                record(corpus, "fathom", cpu, wall);
                total += cpu;
            }
            total
        })
    });
    for (name, tokens) in [("tantivy", TantivyTokens::Fathom), ("tantivy_default_tokenizer", TantivyTokens::Default)] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let dir = tempfile::tempdir().expect("tempdir");
                    let (c0, w0) = (cpu_time(), Instant::now());
                    let index = tantivy_index(dir.path(), corpus, &lines, tokens);
                    let (cpu, wall) = (cpu_time() - c0, w0.elapsed());
                    let docs = index.reader().expect("reader").searcher().num_docs();
                    assert_eq!(docs, lines.len() as u64, "tantivy indexed every line");
                    drop(index);
                    record(corpus, name, cpu, wall);
                    total += cpu;
                }
                total
            })
        });
    }
    g.finish();
    summary(corpus);
    interleaved(corpus, &lines);
}

/// Load on the shared machine drifts over the ~30 s of each criterion line, so the ratio is also
/// measured with the engines alternating: `FATHOM_INDEXING_ROUNDS` (default 5) rounds of (fathom, tantivy, tantivy default),
/// the ratio taken within each round, then the median over rounds.
///
/// `FATHOM_INDEXING_ENGINES=fathom` runs Fathom alone in every round and prints each round's rate
/// (to compare two Fathom binaries run alternately: the best round is the least disturbed one).
fn interleaved(corpus: Corpus, lines: &[String]) {
    let rounds = std::env::var("FATHOM_INDEXING_ROUNDS").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(5).max(1);
    let n = lines.len() as f64;
    if std::env::var("FATHOM_INDEXING_ENGINES").is_ok_and(|e| e.trim() == "fathom") {
        let mut rates = Vec::new();
        for _ in 0..rounds {
            let dir = tempfile::tempdir().expect("tempdir");
            let c0 = cpu_time();
            let docs = fathom_index(dir.path(), corpus, lines).reader().expect("searcher").num_docs();
            let cpu = cpu_time() - c0;
            assert_eq!(docs, lines.len() as u64, "every line indexed");
            rates.push((n / cpu.as_secs_f64().max(1e-3)).round());
        }
        let best = rates.iter().copied().fold(0f64, f64::max);
        eprintln!(
            "fathom alone x{rounds} {}: docs/CPU-s per round {rates:?} -> median {:.0}, best {best:.0}",
            corpus.name(),
            median(rates.clone())
        );
        return;
    }
    let mut rates: Vec<[f64; 3]> = Vec::new();
    for _ in 0..rounds {
        let mut r = [0f64; 3];
        for (i, slot) in r.iter_mut().enumerate() {
            let dir = tempfile::tempdir().expect("tempdir");
            let c0 = cpu_time();
            let docs = match i {
                0 => fathom_index(dir.path(), corpus, lines).reader().expect("searcher").num_docs(),
                1 => tantivy_index(dir.path(), corpus, lines, TantivyTokens::Fathom)
                    .reader()
                    .expect("reader")
                    .searcher()
                    .num_docs(),
                _ => tantivy_index(dir.path(), corpus, lines, TantivyTokens::Default)
                    .reader()
                    .expect("reader")
                    .searcher()
                    .num_docs(),
            };
            let cpu = cpu_time() - c0;
            assert_eq!(docs, lines.len() as u64, "every line indexed");
            *slot = n / cpu.as_secs_f64().max(1e-3);
        }
        rates.push(r);
    }
    let ratios: Vec<f64> = rates.iter().map(|r| r[0] / r[1]).collect();
    let col = |i: usize| median(rates.iter().map(|r| r[i]).collect());
    eprintln!(
        "interleaved x{rounds} {}: fathom {:.0}, tantivy {:.0}, tantivy default tokenizer {:.0} docs/CPU-s (medians); \
         fathom/tantivy per round {:?} -> median {:.2}",
        corpus.name(),
        col(0),
        col(1),
        col(2),
        ratios.iter().map(|r| (r * 100.0).round() / 100.0).collect::<Vec<_>>(),
        median(ratios.clone())
    );
}

/// `FATHOM_INDEXING_CORPORA=text` (or `logs`, or `text,logs`: the default) picks the corpora.
fn indexing(c: &mut Criterion) {
    let wanted = std::env::var("FATHOM_INDEXING_CORPORA").unwrap_or_else(|_| "text,logs".into());
    for corpus in [Corpus::Text, Corpus::Logs] {
        if wanted.split(',').any(|w| w.trim() == corpus.name()) {
            bench_corpus(c, corpus);
        }
    }
}

criterion_group!(benches, indexing);
criterion_main!(benches);
