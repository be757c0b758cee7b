//! The voting configuration exclusions API on clusters of `fathom` processes: exclusions of
//! unknown or departed nodes are recorded with `_absent_` halves and listed by every node, the
//! limit comes from `cluster.max_voting_config_exclusions`, clearing waits only for nodes still
//! in the cluster, and a wait that cannot end (the only node excluding itself) times out with
//! OpenSearch's error; excluding live nodes (the cluster manager too) returns once the
//! Reconfigurator moved them out of the voting configuration.

mod common;

use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, one_cluster_at_a_time, start_with, wait_agreement, Proc};
use common::http::{delete, get, send};
use serde_json::{json, Value};

const EXCLUSIONS: &str = "/_cluster/voting_config_exclusions";

fn post(p: &Proc, query: &str) -> common::http::Resp {
    send(p.http, "POST", &format!("{EXCLUSIONS}?{query}"), None, &[])
}

/// `metadata.cluster_coordination` as a node reports it.
fn coordination(p: &Proc) -> Value {
    get(p.http, "/_cluster/state/metadata").json()["metadata"]["cluster_coordination"].take()
}

fn exclusions(p: &Proc) -> Vec<Value> {
    coordination(p)["voting_config_exclusions"].as_array().cloned().unwrap_or_default()
}

