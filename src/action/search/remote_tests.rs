//! A search across nodes against the same search on one node: the shards of one index split
//! into "nodes", each node's result through the wire form, merged by
//! [`node_result::finish`], gives the single-node body.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::*;
use crate::cluster::{ClusterService, CreateIndex, NodeIdentity};
use crate::shard::IndexOp;

/// Four shards of 80 documents in all.
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
    let mut settings = BTreeMap::new();
    settings.insert("index.number_of_shards".to_string(), json!("4"));
    settings.insert("index.number_of_replicas".to_string(), json!("0"));
    let mappings = Some(json!({"properties": {
        "t": {"type": "text"}, "n": {"type": "long"}, "g": {"type": "keyword"}, "v": {"type": "double"}
    }}));
    cs.create_index(CreateIndex { name: "i".into(), settings, mappings, ..Default::default() }).unwrap();
    let svc = cs.index("i").unwrap();
    for n in 0..80usize {
        let id = n.to_string();
        let words = ["alpha", "beta", "gamma", "delta"];
        let text = (0..=n % 7).map(|k| words[(n + k) % 4]).collect::<Vec<_>>().join(" ");
        let doc = json!({"t": text, "n": (n * 31) % 80, "g": format!("g{}", n % 5), "v": n as f64 / 4.0});
        let source = serde_json::to_vec(&doc).unwrap();
        let fields = svc.parse(&id, &source).unwrap().fields;
        let shard = svc.route(&id).unwrap().clone();
        shard.engine.index(IndexOp { id, source, fields, ..Default::default() }).unwrap();
    }
    for s in svc.shards() {
        s.refresh().unwrap();
    }
    let ctxs = context::acquire(&cs, "i", IndicesOptions::lenient_expand_open()).unwrap();
    assert_eq!(ctxs.len(), 4);
    (cs, ctxs)
}

fn without_took(mut v: Value) -> Value {
    v.as_object_mut().map(|o| o.remove("took"));
    v
}

/// The request as the coordinating node sends it to each node (and to its own shards).
fn node_request(req: &SearchRequest, shards: usize) -> SearchRequest {
    let mut sub: SearchRequest = serde_json::from_slice(&serde_json::to_vec(req).unwrap()).unwrap();
    if let Some(a) = &sub.aggs_source {
        sub.aggs = Some(Arc::new(super::super::aggs::parse::parse_aggs(a).unwrap()));
    }
    sub.from = 0;
    sub.size = req.from + req.size;
    sub.total_shards = Some(shards);
    sub
}

/// The search over `ctxs` split as `split` (shards per node), merged.
fn across(ctxs: &[ShardContext], split: &[usize], req: &SearchRequest) -> Value {
    let sub = node_request(req, ctxs.len());
    let mut parts = Vec::new();
    let mut at = 0;
    for n in split {
        let r = execute::node_search(&ctxs[at..at + n], &sub).unwrap();
        let wire = serde_json::to_vec(&to_wire(r, vec![])).unwrap();
        parts.push(from_wire(serde_json::from_slice(&wire).unwrap(), req));
        at += n;
    }
    without_took(node_result::finish(parts, req, Instant::now(), false).unwrap().into_value())
}

#[test]
fn node_results_merge_into_the_single_node_body() {
    let dir = tempfile::tempdir().unwrap();
    let (_cs, ctxs) = contexts(dir.path());
    let bodies = [
        json!({"size": 100}),
        json!({"query": {"match": {"t": "alpha gamma"}}, "from": 5, "size": 10}),
        json!({"sort": [{"n": "desc"}], "from": 3, "size": 7}),
        json!({"sort": [{"g": "asc"}, {"n": "asc"}], "from": 10, "size": 12, "track_scores": true,
               "query": {"match": {"t": "beta"}}}),
        json!({"size": 3, "aggs": {"g": {"terms": {"field": "g"}, "aggs": {"a": {"avg": {"field": "v"}}}},
                                   "s": {"sum": {"field": "n"}}}}),
        json!({"track_total_hits": 10, "size": 2}),
        json!({"query": {"match": {"t": "delta"}}, "min_score": 0.5, "size": 50}),
        json!({"terminate_after": 5, "size": 50}),
        json!({"query": {"match": {"t": "alpha"}}, "post_filter": {"term": {"g": "g1"}},
               "aggs": {"g": {"terms": {"field": "g"}}}}),
        json!({"collapse": {"field": "g"}, "sort": [{"n": "asc"}], "size": 4}),
        json!({"search_after": [40], "sort": [{"n": "asc"}], "size": 5}),
        json!({"query": {"match": {"t": "gamma"}}, "highlight": {"fields": {"t": {}}}, "size": 3}),
        json!({"query": {"match": {"t": "alpha"}}, "size": 8,
               "rescore": {"window_size": 5, "query": {"rescore_query": {"match": {"t": "beta"}}}}}),
        json!({"query": {"match": {"t": "delta"}}, "explain": true, "size": 4, "version": true}),
        json!({"query": {"match": {"t": "beta"}}, "sort": ["_score", {"n": "desc"}], "size": 6}),
        json!({"size": 5, "timeout": "10s", "track_total_hits": true, "sort": [{"v": {"order": "desc"}}]}),
    ];
    for body in bodies {
        let req = SearchRequest::from_body(body.clone()).unwrap();
        let one = without_took(execute::search_contexts(&ctxs, &req).unwrap());
        for split in [&[1, 2, 1][..], &[2, 2], &[1, 1, 1, 1], &[4]] {
            assert_eq!(across(&ctxs, split, &req), one, "{body} split {split:?}");
        }
    }
}

