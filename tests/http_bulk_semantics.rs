//! Issue-3 write semantics over real HTTP: `wait_for_active_shards` (503 after the timeout when
//! a one-node cluster can't activate the copies asked for), generated ids on failed bulk items,
//! and the pre-rendered bulk body next to its generic renderings (pretty, filter_path, YAML).
#![cfg(feature = "server")]

mod common;

use std::time::{Duration, Instant};

use common::http::*;
use serde_json::{json, Value};

fn ndjson(s: &TestServer, path: &str, body: &str) -> Resp {
    send(s.addr, "POST", path, Some(body.as_bytes()), &[("Content-Type", "application/x-ndjson")])
}

#[test]
fn wait_for_active_shards_times_out_with_unavailable_shards() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/rep", r#"{"settings":{"number_of_shards":1,"number_of_replicas":1}}"#).status, 200);

    // One copy is active: 1 and 0 pass at once.
    assert_eq!(put(s.addr, "/rep/_doc/1?wait_for_active_shards=1", r#"{"a":1}"#).status, 201);
    assert_eq!(put(s.addr, "/rep/_doc/2?wait_for_active_shards=0", r#"{"a":2}"#).status, 201);

    // Two copies: waits the timeout, then 503.
    let t0 = Instant::now();
    let r = put(s.addr, "/rep/_doc/3?wait_for_active_shards=2&timeout=200ms", r#"{ "a" : 3 }"#);
    let waited = t0.elapsed();
    assert_eq!(r.status, 503, "{}", r.text());
    assert!(waited >= Duration::from_millis(200) && waited < Duration::from_secs(5), "waited {waited:?}");
    let e = &r.json()["error"];
    assert_eq!(e["type"], "unavailable_shards_exception");
    assert_eq!(
        e["reason"],
        r#"[rep][0] Not enough active copies to meet shard count of [2] (have 1, needed 2). Timeout: [200ms], request: [BulkShardRequest [[rep][0]] containing [index {[rep][3], source[{"a":3}]}]]"#
    );
    assert_eq!(get(s.addr, "/rep/_doc/3").json()["found"], false, "nothing was written");

    let r = delete(s.addr, "/rep/_doc/1?wait_for_active_shards=all&timeout=50ms&refresh=true");
    assert_eq!(r.status, 503);
    assert_eq!(
        r.json()["error"]["reason"],
        "[rep][0] Not enough active copies to meet shard count of [ALL] (have 1, needed 2). Timeout: [50ms], request: [BulkShardRequest [[rep][0]] containing [delete {[rep][1]}] and a refresh]"
    );
    let r = post(s.addr, "/rep/_update/1?wait_for_active_shards=2&timeout=10ms", r#"{"doc":{"b":1}}"#);
    assert_eq!(r.status, 503);
    assert!(r.json()["error"]["reason"].as_str().unwrap().starts_with("[rep][0] Not enough active copies to meet shard count of [2] (have 1, needed 2). Timeout: [10ms], request: [BulkShardRequest [[rep][0]] containing [update {[rep][1]"));

    // The index default (`index.write.wait_for_active_shards`) applies when the request has none.
    assert_eq!(put(s.addr, "/rep/_settings", r#"{"index.write.wait_for_active_shards":"all"}"#).status, 200);
    let r = put(s.addr, "/rep/_doc/4?timeout=10ms", r#"{"a":4}"#);
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(put(s.addr, "/rep/_doc/4?timeout=10ms&wait_for_active_shards=1", r#"{"a":4}"#).status, 201);
    assert_eq!(put(s.addr, "/rep/_settings", r#"{"index.write.wait_for_active_shards":"1"}"#).status, 200);

    // Bulk: per item; the shard's items share one wait; other indices are unaffected.
    assert_eq!(put(s.addr, "/solo", r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#).status, 200);
    let body = "{\"index\":{\"_index\":\"rep\",\"_id\":\"b1\"}}\n{\"x\":1}\n{\"index\":{\"_index\":\"solo\",\"_id\":\"s1\"}}\n{\"x\":1}\n{\"delete\":{\"_index\":\"rep\",\"_id\":\"b2\"}}\n";
    let t0 = Instant::now();
    let r = ndjson(&s, "/_bulk?wait_for_active_shards=2&timeout=300ms", body);
    let waited = t0.elapsed();
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(5), "waited {waited:?}");
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["errors"], true);
    let items = v["items"].as_array().unwrap();
    let reason = "[rep][0] Not enough active copies to meet shard count of [2] (have 1, needed 2). Timeout: [300ms], request: [BulkShardRequest [[rep][0]] containing [2] requests]";
    assert_eq!(
        items[0],
        json!({"index": {"_index": "rep", "_id": "b1", "status": 503, "error": {"type": "unavailable_shards_exception", "reason": reason}}})
    );
    assert_eq!(items[1]["index"]["status"], 503, "solo has 1 copy of the 2 asked too: {v}");
    assert_eq!(items[2]["delete"]["error"]["reason"], reason);
    let r = ndjson(&s, "/_bulk?wait_for_active_shards=1", body);
    assert_eq!(r.json()["errors"], false, "{}", r.text());

    // Invalid values are 400 before anything runs.
    for (q, reason) in [
        ("abc", "cannot parse ActiveShardCount[abc]"),
        ("-2", "shard count cannot be a negative value"),
        ("ALL", "cannot parse ActiveShardCount[ALL]"),
    ] {
        let r = put(s.addr, &format!("/rep/_doc/9?wait_for_active_shards={q}"), r#"{"a":9}"#);
        assert_eq!((r.status, r.json()["error"]["type"].clone()), (400, json!("illegal_argument_exception")));
        assert_eq!(r.json()["error"]["reason"], reason);
        let r = ndjson(&s, &format!("/_bulk?wait_for_active_shards={q}"), body);
        assert_eq!(r.status, 400);
    }
    assert_eq!(get(s.addr, "/rep/_doc/9").json()["found"], false);
}

#[test]
fn failed_bulk_items_show_their_generated_id() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/typed", r#"{"mappings":{"properties":{"n":{"type":"long"}}}}"#).status, 200);
    let body = "{\"index\":{\"_index\":\"typed\"}}\n{\"n\":\"not a number\"}\n{\"create\":{\"_index\":\"typed\"}}\n{\"n\":1}\n";
    let v = ndjson(&s, "/_bulk", body).json();
    assert_eq!(v["errors"], true);
    let failed = &v["items"][0]["index"];
    assert_eq!(failed["status"], 400);
    assert_eq!(failed["error"]["type"], "mapper_parsing_exception");
    let id = failed["_id"].as_str().unwrap();
    assert_eq!(id.len(), 20, "the generated id is shown: {failed}");
    let created = &v["items"][1]["create"];
    assert_eq!((created["status"].clone(), created["_id"].as_str().unwrap().len()), (json!(201), 20));
    assert_ne!(created["_id"], failed["_id"]);
}

#[test]
fn bulk_body_renders_the_same_raw_and_generic() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let body = "{\"index\":{\"_index\":\"r\",\"_id\":\"1\"}}\n{\"a\":1}\n{\"delete\":{\"_index\":\"r\",\"_id\":\"x\"}}\n{\"update\":{\"_index\":\"r\",\"_id\":\"1\"}}\n{\"doc\":{\"a\":2}}\n";
    let raw = ndjson(&s, "/_bulk?refresh=true", body);
    assert_eq!(raw.header("content-type"), Some("application/json; charset=UTF-8"));
    let v = raw.json();
    let item = &v["items"][0]["index"];
    let keys: Vec<&String> = item.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["_index", "_id", "_version", "result", "forced_refresh", "_shards", "_seq_no", "_primary_term", "status"]
    );
    assert_eq!(v["items"][1]["delete"]["result"], "not_found");
    assert_eq!(v["items"][1]["delete"]["status"], 404);
    assert_eq!(v["items"][2]["update"]["result"], "updated");
    // Generic renderings of the same body.
    let body2 = "{\"index\":{\"_index\":\"r\",\"_id\":\"2\"}}\n{\"a\":1}\n";
    let pretty = ndjson(&s, "/_bulk?pretty", body2);
    assert!(pretty.text().contains("\n  \"took\""), "{}", pretty.text());
    let filtered = ndjson(&s, "/_bulk?filter_path=items.*._id,errors", body2).json();
    assert_eq!(filtered, json!({"errors": false, "items": [{"index": {"_id": "2"}}]}));
    let yaml = ndjson(&s, "/_bulk?format=yaml", body2);
    assert!(yaml.text().starts_with("---\ntook:"), "{}", yaml.text());
    let v: Value = ndjson(&s, "/_bulk", "{\"index\":{\"_index\":\"r\"}}\n[1]\n").json();
    assert_eq!(v["items"][0]["index"]["_id"], "", "not parsed before the id is assigned, as before");
}
