//! The shards of one search one after another (the baseline) vs in parallel on the search pool
//! (issue 16), in the same group, on the same multi-shard index: a node started in process
//! (`Node::start`, no HTTP), one index of `SHARDS` shards holding `DOCS` synthetic documents
//! (a fixed pseudo-random vocabulary with a skewed word frequency, so no corpus file is needed),
//! each shard refreshed to one segment.
//!
//! Both lines run `execute::search_contexts` as a task on a thread pool and wait for its answer:
//! - `sequential`: a pool of one thread (`fan_out` then has no helper: the units run one after
//!   another on the task's thread, as before issue 16);
//! - `parallel`: the node's own `search` pool (sized from the processor count).
//!
//! The query is an OR `match` of three frequent words with `size: 10` and exact total hits, so
//! every shard scores most of its documents. Before timing, both lines' responses are asserted
//! equal (same total, same ten hits in the same order, all shards successful) and each timed
//! response is checked for the expected total after the clock stops.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fathom::bench_support::{acquire, search_contexts, IndicesOptions, SearchRequest, ShardContext, ThreadPool};
use fathom::cluster::CreateIndex;
use fathom::node::{Node, NodeSettings};
use fathom::shard::IndexOp;
use serde_json::{json, Value};

const SHARDS: u32 = 4;
const DOCS: usize = 40_000;
const VOCABULARY: usize = 4_000;

/// A deterministic pseudo-random stream (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn word(i: usize) -> String {
    format!("w{i}")
}

/// A document of 20 to 80 words; word `k` is drawn with probability about `1 / (k + 1)`.
fn doc(r: &mut Lcg) -> Value {
    let n = 20 + (r.next() % 61) as usize;
    let words: Vec<String> = (0..n)
        .map(|_| {
            let u = (r.next() % 1_000_000) as f64 / 1_000_000.0;
            word(((VOCABULARY as f64).powf(u) as usize).saturating_sub(1).min(VOCABULARY - 1))
        })
        .collect();
    json!({"body": words.join(" "), "n": r.next() % 1000})
}

fn build(node: &Node) -> Vec<ShardContext> {
    let cs = &node.cluster;
    let mut settings = std::collections::BTreeMap::new();
    settings.insert("index.number_of_shards".to_string(), json!(SHARDS.to_string()));
    settings.insert("index.number_of_replicas".to_string(), json!("0"));
    settings.insert("index.refresh_interval".to_string(), json!("-1"));
    cs.create_index(CreateIndex {
        name: "bench".into(),
        settings,
        mappings: Some(json!({"properties": {"body": {"type": "text"}, "n": {"type": "long"}}})),
        aliases: Vec::new(),
    })
    .expect("create");
    let svc = cs.index("bench").expect("index");
    let mut r = Lcg(42);
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
    acquire(cs, "bench", IndicesOptions::lenient_expand_open()).expect("contexts")
}

/// Runs the search as a task on `pool` and returns its response.
fn search_on(pool: &ThreadPool, ctxs: &Arc<Vec<ShardContext>>, req: &Arc<SearchRequest>) -> Value {
    let (tx, rx) = mpsc::channel();
    let (c, q) = (ctxs.clone(), req.clone());
    pool.execute(move || {
        let _ = tx.send(search_contexts(&c, &q));
    })
    .expect("queued");
    rx.recv_timeout(Duration::from_secs(60)).expect("answered").expect("search ok")
}

fn hits_of(v: &Value) -> Vec<(String, String)> {
    v["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["_id"].as_str().unwrap().to_string(), h["_score"].to_string()))
        .collect()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_string_lossy().to_string();
    let node = Node::start(NodeSettings::from_pairs(&[("path.data", data.as_str())]), "127.0.0.1:0".into())
        .expect("node starts");
    let ctxs = Arc::new(build(&node));
    assert_eq!(ctxs.len(), SHARDS as usize);
    let req = Arc::new(
        SearchRequest::from_body(json!({
            "size": 10,
            "track_total_hits": true,
            "_source": false,
            "query": {"match": {"body": format!("{} {} {}", word(1), word(3), word(7))}}
        }))
        .expect("request"),
    );
    let one = ThreadPool::new("bench", "search", 1, 100);
    let seq = search_on(&one, &ctxs, &req);
    let par = search_on(&node.pools.search, &ctxs, &req);
    let total = seq["hits"]["total"]["value"].as_u64().unwrap();
    assert!(total > DOCS as u64 / 10, "the query matches much of the index: {total}");
    assert_eq!(seq["_shards"]["successful"], json!(SHARDS), "{seq}");
    assert_eq!(par["hits"]["total"], seq["hits"]["total"]);
    assert_eq!(par["_shards"], seq["_shards"]);
    assert_eq!(hits_of(&par), hits_of(&seq));
    assert_eq!(hits_of(&seq).len(), 10);
    println!(
        "search_shards: {SHARDS} shards, {DOCS} docs, {total} matching; search pool threads: {}",
        node.pools.search.stats().threads
    );

    let mut g = c.benchmark_group("search_shards");
    g.sample_size(30);
    g.bench_function("sequential", |b| {
        b.iter(|| {
            let v = search_on(&one, &ctxs, &req);
            assert_eq!(v["hits"]["total"]["value"].as_u64(), Some(total));
            black_box(v)
        })
    });
    g.bench_function("parallel", |b| {
        b.iter(|| {
            let v = search_on(&node.pools.search, &ctxs, &req);
            assert_eq!(v["hits"]["total"]["value"].as_u64(), Some(total));
            black_box(v)
        })
    });
    g.finish();
    drop(ctxs);
    node.shutdown();
}

criterion_group!(benches, bench);
criterion_main!(benches);
