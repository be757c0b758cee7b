//! The dfs round over real shards: one node's shards apart, with the round's sums in force,
//! score as the same shards searched together (the single-node `dfs_query_then_fetch`).

use std::sync::Arc;

use serde_json::json;

use super::super::context::acquire;
use super::super::execute::search_contexts;
use super::*;
use crate::cluster::resolve::IndicesOptions;
use crate::cluster::{CreateIndex, NodeIdentity};
use crate::shard::IndexOp;

/// Four shards; "fox" lives mostly in the documents that route to some of them.
fn contexts(dir: &std::path::Path) -> (Arc<ClusterService>, Vec<ShardContext>) {
    let node = NodeIdentity {
        cluster_name: "c".into(),
        node_name: "n".into(),
        node_id: "id".into(),
        roles: vec!["cluster_manager".into(), "data".into()],
        attributes: vec![],
        host: "127.0.0.1".into(),
        http_address: "127.0.0.1:0".into(),
    };
    let cs = ClusterService::open(dir, node).unwrap();
    let mut settings = std::collections::BTreeMap::new();
    settings.insert("index.number_of_shards".to_string(), json!("4"));
    settings.insert("index.number_of_replicas".to_string(), json!("0"));
    let mappings = Some(json!({"properties": {"t": {"type": "text"}}}));
    cs.create_index(CreateIndex { name: "i".into(), settings, mappings, ..Default::default() }).unwrap();
    let svc = cs.index("i").unwrap();
    for n in 0..40usize {
        let id = n.to_string();
        let text = if n % 3 == 0 { "fox fox brown".to_string() } else { format!("dog {}", "fox ".repeat(n % 2)) };
        let source = serde_json::to_vec(&json!({"t": text})).unwrap();
        let fields = svc.parse(&id, &source).unwrap().fields;
        let shard = svc.route(&id).unwrap().clone();
        shard.engine.index(IndexOp { id, source, fields, ..Default::default() }).unwrap();
    }
    for s in svc.shards() {
        s.refresh().unwrap();
    }
    let ctxs = acquire(&cs, "i", IndicesOptions::lenient_expand_open()).unwrap();
    (cs, ctxs)
}

fn scores(v: &serde_json::Value) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = v["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["_id"].as_str().unwrap().to_string(), h["_score"].as_f64().unwrap()))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn shards_apart_with_the_rounds_sums_score_as_shards_together() {
    let dir = tempfile::tempdir().unwrap();
    let (_cs, ctxs) = contexts(dir.path());
    for query in [
        json!({"match": {"t": "fox"}}),
        json!({"match": {"t": "brown fox dog"}}),
        json!({"match_phrase": {"t": "fox brown"}}),
        json!({"bool": {"should": [{"term": {"t": "dog"}}], "must": [{"match": {"t": "fox"}}]}}),
    ] {
        let body = json!({"query": query, "size": 40});
        let mut together = SearchRequest::from_body(body.clone()).unwrap();
        together.dfs = true;
        let expected = scores(&search_contexts(&ctxs, &together).unwrap());
        assert!(!expected.is_empty(), "{query}");

        // Each shard alone, as its node would run it with the coordinator's sums in force.
        let mut stats = DfsStats::default();
        for c in &ctxs {
            stats.merge(&node_dfs(std::slice::from_ref(c), &together).unwrap());
        }
        let mut apart = SearchRequest::from_body(body.clone()).unwrap();
        apart.dfs_stats = Some(Arc::new(stats));
        let mut got = Vec::new();
        for c in &ctxs {
            got.extend(scores(&search_contexts(std::slice::from_ref(c), &apart).unwrap()));
        }
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(got, expected, "{query}");

        // Without them each shard scores by its own statistics.
        let plain = SearchRequest::from_body(body).unwrap();
        let mut own = Vec::new();
        for c in &ctxs {
            own.extend(scores(&search_contexts(std::slice::from_ref(c), &plain).unwrap()));
        }
        own.sort_by(|a, b| a.0.cmp(&b.0));
        assert_ne!(own, expected, "{query}");
    }
}

#[test]
fn the_round_counts_every_shards_documents() {
    let dir = tempfile::tempdir().unwrap();
    let (_cs, ctxs) = contexts(dir.path());
    let req = SearchRequest::from_body(json!({"query": {"match": {"t": "fox"}}})).unwrap();
    let s = node_dfs(&ctxs, &req).unwrap();
    assert_eq!(s.max_doc, 40);
    assert_eq!(s.fields["t"].doc_count, 40);
    // Documents 0, 3, ... (14 of them) and the odd ones not divisible by 3 (13) hold "fox".
    assert_eq!(s.terms[&("t".to_string(), b"fox".to_vec())].doc_freq, 14 + 13);
}
