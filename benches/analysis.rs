//! Analysis throughput in MB/s of text on the fixed sample of the text corpus (titles and
//! bodies): the `standard` analyzer (the hand-built streaming chain text fields use), `english`
//! (assembled from parts: possessive, lowercase, stop, Porter) and, as a baseline for the cost of
//! assembling chains from parts, `standard` built as a custom analyzer from index settings.
//! Every iteration asserts that it produced the expected number of tokens.

mod common;

use std::sync::Arc;

use common::Corpus;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fathom::engine::analysis::{Analyzer, IndexAnalysis, StandardAnalyzer};
use serde_json::{json, Value};

/// Documents of the text sample analyzed per iteration.
const DOCS: usize = 5_000;

fn texts() -> Option<Vec<String>> {
    let lines = Corpus::Text.load_n(DOCS)?;
    Some(
        lines
            .iter()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .flat_map(|doc| {
                ["title", "body"].into_iter().filter_map(move |f| doc.get(f).and_then(Value::as_str).map(str::to_owned))
            })
            .collect(),
    )
}

fn count_tokens(analyzer: &dyn Analyzer, texts: &[String]) -> u64 {
    let mut tokens = 0u64;
    for text in texts {
        analyzer.analyze(text, 0, &mut |_| tokens += 1);
    }
    tokens
}

fn bench(c: &mut Criterion) {
    let Some(texts) = texts() else { return };
    let bytes: usize = texts.iter().map(String::len).sum();
    let index = IndexAnalysis::from_settings(&json!({"index": {"analysis": {"analyzer": {
        "standard_from_parts": {"type": "custom", "tokenizer": "standard", "filter": ["lowercase"]}
    }}}}))
    .expect("valid settings");
    let analyzers: Vec<(&str, Arc<dyn Analyzer>)> = vec![
        ("standard", Arc::new(StandardAnalyzer::default())),
        ("english", index.analyzer("english").expect("english is built in")),
        ("standard_from_parts", index.analyzer("standard_from_parts").expect("defined above")),
    ];
    let mut group = c.benchmark_group("analysis/text");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    for (name, analyzer) in &analyzers {
        let expected = count_tokens(analyzer.as_ref(), &texts);
        assert!(expected > 0, "{name} produced no tokens");
        group.bench_function(*name, |b| {
            b.iter(|| {
                let produced = count_tokens(analyzer.as_ref(), &texts);
                assert_eq!(produced, expected, "{name} token count changed");
                produced
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
