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

fn buckets(addr: std::net::SocketAddr, agg: Value) -> Value {
    let body = json!({"size": 0, "aggs": {"t": agg}}).to_string();
    let r = post(addr, "/tags/_search?request_cache=false", &body);
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["aggregations"]["t"].clone()
}

/// A keyword terms aggregation over several segments collects by global ordinals (kept as the
/// field's fielddata) and gives exactly the buckets of the `map` execution.
#[test]
fn global_ordinals_match_map_execution_and_are_cached() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mapping = r#"{"settings":{"number_of_shards":1,"number_of_replicas":0},
        "mappings":{"properties":{"tag":{"type":"keyword"},"n":{"type":"long"}}}}"#;
    assert_eq!(put(s.addr, "/tags", mapping).status, 200);
    let words = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen"];
    let mut id = 0;
    for seg in 0..5usize {
        for i in 0..7usize {
            let a = words[(seg * 3 + i) % words.len()];
            let b = words[(seg + i * 5) % words.len()];
            let doc = if i % 3 == 0 { json!({"tag": [a, b], "n": i}) } else { json!({"tag": a, "n": seg}) };
            assert_eq!(put(s.addr, &format!("/tags/_doc/{id}"), &doc.to_string()).status, 201);
            id += 1;
        }
        assert_eq!(post(s.addr, "/tags/_refresh", "").status, 200);
    }
    assert_eq!(common::http::delete(s.addr, "/tags/_doc/3").status, 200);
    assert_eq!(post(s.addr, "/tags/_refresh", "").status, 200);
    let segs = get(s.addr, "/tags/_segments").json();
    let n = segs["indices"]["tags"]["shards"]["0"][0]["segments"].as_object().unwrap().len();
    assert!(n > 1, "{segs}");

    let field = || {
        get(s.addr, "/tags/_stats/fielddata?fielddata_fields=tag").json()["indices"]["tags"]["total"]["fielddata"]
            .clone()
    };
    assert_eq!(field()["memory_size_in_bytes"], json!(0));
    let max = json!({"m": {"max": {"field": "n"}}});
    let shapes = [
        json!({"terms": {"field": "tag"}}),
        json!({"terms": {"field": "tag", "size": 3, "order": {"_key": "desc"}}}),
        json!({"terms": {"field": "tag", "include": "[a-e].*"}, "aggs": max}),
        json!({"terms": {"field": "tag", "min_doc_count": 0, "missing": "zzz"}}),
        json!({"terms": {"field": "tag", "order": {"m": "asc"}}, "aggs": max}),
        json!({"filter": {"range": {"n": {"gte": 1}}}, "aggs": {"in": {"terms": {"field": "tag"}}}}),
        json!({"terms": {"field": "n"}, "aggs": {"in": {"terms": {"field": "tag"}}}}),
    ];
    for shape in &shapes {
        let hinted = |h: &str| {
            let mut a = shape.clone();
            let inner = if a.get("terms").is_some_and(|t| t["field"] == json!("tag")) {
                &mut a["terms"]
            } else {
                &mut a["aggs"]["in"]["terms"]
            };
            inner["execution_hint"] = json!(h);
            a
        };
        let (d, g, m) = (
            buckets(s.addr, shape.clone()),
            buckets(s.addr, hinted("global_ordinals")),
            buckets(s.addr, hinted("map")),
        );
        assert_eq!(d, m, "{shape}");
        assert_eq!(g, m, "{shape}");
        assert!(m.to_string().contains("\"doc_count\":"), "{m}");
    }
    let loaded = field();
    let bytes = loaded["memory_size_in_bytes"].as_u64().unwrap();
    assert!(bytes > 0, "{loaded}");
    assert_eq!(loaded["fields"]["tag"]["memory_size_in_bytes"], json!(bytes));
    // Searched again on the same reader: the same entry, not a second one.
    buckets(s.addr, json!({"terms": {"field": "tag"}}));
    assert_eq!(field()["memory_size_in_bytes"], json!(bytes));

    assert_eq!(post(s.addr, "/tags/_cache/clear?fielddata=true", "").status, 200);
    assert_eq!(field()["memory_size_in_bytes"], json!(0));
    buckets(s.addr, json!({"terms": {"field": "tag", "execution_hint": "map"}}));
    assert_eq!(field()["memory_size_in_bytes"], json!(0), "map execution loads no global ordinals");

    let bad = json!({"size": 0, "aggs": {"t": {"terms": {"field": "tag", "execution_hint": "hash"}}}}).to_string();
    let r = post(s.addr, "/tags/_search", &bad);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.text().contains("Unknown `execution_hint`: [hash], expected any of [map, global_ordinals]"),
        "{}",
        r.text()
    );
    // A numeric field ignores the hint, as in OpenSearch.
    let r = post(
        s.addr,
        "/tags/_search",
        &json!({"size": 0, "aggs": {"t": {"terms": {"field": "n", "execution_hint": "hash"}}}}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
}
