//! Aggregations on the logs corpus (2M docs, one segment on both sides): Fathom's search path
//! without HTTP (`execute::search_contexts` on a one-shard index of an in-process node, `size: 0`,
//! no total-hits tracking) vs tantivy's `AggregationCollector` over `AllQuery`, same documents.
//!
//! Cases (issue 17): terms on `status`, date_histogram per hour on `@timestamp` with an avg of
//! `size`, stats on `size`, percentiles on `size`, cardinality on `clientip`, a range on `size`.
//! Before timing, each case's answers are compared where the definitions agree: bucket keys and
//! counts, stats exactly (to 1e-9 relative), percentiles and cardinality within their documented
//! error; every timed answer is checked after the clock stops.
//!
//! `FATHOM_READ_DOCS=N` caps the documents (default: the whole corpus). Without the corpus the
//! bench prints how to make it and skips.

mod common;

use std::sync::Arc;

use common::{Corpus, TantivyTokens};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fathom::bench_support::{acquire, search_contexts, IndicesOptions, SearchRequest, ShardContext};
use fathom::cluster::CreateIndex;
use fathom::node::{Node, NodeSettings};
use fathom::shard::IndexOp;
use serde_json::{json, Value};
use tantivy::aggregation::{AggContextParams, AggregationCollector, AggregationLimitsGuard};

