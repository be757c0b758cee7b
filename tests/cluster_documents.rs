//! Documents across three `fathom` processes: every write goes to the node holding its
//! primary, whichever node it was sent to (bulk items split by node, single-document index and
//! delete forwarded), and every node reads every document.

mod common;

use std::time::{Duration, Instant};

use common::cluster::{free_port, start, wait_agreement, Proc};
use common::http::{delete, get, post, put, send};
use serde_json::{json, Value};

fn wait_green(p: &Proc, index: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let h = get(p.http, &format!("/_cluster/health/{index}")).json();
        if h["status"] == "green" {
            return;
        }
        assert!(Instant::now() < deadline, "{index} not green: {h}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn writes_reach_their_primaries_and_every_node_reads_them() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["d0", "d1", "d2"];
    let initial = names.join(",");
    let procs: Vec<Proc> = (0..3).map(|i| start(dirs[i].path(), names[i], ports[i], &seeds, &initial)).collect();
    let all: Vec<&Proc> = procs.iter().collect();
    wait_agreement(&all, 3, Duration::from_secs(60));
    // Wait until every node is a data node of the cluster state, so the shards spread.
    let deadline = Instant::now() + Duration::from_secs(30);
    while get(all[0].http, "/_cluster/health").json()["number_of_data_nodes"] != 3 {
        assert!(Instant::now() < deadline, "the nodes did not all join the cluster state");
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = put(all[0].http, "/docs", r#"{"settings":{"number_of_shards":3,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["shards_acknowledged"], true);
    wait_green(all[0], "docs");

    // A bulk through one node: 60 documents, ids given and generated.
    let mut body = String::new();
    for i in 0..60 {
        if i % 3 == 0 {
            body.push_str(&format!("{{\"index\":{{\"_index\":\"docs\"}}}}\n{{\"n\":{i},\"auto\":true}}\n"));
        } else {
            body.push_str(&format!("{{\"index\":{{\"_index\":\"docs\",\"_id\":\"b{i}\"}}}}\n{{\"n\":{i}}}\n"));
        }
    }
    let r = send(all[1].http, "POST", "/_bulk", Some(body.as_bytes()), &[("content-type", "application/x-ndjson")]);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["errors"], false, "{v}");
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 60);
    let mut ids = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let it = &it["index"];
        assert_eq!(it["status"], 201, "{it}");
        assert_eq!(it["result"], "created");
        if i % 3 != 0 {
            assert_eq!(it["_id"], format!("b{i}"), "the answers keep the request's order");
        }
        ids.push(it["_id"].as_str().unwrap().to_string());
    }

    // Single documents through each node.
    for (k, p) in all.iter().enumerate() {
        for j in 0..5 {
            let r = put(p.http, &format!("/docs/_doc/s{k}-{j}"), &json!({"n": 1000 + j}).to_string());
            assert_eq!(r.status, 201, "{}", r.text());
            assert_eq!(r.json()["_version"], 1);
            ids.push(format!("s{k}-{j}"));
        }
    }
    // A version conflict from the primary's node is this request's error.
    let r =
        send(all[2].http, "PUT", "/docs/_create/s0-0", Some(br#"{"n":1}"#), &[("content-type", "application/json")]);
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["error"]["type"], "version_conflict_engine_exception", "{}", r.text());

    // Every node reads every document.
    for p in &all {
        for id in &ids {
            let r = get(p.http, &format!("/docs/_doc/{id}"));
            assert_eq!(r.status, 200, "{id} through {}: {}", p.http, r.text());
            let d: Value = r.json();
            assert_eq!(d["found"], true);
        }
    }

    // Deletes through another node than the write's; a second delete is not found.
    for id in ids.iter().take(10) {
        let r = delete(all[2].http, &format!("/docs/_doc/{id}"));
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["result"], "deleted");
        let r = delete(all[0].http, &format!("/docs/_doc/{id}"));
        assert_eq!(r.status, 404, "{}", r.text());
        assert_eq!(get(all[1].http, &format!("/docs/_doc/{id}")).status, 404);
    }

    // Updates in a bulk through the third node.
    let mut body = String::new();
    for id in ids.iter().skip(10).take(10) {
        body.push_str(&format!("{{\"update\":{{\"_index\":\"docs\",\"_id\":\"{id}\"}}}}\n{{\"doc\":{{\"u\":1}}}}\n"));
    }
    let r = post(all[2].http, "/_bulk", &body);
    assert_eq!(r.json()["errors"], false, "{}", r.text());
    for id in ids.iter().skip(10).take(10) {
        let d = get(all[0].http, &format!("/docs/_doc/{id}")).json();
        assert_eq!(d["_source"]["u"], 1, "{d}");
        assert_eq!(d["_version"], 2, "{d}");
    }
}
