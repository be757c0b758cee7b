//! The node query cache over real HTTP: repeated filtered searches are answered from cached
//! per-segment sets (hit, miss, cache size and memory in `_stats/query_cache` and, summed, in
//! `_nodes/stats`), results stay right after deletes, new documents and refreshes,
//! `_cache/clear?query` empties it, and `index.queries.cache.enabled: false` keeps an index
//! out of it. The node caches on every segment (`indices.queries.cache.all_segments`), as the
//! test documents make small segments.

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::{json, Value};

fn qc(addr: std::net::SocketAddr, index: &str) -> Value {
    let r = get(addr, &format!("/{index}/_stats/query_cache"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["indices"][index]["total"]["query_cache"].clone()
}

fn n(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"))
}

fn ids(addr: std::net::SocketAddr, index: &str, body: &Value) -> Vec<String> {
    let r = post(addr, &format!("/{index}/_search"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let mut out: Vec<String> =
        r.json()["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_id"].as_str().unwrap().to_string()).collect();
    out.sort();
    out
}

fn create(addr: std::net::SocketAddr, index: &str, extra: Value) {
    let mut settings = json!({"number_of_shards": 1, "number_of_replicas": 0});
    settings.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let r = put(addr, &format!("/{index}"), &json!({"settings": settings}).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for i in 0..40 {
        bulk.push_str(&format!("{{\"index\":{{\"_index\":\"{index}\",\"_id\":\"{i}\"}}}}\n"));
        bulk.push_str(&format!("{{\"n\":{i},\"tag\":\"{}\"}}\n", ["red", "blue"][i % 2]));
    }
    let r = post(addr, "/_bulk?refresh=true", &bulk);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], json!(false));
}

#[test]
fn repeated_filters_are_served_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[("indices.queries.cache.all_segments", "true")]);
    create(s.addr, "items", json!({}));
    let zero = json!({"memory_size_in_bytes": 0, "total_count": 0, "hit_count": 0, "miss_count": 0,
        "cache_size": 0, "cache_count": 0, "evictions": 0});
    assert_eq!(qc(s.addr, "items"), zero);

    let body = json!({"size": 100, "query": {"bool": {"filter": [{"range": {"n": {"gte": 10, "lt": 30}}}]}}});
    let expect: Vec<String> = {
        let mut v: Vec<String> = (10..30).map(|i| i.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(ids(s.addr, "items", &body), expect);
    let first = qc(s.addr, "items");
    assert!(n(&first, "miss_count") >= 1, "{first}");
    assert_eq!(n(&first, "hit_count"), 0, "{first}");
    // A range is costly: cached at its second use, hit from then on.
    for _ in 0..3 {
        assert_eq!(ids(s.addr, "items", &body), expect);
    }
    let c = qc(s.addr, "items");
    assert!(n(&c, "hit_count") >= 2, "{c}");
    assert!(n(&c, "cache_size") >= 1, "{c}");
    assert!(n(&c, "memory_size_in_bytes") > 0, "{c}");
    assert_eq!(n(&c, "total_count"), n(&c, "hit_count") + n(&c, "miss_count"));
    assert_eq!(n(&c, "cache_count"), n(&c, "cache_size") + n(&c, "evictions"));

    // The node's figures are the sum of its copies'.
    let r = get(s.addr, "/_nodes/stats/indices/query_cache");
    assert_eq!(r.status, 200, "{}", r.text());
    let nodes = r.json()["nodes"].clone();
    let node = nodes.as_object().unwrap().values().next().unwrap()["indices"]["query_cache"].clone();
    let all = get(s.addr, "/_stats/query_cache").json()["_all"]["total"]["query_cache"].clone();
    assert_eq!(node, all);
    assert_eq!(node, qc(s.addr, "items"));

    // Deletes and a refresh: the sets stay (they ignore deletions), the results follow.
    let hits_before = n(&qc(s.addr, "items"), "hit_count");
    let r = common::http::delete(s.addr, "/items/_doc/12?refresh=true");
    assert_eq!(r.status, 200, "{}", r.text());
    let after_delete: Vec<String> = expect.iter().filter(|i| *i != "12").cloned().collect();
    assert_eq!(ids(s.addr, "items", &body), after_delete);
    assert!(n(&qc(s.addr, "items"), "hit_count") > hits_before);
    // A new document: a new segment, searched (and cached) as well.
    assert_eq!(put(s.addr, "/items/_doc/new?refresh=true", r#"{"n": 15, "tag": "red"}"#).status, 201);
    let mut with_new = after_delete.clone();
    with_new.push("new".into());
    with_new.sort();
    for _ in 0..3 {
        assert_eq!(ids(s.addr, "items", &body), with_new);
    }
    // Other filter forms: constant_score, post_filter, must_not.
    let cs = json!({"size": 100, "query": {"constant_score": {"filter": {"range": {"n": {"gte": 10, "lt": 30}}}}}});
    assert_eq!(ids(s.addr, "items", &cs), with_new);
    let post_filter = json!({"size": 100, "post_filter": {"terms": {"tag.keyword": ["blue"]}}});
    let not = json!({"size": 100, "query": {"bool": {"must_not": [{"terms": {"tag.keyword": ["red"]}}]}}});
    for _ in 0..3 {
        let blue = ids(s.addr, "items", &post_filter);
        assert_eq!(blue.len(), 20, "{blue:?}");
        assert_eq!(ids(s.addr, "items", &not), blue);
    }
    let c = qc(s.addr, "items");
    assert!(n(&c, "cache_size") >= 3, "{c}");

    // `_cache/clear?query` empties it; hit and miss counts stay.
    let r = post(s.addr, "/items/_cache/clear?query=true", "");
    assert_eq!(r.status, 200, "{}", r.text());
    let cleared = qc(s.addr, "items");
    assert_eq!((n(&cleared, "cache_size"), n(&cleared, "memory_size_in_bytes")), (0, 0), "{cleared}");
    assert_eq!(n(&cleared, "evictions"), n(&c, "cache_size"), "{cleared}");
    assert_eq!(n(&cleared, "hit_count"), n(&c, "hit_count"));
    // A clear with no flag clears it too.
    assert_eq!(ids(s.addr, "items", &body), with_new);
    assert_eq!(ids(s.addr, "items", &body), with_new);
    assert!(n(&qc(s.addr, "items"), "cache_size") >= 1);
    assert_eq!(post(s.addr, "/items/_cache/clear", "").status, 200);
    assert_eq!(n(&qc(s.addr, "items"), "cache_size"), 0);
    // `request=true` alone leaves it.
    for _ in 0..2 {
        ids(s.addr, "items", &body);
    }
    assert_eq!(post(s.addr, "/items/_cache/clear?request=true", "").status, 200);
    assert!(n(&qc(s.addr, "items"), "cache_size") >= 1);

    // Deleting the index drops its sets from the node's figures.
    assert_eq!(common::http::delete(s.addr, "/items").status, 200);
    let r = get(s.addr, "/_nodes/stats/indices/query_cache").json();
    let node = r["nodes"].as_object().unwrap().values().next().unwrap()["indices"]["query_cache"].clone();
    assert_eq!((n(&node, "cache_size"), n(&node, "memory_size_in_bytes")), (0, 0), "{node}");
}

#[test]
fn settings_turn_it_off_or_cache_everything() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[("indices.queries.cache.all_segments", "true")]);
    create(s.addr, "off", json!({"index.queries.cache.enabled": false}));
    create(s.addr, "all", json!({"index.queries.cache.everything": true}));
    let exists = json!({"size": 100, "query": {"bool": {"filter": [{"exists": {"field": "tag"}}]}}});
    for _ in 0..6 {
        assert_eq!(ids(s.addr, "off", &exists).len(), 40);
    }
    let c = qc(s.addr, "off");
    assert_eq!((n(&c, "hit_count"), n(&c, "miss_count"), n(&c, "cache_size")), (0, 0, 0), "{c}");
    // Everything: cached at the first use.
    assert_eq!(ids(s.addr, "all", &exists).len(), 40);
    assert!(n(&qc(s.addr, "all"), "cache_size") >= 1);
    assert_eq!(ids(s.addr, "all", &exists).len(), 40);
    assert!(n(&qc(s.addr, "all"), "hit_count") >= 1);
    // Both are static settings; bad values are refused.
    let r = put(s.addr, "/off/_settings", r#"{"index.queries.cache.enabled": true}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    let r = put(s.addr, "/bad", r#"{"settings": {"index.queries.cache.enabled": "maybe"}}"#);
    assert_eq!(r.status, 400, "{}", r.text());
}
