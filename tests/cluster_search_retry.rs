//! A search whose chosen copy is on a node that can no longer be reached is answered from the
//! shard's next copy (OpenSearch moves a failed shard to its next copy) instead of failing it.

mod common;

use std::time::Duration;

use common::cluster::{free_port, local_id, one_cluster_at_a_time, start_with, wait_agreement, Proc};
use common::http::{get, post, put};
use serde_json::json;

#[test]
fn a_search_reaching_a_dead_node_is_answered_by_the_next_copies() {
    let _turn = one_cluster_at_a_time();
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    // Slow follower checks: the killed node stays in the cluster state while the test searches.
    let extra = [("cluster.fault_detection.follower_check.interval", "5s")];
    let mut procs: Vec<Option<Proc>> = (0..3)
        .map(|i| Some(start_with(dirs[i].path(), &format!("n{i}"), ports[i], &seeds, "n0,n1,n2", &extra)))
        .collect();
    wait_agreement(&procs.iter().flatten().collect::<Vec<_>>(), 3, Duration::from_secs(60));
    let ids: Vec<String> = procs.iter().flatten().map(local_id).collect();
    let manager = get(procs[0].as_ref().unwrap().http, "/_cluster/state/cluster_manager_node").json()
        ["cluster_manager_node"]
        .as_str()
        .unwrap()
        .to_string();
    // The node to kill is not the manager (its loss would change the state at once).
    let victim = (0..3).find(|&i| ids[i] != manager).unwrap();
    let client = procs[(0..3).find(|&i| i != victim).unwrap()].as_ref().unwrap().http;
    let r = put(client, "/r", r#"{"settings":{"number_of_shards":4,"number_of_replicas":2}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let h = get(client, "/_cluster/health/r?wait_for_status=green&timeout=60s").json();
    assert_eq!(h["status"], "green", "{h}");
    let mut bulk = String::new();
    for i in 0..40 {
        bulk.push_str(&format!("{{\"index\":{{\"_index\":\"r\",\"_id\":\"{i}\"}}}}\n{{\"n\":{i}}}\n"));
    }
    assert_eq!(post(client, "/_bulk?refresh=true", &bulk).status, 200);

    drop(procs[victim].take());
    let pref = format!("/r/_search?preference=_prefer_nodes:{}", ids[victim]);
    let st = get(client, "/_cluster/state/nodes").json();
    assert!(st["nodes"].get(&ids[victim]).is_some(), "the killed node is still listed: {st}");
    let v = post(client, &pref, r#"{"size":0,"query":{"match_all":{}}}"#).json();
    assert_eq!(v["_shards"], json!({"total": 4, "successful": 4, "skipped": 0, "failed": 0}), "{v}");
    assert_eq!(v["hits"]["total"]["value"], 40, "{v}");
}
