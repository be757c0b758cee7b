//! `_recovery` and `_cat/recovery` over real HTTP: a new index (EMPTY_STORE), a reopened index
//! and a restart after an unclean stop (EXISTING_STORE with the translog operations replayed).

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::{json, Value};

fn shard0(v: &Value, index: &str) -> Value {
    v[index]["shards"][0].clone()
}

#[test]
fn new_index_is_empty_store_and_restart_replays_the_translog() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = TestServer::start(dir.path(), &[]);
        assert_eq!(put(s.addr, "/r", r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#).status, 200);
        let v = get(s.addr, "/r/_recovery?human=true").json();
        let sh = shard0(&v, "r");
        assert_eq!(sh["type"], "EMPTY_STORE", "{v}");
        assert_eq!(sh["stage"], "DONE");
        assert_eq!(sh["primary"], true);
        assert!(sh["start_time"].as_str().is_some_and(|t| t.starts_with('2')), "{sh}");
        assert_eq!(sh["translog"]["total"], 0);
        let detailed = get(s.addr, "/r/_recovery?detailed=true").json();
        assert_eq!(shard0(&detailed, "r")["index"]["files"]["details"], json!([]));
        for i in 0..5 {
            assert_eq!(put(s.addr, &format!("/r/_doc/{i}"), &json!({"i": i}).to_string()).status, 201);
        }
        // An unclean stop: no flush, so the five operations are only in the translog.
        let mut s = s;
        std::mem::forget(s.running.take());
    }
    let s = TestServer::start(dir.path(), &[]);
    let v = get(s.addr, "/_recovery").json();
    let sh = shard0(&v, "r");
    assert_eq!(sh["type"], "EXISTING_STORE", "{v}");
    assert_eq!(sh["stage"], "DONE");
    assert_eq!(sh["source"], json!({"bootstrap_new_history_uuid": false}));
    assert_eq!(sh["translog"]["recovered"], 5, "{sh}");
    assert_eq!(sh["translog"]["total"], 5);
    assert_eq!(sh["translog"]["total_on_start"], 5);
    assert_eq!(sh["translog"]["percent"], "100.0%");
    let files = &sh["index"]["files"];
    assert!(files["total"].as_u64().unwrap() > 0, "{sh}");
    assert_eq!(files["total"], files["reused"]);
    assert_eq!(files["percent"], "100.0%");
    assert_eq!(sh["index"]["size"]["total_in_bytes"], sh["index"]["size"]["reused_in_bytes"]);
    let detailed = get(s.addr, "/r/_recovery?detailed=true").json();
    let details = shard0(&detailed, "r")["index"]["files"]["details"].as_array().cloned().unwrap();
    assert_eq!(details.len() as u64, files["total"].as_u64().unwrap());
    assert!(details.iter().all(|d| d["reused"] == true && d["recovered_in_bytes"] == 0));

    // The node identity is the target.
    let nodes = get(s.addr, "/_nodes").json();
    let node_id = nodes["nodes"].as_object().unwrap().keys().next().unwrap().clone();
    assert_eq!(sh["target"]["id"], node_id.as_str());
    assert_eq!(sh["target"]["ip"], "127.0.0.1");

    // _cat/recovery: the default columns, and chosen ones in JSON.
    let text = get(s.addr, "/_cat/recovery?v").text();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header[..4], ["index", "shard", "time", "type"]);
    assert_eq!(header.len(), 22, "{text}");
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(row[..2], ["r", "0"]);
    assert_eq!(row[3..5], ["existing_store", "done"]);
    let rows = get(s.addr, "/_cat/recovery/r?format=json&h=index,type,stage,translog_ops,translog_ops_recovered,translog_ops_percent,files_percent").json();
    assert_eq!(
        rows,
        json!([{"index": "r", "type": "existing_store", "stage": "done", "translog_ops": "5", "translog_ops_recovered": "5", "translog_ops_percent": "100.0%", "files_percent": "100.0%"}])
    );
    assert!(get(s.addr, "/_cat/recovery?help").text().starts_with("index "));
    // Nothing is recovering now.
    assert_eq!(get(s.addr, "/_recovery?active_only=true").json(), json!({}));
    assert_eq!(get(s.addr, "/_cat/recovery?active_only=true").text(), "");
}

#[test]
fn closed_and_reopened_indices_and_missing_names() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/c", r#"{"settings":{"number_of_shards":2,"number_of_replicas":0}}"#).status, 200);
    for i in 0..4 {
        assert_eq!(put(s.addr, &format!("/c/_doc/{i}"), &json!({"i": i}).to_string()).status, 201);
    }
    assert_eq!(post(s.addr, "/c/_close", "").status, 200);
    let v = get(s.addr, "/c/_recovery?human").json();
    let shards = v["c"]["shards"].as_array().cloned().unwrap();
    assert_eq!(shards.len(), 2, "{v}");
    assert_eq!(shards[1]["id"], 1);
    for sh in &shards {
        assert_eq!(sh["type"], "EXISTING_STORE");
        assert_eq!(sh["stage"], "DONE");
        assert!(sh["index"]["files"]["total"].as_u64().unwrap() > 0, "{sh}");
        assert_eq!(sh["translog"]["total"], 0);
    }
    assert_eq!(post(s.addr, "/c/_open", "").status, 200);
    let v = get(s.addr, "/c/_recovery").json();
    for sh in v["c"]["shards"].as_array().unwrap() {
        assert_eq!(sh["type"], "EXISTING_STORE", "{v}");
        // Closing flushed: nothing was left to replay.
        assert_eq!(sh["translog"]["recovered"], 0);
    }
    let missing = get(s.addr, "/foobar/_recovery");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"]["type"], "index_not_found_exception");
    assert_eq!(get(s.addr, "/v*/_recovery").json(), json!({}));
    assert_eq!(get(s.addr, "/foobar/_recovery?ignore_unavailable=true").json(), json!({}));
    assert_eq!(get(s.addr, "/_recovery?bogus=1").status, 400);
}
