//! Index and node statistics over HTTP: the counters move with the work the server does
//! (indexing, gets, searches with stats groups, refreshes, flushes, noop updates), segment
//! counts agree between `_stats`, `_segments` and `_cat/segments`, the translog figures follow
//! writes and flushes, and `_nodes/stats` sums the node's copies.

mod common;

use common::http::{get, post, put, send, TestServer};
use serde_json::{json, Value};

fn stats(s: &TestServer, path: &str) -> Value {
    let r = get(s.addr, path);
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    r.json()
}

#[test]
fn counters_move_with_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/st", r#"{"settings":{"number_of_shards":2,"number_of_replicas":0,"refresh_interval":"-1"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let before = stats(&s, "/st/_stats");
    assert_eq!(before["_shards"], json!({"total": 2, "successful": 2, "failed": 0}));
    let p0 = &before["indices"]["st"]["primaries"];
    assert_eq!(p0["indexing"]["index_total"], 0);
    let flushes0 = p0["flush"]["total"].as_u64().unwrap();

    for i in 0..5 {
        assert_eq!(put(s.addr, &format!("/st/_doc/{i}"), r#"{"f":"x"}"#).status, 201);
    }
    let body = "{\"index\":{\"_id\":\"5\"}}\n{\"f\":\"y\"}\n{\"delete\":{\"_id\":\"0\"}}\n";
    let r = send(s.addr, "POST", "/st/_bulk", Some(body.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 200, "{}", r.text());
    let t = stats(&s, "/st/_stats/translog,indexing,docs");
    let p = &t["indices"]["st"]["primaries"];
    assert_eq!(p["indexing"]["index_total"], 6, "{t}");
    assert_eq!(p["indexing"]["delete_total"], 1, "{t}");
    assert_eq!(p["translog"]["operations"], 7, "{t}");
    assert_eq!(p["translog"]["uncommitted_operations"], 7, "{t}");
    assert!(p["translog"]["earliest_last_modified_age"].is_u64(), "{t}");
    // Only the asked metrics.
    assert!(p.get("get").is_none() && p.get("search").is_none(), "{t}");

    assert_eq!(post(s.addr, "/st/_refresh", "").status, 200);
    assert_eq!(get(s.addr, "/st/_doc/1").status, 200);
    assert_eq!(get(s.addr, "/st/_doc/nope").status, 404);
    let r = post(s.addr, "/st/_search", r#"{"stats":["g1"],"query":{"match_all":{}}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(post(s.addr, "/st/_search?stats=g2&size=0", "{}").status, 200);
    let r = post(s.addr, "/st/_update/1", r#"{"doc":{"f":"x"}}"#);
    assert_eq!(r.json()["result"], "noop", "{}", r.text());
    assert_eq!(post(s.addr, "/st/_flush", "").status, 200);

    let v = stats(&s, "/st/_stats?groups=g1");
    let p = &v["indices"]["st"]["primaries"];
    assert_eq!(p["docs"]["count"], 5, "{v}");
    // Two gets, and the update's read of the current document (OpenSearch's getForUpdate).
    assert_eq!(p["get"]["total"], 3, "{v}");
    assert_eq!((p["get"]["exists_total"].clone(), p["get"]["missing_total"].clone()), (json!(2), json!(1)), "{v}");
    // Each search's query phase ran on both shards, and in its group; `groups` selects.
    assert_eq!(p["search"]["query_total"], 4, "{v}");
    assert_eq!(p["search"]["groups"]["g1"]["query_total"], 2, "{v}");
    assert!(p["search"]["groups"].get("g2").is_none(), "{v}");
    let g2 = stats(&s, "/st/_stats/search?groups=g*");
    assert_eq!(g2["indices"]["st"]["primaries"]["search"]["groups"]["g2"]["query_total"], 2, "{g2}");
    assert_eq!(g2["indices"]["st"]["primaries"]["search"]["groups"]["g2"]["fetch_total"], 0, "{g2}");
    assert!(p["search"]["fetch_total"].as_u64().unwrap() >= 1, "{v}");
    assert!(p["refresh"]["total"].as_u64().unwrap() >= 2, "{v}");
    assert_eq!(p["flush"]["total"].as_u64().unwrap(), flushes0 + 2, "{v}");
    assert_eq!(p["indexing"]["noop_update_total"], 1, "{v}");
    // After the flush the translog holds no operation.
    assert_eq!(p["translog"]["operations"], 0, "{v}");
    assert_eq!(v["_all"]["primaries"]["docs"]["count"], 5, "{v}");

    // Segment counts agree across the three APIs.
    let count = p["segments"]["count"].as_u64().unwrap();
    assert!(count >= 1, "{v}");
    let seg = stats(&s, "/st/_segments");
    let listed: usize = seg["indices"]["st"]["shards"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|copies| copies.as_array().unwrap())
        .map(|c| c["segments"].as_object().unwrap().len())
        .sum();
    assert_eq!(listed as u64, count, "{seg}");
    let cat = get(s.addr, "/_cat/segments/st?h=index,segment").text();
    assert_eq!(cat.lines().count() as u64, count, "{cat}");
    assert_eq!(get(s.addr, "/_cat/count/st?h=count").text().trim(), "5");

    // level=shards lists each copy with its routing.
    let sh = stats(&s, "/st/_stats/docs?level=shards");
    let copies = sh["indices"]["st"]["shards"].as_object().unwrap();
    assert_eq!(copies.len(), 2, "{sh}");
    let docs: u64 = copies.values().map(|c| c[0]["docs"]["count"].as_u64().unwrap()).sum();
    assert_eq!(docs, 5, "{sh}");
    assert_eq!(copies["0"][0]["routing"]["primary"], true, "{sh}");
    // level=cluster has no indices.
    assert!(stats(&s, "/_stats?level=cluster").get("indices").is_none());

    // The node's indices section sums the same counters.
    let n = stats(&s, "/_nodes/_local/stats/indices,jvm,http,indexing_pressure");
    let node = n["nodes"].as_object().unwrap().values().next().unwrap().clone();
    assert_eq!(node["indices"]["indexing"]["index_total"], 6, "{n}");
    assert_eq!(node["indices"]["docs"]["count"], 5, "{n}");
    assert_eq!(node["jvm"]["gc"]["collectors"]["young"]["collection_count"], 0, "{n}");
    assert!(node["http"]["total_opened"].as_u64().unwrap() >= 1, "{n}");
    assert!(node["indexing_pressure"]["memory"]["total"]["coordinating_in_bytes"].as_u64().unwrap() > 0, "{n}");
    let per_index = stats(&s, "/_nodes/stats/indices/docs?level=indices");
    let node = per_index["nodes"].as_object().unwrap().values().next().unwrap().clone();
    assert_eq!(node["indices"]["indices"]["st"]["docs"]["count"], 5, "{per_index}");

    // _cat/indices shows the same figures.
    let row = get(s.addr, "/_cat/indices/st?h=indexing.index_total,pri.get.total").text();
    assert_eq!(row.split_whitespace().collect::<Vec<_>>(), ["6", "3"], "{row}");
    s.stop();
}

#[test]
fn scroll_and_pit_contexts_are_counted_while_open() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/c", r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(put(s.addr, "/c/_doc/1?refresh=true", r#"{"a":1}"#).status, 201);
    let pit = post(s.addr, "/c/_search/point_in_time?keep_alive=1m", "");
    assert_eq!(pit.status, 200, "{}", pit.text());
    let scroll = post(s.addr, "/c/_search?scroll=1m", r#"{"size":1}"#);
    assert_eq!(scroll.status, 200, "{}", scroll.text());
    let v = stats(&s, "/c/_stats/search");
    let sr = &v["indices"]["c"]["primaries"]["search"];
    assert_eq!((sr["open_contexts"].clone(), sr["scroll_current"].clone()), (json!(2), json!(1)), "{v}");
    assert_eq!(sr["point_in_time_current"], 1, "{v}");
    let id = pit.json()["pit_id"].as_str().unwrap().to_string();
    let r = send(s.addr, "DELETE", "/_search/point_in_time", Some(json!({"pit_id": [id]}).to_string().as_bytes()), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = scroll.json()["_scroll_id"].as_str().unwrap().to_string();
    let r = send(s.addr, "DELETE", "/_search/scroll", Some(json!({"scroll_id": sid}).to_string().as_bytes()), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = stats(&s, "/c/_stats/search");
    let sr = &v["indices"]["c"]["primaries"]["search"];
    assert_eq!(sr["open_contexts"], 0, "{v}");
    assert_eq!((sr["scroll_total"].clone(), sr["point_in_time_total"].clone()), (json!(1), json!(1)), "{v}");
    s.stop();
}

#[test]
fn bad_metrics_and_levels_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = get(s.addr, "/_stats/fieldata");
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["error"]["reason"],
        "request [/_stats/fieldata] contains unrecognized metric: [fieldata] -> did you mean [fielddata]?"
    );
    let r = get(s.addr, "/_stats?level=node");
    assert_eq!(r.status, 400, "{}", r.text());
    let r = get(s.addr, "/_nodes/stats?level=cluster");
    assert_eq!(r.status, 400, "{}", r.text());
    let r = post(s.addr, "/_search", r#"{"stats":"g1"}"#);
    assert_eq!(r.status, 400, "{}", r.text());
    s.stop();
}
