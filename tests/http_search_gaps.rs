//! Issue 4's last gaps over HTTP: scroll pages continue after each shard's last emitted hit
//! (ties included, `hits.total` the first page's), `timeout` inside a segment's collection, and
//! `wildcard` / `prefix` / `regexp` on `text` fields as OpenSearch 3.3 builds them (the pattern
//! is not normalized; `case_insensitive` matches regardless of case).

mod common;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

fn bulk(s: &TestServer, index: &str, docs: &[Value]) {
    let mut b = String::new();
    for (i, d) in docs.iter().enumerate() {
        b.push_str(&format!("{{\"index\":{{\"_id\":\"{i}\"}}}}\n{d}\n"));
    }
    let r = common::http::send(
        s.addr,
        "POST",
        &format!("/{index}/_bulk?refresh=true"),
        Some(b.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], json!(false), "{}", r.text());
}

fn ids(v: &Value) -> Vec<String> {
    v["hits"]["hits"]
        .as_array()
        .map(|a| a.iter().filter_map(|h| h["_id"].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

#[test]
fn scroll_pages_through_ties_and_keeps_the_first_total() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(
        s.addr,
        "/sc",
        r#"{"settings":{"number_of_shards":2,"number_of_replicas":0},"mappings":{"properties":{"body":{"type":"text"},"k":{"type":"keyword"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // Equal scores everywhere (same body), and many equal sort keys.
    let docs: Vec<Value> = (0..53).map(|i| json!({"body": "same words here", "k": format!("k{}", i % 4)})).collect();
    bulk(&s, "sc", &docs);
    for body in [
        json!({"size": 5, "query": {"match": {"body": "words"}}}),
        json!({"size": 7, "query": {"match_all": {}}, "sort": [{"k": "asc"}]}),
        json!({"size": 4, "sort": ["_doc"]}),
    ] {
        let first = post(s.addr, "/sc/_search?scroll=1m", &body.to_string()).json();
        assert_eq!(first["hits"]["total"], json!({"value": 53, "relation": "eq"}), "{first}");
        let mut all = ids(&first);
        let mut sid = first["_scroll_id"].as_str().expect("scroll id").to_string();
        // A document indexed after the scroll opened is not seen, and the total stays.
        bulk(&s, "sc", &[json!({"body": "same words here", "k": "k0"})]);
        for _ in 0..40 {
            let page = post(s.addr, "/_search/scroll", &json!({"scroll": "1m", "scroll_id": sid}).to_string()).json();
            assert_eq!(page["hits"]["total"], json!({"value": 53, "relation": "eq"}), "{page}");
            let got = ids(&page);
            if got.is_empty() {
                break;
            }
            all.extend(got);
            sid = page["_scroll_id"].as_str().expect("scroll id").to_string();
        }
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 53, "every doc exactly once for {body}: {all:?}");
        assert_eq!(all.len(), 53, "{body}");
        let r = common::http::send(s.addr, "DELETE", "/_search/scroll/_all", None, &[]);
        assert_eq!(r.status, 200, "{}", r.text());
    }
    // The sort order is kept across pages.
    let first = post(s.addr, "/sc/_search?scroll=1m", &json!({"size": 10, "sort": [{"k": "desc"}]}).to_string()).json();
    let mut keys: Vec<String> =
        first["hits"]["hits"].as_array().unwrap().iter().map(|h| h["sort"][0].as_str().unwrap().to_string()).collect();
    let sid = first["_scroll_id"].as_str().unwrap().to_string();
    let page = post(s.addr, "/_search/scroll", &json!({"scroll": "1m", "scroll_id": sid}).to_string()).json();
    keys.extend(page["hits"]["hits"].as_array().unwrap().iter().map(|h| h["sort"][0].as_str().unwrap().to_string()));
    let mut want = keys.clone();
    want.sort_by(|a, b| b.cmp(a));
    assert_eq!(keys, want);
}

#[test]
fn tiny_timeout_returns_partial_hits_timed_out() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(
        s.addr,
        "/big",
        r#"{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"body":{"type":"text"},"n":{"type":"long"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let docs: Vec<Value> =
        (0..30_000).map(|i| json!({"body": if i % 3 == 0 { "alpha beta" } else { "alpha gamma" }, "n": i})).collect();
    for chunk in docs.chunks(10_000) {
        let mut b = String::new();
        for d in chunk {
            b.push_str(&format!("{{\"index\":{{}}}}\n{d}\n"));
        }
        let r = common::http::send(
            s.addr,
            "POST",
            "/big/_bulk",
            Some(b.as_bytes()),
            &[("Content-Type", "application/x-ndjson")],
        );
        assert_eq!(r.status, 200);
    }
    assert_eq!(post(s.addr, "/big/_refresh", "").status, 200);
    for body in [
        json!({"timeout": "1micros", "size": 3, "track_total_hits": true, "query": {"match": {"body": "alpha"}}}),
        json!({"timeout": "1micros", "size": 3, "track_total_hits": true, "query": {"match_all": {}}, "sort": [{"n": "desc"}]}),
    ] {
        let v = post(s.addr, "/big/_search", &body.to_string()).json();
        assert_eq!(v["timed_out"], json!(true), "{v}");
        assert_eq!(v["_shards"]["failed"], json!(0), "{v}");
        let total = v["hits"]["total"]["value"].as_u64().expect("total");
        assert!(total < 30_000, "collection stopped early: {v}");
        assert_eq!(ids(&v).len(), 3, "partial top hits: {v}");
        let mut full = body.clone();
        full.as_object_mut().unwrap().remove("timeout");
        let v = post(s.addr, "/big/_search", &full.to_string()).json();
        assert_eq!(v["timed_out"], json!(false));
        assert_eq!(v["hits"]["total"]["value"], json!(30_000));
    }
}

#[test]
fn wildcard_prefix_regexp_on_text_are_not_normalized() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(
        s.addr,
        "/w",
        r#"{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"body":{"type":"text"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    bulk(&s, "w", &[json!({"body": "Quick Brown Fox"}), json!({"body": "lazy dog"})]);
    let count = |q: Value| -> usize {
        let r = post(s.addr, "/w/_search", &json!({"query": q}).to_string());
        assert_eq!(r.status, 200, "{}", r.text());
        ids(&r.json()).len()
    };
    // The index holds lowercased terms; the DSL's pattern is used as given.
    assert_eq!(count(json!({"wildcard": {"body": "qu*k"}})), 1);
    assert_eq!(count(json!({"wildcard": {"body": "Qu*k"}})), 0);
    assert_eq!(count(json!({"wildcard": {"body": {"value": "Qu*K", "case_insensitive": true}}})), 1);
    assert_eq!(count(json!({"prefix": {"body": "Bro"}})), 0);
    assert_eq!(count(json!({"prefix": {"body": {"value": "Bro", "case_insensitive": true}}})), 1);
    assert_eq!(count(json!({"regexp": {"body": "F.x"}})), 0);
    assert_eq!(count(json!({"regexp": {"body": "f.x"}})), 1);
    assert_eq!(count(json!({"regexp": {"body": {"value": "F.X", "case_insensitive": true}}})), 1);
    // query_string normalizes its wildcard terms (`normalizedWildcardQuery`).
    assert_eq!(count(json!({"query_string": {"query": "body:Qu*k"}})), 1);
    assert_eq!(count(json!({"query_string": {"query": "body:BRO*"}})), 1);
}
