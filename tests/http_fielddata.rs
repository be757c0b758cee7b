//! Fielddata over real HTTP: a text field with `fielddata: true` aggregates on its uninverted
//! terms, which the node keeps per segment under the `fielddata` breaker (`_stats` fielddata,
//! `_nodes/stats/breaker`), a low limit refuses the load with 429, and `_cache/clear?fielddata`
//! gives the bytes back. Without `fielddata: true` the aggregation is refused as in OpenSearch.

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::{json, Value};

fn fielddata_breaker(addr: std::net::SocketAddr) -> Value {
    let v = get(addr, "/_nodes/stats/breaker").json();
    v["nodes"].as_object().unwrap().values().next().unwrap()["breakers"]["fielddata"].clone()
}

fn index_fielddata(addr: std::net::SocketAddr) -> Value {
    let r = get(addr, "/docs/_stats/fielddata?fielddata_fields=body");
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["indices"]["docs"]["total"]["fielddata"].clone()
}

#[test]
fn text_fielddata_aggregates_is_cached_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mapping = r#"{"settings":{"number_of_shards":1,"number_of_replicas":0},
        "mappings":{"properties":{"body":{"type":"text","fielddata":true},"plain":{"type":"text"}}}}"#;
    assert_eq!(put(s.addr, "/docs", mapping).status, 200);
    for (i, t) in ["the quick brown fox", "the lazy dog", "quick quick dog"].iter().enumerate() {
        let r = put(s.addr, &format!("/docs/_doc/{i}"), &json!({"body": t, "plain": t}).to_string());
        assert_eq!(r.status, 201);
    }
    assert_eq!(post(s.addr, "/docs/_refresh", "").status, 200);
    assert_eq!(index_fielddata(s.addr)["memory_size_in_bytes"], json!(0));

    let terms = json!({"size": 0, "aggs": {"words": {"terms": {"field": "body", "size": 10}}}}).to_string();
    let r = post(s.addr, "/docs/_search?request_cache=false", &terms);
    assert_eq!(r.status, 200, "{}", r.text());
    let buckets: Vec<(String, u64)> = r.json()["aggregations"]["words"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["key"].as_str().unwrap().to_string(), b["doc_count"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        buckets,
        vec![
            ("dog".into(), 2),
            ("quick".into(), 2),
            ("the".into(), 2),
            ("brown".into(), 1),
            ("fox".into(), 1),
            ("lazy".into(), 1)
        ]
    );
    let loaded = index_fielddata(s.addr);
    let bytes = loaded["memory_size_in_bytes"].as_u64().unwrap();
    assert!(bytes > 0, "{loaded}");
    assert_eq!(loaded["fields"]["body"]["memory_size_in_bytes"], json!(bytes));
    assert!(fielddata_breaker(s.addr)["estimated_size_in_bytes"].as_u64().unwrap() >= bytes);
    let cat = get(s.addr, "/_cat/fielddata?format=json&bytes=b").json();
    assert_eq!(cat.as_array().unwrap().len(), 1, "{cat}");
    assert_eq!(cat[0]["field"], json!("body"));
    assert_eq!(cat[0]["size"], json!(bytes.to_string()));
    assert!(get(s.addr, "/_cat/fielddata/other?format=json").json().as_array().unwrap().is_empty());
    // A second search reuses what was loaded.
    assert_eq!(post(s.addr, "/docs/_search?request_cache=false", &terms).status, 200);
    assert_eq!(index_fielddata(s.addr)["memory_size_in_bytes"], json!(bytes));

    // Clearing gives the bytes back to the breaker.
    let r = post(s.addr, "/docs/_cache/clear?fielddata=true", "");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(index_fielddata(s.addr)["memory_size_in_bytes"], json!(0));
    assert_eq!(fielddata_breaker(s.addr)["estimated_size_in_bytes"], json!(0));

    // A limit the field does not fit under: 429, nothing kept.
    let r = put(s.addr, "/_cluster/settings", r#"{"transient":{"indices.breaker.fielddata.limit":"16b"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = post(s.addr, "/docs/_search?request_cache=false", &terms);
    assert_eq!(r.status, 429, "{}", r.text());
    let reason = r.json()["error"]["root_cause"][0]["reason"].as_str().unwrap().to_string();
    assert!(reason.starts_with("[fielddata] Data too large, data for [body] would be ["), "{reason}");
    assert_eq!(fielddata_breaker(s.addr)["tripped"], json!(1));
    assert_eq!(index_fielddata(s.addr)["memory_size_in_bytes"], json!(0));

    // Without fielddata: OpenSearch's refusal.
    let r = post(s.addr, "/docs/_search", r#"{"size":0,"aggs":{"p":{"terms":{"field":"plain"}}}}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("Text fields are not optimised for operations that require per-document field data"));
}
