//! `terminate_after` counts per shard in `_search` as in `_count` (OpenSearch's
//! `EarlyTerminatingCollector` runs in each shard): each shard collects its first N matches in
//! index order, the total is the sum, and the response is `terminated_early` when any shard had
//! more.

mod common;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

fn search(s: &TestServer, path: &str, body: Value) -> Value {
    let r = post(s.addr, path, &body.to_string());
    assert_eq!(r.status, 200, "{}", r.json());
    r.json()
}

#[test]
fn terminate_after_counts_per_shard() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/two", r#"{"settings": {"number_of_shards": 2}}"#).status, 200);
    for i in 0..20 {
        assert_eq!(put(s.addr, &format!("/two/_doc/{i}"), r#"{"f": "a"}"#).status, 201);
    }
    assert_eq!(post(s.addr, "/two/_refresh", "").status, 200);
    // Both shards hold documents: each collects one.
    let c = search(&s, "/two/_count?terminate_after=1", json!({}));
    assert_eq!((c["count"].clone(), c["terminated_early"].clone()), (json!(2), json!(true)), "{c}");
    let b = search(&s, "/two/_search?terminate_after=1", json!({"query": {"match": {"f": "a"}}}));
    assert_eq!(b["hits"]["total"]["value"], json!(2), "{b}");
    assert_eq!(b["hits"]["hits"].as_array().unwrap().len(), 2, "{b}");
    assert_eq!(b["terminated_early"], json!(true), "{b}");
    // Enough for every shard: nothing terminated.
    let b = search(&s, "/two/_search", json!({"terminate_after": 15, "size": 0}));
    assert_eq!((b["hits"]["total"]["value"].clone(), b["terminated_early"].clone()), (json!(20), json!(false)), "{b}");
    let c = search(&s, "/two/_count?terminate_after=15", json!({}));
    assert_eq!((c["count"].clone(), c["terminated_early"].clone()), (json!(20), json!(false)), "{c}");
}

#[test]
fn a_shard_collects_its_first_matches_in_index_order() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/one", r#"{"settings": {"number_of_shards": 1}}"#).status, 200);
    for (id, f) in [("1", "a b c"), ("2", "a b c"), ("3", "a a a a")] {
        assert_eq!(put(s.addr, &format!("/one/_doc/{id}"), &json!({ "f": f }).to_string()).status, 201);
    }
    assert_eq!(post(s.addr, "/one/_refresh", "").status, 200);
    // The best-scoring document comes third: it is never collected.
    let b = search(&s, "/one/_search", json!({"terminate_after": 2, "query": {"match": {"f": "a"}}}));
    let ids: Vec<&str> = b["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2, "{b}");
    assert!(!ids.contains(&"3"), "{b}");
    assert_eq!((b["hits"]["total"]["value"].clone(), b["terminated_early"].clone()), (json!(2), json!(true)), "{b}");
}
