//! A repeated filtered search with the node query cache (`cached`) and without it
//! (`uncached`: the same documents in an index with `index.queries.cache.enabled: false`), in
//! the same group: a node started in process (no HTTP), two one-shard indices of `DOCS`
//! synthetic documents each refreshed to one segment (large enough for Lucene's segment rule:
//! at least 10,000 documents, so the node's default settings cache on it).
//!
//! The search scores a one-word `match` and filters on a wide `range` of `n` and a `terms` of
//! `tag` (`size: 10`, exact totals). Before timing both indices' responses are asserted equal;
//! the `cached` line asserts after the clock stops that its searches were answered from the
//! cache (the shard's hit count grew) and the `uncached` line that its index never counted one.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fathom::bench_support::{acquire, search_contexts, IndicesOptions, SearchRequest, ShardContext, ThreadPool};
use fathom::cluster::CreateIndex;
use fathom::node::{Node, NodeSettings};
use fathom::shard::IndexOp;
use serde_json::{json, Value};

const DOCS: usize = 60_000;

/// A deterministic pseudo-random stream (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn doc(r: &mut Lcg) -> Value {
    let words: Vec<String> = (0..10).map(|_| format!("w{}", r.next() % 50)).collect();
    json!({"body": words.join(" "), "n": r.next() % 100_000, "tag": format!("t{}", r.next() % 20)})
}

fn build(node: &Node, name: &str, cache: bool) -> Vec<ShardContext> {
    let cs = &node.cluster;
    let mut settings = std::collections::BTreeMap::new();
    settings.insert("index.number_of_shards".to_string(), json!("1"));
    settings.insert("index.number_of_replicas".to_string(), json!("0"));
    settings.insert("index.refresh_interval".to_string(), json!("-1"));
    settings.insert("index.queries.cache.enabled".to_string(), json!(cache.to_string()));
    cs.create_index(CreateIndex {
        name: name.into(),
        settings,
        mappings: Some(
            json!({"properties": {"body": {"type": "text"}, "n": {"type": "long"}, "tag": {"type": "keyword"}}}),
        ),
        aliases: Vec::new(),
    })
    .expect("create");
    let svc = cs.index(name).expect("index");
    let mut r = Lcg(7);
    for i in 0..DOCS {
        let id = i.to_string();
        let source = serde_json::to_vec(&doc(&mut r)).unwrap();
        let fields = svc.parse(&id, &source).expect("parse").fields;
        let shard = svc.route(&id).expect("route").clone();
        shard.engine.index(IndexOp { id, source, fields, ..Default::default() }).expect("index");
    }
    for s in svc.shards() {
        s.refresh().expect("refresh");
    }
    acquire(cs, name, IndicesOptions::lenient_expand_open()).expect("contexts")
}

fn search_on(pool: &ThreadPool, ctxs: &Arc<Vec<ShardContext>>, req: &Arc<SearchRequest>) -> Value {
    let (tx, rx) = mpsc::channel();
    let (c, q) = (ctxs.clone(), req.clone());
    pool.execute(move || {
        let _ = tx.send(search_contexts(&c, &q));
    })
    .expect("queued");
    rx.recv_timeout(Duration::from_secs(60)).expect("answered").expect("search ok")
}

fn hits(node: &Node, index: &str) -> u64 {
    let svc = node.cluster.index(index).expect("index");
    svc.shards().iter().map(|s| s.query_cache.stats().hit_count).sum()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_string_lossy().to_string();
    let node = Node::start(NodeSettings::from_pairs(&[("path.data", data.as_str())]), "127.0.0.1:0".into())
        .expect("node starts");
    let cached = Arc::new(build(&node, "cached", true));
    let uncached = Arc::new(build(&node, "uncached", false));
    let req = Arc::new(
        SearchRequest::from_body(json!({
            "size": 10,
            "track_total_hits": true,
            "_source": false,
            "query": {"bool": {
                "must": [{"match": {"body": "w3"}}],
                "filter": [
                    {"range": {"n": {"gte": 5_000, "lt": 95_000}}},
                    {"terms": {"tag": ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10"]}}
                ]
            }}
        }))
        .expect("request"),
    );
    let pool = &node.pools.search;
    let expect = search_on(pool, &uncached, &req);
    for _ in 0..3 {
        let v = search_on(pool, &cached, &req);
        assert_eq!(v["hits"]["total"], expect["hits"]["total"]);
        assert_eq!(
            v["hits"]["hits"].to_string().replace("\"cached\"", "\"uncached\""),
            expect["hits"]["hits"].to_string()
        );
    }
    let total = expect["hits"]["total"]["value"].as_u64().unwrap();
    assert!(total > 1000, "{expect}");
    assert!(hits(&node, "cached") > 0, "the repeated filters were cached");
    println!("query_cache: {DOCS} docs, {total} matching");

    let mut g = c.benchmark_group("query_cache");
    g.sample_size(30);
    g.bench_function("uncached", |b| {
        b.iter(|| {
            let v = search_on(pool, &uncached, &req);
            assert_eq!(v["hits"]["total"]["value"].as_u64(), Some(total));
            black_box(v)
        })
    });
    assert_eq!(hits(&node, "uncached"), 0);
    let before = hits(&node, "cached");
    g.bench_function("cached", |b| {
        b.iter(|| {
            let v = search_on(pool, &cached, &req);
            assert_eq!(v["hits"]["total"]["value"].as_u64(), Some(total));
            black_box(v)
        })
    });
    assert!(hits(&node, "cached") > before, "the timed searches hit the cache");
    g.finish();
    drop((cached, uncached));
    node.shutdown();
}

criterion_group!(benches, bench);
criterion_main!(benches);