fn committed(p: &Proc) -> Vec<String> {
    let c = coordination(p);
    c["last_committed_config"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

fn wait_until<T: std::fmt::Debug>(within: Duration, mut probe: impl FnMut() -> T, check: impl Fn(&T) -> bool) -> T {
    let deadline = Instant::now() + within;
    loop {
        let v = probe();
        if check(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "not within {within:?}: {v:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn error_of(r: &common::http::Resp) -> (u16, String, String) {
    let v = r.json();
    (
        r.status,
        v["error"]["type"].as_str().unwrap_or_default().into(),
        v["error"]["reason"].as_str().unwrap_or_default().into(),
    )
}

/// `n` nodes, every one eligible and in the bootstrap configuration, with `extra` settings.
fn cluster(n: usize, extra: &[(&str, &str)]) -> (Vec<tempfile::TempDir>, Vec<Proc>) {
    let dirs: Vec<_> = (0..n).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
    let initial = names.join(",");
    let procs: Vec<Proc> =
        (0..n).map(|i| start_with(dirs[i].path(), &names[i], ports[i], &seeds, &initial, extra)).collect();
    wait_agreement(&procs.iter().collect::<Vec<_>>(), n, Duration::from_secs(60));
    (dirs, procs)
}

#[test]
fn unknown_nodes_are_excluded_listed_everywhere_limited_and_cleared() {
    let _turn = one_cluster_at_a_time();
    let (_dirs, procs) = cluster(3, &[("cluster.max_voting_config_exclusions", "3")]);

    // Unknown nodes are excluded at once, the other half `_absent_`; the answer is empty.
    let r = post(&procs[0], "node_names=ghost");
    assert_eq!((r.status, r.body.len()), (200, 0), "{}", r.text());
    let r = post(&procs[1], "node_ids=ghost-id&timeout=5s");
    assert_eq!((r.status, r.body.len()), (200, 0), "{}", r.text());
    // Again: already present, nothing added.
    assert_eq!(post(&procs[2], "node_names=ghost").status, 200);
    let want = vec![
        json!({"node_id": "_absent_", "node_name": "ghost"}),
        json!({"node_id": "ghost-id", "node_name": "_absent_"}),
    ];
    for p in &procs {
        wait_until(Duration::from_secs(10), || exclusions(p), |e| *e == want);
    }

    // Two more would make four, over the node-level maximum of three.
    let r = post(&procs[0], "node_names=a,b");
    assert_eq!(
        error_of(&r),
        (
            400,
            "illegal_argument_exception".into(),
            "add voting config exclusions request for [] would add [2] exclusions to the existing [2] which would exceed the maximum of [3] set by [cluster.max_voting_config_exclusions]".into()
        )
    );
    // One more fits.
    assert_eq!(post(&procs[0], "node_names=a").status, 200);

    // The request is checked before anything is resolved.
    let r = post(&procs[0], "node_ids=x&node_names=y");
    assert_eq!(r.status, 400);
    assert!(error_of(&r).2.starts_with("Please set node identifiers correctly."), "{}", r.text());
    let r = post(&procs[0], "node_ids=x&master_timeout=1s");
    assert_eq!(
        error_of(&r).2,
        "request [/_cluster/voting_config_exclusions] contains unrecognized parameter: [master_timeout]"
    );

    // No exclusion names a node of the cluster: clearing (waiting for removal) returns at once.
    let t0 = Instant::now();
    let r = delete(procs[2].http, EXCLUSIONS);
    assert_eq!((r.status, r.body.len()), (200, 0), "{}", r.text());
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    for p in &procs {
        wait_until(Duration::from_secs(10), || exclusions(p), |e| e.is_empty());
    }
}

#[test]
fn a_single_node_excluding_itself_times_out() {
    let _turn = one_cluster_at_a_time();
    let (_dirs, procs) = cluster(1, &[]);
    let p = &procs[0];
    let id = local_id(p);
    let t0 = Instant::now();
    let r = post(p, &format!("node_ids={id}&timeout=1s"));
    let took = t0.elapsed();
    assert_eq!(
        error_of(&r),
        (
            500,
            "timeout_exception".into(),
            format!("timed out waiting for voting config exclusions [{{n0}}{{{id}}}] to take effect")
        )
    );
    assert!(took >= Duration::from_secs(1) && took < Duration::from_secs(15), "{took:?}");
    // The exclusion stays (OpenSearch keeps it too); the node is still the one voter.
    assert_eq!(exclusions(p), vec![json!({"node_id": id, "node_name": "n0"})]);
    assert_eq!(committed(p), vec![id.clone()]);
    // By name it is the same exclusion: nothing new, so nothing to wait for.
    assert_eq!(post(p, "node_names=n0&timeout=1s").status, 200);
    // The deprecated description form, with its warnings.
    let r = send(p.http, "POST", &format!("{EXCLUSIONS}/_local?timeout=1s"), None, &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let warnings: Vec<&str> =
        r.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("warning")).map(|(_, v)| v.as_str()).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains("POST /_cluster/voting_config_exclusions/{node_name} will be removed"),
        "{warnings:?}"
    );

    let r = delete(p.http, &format!("{EXCLUSIONS}?wait_for_removal=false"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(exclusions(p).is_empty());
}

/// The node ids and names of a cluster's nodes, and the manager's index.
fn ids_names_manager(procs: &[Proc]) -> (Vec<String>, Vec<String>, usize) {
    let ids: Vec<String> = procs.iter().map(local_id).collect();
    let names: Vec<String> = (0..procs.len()).map(|i| format!("n{i}")).collect();
    let manager = get(procs[0].http, "/_cluster/state/cluster_manager_node").json()["cluster_manager_node"]
        .as_str()
        .unwrap()
        .to_string();
    let mi = ids.iter().position(|i| *i == manager).unwrap();
    (ids, names, mi)
}

#[test]
fn excluding_live_nodes_by_name_and_id_takes_them_out_of_the_configuration() {
    let _turn = one_cluster_at_a_time();
    let (_dirs, procs) = cluster(3, &[]);
    let (ids, names, mi) = ids_names_manager(&procs);
    let other = (mi + 1) % 3;
    let r = post(&procs[mi], &format!("node_names={}", names[other]));
    assert_eq!((r.status, r.body.len()), (200, 0), "{}", r.text());
    assert!(!committed(&procs[mi]).contains(&ids[other]));
    assert_eq!(exclusions(&procs[mi]), vec![json!({"node_id": ids[other], "node_name": names[other]})]);
    assert_eq!(delete(procs[mi].http, &format!("{EXCLUSIONS}?wait_for_removal=false")).status, 200);

    let third = (mi + 2) % 3;
    let r = post(&procs[other], &format!("node_ids={}", ids[third]));
    assert_eq!((r.status, r.body.len()), (200, 0), "{}", r.text());
    // The forwarding node answers with the cluster manager's reply (the configuration is
    // committed there); its own view of the committed configuration follows a moment later.
    wait_until(Duration::from_secs(10), || committed(&procs[other]), |c| !c.contains(&ids[third]));
    assert_eq!(exclusions(&procs[other]), vec![json!({"node_id": ids[third], "node_name": names[third]})]);
    assert_eq!(delete(procs[other].http, &format!("{EXCLUSIONS}?wait_for_removal=false")).status, 200);
    wait_until(Duration::from_secs(10), || exclusions(&procs[third]), |e| e.is_empty());
}

#[test]
fn excluding_the_manager_elects_another() {
    let _turn = one_cluster_at_a_time();
    let (_dirs, procs) = cluster(3, &[]);
    let (ids, names, mi) = ids_names_manager(&procs);
    let other = (mi + 1) % 3;
    let r = post(&procs[other], &format!("node_names={}", names[mi]));
    assert_eq!((r.status, r.body.len()), (200, 0), "{}", r.text());
    let st = wait_until(
        Duration::from_secs(30),
        || get(procs[other].http, "/_cluster/state/cluster_manager_node").json(),
        |v| v["cluster_manager_node"].as_str().is_some_and(|m| m != ids[mi]),
    );
    eprintln!("new manager {st}");
    assert!(!committed(&procs[other]).contains(&ids[mi]));
    assert_eq!(exclusions(&procs[other]), vec![json!({"node_id": ids[mi], "node_name": names[mi]})]);
    // Writes still work.
    let r = send(procs[other].http, "PUT", "/after-abdication", Some(br#"{"settings":{"number_of_replicas":0}}"#), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(delete(procs[other].http, &format!("{EXCLUSIONS}?wait_for_removal=false")).status, 200);
}

#[test]
fn excluding_a_departed_node_by_id_returns_once_it_left_the_configuration() {
    let _turn = one_cluster_at_a_time();
    let (_dirs, mut procs) = cluster(3, &[]);
    let (ids, _names, mi) = ids_names_manager(&procs);
    let gone = (mi + 1) % 3;
    drop(procs.remove(gone));
    let live = &procs[0];
    wait_until(
        Duration::from_secs(60),
        || get(live.http, "/_cluster/state/nodes").json()["nodes"].as_object().map(|m| m.len()).unwrap_or(0),
        |n| *n == 2,
    );
    let r = post(live, &format!("node_ids={}", ids[gone]));
    assert_eq!((r.status, r.body.len()), (200, 0), "{}", r.text());
    assert!(!committed(live).contains(&ids[gone]));
    assert_eq!(exclusions(live), vec![json!({"node_id": ids[gone], "node_name": "_absent_"})]);
    // The node is not in the cluster: clearing with the default wait returns at once.
    assert_eq!(delete(live.http, EXCLUSIONS).status, 200);
}

#[test]
fn exclusions_survive_a_full_restart_and_clearing_waits_for_excluded_nodes_to_leave() {
    let _turn = one_cluster_at_a_time();
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names: Vec<String> = (0..3).map(|i| format!("n{i}")).collect();
    let initial = names.join(",");
    let start = |i: usize| start_with(dirs[i].path(), &names[i], ports[i], &seeds, &initial, &[]);
    let procs: Vec<Proc> = (0..3).map(start).collect();
    wait_agreement(&procs.iter().collect::<Vec<_>>(), 3, Duration::from_secs(60));
    let r = post(&procs[0], "node_names=ghost");
    assert_eq!(r.status, 200, "{}", r.text());

    // Every process killed and started again: the exclusion is still there.
    drop(procs);
    let mut procs: Vec<Option<Proc>> = (0..3).map(|i| Some(start(i))).collect();
    wait_agreement(&procs.iter().flatten().collect::<Vec<_>>(), 3, Duration::from_secs(60));
    let p0 = procs[0].as_ref().unwrap();
    let t = Instant::now();
    wait_until(
        Duration::from_secs(20),
        || exclusions(p0),
        |e| *e == vec![json!({"node_id": "_absent_", "node_name": "ghost"})],
    );
    eprintln!("exclusions back after {:?}", t.elapsed());
    assert_eq!(delete(p0.http, &format!("{EXCLUSIONS}?wait_for_removal=false")).status, 200);

    // Excluding a live node, then clearing with the default wait: the clear returns only once
    // that node has left the cluster.
    let all: Vec<Proc> = procs.iter_mut().map(|p| p.take().unwrap()).collect();
    let (ids, names, mi) = ids_names_manager(&all);
    let other = (mi + 1) % 3;
    let r = post(&all[mi], &format!("node_names={}", names[other]));
    assert_eq!(r.status, 200, "{}", r.text());
    let http = all[mi].http;
    let (tx, rx) = std::sync::mpsc::channel();
    let clearing = std::thread::spawn(move || {
        let started = Instant::now();
        let r = delete(http, EXCLUSIONS);
        let _ = tx.send(());
        (r.status, r.text(), started.elapsed())
    });
    assert!(
        rx.recv_timeout(Duration::from_secs(2)).is_err(),
        "the clear waits while the excluded node is in the cluster"
    );
    let mut all = all;
    drop(all.remove(other));
    let (status, text, took) = clearing.join().unwrap();
    assert_eq!(status, 200, "{text}");
    assert!(took < Duration::from_secs(25), "{took:?}");
    let live = all.iter().find(|p| local_id(p) == ids[mi]).unwrap();
    assert!(exclusions(live).is_empty());
}
