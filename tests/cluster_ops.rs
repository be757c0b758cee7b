//! The operational node APIs across three `fathom` processes: `_nodes/hot_threads`,
//! `_nodes/usage`, `_cat/thread_pool` and `_cluster/pending_tasks` ask every node (their
//! node-level transport actions) and answer for the whole cluster from any node.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::cluster::{free_port, local_id, one_cluster_at_a_time, start, wait_agreement, Proc};
use common::http::get;
use serde_json::json;

#[test]
fn every_node_answers_from_any_node() {
    let _turn = one_cluster_at_a_time();
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["o0", "o1", "o2"];
    let initial = names.join(",");
    let procs: Vec<Proc> = (0..3).map(|i| start(dirs[i].path(), names[i], ports[i], &seeds, &initial)).collect();
    let all: Vec<&Proc> = procs.iter().collect();
    wait_agreement(&all, 3, Duration::from_secs(60));
    let ids: Vec<String> = all.iter().map(|p| local_id(p)).collect();

    // Hot threads: one `:::` section per node, each naming that node's own threads.
    let t =
        get(all[0].http, "/_nodes/hot_threads?threads=2&interval=50ms&snapshots=1&ignore_idle_threads=false").text();
    let heads: Vec<&str> = t.lines().filter(|l| l.starts_with("::: ")).collect();
    assert_eq!(heads.len(), 3, "{t}");
    for (i, id) in ids.iter().enumerate() {
        assert!(heads.iter().any(|h| h.starts_with(&format!("::: {{{}}}{{{id}}}", names[i]))), "{t}");
    }
    assert_eq!(t.matches("   Hot threads at ").count(), 3, "{t}");
    let one = get(all[0].http, &format!("/_nodes/{}/hot_threads?interval=10ms&snapshots=1", ids[2])).text();
    assert!(one.starts_with(&format!("::: {{o2}}{{{}}}", ids[2])), "{one}");
    assert_eq!(one.matches(":::").count(), 1, "{one}");

    // Usage: every node counts the requests it served itself.
    get(all[1].http, "/_cat/health");
    let u = get(all[2].http, "/_nodes/usage").json();
    assert_eq!(u["_nodes"], json!({"total": 3, "successful": 3, "failed": 0}), "{u}");
    assert_eq!(u["nodes"][&ids[1]]["rest_actions"]["cat:health"], 1, "{u}");
    assert_eq!(u["nodes"][&ids[0]]["rest_actions"]["cluster:monitor/nodes/hot_threads"], 2, "{u}");
    assert!(u["nodes"][&ids[2]]["rest_actions"].get("cat:health").is_none(), "{u}");

    // Thread pools of every node; pending tasks gathered from every node (none left).
    let rows = get(all[1].http, "/_cat/thread_pool/search?format=json&h=node_name,name").json();
    let nodes: BTreeSet<String> =
        rows.as_array().unwrap().iter().map(|r| r["node_name"].as_str().unwrap().to_string()).collect();
    assert_eq!(nodes, names.iter().map(|s| s.to_string()).collect(), "{rows}");
    assert_eq!(get(all[2].http, "/_cluster/pending_tasks").json(), json!({"tasks": []}));
}
