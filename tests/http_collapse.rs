//! `collapse` over real HTTP against a brute-force model: over several shards, the hits are the
//! best document of each distinct value (by the request's sort), paged by group, each with its
//! value in `fields`; `hits.total` counts documents; and OpenSearch's refusals.
#![cfg(feature = "server")]

mod common;

use std::collections::HashSet;

use common::http::*;
use serde_json::{json, Value};

#[test]
fn collapse_keeps_the_best_hit_per_value() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let mapping = json!({"settings": {"number_of_shards": 3}, "mappings": {"properties": {
        "user": {"type": "keyword"}, "likes": {"type": "long"}, "t": {"type": "text"},
        "nodv": {"type": "keyword", "doc_values": false}}}});
    assert_eq!(put(s.addr, "/c", &mapping.to_string()).status, 200);
    let mut docs = Vec::new();
    let mut bulk = String::new();
    for i in 0..60u64 {
        // 7 users (one doc in 6 has none), likes unique per doc.
        let user = if i % 6 == 5 { Value::Null } else { json!(format!("u{}", i % 7)) };
        let likes = (i * 37) % 101;
        let d = json!({"user": user, "likes": likes, "t": "x", "nodv": "a"});
        bulk.push_str(&format!("{{\"index\": {{\"_id\": \"{i}\"}}}}\n{d}\n"));
        docs.push((i.to_string(), user, likes));
    }
    let r = send(
        s.addr,
        "POST",
        "/c/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.json()["errors"], false, "{}", r.text());

    // The model: docs by likes desc; the first of each user value.
    let mut sorted = docs.clone();
    sorted.sort_by_key(|d| std::cmp::Reverse(d.2));
    let mut seen = HashSet::new();
    let heads: Vec<&(String, Value, u64)> = sorted.iter().filter(|d| seen.insert(d.1.to_string())).collect();
    assert_eq!(heads.len(), 8, "7 users and the docs without one");

    for (from, size) in [(0, 10), (0, 3), (3, 3), (6, 5)] {
        let body = json!({"from": from, "size": size, "sort": [{"likes": "desc"}], "collapse": {"field": "user"}});
        let r = post(s.addr, "/c/_search", &body.to_string());
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        assert_eq!(v["hits"]["total"]["value"], 60, "total counts documents");
        let got: Vec<(String, Value)> = v["hits"]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["_id"].as_str().unwrap().to_string(), h["fields"]["user"][0].clone()))
            .collect();
        let want: Vec<(String, Value)> =
            heads.iter().skip(from).take(size).map(|(id, u, _)| (id.clone(), u.clone())).collect();
        assert_eq!(got, want, "from {from} size {size}");
    }

    // inner_hits: each group's own search (the two least-liked docs of the user).
    let body = json!({"size": 3, "sort": [{"likes": "desc"}], "collapse": {"field": "user", "inner_hits": [
        {"name": "least", "size": 2, "sort": [{"likes": "asc"}], "_source": false},
        {"name": "n"}]}});
    let r = post(s.addr, "/c/_search", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    for h in r.json()["hits"]["hits"].as_array().unwrap() {
        let user = h["fields"]["user"][0].clone();
        let mut mine: Vec<&(String, Value, u64)> = docs.iter().filter(|d| d.1 == user).collect();
        mine.sort_by_key(|d| d.2);
        let least = &h["inner_hits"]["least"]["hits"];
        assert_eq!(least["total"]["value"].as_u64(), Some(mine.len() as u64), "{h}");
        let ids: Vec<&str> = least["hits"].as_array().unwrap().iter().map(|x| x["_id"].as_str().unwrap()).collect();
        let want: Vec<&str> = mine.iter().take(2).map(|d| d.0.as_str()).collect();
        assert_eq!(ids, want, "{user}");
        assert!(least["hits"][0].get("_source").is_none());
        assert_eq!(h["inner_hits"]["n"]["hits"]["hits"].as_array().unwrap().len(), 3.min(mine.len()));
    }
    let r = post(
        s.addr,
        "/c/_search",
        &json!({"collapse": {"field": "user", "inner_hits": [{"name": "a"}, {"name": "a"}]}}).to_string(),
    );
    assert_eq!(r.status, 400);
    assert!(r.text().contains("[inner_hits] already contains an entry for key [a]"), "{}", r.text());

    // By score (all equal): still one hit per value.
    let v = post(
        s.addr,
        "/c/_search",
        &json!({"size": 20, "query": {"match": {"t": "x"}}, "collapse": {"field": "user"}}).to_string(),
    )
    .json();
    let users: Vec<String> =
        v["hits"]["hits"].as_array().unwrap().iter().map(|h| h["fields"]["user"][0].to_string()).collect();
    assert_eq!(users.len(), 8);
    assert_eq!(users.iter().collect::<HashSet<_>>().len(), 8);

    // Numeric collapse: every doc has its own likes value.
    let v = post(s.addr, "/c/_search", &json!({"size": 100, "collapse": {"field": "likes"}}).to_string()).json();
    assert_eq!(v["hits"]["hits"].as_array().unwrap().len(), 60);

    // search_after with the sort on the collapse field is allowed; otherwise refused.
    let r = post(
        s.addr,
        "/c/_search",
        &json!({"sort": [{"user": "asc"}], "search_after": ["u2"], "collapse": {"field": "user"}}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let first_user = r.json()["hits"]["hits"][0]["fields"]["user"][0].clone();
    assert_eq!(first_user, "u3");

    let refusals = [
        (
            json!({"collapse": {"field": "t"}}),
            "/c/_search",
            "unknown type for collapse field `t`, only keywords and numbers are accepted",
        ),
        (json!({"collapse": {"field": "nodv"}}), "/c/_search", "cannot collapse on field `nodv` without `doc_values`"),
        (json!({"collapse": {"field": "nope"}}), "/c/_search", "no mapping found for `nope` in order to collapse on"),
        (json!({"collapse": {"field": "user"}}), "/c/_search?scroll=1m", "cannot use `collapse` in a scroll context"),
        (
            json!({"collapse": {"field": "user"}, "rescore": {"query": {"rescore_query": {"match_all": {}}}}}),
            "/c/_search",
            "cannot use `collapse` in conjunction with `rescore`",
        ),
        (
            json!({"collapse": {"field": "user"}, "sort": [{"likes": "asc"}], "search_after": [3]}),
            "/c/_search",
            "collapse field and sort field must be the same when use `collapse` in conjunction with `search_after`",
        ),
        (json!({"collapse": {}}), "/c/_search", "[collapse] requires a [field]"),
    ];
    for (body, path, reason) in refusals {
        let r = post(s.addr, path, &body.to_string());
        assert!(r.status >= 400, "{body}: {}", r.text());
        assert!(r.text().contains(reason), "{body}: {}", r.text());
    }
}
