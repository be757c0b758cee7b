//! The operational node APIs across three `fathom` processes: `_nodes/hot_threads`,
//! `_nodes/usage`, `_cat/thread_pool` and `_cluster/pending_tasks` ask every node (their
//! node-level transport actions) and answer for the whole cluster from any node; an update that
//! cannot be published is a pending task until it gives up.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::cluster::{free_port, local_id, one_cluster_at_a_time, start, start_with, wait_agreement, Proc};
use common::http::{get, put};
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

#[test]
fn an_update_waiting_for_a_cluster_manager_is_pending() {
    let _turn = one_cluster_at_a_time();
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["q0", "q1", "q2"];
    let initial = names.join(",");
    let mut procs: Vec<Option<Proc>> = (0..3)
        .map(|i| {
            Some(start_with(dirs[i].path(), names[i], ports[i], &seeds, &initial, &[("cluster.publish.timeout", "8s")]))
        })
        .collect();
    {
        let all: Vec<&Proc> = procs.iter().map(|p| p.as_ref().unwrap()).collect();
        wait_agreement(&all, 3, Duration::from_secs(60));
    }
    // Two of three gone: no publication can commit, the survivor's update waits.
    procs[1] = None;
    procs[2] = None;
    let survivor = procs[0].as_ref().unwrap().http;
    let create = std::thread::spawn(move || put(survivor, "/stuck", "{}").status);
    let mut seen = None;
    for _ in 0..100 {
        let t = get(survivor, "/_cluster/pending_tasks?local=true").json();
        if let Some(task) =
            t["tasks"].as_array().and_then(|a| a.iter().find(|x| x["source"] == "create-index [stuck], cause [api]"))
        {
            seen = Some(task.clone());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let task = seen.expect("the waiting create-index update is listed");
    assert_eq!((task["priority"].clone(), task["executing"].clone()), (json!("NORMAL"), json!(true)), "{task}");
    assert!(task["insert_order"].is_u64() && task["time_in_queue_millis"].is_u64(), "{task}");
    assert!(task["time_in_queue"].is_string(), "{task}");
    let cat = get(survivor, "/_cat/pending_tasks?local=true&h=priority,source").text();
    assert!(cat.contains("NORMAL create-index [stuck], cause [api]\n"), "{cat}");
    // It gives up after the publish timeout and leaves the list.
    let status = create.join().unwrap();
    assert_ne!(status, 200);
    assert_eq!(get(survivor, "/_cluster/pending_tasks?local=true").json(), json!({"tasks": []}));
}
