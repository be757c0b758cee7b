//! `_search_shards` over real HTTP on one node: the shards a search would reach under
//! `routing`, `preference` and `slice`, the aliases an expression reaches an index through and
//! their combined filter, and OpenSearch's errors for what it does not take.

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::{json, Value};

fn shards_of(v: &Value) -> Vec<u64> {
    v["shards"].as_array().unwrap().iter().map(|g| g[0]["shard"].as_u64().unwrap()).collect()
}

#[test]
fn search_shards_reports_what_a_search_would_reach() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let body = json!({"settings": {"number_of_shards": 5, "number_of_replicas": 0},
        "aliases": {"plain": {}, "f1": {"filter": {"term": {"k": "a"}}}, "f2": {"filter": {"range": {"n": {"gte": 3}}}}}});
    assert_eq!(put(s.addr, "/logs", &body.to_string()).status, 200);
    assert_eq!(put(s.addr, "/other", r#"{"settings": {"number_of_shards": 1}}"#).status, 200);

    let v = get(s.addr, "/logs/_search_shards").json();
    assert_eq!(shards_of(&v), vec![0, 1, 2, 3, 4]);
    let node = v["shards"][0][0]["node"].as_str().unwrap().to_string();
    assert!(v["nodes"][&node]["transport_address"].is_string(), "{v}");
    assert_eq!(v["indices"]["logs"], json!({}));

    // All indices, sorted by name then shard.
    let v = get(s.addr, "/_search_shards").json();
    let pairs: Vec<(String, u64)> = v["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g[0]["index"].as_str().unwrap().to_string(), g[0]["shard"].as_u64().unwrap()))
        .collect();
    assert_eq!(pairs.first(), Some(&("logs".to_string(), 0)));
    assert_eq!(pairs.last(), Some(&("other".to_string(), 0)));

    // A routing value reaches the one shard a document with it lives on.
    assert_eq!(put(s.addr, "/logs/_doc/1?routing=user7&refresh=true", r#"{"k": "a"}"#).status, 201);
    let v = get(s.addr, "/logs/_search_shards?routing=user7").json();
    assert_eq!(v["shards"].as_array().unwrap().len(), 1);
    let hit = post(s.addr, "/logs/_search", r#"{"query": {"ids": {"values": ["1"]}}}"#).json();
    let shard_of_doc = hit["hits"]["hits"][0]["_shard"].as_str().map(str::to_string);
    if let Some(sd) = shard_of_doc {
        assert!(sd.ends_with(&format!("[{}]", shards_of(&v)[0])), "{sd} {v}");
    }
    // `_shards:` preference, then a slice of what it leaves.
    let v = get(s.addr, "/logs/_search_shards?preference=_shards:1,3,4").json();
    assert_eq!(shards_of(&v), vec![1, 3, 4]);
    let v = post(s.addr, "/logs/_search_shards?preference=_shards:1,3,4", r#"{"slice": {"id": 1, "max": 2}}"#).json();
    assert_eq!(shards_of(&v), vec![3]);

    // Aliases: one filtered alias shows its filter as OpenSearch prints it; two are ORed; an
    // unfiltered path (the index itself, or a plain alias) shows none.
    let v = get(s.addr, "/f1/_search_shards").json();
    assert_eq!(v["indices"]["logs"]["aliases"], json!(["f1"]));
    assert_eq!(v["indices"]["logs"]["filter"], json!({"term": {"k": {"value": "a", "boost": 1.0}}}));
    let v = get(s.addr, "/f1,f2/_search_shards").json();
    assert_eq!(v["indices"]["logs"]["aliases"], json!(["f1", "f2"]));
    assert_eq!(v["indices"]["logs"]["filter"]["bool"]["should"].as_array().map(Vec::len), Some(2), "{v}");
    let v = get(s.addr, "/f1,plain/_search_shards").json();
    assert_eq!(v["indices"]["logs"]["aliases"], json!(["f1", "plain"]));
    assert!(v["indices"]["logs"].get("filter").is_none(), "{v}");

    // Errors.
    let r = post(s.addr, "/logs/_search_shards", r#"{"query": {"match_all": {}}}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    let r = post(s.addr, "/logs/_search_shards", r#"{"slice": {"id": 2, "max": 2}}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    let r = get(s.addr, "/logs/_search_shards?preference=_bogus");
    assert_eq!(r.status, 400, "{}", r.text());
    let r = get(s.addr, "/missing/_search_shards?ignore_unavailable=false");
    assert_eq!(r.status, 404, "{}", r.text());
    let r = get(s.addr, "/logs/_search_shards?size=1");
    assert_eq!(r.status, 400, "{}", r.text());
}
