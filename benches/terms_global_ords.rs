//! A `terms` aggregation on a keyword field over a many-segment shard: collected by global
//! ordinals (the default, built once per reader and then cached as fielddata) against the
//! `map` execution (each segment's terms hashed into the buckets) as the baseline, in the same
//! group. Synthetic documents (no corpus needed): 200k docs in 10 segments, 20k distinct
//! values. Both answers are compared before timing and every timed answer is checked. The
//! shard request cache is off (it would answer a repeated `size: 0` search without collecting).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fathom::bench_support::{acquire, search_contexts, IndicesOptions, SearchRequest};
use fathom::cluster::CreateIndex;
use fathom::node::{Node, NodeSettings};
use fathom::shard::IndexOp;
use serde_json::{json, Value};

const DOCS: usize = 200_000;
const SEGMENTS: usize = 10;
const DISTINCT: u64 = 20_000;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_string_lossy().to_string();
    let node = Node::start(NodeSettings::from_pairs(&[("path.data", data.as_str())]), "127.0.0.1:0".into())
        .expect("node starts");
    let cs = &node.cluster;
    let mut settings = std::collections::BTreeMap::new();
    settings.insert("index.number_of_shards".to_string(), json!("1"));
    settings.insert("index.number_of_replicas".to_string(), json!("0"));
    settings.insert("index.refresh_interval".to_string(), json!("-1"));
    cs.create_index(CreateIndex {
        name: "kw".into(),
        settings,
        mappings: Some(json!({"properties": {"k": {"type": "keyword"}}})),
        aliases: Vec::new(),
    })
    .expect("create");
    let svc = cs.index("kw").expect("index");
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..DOCS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let id = i.to_string();
        let source = json!({"k": format!("v{:06}", x % DISTINCT)}).to_string().into_bytes();
        let fields = svc.parse(&id, &source).expect("parse").fields;
        let shard = svc.route(&id).expect("route").clone();
        shard.engine.index(IndexOp { id, source, fields, ..Default::default() }).expect("index");
        if (i + 1) % (DOCS / SEGMENTS) == 0 {
            shard.refresh().expect("refresh");
        }
    }
    let ctxs = acquire(cs, "kw", IndicesOptions::lenient_expand_open()).expect("contexts");
    let run = |hint: &str| -> Value {
        let req = SearchRequest::from_body(json!({"size": 0, "track_total_hits": false,
            "aggs": {"a": {"terms": {"field": "k", "size": 10, "execution_hint": hint}}}}))
        .map(|mut r| {
            r.request_cache = Some(false);
            r
        })
        .expect("request");
        search_contexts(&ctxs, &req).expect("search")["aggregations"]["a"].clone()
    };
    let want = run("map");
    assert_eq!(run("global_ordinals"), want);
    assert_eq!(want["buckets"].as_array().map(Vec::len), Some(10), "{want}");
    let mut g = c.benchmark_group("terms_keyword_10_segments");
    g.sample_size(20);
    for hint in ["map", "global_ordinals"] {
        g.bench_function(hint, |b| {
            b.iter(|| {
                let v = run(hint);
                assert_eq!(v, want);
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
