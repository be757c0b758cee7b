//! The cluster state across three `fathom` processes: metadata changes made through any node
//! are committed by the coordination and applied on every node, the routing table spreads the
//! primaries over the data nodes and each node opens only its own copies; a node that leaves
//! takes its primaries with it (red), and they come back when it restarts on its data.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, start, wait_agreement, Proc};
use common::http::{delete, get, put};
use serde_json::Value;

/// Shard → (state, node) of the primaries of `index`, as `p` reports them.
fn primaries(p: &Proc, index: &str) -> BTreeMap<String, (String, Option<String>)> {
    let v = get(p.http, &format!("/_cluster/state/routing_table/{index}")).json();
    let mut out = BTreeMap::new();
    if let Some(shards) = v["routing_table"]["indices"][index]["shards"].as_object() {
        for (id, copies) in shards {
            for c in copies.as_array().into_iter().flatten() {
                if c["primary"] == true {
                    let node = c["node"].as_str().map(str::to_string);
                    out.insert(id.clone(), (c["state"].as_str().unwrap_or("").to_string(), node));
                }
            }
        }
    }
    out
}

/// Waits until `check` holds, polling; panics with the last value after `within`.
fn wait_until<T: std::fmt::Debug>(within: Duration, mut probe: impl FnMut() -> T, check: impl Fn(&T) -> bool) -> T {
    let deadline = Instant::now() + within;
    loop {
        let v = probe();
        if check(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "not reached within {within:?}: {v:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn metadata_and_routing_are_shared_by_every_node() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["a0", "a1", "a2"];
    let initial = names.join(",");
    let mut procs: Vec<Option<Proc>> =
        (0..3).map(|i| Some(start(dirs[i].path(), names[i], ports[i], &seeds, &initial))).collect();
    let all: Vec<&Proc> = procs.iter().map(|p| p.as_ref().unwrap()).collect();
    let manager = wait_agreement(&all, 3, Duration::from_secs(60));
    let ids: Vec<String> = all.iter().map(|p| local_id(p)).collect();

    // Created through one node, the index is on all of them, with the same uuid.
    let r = put(all[1].http, "/spread", r#"{"settings":{"number_of_shards":6,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let uuids: Vec<Value> = all
        .iter()
        .map(|p| get(p.http, "/spread/_settings").json()["spread"]["settings"]["index"]["uuid"].clone())
        .collect();
    assert!(uuids[0].is_string() && uuids.iter().all(|u| *u == uuids[0]), "{uuids:?}");

    // Every primary starts, on some data node, each node holding at least one; every node
    // reports the same table.
    let table = wait_until(
        Duration::from_secs(30),
        || primaries(all[2], "spread"),
        |t| t.len() == 6 && t.values().all(|(s, _)| s == "STARTED"),
    );
    for i in &ids {
        assert!(table.values().any(|(_, n)| n.as_deref() == Some(i.as_str())), "node {i} holds no primary: {table:?}");
    }
    for p in &all {
        wait_until(Duration::from_secs(10), || primaries(p, "spread"), |t| *t == table);
    }

    // A mapping change through another node reaches every node.
    let r = put(all[2].http, "/spread/_mapping", r#"{"properties":{"title":{"type":"keyword"}}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    // Acknowledged once every node applied it.
    for p in &all {
        let m = get(p.http, "/spread/_mapping").json();
        assert_eq!(m["spread"]["mappings"]["properties"]["title"]["type"], "keyword", "{m}");
    }

    // A node that is not the manager is killed: the follower checks remove it and its
    // primaries are lost with it (no replicas): red.
    let gone = (0..3).find(|i| ids[*i] != manager).unwrap();
    let gone_id = ids[gone].clone();
    drop(procs[gone].take());
    let live: Vec<&Proc> = procs.iter().flatten().collect();
    let lost = table.values().filter(|(_, n)| n.as_deref() == Some(gone_id.as_str())).count();
    let h = wait_until(
        Duration::from_secs(30),
        || get(live[0].http, "/_cluster/health").json(),
        |h| h["number_of_nodes"] == 2 && h["status"] == "red",
    );
    assert_eq!(h["unassigned_shards"], lost, "{h}");
    assert_eq!(h["active_primary_shards"], 6 - lost, "{h}");

    // ...and, restarted on its data, it holds them again.
    procs[gone] = Some(start(dirs[gone].path(), names[gone], ports[gone], &seeds, &initial));
    let all: Vec<&Proc> = procs.iter().flatten().collect();
    wait_agreement(&all, 3, Duration::from_secs(60));
    let after = wait_until(
        Duration::from_secs(30),
        || primaries(all[0], "spread"),
        |t| t.len() == 6 && t.values().all(|(s, _)| s == "STARTED"),
    );
    assert!(after.values().any(|(_, n)| n.as_deref() == Some(gone_id.as_str())), "{after:?}");

    // Deleted through a third node: gone everywhere, files included.
    let r = delete(all[0].http, "/spread");
    assert_eq!(r.status, 200, "{}", r.text());
    for p in &all {
        assert_eq!(get(p.http, "/spread").status, 404);
    }
    for d in &dirs {
        let idx = d.path().join("nodes/0/indices");
        wait_until(Duration::from_secs(10), || std::fs::read_dir(&idx).map(|e| e.count()).unwrap_or(0), |n| *n == 0);
    }
}
