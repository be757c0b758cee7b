//! Issue 16's request-part defects over HTTP: a search body key Fathom does not build yet is a
//! 400 (never dropped), `routing` and `preference=_shards:` search only their shards and
//! `_shards.total` says so, and parameters that ask for unbuilt features are refused.

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::json;

#[test]
fn unbuilt_body_keys_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/i", "{}").status, 200);
    for (key, val) in
        [("suggest", json!({})), ("script_fields", json!({})), ("ext", json!({"x": {}})), ("stats", json!("g"))]
    {
        let r = post(s.addr, "/i/_search", &json!({ key: val }).to_string());
        assert_eq!(r.status, 400, "{key}: {}", r.text());
        assert_eq!(r.json()["error"]["type"], json!("parsing_exception"), "{key}: {}", r.text());
        assert!(r.text().contains(&format!("in [{key}]")), "{key}: {}", r.text());
    }
    // Asking for nothing is fine; collapse, rescore, indices_boost and profile are built (their
    // own tests).
    assert_eq!(post(s.addr, "/i/_search", r#"{"profile": false, "ext": {}}"#).status, 200);
    assert_eq!(post(s.addr, "/i/_search", r#"{"rescore": [], "indices_boost": []}"#).status, 200);
    // Stats groups are counted (tests/http_index_stats.rs).
    assert_eq!(post(s.addr, "/i/_search?stats=a", r#"{"stats": ["g"]}"#).status, 200);
    for p in ["search_pipeline=p", "suggest_field=f"] {
        let r = get(s.addr, &format!("/i/_search?{p}"));
        assert_eq!(r.status, 400, "{p}: {}", r.text());
        assert!(r.text().contains("unrecognized parameter"), "{p}: {}", r.text());
    }
}

#[test]
fn routing_and_preference_search_only_their_shards() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/r", r#"{"settings":{"number_of_shards":5,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    for (id, routing) in [("1", "a"), ("2", "b"), ("3", "c")] {
        let r = put(s.addr, &format!("/r/_doc/{id}?routing={routing}&refresh=true"), r#"{"x":1}"#);
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let all = get(s.addr, "/r/_search").json();
    assert_eq!(all["_shards"]["total"], json!(5), "{all}");
    assert_eq!(all["hits"]["total"]["value"], json!(3), "{all}");
    let one = get(s.addr, "/r/_search?routing=a").json();
    assert_eq!(one["_shards"]["total"], json!(1), "{one}");
    let ids: Vec<&str> = one["hits"]["hits"].as_array().unwrap().iter().filter_map(|h| h["_id"].as_str()).collect();
    assert!(ids.contains(&"1"), "{one}");
    let two = get(s.addr, "/r/_count?routing=a,b").json();
    assert!(two["_shards"]["total"].as_u64().unwrap() <= 2, "{two}");
    assert!(two["count"].as_u64().unwrap() >= 2, "{two}");
    let pref = get(s.addr, "/r/_search?preference=_shards:0,1").json();
    assert_eq!(pref["_shards"]["total"], json!(2), "{pref}");
    let bad = get(s.addr, "/r/_search?preference=_nonsense");
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert_eq!(get(s.addr, "/r/_search?preference=_local").status, 200);
    assert_eq!(get(s.addr, "/r/_search?preference=my-session").status, 200);
}

#[test]
fn shard_doc_needs_a_point_in_time() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/p", r#"{"settings":{"number_of_shards":2,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    for body in [
        json!({"sort": ["_shard_doc"]}),
        json!({"sort": [{"_shard_doc": "desc"}]}),
        json!({"sort": [{"_shard_doc": {"order": "asc"}}]}),
    ] {
        let r = post(s.addr, "/p/_search", &body.to_string());
        assert_eq!(r.status, 400, "{body}: {}", r.text());
        assert_eq!(r.json()["error"]["type"], json!("action_request_validation_exception"), "{}", r.text());
        assert!(r.text().contains("[_shard_doc] sort field cannot be used without [point in time]"), "{}", r.text());
    }
    let r = get(s.addr, "/p/_search?sort=_shard_doc");
    assert_eq!(r.status, 400, "{}", r.text());
    let pit = post(s.addr, "/p/_search/point_in_time?keep_alive=1m", "").json();
    let id = pit["pit_id"].as_str().expect("pit id").to_string();
    let r = post(s.addr, "/_search", &json!({"pit": {"id": id}, "sort": ["_shard_doc"]}).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn shard_doc_orders_a_pit_shard_by_shard_and_pages_with_search_after() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/sd", r#"{"settings":{"number_of_shards":3,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for i in 0..30 {
        bulk.push_str(&format!("{{\"index\":{{\"_id\":\"{i}\"}}}}\n{{\"n\":{i}}}\n"));
    }
    let r = common::http::send(
        s.addr,
        "POST",
        "/sd/_bulk?refresh=true",
        Some(bulk.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let pit = post(s.addr, "/sd/_search/point_in_time?keep_alive=1m", "").json();
    let id = pit["pit_id"].as_str().expect("pit id").to_string();
    for order in ["asc", "desc"] {
        let mut seen = Vec::new();
        let mut values: Vec<i64> = Vec::new();
        let mut after: Option<serde_json::Value> = None;
        for _ in 0..20 {
            let mut body = json!({"pit": {"id": id}, "size": 4, "sort": [{"_shard_doc": order}]});
            if let Some(a) = &after {
                body["search_after"] = a.clone();
            }
            let page = post(s.addr, "/_search", &body.to_string()).json();
            let hits = page["hits"]["hits"].as_array().expect("hits").clone();
            if hits.is_empty() {
                break;
            }
            for h in &hits {
                seen.push(h["_id"].as_str().unwrap().to_string());
                values.push(h["sort"][0].as_i64().expect("a long sort value"));
            }
            after = Some(hits.last().unwrap()["sort"].clone());
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 30, "{order}: every doc once");
        assert_eq!(values.len(), 30, "{order}");
        let sorted = values.windows(2).all(|w| if order == "asc" { w[0] < w[1] } else { w[0] > w[1] });
        assert!(sorted, "{order}: {values:?}");
        // Shard by shard: the high 32 bits take each shard's number once, in order.
        let mut shards: Vec<i64> = values.iter().map(|v| v >> 32).collect();
        shards.dedup();
        assert_eq!(shards.len(), 3, "{order}: {values:?}");
    }
}

#[test]
fn filtered_aliases_filter_searches_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/fa", r#"{"mappings":{"properties":{"k":{"type":"keyword"}}}}"#).status, 200);
    for (id, k) in [("1", "red"), ("2", "blue"), ("3", "red")] {
        assert_eq!(put(s.addr, &format!("/fa/_doc/{id}?refresh=true"), &json!({"k": k}).to_string()).status, 201);
    }
    let r = post(
        s.addr,
        "/_aliases",
        r#"{"actions":[{"add":{"index":"fa","alias":"reds","filter":{"term":{"k":"red"}}}},{"add":{"index":"fa","alias":"blues","filter":{"term":{"k":"blue"}}}},{"add":{"index":"fa","alias":"plain"}}]}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let total = |path: &str| get(s.addr, path).json()["hits"]["total"]["value"].clone();
    assert_eq!(total("/reds/_search"), json!(2));
    assert_eq!(total("/blues/_search"), json!(1));
    assert_eq!(get(s.addr, "/reds/_count").json()["count"], json!(2));
    // Two filtered aliases: either filter; any unfiltered way in: no filter.
    assert_eq!(total("/reds,blues/_search"), json!(3));
    assert_eq!(total("/reds,plain/_search"), json!(3));
    assert_eq!(total("/reds,fa/_search"), json!(3));
    assert_eq!(total("/fa/_search"), json!(3));
    // The query still scores and filters inside the alias.
    let r = post(s.addr, "/reds/_search", r#"{"query":{"ids":{"values":["1","2"]}}}"#).json();
    assert_eq!(r["hits"]["total"]["value"], json!(1), "{r}");
}
