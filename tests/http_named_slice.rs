//! Named queries (`_name` → each hit's `matched_queries`, with scores on request) and sliced
//! scrolls and PIT searches (`slice`) over HTTP.

mod common;

use common::http::{delete, post, put, send, TestServer};
use serde_json::{json, Value};

fn hits(v: &Value) -> Vec<Value> {
    v["hits"]["hits"].as_array().cloned().unwrap_or_default()
}

fn hit<'v>(v: &'v Value, id: &str) -> &'v Value {
    v["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["_id"] == json!(id))
        .unwrap_or_else(|| panic!("no hit {id} in {v}"))
}

#[test]
fn named_queries_at_several_levels() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(
        put(
            s.addr,
            "/n",
            r#"{"mappings":{"properties":{"k":{"type":"keyword"},"t":{"type":"text"},"n":{"type":"long"}}}}"#
        )
        .status,
        200
    );
    for (id, doc) in [
        ("1", json!({"k": "a", "t": "quick fox", "n": 1})),
        ("2", json!({"k": "b", "t": "lazy dog", "n": 2})),
        ("3", json!({"k": "a", "t": "lazy fox", "n": 3})),
    ] {
        assert_eq!(put(s.addr, &format!("/n/_doc/{id}?refresh=true"), &doc.to_string()).status, 201);
    }
    let body = json!({"query": {"bool": {
        "_name": "top",
        "should": [
            {"match": {"t": {"query": "fox", "_name": "m_fox"}}},
            {"term": {"k": {"value": "b", "_name": "t_b"}}},
            {"bool": {"_name": "inner", "must": [{"match": {"t": "lazy"}}], "filter": [{"range": {"n": {"gte": 3, "_name": "r3"}}}]}}
        ]
    }}});
    let r = post(s.addr, "/n/_search", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let names = |id: &str| -> Vec<String> {
        let mut n: Vec<String> = hit(&v, id)["matched_queries"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        n.sort();
        n
    };
    assert_eq!(names("1"), ["m_fox", "top"]);
    assert_eq!(names("2"), ["t_b", "top"]);
    assert_eq!(names("3"), ["inner", "m_fox", "r3", "top"]);

    // With scores: each name's own score for the doc (the term query alone scores as itself).
    let r = post(s.addr, "/n/_search?include_named_queries_score=true", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let mq = &hit(&v, "2")["matched_queries"];
    assert!(mq.is_object(), "{v}");
    let alone = post(s.addr, "/n/_search", &json!({"query": {"term": {"k": {"value": "b"}}}}).to_string()).json();
    assert_eq!(mq["t_b"], hit(&alone, "2")["_score"], "{v}");
    assert_eq!(mq["top"], hit(&v, "2")["_score"], "{v}");
    assert_eq!(hit(&v, "3")["matched_queries"]["r3"], json!(1.0), "{v}");
    // The body key asks for the same.
    let mut b2 = body.clone();
    b2["include_named_queries_score"] = json!(true);
    let v2 = post(s.addr, "/n/_search", &b2.to_string()).json();
    assert!(hit(&v2, "1")["matched_queries"].is_object(), "{v2}");

    // A post_filter's names count too; hits matching no named query have no matched_queries.
    let r = post(
        s.addr,
        "/n/_search",
        &json!({"query": {"match_all": {}}, "post_filter": {"term": {"k": {"value": "a", "_name": "pf"}}}}).to_string(),
    )
    .json();
    assert_eq!(hits(&r).len(), 2, "{r}");
    assert_eq!(hit(&r, "1")["matched_queries"], json!(["pf"]), "{r}");
    let r = post(s.addr, "/n/_search", &json!({"query": {"bool": {"should": [{"match_all": {}}, {"term": {"k": {"value": "b", "_name": "only_b"}}}]}}}).to_string()).json();
    assert!(hit(&r, "1").get("matched_queries").is_none(), "{r}");
    assert_eq!(hit(&r, "2")["matched_queries"], json!(["only_b"]), "{r}");
}

fn ids(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = hits(v).iter().map(|h| h["_id"].as_str().unwrap().to_string()).collect();
    out.sort();
    out
}

fn scroll_all(s: &TestServer, index: &str, slice: Value) -> Vec<String> {
    let r = post(s.addr, &format!("/{index}/_search?scroll=1m"), &json!({"size": 3, "slice": slice}).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let mut v = r.json();
    let mut out = ids(&v);
    for _ in 0..100 {
        let id = v["_scroll_id"].as_str().unwrap().to_string();
        v = post(s.addr, "/_search/scroll", &json!({"scroll": "1m", "scroll_id": id}).to_string()).json();
        if hits(&v).is_empty() {
            delete(s.addr, &format!("/_search/scroll/{id}"));
            break;
        }
        out.extend(ids(&v));
    }
    out.sort();
    out
}

#[test]
fn slices_partition_a_scroll() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    for (index, shards) in [("one", 1), ("three", 3)] {
        let r = put(s.addr, &format!("/{index}"), &json!({"settings": {"number_of_shards": shards}, "mappings": {"properties": {"n": {"type": "long"}, "k": {"type": "keyword"}}}}).to_string());
        assert_eq!(r.status, 200, "{}", r.text());
        let mut bulk = String::new();
        for i in 0..40 {
            bulk.push_str(&format!("{{\"index\":{{\"_id\":\"{i}\"}}}}\n{{\"n\":{i},\"k\":\"v{i}\"}}\n"));
        }
        bulk.push_str("{\"index\":{\"_id\":\"none\"}}\n{\"k\":\"x\"}\n");
        let r = send(
            s.addr,
            "POST",
            &format!("/{index}/_bulk?refresh=true"),
            Some(bulk.as_bytes()),
            &[("Content-Type", "application/x-ndjson")],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let mut every: Vec<String> = (0..40).map(|i| i.to_string()).chain(["none".to_string()]).collect();
        every.sort();
        for (field, max) in [(None, 2), (None, 5), (Some("n"), 2), (Some("n"), 4), (None, 3)] {
            let mut union = Vec::new();
            for id in 0..max {
                let mut sl = json!({"id": id, "max": max});
                if let Some(f) = field {
                    sl["field"] = json!(f);
                }
                let part = scroll_all(&s, index, sl);
                assert!(part.len() < every.len(), "{index} {field:?} {id}/{max}: one slice took everything");
                union.extend(part);
            }
            union.sort();
            assert_eq!(union, every, "{index} {field:?} max {max}");
        }
    }
    // Errors.
    let err = |body: Value, path: &str| {
        let r = post(s.addr, path, &body.to_string());
        (r.status, r.text())
    };
    let (st, t) = err(json!({"slice": {"id": 0, "max": 1}}), "/one/_search?scroll=1m");
    assert_eq!(st, 400, "{t}");
    assert!(t.contains("max must be greater than 1"), "{t}");
    let (st, t) = err(json!({"slice": {"id": 2, "max": 2}}), "/one/_search?scroll=1m");
    assert_eq!(st, 400, "{t}");
    assert!(t.contains("max must be greater than id"), "{t}");
    let (st, t) = err(json!({"slice": {"id": 0, "max": 2, "field": "k"}}), "/one/_search?scroll=1m");
    assert_eq!(st, 400, "{t}");
    assert!(t.contains("cannot load numeric doc values on k"), "{t}");
    let (st, t) = err(json!({"slice": {"id": 0, "max": 2, "field": "nope"}}), "/one/_search?scroll=1m");
    assert_eq!(st, 400, "{t}");
    assert!(t.contains("field nope not found"), "{t}");
    let (st, t) = err(json!({"slice": {"id": 0, "max": 1025}}), "/one/_search?scroll=1m");
    assert_eq!(st, 400, "{t}");
    assert!(t.contains("The number of slices [1025] is too large"), "{t}");
    let (st, t) = err(json!({"slice": {"id": 0, "max": 2}}), "/one/_search");
    assert_eq!(st, 500, "{t}");
    assert!(t.contains("`slice` cannot be used outside of a scroll context or PIT context"), "{t}");
}

#[test]
fn slices_partition_a_pit() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/p", r#"{"settings":{"number_of_shards":2}}"#).status, 200);
    let mut bulk = String::new();
    for i in 0..30 {
        bulk.push_str(&format!("{{\"index\":{{\"_id\":\"d{i}\"}}}}\n{{\"x\":{i}}}\n"));
    }
    assert_eq!(
        send(
            s.addr,
            "POST",
            "/p/_bulk?refresh=true",
            Some(bulk.as_bytes()),
            &[("Content-Type", "application/x-ndjson")]
        )
        .status,
        200
    );
    let pit = post(s.addr, "/p/_search/point_in_time?keep_alive=1m", "").json();
    let pit_id = pit["pit_id"].as_str().unwrap_or_else(|| panic!("{pit}")).to_string();
    let mut union = Vec::new();
    for id in 0..4 {
        let r = post(
            s.addr,
            "/_search",
            &json!({"size": 100, "pit": {"id": pit_id}, "slice": {"id": id, "max": 4}}).to_string(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let part = ids(&r.json());
        assert!(part.len() < 30, "slice {id}");
        union.extend(part);
    }
    union.sort();
    let mut every: Vec<String> = (0..30).map(|i| format!("d{i}")).collect();
    every.sort();
    assert_eq!(union, every);
}