/// (name, Fathom aggs, tantivy aggs).
fn cases() -> Vec<(&'static str, Value, Value)> {
    vec![
        ("terms_status", json!({"a": {"terms": {"field": "status"}}}), json!({"a": {"terms": {"field": "status"}}})),
        (
            "date_histogram_hour_avg_size",
            json!({"a": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1h"}, "aggs": {"s": {"avg": {"field": "size"}}}}}),
            json!({"a": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1h"}, "aggs": {"s": {"avg": {"field": "size"}}}}}),
        ),
        ("stats_size", json!({"a": {"stats": {"field": "size"}}}), json!({"a": {"stats": {"field": "size"}}})),
        (
            "percentiles_size",
            json!({"a": {"percentiles": {"field": "size"}}}),
            json!({"a": {"percentiles": {"field": "size"}}}),
        ),
        (
            "cardinality_clientip",
            json!({"a": {"cardinality": {"field": "clientip"}}}),
            json!({"a": {"cardinality": {"field": "clientip"}}}),
        ),
        (
            "range_size",
            json!({"a": {"range": {"field": "size", "ranges": [{"to": 1000}, {"from": 1000, "to": 10000}, {"from": 10000}]}}}),
            json!({"a": {"range": {"field": "size", "ranges": [{"to": 1000.0}, {"from": 1000.0, "to": 10000.0}, {"from": 10000.0}]}}}),
        ),
    ]
}

fn build_fathom(node: &Node, lines: &[String]) -> Vec<ShardContext> {
    let cs = &node.cluster;
    let mut settings = std::collections::BTreeMap::new();
    settings.insert("index.number_of_shards".to_string(), json!("1"));
    settings.insert("index.number_of_replicas".to_string(), json!("0"));
    settings.insert("index.refresh_interval".to_string(), json!("-1"));
    cs.create_index(CreateIndex {
        name: "logs".into(),
        settings,
        mappings: Some(json!({"dynamic": false, "properties": {
            "@timestamp": {"type": "date", "format": "epoch_second"},
            "clientip": {"type": "ip"},
            "request": {"type": "text"},
            "status": {"type": "integer"},
            "size": {"type": "integer"}
        }})),
        aliases: Vec::new(),
    })
    .expect("create");
    let svc = cs.index("logs").expect("index");
    for (i, line) in lines.iter().enumerate() {
        let id = i.to_string();
        let source = line.as_bytes().to_vec();
        let fields = svc.parse(&id, &source).expect("parse").fields;
        let shard = svc.route(&id).expect("route").clone();
        shard.engine.index(IndexOp { id, source, fields, ..Default::default() }).expect("index");
    }
    for s in svc.shards() {
        s.refresh().expect("refresh");
        s.engine.force_merge(1).expect("force merge");
        s.refresh().expect("refresh");
    }
    acquire(cs, "logs", IndicesOptions::lenient_expand_open()).expect("contexts")
}

fn fathom_aggs(ctxs: &[ShardContext], req: &SearchRequest) -> Value {
    search_contexts(ctxs, req).expect("search")["aggregations"]["a"].clone()
}

fn tantivy_aggs(index: &tantivy::Index, req: &Value) -> Value {
    let reader = index.reader().expect("reader");
    let searcher = reader.searcher();
    let aggs = serde_json::from_value(req.clone()).expect("tantivy aggs");
    let ctx = AggContextParams::new(AggregationLimitsGuard::default(), index.tokenizers().clone());
    let collector = AggregationCollector::from_aggs(aggs, ctx);
    let res = searcher.search(&tantivy::query::AllQuery, &collector).expect("tantivy search");
    serde_json::to_value(res).expect("json")["a"].clone()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
}

/// Asserts the two answers agree where the definitions do.
fn check(name: &str, f: &Value, t: &Value, docs: usize) {
    match name {
        "terms_status" | "range_size" => {
            let key = |b: &Value| {
                b["key"]
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("{}", b["key"].as_f64().unwrap_or(f64::NAN)))
            };
            let fb: Vec<(String, u64)> =
                f["buckets"].as_array().unwrap().iter().map(|b| (key(b), b["doc_count"].as_u64().unwrap())).collect();
            let tb: Vec<(String, u64)> =
                t["buckets"].as_array().unwrap().iter().map(|b| (key(b), b["doc_count"].as_u64().unwrap())).collect();
            let fc: Vec<u64> = fb.iter().map(|x| x.1).collect();
            let tc: Vec<u64> = tb.iter().map(|x| x.1).collect();
            assert_eq!(fc, tc, "{name}: bucket counts differ: {fb:?} vs {tb:?}");
            if name == "terms_status" {
                assert_eq!(
                    fb.iter().map(|x| x.0.clone()).collect::<Vec<_>>(),
                    tb.iter().map(|x| x.0.clone()).collect::<Vec<_>>()
                );
                assert_eq!(f["sum_other_doc_count"], t["sum_other_doc_count"], "{name}");
            }
            assert!(fc.iter().sum::<u64>() > 0);
        }
        "date_histogram_hour_avg_size" => {
            // tantivy leaves out empty buckets unless asked; compare the non-empty ones.
            let nonempty = |v: &Value| -> Vec<(i64, u64, f64)> {
                v["buckets"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|b| b["doc_count"].as_u64().unwrap() > 0)
                    .map(|b| {
                        (
                            b["key"].as_f64().unwrap() as i64,
                            b["doc_count"].as_u64().unwrap(),
                            b["s"]["value"].as_f64().unwrap_or(f64::NAN),
                        )
                    })
                    .collect()
            };
            let (fb, tb) = (nonempty(f), nonempty(t));
            assert_eq!(fb.len(), tb.len(), "{name}: bucket count");
            for (x, y) in fb.iter().zip(&tb) {
                assert_eq!((x.0, x.1), (y.0, y.1), "{name}");
                assert!(close(x.2, y.2, 1e-9), "{name}: {x:?} vs {y:?}");
            }
            assert_eq!(fb.iter().map(|x| x.1).sum::<u64>(), docs as u64);
        }
        "stats_size" => {
            assert_eq!(f["count"].as_u64(), t["count"].as_u64(), "{name}");
            assert_eq!(f["count"].as_u64(), Some(docs as u64));
            for k in ["min", "max", "avg", "sum"] {
                assert!(close(f[k].as_f64().unwrap(), t[k].as_f64().unwrap(), 1e-9), "{name}.{k}: {f} vs {t}");
            }
        }
        "percentiles_size" => {
            // Both are sketches (t-digest vs DDSketch): within 5% of each other, or both tiny.
            for p in ["50.0", "95.0", "99.0"] {
                let a = f["values"][p].as_f64().unwrap();
                let b = t["values"][p].as_f64().unwrap();
                assert!(close(a, b, 0.05) || (a - b).abs() < 50.0, "{name} p{p}: {a} vs {b}");
            }
        }
        "cardinality_clientip" => {
            let a = f["value"].as_f64().unwrap();
            let b = t["value"].as_f64().unwrap();
            assert!(close(a, b, 0.05), "{name}: {a} vs {b}");
        }
        _ => unreachable!(),
    }
}

fn bench(c: &mut Criterion) {
    let Some(lines) = Corpus::Logs.load_n(common::read_docs()) else { return };
    let t0 = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_string_lossy().to_string();
    let node = Node::start(NodeSettings::from_pairs(&[("path.data", data.as_str())]), "127.0.0.1:0".into())
        .expect("node starts");
    let ctxs = Arc::new(build_fathom(&node, &lines));
    let td = tempfile::tempdir().unwrap();
    let tantivy = common::tantivy_index(td.path(), Corpus::Logs, &lines, TantivyTokens::Fathom);
    let ids = tantivy.searchable_segment_ids().expect("segments");
    if ids.len() > 1 {
        let mut w: tantivy::IndexWriter = tantivy.writer_with_num_threads(1, 512 << 20).expect("writer");
        w.merge(&ids).wait().expect("merge");
        w.wait_merging_threads().expect("merges");
    }
    eprintln!("aggregations: {} docs in both engines, one segment each, built in {:.1?}", lines.len(), t0.elapsed());
    let only = std::env::var("FATHOM_AGG_CASES").ok();
    let mut g = c.benchmark_group("aggregations");
    g.sample_size(10);
    for (name, freq, treq) in cases() {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|x| x == name)) {
            continue;
        }
        let mut req =
            SearchRequest::from_body(json!({"size": 0, "track_total_hits": false, "aggs": freq})).expect("request");
        // Collected each time: the shard request cache would answer a repeated `size: 0` search.
        req.request_cache = Some(false);
        let f = fathom_aggs(&ctxs, &req);
        let t = tantivy_aggs(&tantivy, &treq);
        check(name, &f, &t, lines.len());
        g.bench_function(format!("{name}/fathom"), |b| {
            b.iter(|| {
                let v = fathom_aggs(&ctxs, &req);
                assert_eq!(v, f);
                black_box(v)
            })
        });
        g.bench_function(format!("{name}/tantivy"), |b| {
            b.iter(|| {
                let v = tantivy_aggs(&tantivy, &treq);
                assert_eq!(v, t);
                black_box(v)
            })
        });
    }
    g.finish();
    drop(ctxs);
    node.shutdown();
}

criterion_group!(benches, bench);
criterion_main!(benches);