#[test]
fn a_node_that_fails_its_shards_leaves_partial_results_or_fails_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let (_cs, ctxs) = contexts(dir.path());
    let req = SearchRequest::from_body(json!({"size": 100})).unwrap();
    let sub = node_request(&req, 4);
    let down = OsError::new(ErrorKind::ConnectTransport, "[127.0.0.1:1] connect refused");
    assert!(node_result::fails_shards_only(&down));
    let lost = vec![("i".to_string(), 2), ("i".to_string(), 3)];
    let parts = vec![
        node_outcome(execute::node_search(&ctxs[..2], &sub), &ids(&ctxs[..2]), None).unwrap(),
        node_outcome(Err(down.clone()), &lost, Some("n2")).unwrap(),
    ];
    let v = node_result::finish(parts, &req, Instant::now(), false).unwrap().into_value();
    assert_eq!(v["_shards"]["total"], 4);
    assert_eq!(v["_shards"]["successful"], 2);
    assert_eq!(v["_shards"]["failed"], 2);
    assert_eq!(v["_shards"]["failures"][0]["reason"]["type"], "connect_transport_exception");
    assert_eq!(v["_shards"]["failures"][0]["node"], "n2");
    let local: u64 = ctxs[..2]
        .iter()
        .map(|c| c.reader.query().count(&crate::engine::query::Query::MatchAll { boost: 1.0 }).unwrap())
        .sum();
    assert_eq!(v["hits"]["hits"].as_array().unwrap().len() as u64, local);

    let parts = vec![node_outcome(Err(down.clone()), &lost, None).unwrap()];
    let e = node_result::finish(parts, &req, Instant::now(), false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::SearchPhaseExecution);
    assert_eq!(e.reason, "all shards failed");
    assert_eq!(e.caused_by.as_ref().unwrap().kind, ErrorKind::ConnectTransport);

    // A bad request fails the same on every node: it fails the search.
    let bad = OsError::parsing("unknown query [nope]");
    assert!(node_outcome(Err(bad), &lost, None).is_err());
}

#[test]
fn what_cannot_be_distributed_is_refused() {
    let req = SearchRequest::from_body(json!({"sort": ["_shard_doc"]})).unwrap();
    assert_eq!(refuse_across_nodes(&req).unwrap_err().status, 400);
    // dfs runs its round first (dfs_phase.rs), collapse expands its groups after (remote_collapse.rs);
    // through the contexts of a PIT or scroll across nodes they are refused.
    let dfs = SearchRequest { dfs: true, ..SearchRequest::default() };
    assert!(refuse_across_nodes(&dfs).is_ok());
    let expand = SearchRequest::from_body(json!({"collapse": {"field": "g", "inner_hits": {"name": "x"}}})).unwrap();
    assert!(refuse_across_nodes(&expand).is_ok());
    assert_eq!(refuse_contexts_across_nodes(&expand).unwrap_err().status, 400);
    // A scroll and a PIT run across nodes through their contexts (remote_scroll.rs, remote_pit.rs).
    let scroll = SearchRequest { scroll: Some(Duration::from_secs(60)), ..SearchRequest::default() };
    assert!(refuse_across_nodes(&scroll).is_ok());
    let pit = SearchRequest::from_body(json!({"pit": {"id": "x"}})).unwrap();
    assert!(refuse_across_nodes(&pit).is_ok());
    assert!(refuse_across_nodes(&SearchRequest::default()).is_ok());
    // A PIT or scroll across nodes sorts by `_shard_doc` and slices; a slice narrowed by
    // routing is refused there.
    let shard_doc = SearchRequest::from_body(json!({"sort": ["_shard_doc"]})).unwrap();
    assert!(refuse_contexts_across_nodes(&shard_doc).is_ok());
    let slice = SearchRequest::from_body(json!({"slice": {"id": 0, "max": 2}})).unwrap();
    assert!(refuse_contexts_across_nodes(&slice).is_ok());
    assert!(refuse_across_nodes(&slice).is_err());
    let routed = SearchRequest { routing: Some("r".into()), ..slice };
    assert!(refuse_contexts_across_nodes(&routed).is_err());
    assert!(refuse_contexts_across_nodes(&dfs).is_err());
}
