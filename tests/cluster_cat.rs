//! The inspection APIs across three `fathom` processes: `_cat/nodes`, `_cat/shards`,
//! `_cat/allocation`, `_cat/nodeattrs`, `_cat/recovery`, `_recovery`, `_nodes`, `_nodes/stats`, `_stats`,
//! `_segments` and `_cat/segments` list every node (or copy) of the
//! cluster from any node, with the figures each node measured of itself (documents of replicas
//! included); a node that is gone is reported as failed until the cluster state drops it.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, start_with, wait_agreement, Proc};
use common::http::{get, put, send};
use serde_json::Value;

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

fn cat(p: &Proc, path: &str) -> Vec<Value> {
    let sep = if path.contains('?') { '&' } else { '?' };
    let r = get(p.http, &format!("{path}{sep}format=json"));
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    r.json().as_array().cloned().unwrap_or_default()
}

fn names(rows: &[Value], key: &str) -> BTreeSet<String> {
    rows.iter().filter_map(|r| r[key].as_str().map(str::to_string)).collect()
}

#[test]
fn every_node_is_listed_from_any_node() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names_ = ["c0", "c1", "c2"];
    let initial = names_.join(",");
    let zones = ["z0", "z1", "z2"];
    let mut procs: Vec<Option<Proc>> = (0..3)
        .map(|i| {
            Some(start_with(dirs[i].path(), names_[i], ports[i], &seeds, &initial, &[("node.attr.zone", zones[i])]))
        })
        .collect();
    let all: Vec<&Proc> = procs.iter().map(|p| p.as_ref().unwrap()).collect();
    let manager = wait_agreement(&all, 3, Duration::from_secs(60));
    let ids: Vec<String> = all.iter().map(|p| local_id(p)).collect();
    let every: BTreeSet<String> = names_.iter().map(|s| s.to_string()).collect();

    // _cat/nodes from each node: three rows, one manager, each with its own figures.
    for p in &all {
        let rows = cat(
            p,
            "/_cat/nodes?h=name,id,cluster_manager,heap.percent,ram.percent,disk.total,pid,port,node.role&full_id=true",
        );
        assert_eq!(names(&rows, "name"), every, "{rows:?}");
        let managers: Vec<&Value> = rows.iter().filter(|r| r["cluster_manager"] == "*").collect();
        assert_eq!(managers.len(), 1, "{rows:?}");
        assert_eq!(managers[0]["id"], Value::String(manager.clone()));
        for r in &rows {
            assert!(r["heap.percent"].as_str().is_some_and(|s| s.parse::<u64>().is_ok()), "{r}");
            assert!(r["disk.total"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
            assert_eq!(r["node.role"], "dimr", "{r}");
            let i = names_.iter().position(|n| r["name"] == *n).unwrap();
            assert_eq!(r["id"], Value::String(ids[i].clone()));
            assert_eq!(r["port"], Value::String(ports[i].to_string()));
        }
        // Each node reports its own process: three different pids.
        assert_eq!(names(&rows, "pid").len(), 3, "{rows:?}");
    }

    // _cat/nodeattrs: the zone of every node.
    let attrs = cat(all[1], "/_cat/nodeattrs?h=node,attr,value");
    let zone_rows: BTreeSet<(String, String)> = attrs
        .iter()
        .filter(|r| r["attr"] == "zone")
        .map(|r| (r["node"].as_str().unwrap().to_string(), r["value"].as_str().unwrap().to_string()))
        .collect();
    let want: BTreeSet<(String, String)> = (0..3).map(|i| (names_[i].to_string(), zones[i].to_string())).collect();
    assert_eq!(zone_rows, want);

    // _nodes and _nodes/stats from a node: every node, filters resolved over the cluster.
    let info = get(all[2].http, "/_nodes").json();
    assert_eq!(info["_nodes"]["total"], 3, "{info}");
    assert_eq!(info["_nodes"]["successful"], 3, "{info}");
    let got: BTreeSet<String> = info["nodes"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(got, ids.iter().cloned().collect());
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(info["nodes"][id]["name"], names_[i]);
        assert_eq!(info["nodes"][id]["attributes"]["zone"], zones[i]);
    }
    let one = get(all[0].http, "/_nodes/zone:z1/process").json();
    assert_eq!(one["_nodes"]["total"], 1, "{one}");
    assert!(one["nodes"][&ids[1]]["process"]["id"].is_u64(), "{one}");
    let m = get(all[0].http, "/_nodes/_cluster_manager").json();
    assert_eq!(m["nodes"].as_object().unwrap().keys().collect::<Vec<_>>(), [&manager]);
    let stats = get(all[1].http, "/_nodes/stats/fs,jvm").json();
    assert_eq!(stats["_nodes"]["successful"], 3, "{stats}");
    for id in &ids {
        assert!(stats["nodes"][id]["fs"]["total"]["total_in_bytes"].as_u64().unwrap() > 0, "{stats}");
        assert!(stats["nodes"][id]["jvm"]["mem"]["heap_used_in_bytes"].as_u64().unwrap() > 0, "{stats}");
    }

    // An index of 2 shards with 1 replica: 4 copies, every copy's documents counted by the
    // node holding it (replicas included).
    let r = put(all[0].http, "/books", r#"{"settings":{"number_of_shards":2,"number_of_replicas":1}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for i in 0..20 {
        bulk.push_str(&format!("{{\"index\":{{\"_id\":\"{i}\"}}}}\n{{\"n\":{i}}}\n"));
    }
    wait_until(
        Duration::from_secs(60),
        || get(all[0].http, "/_cluster/health/books").json()["status"].clone(),
        |s| s == "green",
    );
    let ndjson = [("content-type", "application/x-ndjson")];
    let r = send(all[1].http, "POST", "/books/_bulk?refresh=true", Some(bulk.as_bytes()), &ndjson);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false, "{}", r.text());
    // Replicas refresh on their own schedule (`index.refresh_interval`): every copy of each
    // shard ends with the same documents, on whichever node is asked.
    for p in &all {
        wait_until(Duration::from_secs(30), || get(p.http, "/books/_count").json()["count"].clone(), |c| *c == 20);
    }
    for p in &all {
        let rows = wait_until(
            Duration::from_secs(30),
            || cat(p, "/_cat/shards/books?h=index,shard,prirep,state,docs,store,node,id"),
            |rows| rows.len() == 4 && rows.iter().all(|r| r["state"] == "STARTED" && r["docs"].is_string()),
        );
        for shard in ["0", "1"] {
            let copies: Vec<&Value> = rows.iter().filter(|r| r["shard"] == shard).collect();
            assert_eq!(copies.len(), 2, "{rows:?}");
            let prireps: BTreeSet<&str> = copies.iter().map(|r| r["prirep"].as_str().unwrap()).collect();
            assert_eq!(prireps, ["p", "r"].into_iter().collect(), "{rows:?}");
            // The replica holds what the primary holds, on another node.
            assert_eq!(copies[0]["docs"], copies[1]["docs"], "{rows:?}");
            assert_ne!(copies[0]["node"], copies[1]["node"], "{rows:?}");
        }
        let total: u64 = rows.iter().map(|r| r["docs"].as_str().unwrap().parse::<u64>().unwrap()).sum();
        assert_eq!(total, 40, "{rows:?}");
    }

    // _cat/indices from any node: the primaries' documents, the store of all four copies.
    for p in &all {
        let rows = cat(p, "/_cat/indices/books?h=docs.count,store.size,pri.store.size&bytes=b");
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0]["docs.count"], "20", "{rows:?}");
        let total: u64 = rows[0]["store.size"].as_str().unwrap().parse().unwrap();
        let pri: u64 = rows[0]["pri.store.size"].as_str().unwrap().parse().unwrap();
        assert!(pri > 0 && total > pri, "{rows:?}");
    }

    // _cluster/stats from any node: three nodes, four copies, the primaries' documents.
    let cstats = get(all[1].http, "/_cluster/stats").json();
    assert_eq!(cstats["_nodes"]["successful"], 3, "{cstats}");
    assert_eq!(cstats["nodes"]["count"]["total"], 3, "{cstats}");
    assert_eq!(cstats["nodes"]["count"]["data"], 3, "{cstats}");
    assert_eq!(cstats["indices"]["shards"]["total"], 4, "{cstats}");
    assert_eq!(cstats["indices"]["shards"]["primaries"], 2, "{cstats}");
    assert_eq!(cstats["indices"]["docs"]["count"], 20, "{cstats}");
    assert_eq!(cstats["nodes"]["packaging_types"][0]["count"], 3, "{cstats}");

    // _stats from any node: each node counts the copies it holds; replicas index too.
    for p in &all {
        let v = get(p.http, "/books/_stats/indexing,docs?level=shards").json();
        assert_eq!(v["_shards"]["successful"], 4, "{v}");
        assert_eq!(v["indices"]["books"]["primaries"]["indexing"]["index_total"], 20, "{v}");
        assert_eq!(v["indices"]["books"]["total"]["indexing"]["index_total"], 40, "{v}");
        assert_eq!(v["indices"]["books"]["primaries"]["docs"]["count"], 20, "{v}");
        let nodes: BTreeSet<&str> = v["indices"]["books"]["shards"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|c| c.as_array().unwrap())
            .filter_map(|c| c["routing"]["node"].as_str())
            .collect();
        assert!(nodes.len() >= 2, "{v}");
        let seg = get(p.http, "/books/_segments").json();
        assert_eq!(seg["_shards"]["successful"], 4, "{seg}");
        let rows = cat(p, "/_cat/segments/books?h=prirep,docs.count");
        let docs: u64 = rows.iter().map(|r| r["docs.count"].as_str().unwrap().parse::<u64>().unwrap()).sum();
        assert_eq!(docs, 40, "{rows:?}");
    }

    // _cat/allocation: every data node with its copies (4 in all), its own disk figures.
    let rows = cat(all[2], "/_cat/allocation?h=shards,disk.indices,disk.total,disk.percent,node");
    assert_eq!(names(&rows, "node"), every, "{rows:?}");
    let shards: u64 = rows.iter().map(|r| r["shards"].as_str().unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(shards, 4, "{rows:?}");
    for r in &rows {
        assert!(r["disk.total"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
        assert!(r["disk.percent"].as_str().is_some_and(|s| s.parse::<u64>().is_ok()), "{r}");
    }

    // _recovery and _cat/recovery from any node: every copy's recovery, reported by the node
    // that holds it: the primaries from an empty store, the replicas by peer recovery from the
    // primary's node.
    let shard_rows = cat(all[0], "/_cat/shards/books?h=shard,prirep,node");
    let holder = |shard: &str, prirep: &str| {
        shard_rows.iter().find(|r| r["shard"] == shard && r["prirep"] == prirep).unwrap()["node"].clone()
    };
    for p in &all {
        let rec = get(p.http, "/books/_recovery").json();
        let copies = rec["books"]["shards"].as_array().unwrap_or_else(|| panic!("{rec}"));
        assert_eq!(copies.len(), 4, "{rec}");
        for c in copies {
            let (shard, primary) = (c["id"].to_string(), c["primary"] == true);
            assert_eq!(c["stage"], "DONE", "{c}");
            assert_eq!(c["target"]["name"], holder(&shard, if primary { "p" } else { "r" }), "{c}");
            if primary {
                assert_eq!(c["type"], "EMPTY_STORE", "{c}");
            } else {
                assert_eq!(c["type"], "PEER", "{c}");
                assert_eq!(c["source"]["name"], holder(&shard, "p"), "{c}");
            }
        }
        let rows = cat(p, "/_cat/recovery/books?h=shard,type,source_node,target_node,stage");
        assert_eq!(rows.len(), 4, "{rows:?}");
        let peers: Vec<&Value> = rows.iter().filter(|r| r["type"] == "peer").collect();
        assert_eq!(peers.len(), 2, "{rows:?}");
        for r in peers {
            let shard = r["shard"].as_str().unwrap();
            assert_eq!(r["source_node"], holder(shard, "p"), "{rows:?}");
            assert_eq!(r["target_node"], holder(shard, "r"), "{rows:?}");
        }
    }

    // A node killed: until the cluster state drops it, it is a failed node of _nodes; after, it
    // is gone from every list and its copies show unassigned or promoted.
    let gone = (0..3).find(|i| ids[*i] != manager).unwrap();
    drop(procs[gone].take());
    let live: Vec<&Proc> = procs.iter().flatten().collect();
    // (The follower checks take seconds to notice; these requests come first.)
    let rows = cat(live[0], "/_cat/nodes?h=name,heap.percent,pid");
    assert_eq!(rows.len(), 3, "{rows:?}");
    for r in &rows {
        assert_eq!(r["name"] == names_[gone], r["heap.percent"].is_null(), "{rows:?}");
        assert_eq!(r["name"] == names_[gone], r["pid"].is_null(), "{rows:?}");
    }
    let v = get(live[0].http, "/_nodes/_all/process").json();
    assert_eq!(v["_nodes"]["total"], 3, "{v}");
    assert_eq!(v["_nodes"]["failed"], 1, "{v}");
    assert_eq!(v["_nodes"]["failures"][0]["type"], "failed_node_exception", "{v}");
    assert_eq!(v["_nodes"]["failures"][0]["node_id"], Value::String(ids[gone].clone()), "{v}");
    assert!(v["_nodes"]["failures"][0]["caused_by"]["type"].is_string(), "{v}");
    assert_eq!(v["nodes"].as_object().unwrap().len(), 2, "{v}");
    let rows = wait_until(Duration::from_secs(30), || cat(live[0], "/_cat/nodes?h=name"), |rows| rows.len() == 2);
    assert!(!names(&rows, "name").contains(names_[gone]), "{rows:?}");
    let rows = cat(live[1], "/_cat/shards/books?h=state,node");
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(rows.iter().all(|r| r["node"] != names_[gone]), "{rows:?}");
}
