//! `_search` writes plain hits straight to bytes (the stored `_source` copied as it is);
//! `_msearch` renders the same search through a JSON tree. For every request shape, both give
//! the same hits, and a source keeps its exact bytes (key order, spacing, number forms).

mod common;

use common::http::{post, put, TestServer};
use serde_json::{json, Value};

/// The body without `took`, and without the source field `big`: a number beyond 64 bits, which
/// the tree rendering rounds through a double twice (the bytes path keeps it as written, as
/// OpenSearch does; checked below).
fn without_took(mut v: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.remove("took");
    }
    if let Some(hits) = v["hits"]["hits"].as_array_mut() {
        for h in hits {
            if let Some(src) = h.get_mut("_source").and_then(Value::as_object_mut) {
                src.remove("big");
            }
        }
    }
    v
}

#[test]
fn search_bytes_equal_the_tree_rendering() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(
        s.addr,
        "/b",
        r#"{"settings":{"number_of_shards":2,"number_of_replicas":0},"mappings":{"properties":{"body":{"type":"text"},"n":{"type":"long"},"k":{"type":"keyword"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let docs = [
        (
            r#"{"index":{"_id":"1"}}"#,
            r#"{"body":"alpha beta","n":1,"k":"x","u":"é \"q\" \\ \u00e9","z":{"a":[1,2.5],"b":null}}"#,
        ),
        (r#"{"index":{"_id":"2","routing":"r1"}}"#, r#"{"body":"alpha","n":2,"k":"y"}"#),
        (r#"{"index":{"_id":"é/3"}}"#, r#"{"n":3,"body":"beta gamma alpha alpha"}"#),
        (r#"{"index":{"_id":"4"}}"#, r#"{"body":"gamma","n":4,"k":"x","big":123456789012345678901}"#),
    ];
    let mut b = String::new();
    for (a, d) in docs {
        b.push_str(a);
        b.push('\n');
        b.push_str(d);
        b.push('\n');
    }
    let r = common::http::send(
        s.addr,
        "POST",
        "/b/_bulk?refresh=true",
        Some(b.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], json!(false), "{}", r.text());
    let bodies = [
        json!({"query": {"match": {"body": "alpha"}}}),
        json!({"query": {"match": {"body": "alpha gamma"}}, "_source": false}),
        json!({"query": {"match_all": {}}, "version": true, "seq_no_primary_term": true}),
        json!({"query": {"match_all": {}}, "sort": [{"n": "desc"}], "size": 3}),
        json!({"query": {"match_all": {}}, "sort": [{"k": "asc"}, "_score"], "track_scores": true}),
        json!({"query": {"match_all": {}}, "_source": ["n"], "track_total_hits": false}),
        json!({"query": {"term": {"k": "x"}}, "explain": true}),
        json!({"query": {"term": {"k": "x"}}, "stored_fields": ["_none_"]}),
        json!({"query": {"match": {"body": "beta"}}, "docvalue_fields": ["n"], "highlight": {"fields": {"body": {}}}}),
        json!({"query": {"match": {"body": "nothing-here"}}}),
        json!({"from": 2, "size": 1, "query": {"match_all": {}}, "terminate_after": 10}),
    ];
    for body in bodies {
        let direct = post(s.addr, "/b/_search", &body.to_string());
        assert_eq!(direct.status, 200, "{body}: {}", direct.text());
        let ms = format!("{{\"index\":\"b\"}}\n{body}\n");
        let multi = common::http::send(
            s.addr,
            "POST",
            "/_msearch",
            Some(ms.as_bytes()),
            &[("Content-Type", "application/x-ndjson")],
        );
        assert_eq!(multi.status, 200, "{}", multi.text());
        let tree = multi.json()["responses"][0].clone();
        let mut tree = without_took(tree);
        if let Some(m) = tree.as_object_mut() {
            m.remove("status");
        }
        assert_eq!(without_took(direct.json()), tree, "{body}");
        // The pretty (generic) rendering is the same document.
        let pretty = post(s.addr, "/b/_search?pretty", &body.to_string());
        assert_eq!(without_took(pretty.json()), without_took(direct.json()), "{body}");
    }
    // A source comes back byte for byte.
    let r = post(s.addr, "/b/_search", r#"{"query":{"ids":{"values":["1"]}}}"#);
    let text = r.text();
    assert!(text.contains(docs[0].1), "{text}");
    let r = post(s.addr, "/b/_search", r#"{"query":{"ids":{"values":["4"]}}}"#);
    assert!(r.text().contains("\"big\":123456789012345678901"), "{}", r.text());
}
