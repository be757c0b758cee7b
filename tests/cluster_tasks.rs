//! Tasks across three `fathom` processes: a list's per-node children on every node point at the
//! coordinating task; a search's shard requests on other nodes are children of the search task
//! there (the transport carries the parent id), and cancelling the search on its node answers
//! `task_cancelled_exception`.

mod common;

use std::time::{Duration, Instant};

use common::cluster::{free_port, one_cluster_at_a_time, start, wait_agreement, Proc};
use common::http::{get, post, put, send};
use serde_json::{json, Value};

fn cluster() -> (Vec<tempfile::TempDir>, Vec<Proc>) {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["n0", "n1", "n2"];
    let initial = names.join(",");
    let procs: Vec<Proc> = (0..3).map(|i| start(dirs[i].path(), names[i], ports[i], &seeds, &initial)).collect();
    let all: Vec<&Proc> = procs.iter().collect();
    wait_agreement(&all, 3, Duration::from_secs(60));
    (dirs, procs)
}

fn tasks_of(p: &Proc, actions: &str) -> Vec<Value> {
    let v = get(p.http, &format!("/_tasks?group_by=none&actions={actions}")).json();
    v["tasks"].as_array().cloned().unwrap_or_default()
}

#[test]
fn children_on_other_nodes_point_at_the_coordinating_task_and_cancel_with_it() {
    let _turn = one_cluster_at_a_time();
    let (_dirs, procs) = cluster();
    // A list from node 0 asks each node: three children, one per node, all under one root.
    let v = get(procs[0].http, "/_tasks?group_by=parents").json();
    let roots = v["tasks"].as_object().unwrap();
    assert_eq!(roots.len(), 1, "{v}");
    let (root_id, root) = roots.iter().next().unwrap();
    let kids = root["children"].as_array().unwrap();
    assert_eq!(kids.len(), 3, "{v}");
    let mut nodes: Vec<&str> = kids.iter().map(|k| k["node"].as_str().unwrap()).collect();
    nodes.sort_unstable();
    nodes.dedup();
    assert_eq!(nodes.len(), 3, "one child per node: {v}");
    assert!(kids.iter().all(|k| k["parent_task_id"] == root_id.as_str()));

    // An index with a shard on each node, large enough that a heavy search runs for seconds.
    let r = put(
        procs[0].http,
        "/big",
        r#"{"settings": {"number_of_shards": 3, "number_of_replicas": 0},
            "mappings": {"properties": {"n": {"type": "long"}, "t": {"type": "text"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let mut seed = 11u64;
    for part in 0..4u64 {
        let mut bulk = String::new();
        for i in 0..50_000u64 {
            let words: Vec<String> = (0..8)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    format!("w{}", (seed >> 33) % 100)
                })
                .collect();
            let id = part * 50_000 + i;
            bulk.push_str(&format!(
                "{}\n{}\n",
                json!({"index": {"_id": id.to_string()}}),
                json!({"n": id, "t": words.join(" ")})
            ));
        }
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let r = send(
                procs[0].http,
                "POST",
                "/big/_bulk",
                Some(bulk.as_bytes()),
                &[("Content-Type", "application/x-ndjson")],
            );
            if r.status == 200 && r.json()["errors"] == false {
                break;
            }
            assert!(Instant::now() < deadline, "bulk keeps failing: {}", r.text());
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    for p in &procs {
        assert_eq!(post(p.http, "/big/_refresh", "").status, 200);
    }
    let clauses: Vec<Value> = (0..25)
        .map(|i| {
            let terms: Vec<String> = (0..40).map(|j| format!("w{}", (i * 7 + j) % 100)).collect();
            json!({"match": {"t": terms.join(" ")}})
        })
        .collect();
    let body =
        json!({"size": 5, "track_total_hits": true, "sort": [{"n": "desc"}], "query": {"bool": {"should": clauses}}})
            .to_string();
    let addr = procs[0].http;
    let search = std::thread::spawn(move || {
        send(addr, "POST", "/big/_search", Some(body.as_bytes()), &[("X-Opaque-Id", "wide")])
    });

    // The search task on node 0, then its shard-level children on the other nodes.
    let mut parent = None;
    let mut remote_children = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline && (parent.is_none() || remote_children == 0) {
        if parent.is_none() {
            parent = tasks_of(&procs[0], "indices:data/read/search")
                .into_iter()
                .find(|t| t["headers"]["X-Opaque-Id"] == "wide")
                .map(|t| format!("{}:{}", t["node"].as_str().unwrap(), t["id"]));
        }
        if let Some(p) = &parent {
            remote_children = procs[1..]
                .iter()
                .flat_map(|n| tasks_of(n, "indices:data/read/search*"))
                .filter(|t| t["parent_task_id"] == p.as_str())
                .count();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let parent = parent.expect("the search shows in _tasks on its node");
    assert!(remote_children > 0, "shard requests on other nodes are children of {parent}");
    let c = post(procs[0].http, &format!("/_tasks/{parent}/_cancel"), "").json();
    assert!(c["nodes"].as_object().is_some_and(|n| !n.is_empty()), "{c}");
    let r = search.join().unwrap();
    assert_eq!(r.status, 500, "{}", r.text());
    assert_eq!(r.json()["error"]["type"], "task_cancelled_exception", "{}", r.text());
}
