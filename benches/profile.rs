//! The cost of the search profiler (issue 20): the same searches with `"profile": false` (the
//! path every unprofiled search takes: no timers, no wrapped collectors) and with
//! `"profile": true`, on a synthetic one-shard index of an in-process node (200,000 documents,
//! `$FATHOM_PROFILE_DOCS` to change it, force-merged to one segment).
//!
//! Cases: a `term` query with `size: 10` (top hits), and the same query with a `terms` on
//! `status` and a `max` under it (aggregations over a query that is not match_all, so no
//! aggregation counts from points). Each answer is checked against the unprofiled one (hits
//! and aggregations equal) before timing and inside every timed closure.
//!
//! `profile=false` unchanged against a build before the profiler: `"profile": false` was
//! accepted there too, so this file runs unchanged on such a build. Save a baseline there with
//! `cargo bench --bench profile -- --save-baseline before` and compare here with
//! `cargo bench --bench profile -- --baseline before 'profile/.*/off'`.

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fathom::bench_support::{acquire, search_contexts, IndicesOptions, SearchRequest, ShardContext};
use fathom::cluster::CreateIndex;
use fathom::node::{Node, NodeSettings};
use fathom::shard::IndexOp;
use serde_json::{json, Value};

fn build(node: &Node, docs: usize) -> Vec<ShardContext> {
    let cs = &node.cluster;
    let mut settings = std::collections::BTreeMap::new();
    settings.insert("index.number_of_shards".to_string(), json!("1"));
    settings.insert("index.number_of_replicas".to_string(), json!("0"));
    settings.insert("index.refresh_interval".to_string(), json!("-1"));
    cs.create_index(CreateIndex {
        name: "p".into(),
        settings,
        mappings: Some(json!({"dynamic": false, "properties": {
            "kind": {"type": "keyword"},
            "status": {"type": "integer"},
            "size": {"type": "integer"}
        }})),
        aliases: Vec::new(),
    })
    .expect("create");
    let svc = cs.index("p").expect("index");
    // A small deterministic generator (no corpus needed).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..docs {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let kind = ["a", "b", "c", "d"][(x % 4) as usize];
        let source = json!({"kind": kind, "status": 200 + (x >> 8) % 7, "size": (x >> 16) % 100_000}).to_string();
        let id = i.to_string();
        let fields = svc.parse(&id, source.as_bytes()).expect("parse").fields;
        let shard = svc.route(&id).expect("route").clone();
        shard.engine.index(IndexOp { id, source: source.into_bytes(), fields, ..Default::default() }).expect("index");
    }
    for s in svc.shards() {
        s.refresh().expect("refresh");
        s.engine.force_merge(1).expect("force merge");
        s.refresh().expect("refresh");
    }
    acquire(cs, "p", IndicesOptions::lenient_expand_open()).expect("contexts")
}

/// What must not change with profiling: hits and aggregations.
fn answer(ctxs: &[ShardContext], req: &SearchRequest) -> (Value, Value) {
    let v = search_contexts(ctxs, req).expect("search");
    (v["hits"].clone(), v["aggregations"].clone())
}

fn bench(c: &mut Criterion) {
    let docs = std::env::var("FATHOM_PROFILE_DOCS").ok().and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_string_lossy().to_string();
    let node = Node::start(NodeSettings::from_pairs(&[("path.data", data.as_str())]), "127.0.0.1:0".into())
        .expect("node starts");
    let ctxs = Arc::new(build(&node, docs));
    let query = json!({"term": {"kind": "b"}});
    let cases = [
        ("top10", json!({"size": 10, "query": query})),
        (
            "terms_max",
            json!({"size": 0, "query": query, "aggs": {"s": {"terms": {"field": "status"}, "aggs": {"m": {"max": {"field": "size"}}}}}}),
        ),
    ];
    let mut g = c.benchmark_group("profile");
    g.sample_size(20);
    for (name, body) in cases {
        let mut off = body.clone();
        off["profile"] = json!(false);
        let mut on = body.clone();
        on["profile"] = json!(true);
        let off = SearchRequest::from_body(off).expect("request");
        let on = SearchRequest::from_body(on).expect("request");
        let expected = answer(&ctxs, &off);
        assert_eq!(answer(&ctxs, &on), expected, "{name}: profiling changed the answer");
        g.bench_function(format!("{name}/off"), |b| {
            b.iter(|| {
                let a = answer(&ctxs, &off);
                assert_eq!(a, expected);
                black_box(a)
            })
        });
        g.bench_function(format!("{name}/on"), |b| {
            b.iter(|| {
                let a = answer(&ctxs, &on);
                assert_eq!(a, expected);
                black_box(a)
            })
        });
    }
    g.finish();
    drop(ctxs);
    node.shutdown();
}

criterion_group!(benches, bench);
criterion_main!(benches);
