//! Relocation across `fathom` processes: a primary moves off a node that an allocation filter
//! excludes (or that `_cluster/reroute` moves it from) while clients write, and a joining node
//! gets its share of the copies. No acknowledged write is lost, both copies end the same.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::cluster::{free_port, start_with, wait_agreement, Proc};
use common::http::{get, post, put, send, try_send};
use serde_json::{json, Value};

/// Recoveries slow enough that a move is seen in progress (`_cat/shards` shows RELOCATING).
const THROTTLE: &[(&str, &str)] = &[("indices.recovery.max_bytes_per_sec", "256kb")];

struct Cluster {
    _dirs: Vec<tempfile::TempDir>,
    procs: Vec<Proc>,
    seeds: String,
    initial: String,
}

impl Cluster {
    fn start(n: usize, bootstrap: usize) -> Cluster {
        let dirs: Vec<_> = (0..n).map(|_| tempfile::tempdir().unwrap()).collect();
        let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
        let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
        let initial = (0..bootstrap).map(|i| format!("m{i}")).collect::<Vec<_>>().join(",");
        let procs = (0..bootstrap)
            .map(|i| start_with(dirs[i].path(), &format!("m{i}"), ports[i], &seeds, &initial, THROTTLE))
            .collect();
        let c = Cluster { _dirs: dirs, procs, seeds, initial };
        c.wait_members(bootstrap);
        c
    }
    /// Starts node `i` (of those not started by [`Cluster::start`]).
    fn add(&mut self, i: usize, port: u16) {
        let p = start_with(self._dirs[i].path(), &format!("m{i}"), port, &self.seeds, &self.initial, THROTTLE);
        self.procs.push(p);
        self.wait_members(self.procs.len());
    }
    fn wait_members(&self, n: usize) {
        let procs: Vec<&Proc> = self.procs.iter().collect();
        wait_agreement(&procs, n, Duration::from_secs(60));
        let deadline = Instant::now() + Duration::from_secs(30);
        while get(self.procs[0].http, "/_cluster/health").json()["number_of_data_nodes"] != n {
            assert!(Instant::now() < deadline, "the nodes did not all join the cluster state");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    fn node(&self, i: usize) -> &Proc {
        &self.procs[i]
    }
}

fn wait_green(p: &Proc, index: &str, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let h = get(p.http, &format!("/_cluster/health/{index}")).json();
        if h["status"] == "green" && h["initializing_shards"] == 0 && h["relocating_shards"] == 0 {
            return h;
        }
        assert!(Instant::now() < deadline, "{index} not green: {h}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The copies of shard 0 of `index`: (node id, primary, state).
fn shard0(p: &Proc, index: &str) -> Vec<(String, bool, String)> {
    let v = get(p.http, "/_cluster/state/routing_table").json();
    v["routing_table"]["indices"][index]["shards"]["0"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["node"].as_str().unwrap_or_default().to_string(),
                c["primary"] == true,
                c["state"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// Node id → node name.
fn names(p: &Proc) -> BTreeMap<String, String> {
    let v = get(p.http, "/_cluster/state/nodes").json();
    v["nodes"].as_object().unwrap().iter().map(|(id, n)| (id.clone(), n["name"].as_str().unwrap().into())).collect()
}

/// Every document on the copy this node holds: id → (seq_no, version, source).
fn local_docs(p: &Proc, index: &str) -> BTreeMap<String, (i64, i64, Value)> {
    let r = post(p.http, &format!("/{index}/_refresh"), "");
    assert_eq!(r.status, 200, "{}", r.text());
    let body = json!({"size": 10000, "seq_no_primary_term": true, "version": true, "query": {"match_all": {}}});
    let r = post(p.http, &format!("/{index}/_search?preference=_only_local"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    v["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let id = h["_id"].as_str().unwrap().to_string();
            (id, (h["_seq_no"].as_i64().unwrap(), h["_version"].as_i64().unwrap(), h["_source"].clone()))
        })
        .collect()
}

/// Waits (bounded) until `_cat/shards` of `index` shows a RELOCATING copy; the line.
fn wait_relocating(p: &Proc, index: &str, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let t = get(p.http, &format!("/_cat/shards/{index}")).text();
        if let Some(l) = t.lines().find(|l| l.contains("RELOCATING")) {
            return l.to_string();
        }
        assert!(Instant::now() < deadline, "no RELOCATING copy of {index}: {t}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Writers through every node, recording what was acknowledged: id → (version, value).
struct Writers {
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<BTreeMap<String, (i64, i64)>>>,
    /// Bulk items that failed: their answers.
    failed_items: Arc<Mutex<Vec<Value>>>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl Writers {
    fn start(addrs: &[std::net::SocketAddr], index: &str) -> Writers {
        let stop = Arc::new(AtomicBool::new(false));
        let acked: Arc<Mutex<BTreeMap<String, (i64, i64)>>> = Arc::default();
        let failed_items: Arc<Mutex<Vec<Value>>> = Arc::default();
        let mut handles: Vec<std::thread::JoinHandle<()>> = addrs
            .iter()
            .enumerate()
            .map(|(t, addr)| {
                let (stop, acked, addr, index) = (stop.clone(), acked.clone(), *addr, index.to_string());
                std::thread::spawn(move || {
                    let mut k: i64 = 0;
                    while !stop.load(Ordering::SeqCst) && k < 200_000 {
                        let id = format!("w{t}-{}", k % 300);
                        let body = json!({"v": k}).to_string();
                        let path = format!("/{index}/_doc/{id}");
                        let r = try_send(addr, "PUT", &path, body.as_bytes(), Duration::from_secs(60));
                        if let Some(r) = r.filter(|r| r.status == 200 || r.status == 201) {
                            let version = r.json()["_version"].as_i64().unwrap();
                            acked.lock().unwrap().insert(id, (version, k));
                        }
                        k += 1;
                    }
                })
            })
            .collect();
        // Bulk writers too: items that meet a primary handing off run again on the next state.
        for (t, addr) in addrs.iter().enumerate() {
            let (stop, acked, failed, addr, index) =
                (stop.clone(), acked.clone(), failed_items.clone(), *addr, index.to_string());
            handles.push(std::thread::spawn(move || {
                let mut k: i64 = 0;
                while !stop.load(Ordering::SeqCst) && k < 200_000 {
                    let ids: Vec<String> = (0..5).map(|j| format!("b{t}-{}", (k * 5 + j) % 300)).collect();
                    let mut body = String::new();
                    for id in &ids {
                        body.push_str(&format!(
                            "{{\"index\":{{\"_index\":\"{index}\",\"_id\":\"{id}\"}}}}\n{{\"v\":{k}}}\n"
                        ));
                    }
                    if let Some(r) = try_send(addr, "POST", "/_bulk", body.as_bytes(), Duration::from_secs(60)) {
                        if r.status == 200 {
                            let v = r.json();
                            for (id, item) in ids.iter().zip(v["items"].as_array().into_iter().flatten()) {
                                let a = &item["index"];
                                if a["status"] == 200 || a["status"] == 201 {
                                    acked.lock().unwrap().insert(id.clone(), (a["_version"].as_i64().unwrap(), k));
                                } else {
                                    failed.lock().unwrap().push(item.clone());
                                }
                            }
                        }
                    }
                    k += 1;
                }
            }));
        }
        Writers { stop, acked, failed_items, handles }
    }
    fn finish(self) -> BTreeMap<String, (i64, i64)> {
        self.stop.store(true, Ordering::SeqCst);
        for h in self.handles {
            h.join().unwrap();
        }
        let failed = self.failed_items.lock().unwrap().clone();
        assert!(failed.is_empty(), "bulk items failed: {failed:?}");
        self.acked.lock().unwrap().clone()
    }
}

/// Both copies hold the same documents, and every acknowledged write with its version.
fn check_copies(c: &Cluster, index: &str, acked: &BTreeMap<String, (i64, i64)>) {
    let holders: Vec<String> = shard0(c.node(0), index).into_iter().map(|x| x.0).collect();
    let ids: Vec<String> = c.procs.iter().map(common::cluster::local_id).collect();
    let copies: Vec<_> =
        c.procs.iter().zip(&ids).filter(|(_, id)| holders.contains(id)).map(|(p, _)| local_docs(p, index)).collect();
    assert_eq!(copies.len(), 2);
    assert_eq!(copies[0], copies[1], "the two copies differ");
    for (id, (version, k)) in acked {
        let (_, v, src) = copies[0].get(id).unwrap_or_else(|| panic!("acknowledged {id} is missing"));
        assert!(v >= version, "{id}: version {v} below the acknowledged {version}");
        if v == version {
            assert_eq!(src["v"], json!(k), "{id}: the acknowledged value is not there");
        }
    }
}

#[test]
fn a_primary_moves_under_writes_and_loses_no_acknowledged_write() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let c = Cluster::start(3, 3);
    let r = put(c.node(0).http, "/mv", r#"{"settings":{"number_of_shards":1,"number_of_replicas":1}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_green(c.node(0), "mv", Duration::from_secs(60));
    // Data for a file phase that takes a while at a slow recovery rate.
    let mut body = String::new();
    for n in 0..4000 {
        body.push_str(&format!(
            "{{\"index\":{{\"_index\":\"mv\",\"_id\":\"d{n}\"}}}}\n{{\"n\":{n},\"pad\":\"{}\"}}\n",
            "x".repeat(100)
        ));
    }
    let r = send(c.node(0).http, "POST", "/_bulk", Some(body.as_bytes()), &[("content-type", "application/x-ndjson")]);
    assert_eq!(r.json()["errors"], false);
    assert_eq!(post(c.node(0).http, "/mv/_flush", "").status, 200);
    let addrs: Vec<_> = c.procs.iter().map(|p| p.http).collect();
    let writers = Writers::start(&addrs, "mv");
    std::thread::sleep(Duration::from_millis(500));

    // (a) The primary's node is excluded: the primary relocates to the free node.
    let before = shard0(c.node(0), "mv");
    let primary = before.iter().find(|x| x.1).unwrap().0.clone();
    let names = names(c.node(0));
    let body = json!({"index.routing.allocation.exclude._name": names[&primary]});
    let r = put(c.node(1).http, "/mv/_settings", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let line = wait_relocating(c.node(2), "mv", Duration::from_secs(30));
    assert!(line.contains(" p ") && line.contains("->"), "{line}");
    wait_green(c.node(0), "mv", Duration::from_secs(90));
    let after = shard0(c.node(0), "mv");
    assert!(!after.iter().any(|x| x.0 == primary), "a copy stayed on the excluded node: {after:?}");
    assert_eq!(after.iter().filter(|x| x.1).count(), 1);

    // (b) `_cluster/reroute` moves the primary back to the node that holds no copy (named by
    // node name), once the filter is gone.
    let r = put(c.node(1).http, "/mv/_settings", r#"{"index.routing.allocation.exclude._name":null}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let from = after.iter().find(|x| x.1).unwrap().0.clone();
    let body = json!({"commands": [{"move": {"index": "mv", "shard": 0, "from_node": names[&from], "to_node": names[&primary]}}]});
    let r = post(c.node(2).http, "/_cluster/reroute?metric=routing_table", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["acknowledged"], true);
    let moved = v["state"]["routing_table"]["indices"]["mv"]["shards"]["0"].as_array().unwrap().clone();
    assert!(
        moved
            .iter()
            .any(|x| x["primary"] == true && x["state"] == "RELOCATING" && x["relocating_node"] == primary.as_str()),
        "{v}"
    );
    assert!(v["state"].get("metadata").is_none());
    wait_relocating(c.node(0), "mv", Duration::from_secs(10));
    wait_green(c.node(0), "mv", Duration::from_secs(90));
    let last = shard0(c.node(0), "mv");
    assert_eq!(last.iter().find(|x| x.1).unwrap().0, primary, "the primary is back: {last:?}");
    // A move of a copy that is not on the node is refused with OpenSearch's message.
    let body = json!({"commands": [{"move": {"index": "mv", "shard": 0, "from_node": names[&from], "to_node": names[&primary]}}]});
    let r = post(c.node(0).http, "/_cluster/reroute", &body.to_string());
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.json()["error"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("[move_allocation] can't move 0, failed to find it on node {"));

    // (c) The replica's node is excluded: the replica relocates (recovering from the primary).
    let replica = last.iter().find(|x| !x.1).unwrap().0.clone();
    let body = json!({"index.routing.allocation.exclude._name": names[&replica]});
    let r = put(c.node(0).http, "/mv/_settings", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let line = wait_relocating(c.node(1), "mv", Duration::from_secs(10));
    assert!(line.contains(" r ") && line.contains("->"), "{line}");
    wait_green(c.node(0), "mv", Duration::from_secs(90));
    let end = shard0(c.node(0), "mv");
    assert!(!end.iter().any(|x| x.0 == replica), "a copy stayed on the excluded node: {end:?}");
    assert_eq!(end.iter().find(|x| x.1).unwrap().0, primary, "the primary stayed: {end:?}");

    std::thread::sleep(Duration::from_millis(500));
    let acked = writers.finish();
    assert!(acked.len() > 50, "too few acknowledged writes: {}", acked.len());
    check_copies(&c, "mv", &acked);
}

#[test]
fn a_joining_node_gets_its_share_of_the_shards() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let port = free_port();
    let mut c = Cluster::start(3, 2);
    let r = put(c.node(0).http, "/spread", r#"{"settings":{"number_of_shards":6,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_green(c.node(0), "spread", Duration::from_secs(60));
    let mut body = String::new();
    for n in 0..600 {
        body.push_str(&format!("{{\"index\":{{\"_index\":\"spread\",\"_id\":\"d{n}\"}}}}\n{{\"n\":{n}}}\n"));
    }
    let r = send(
        c.node(0).http,
        "POST",
        "/_bulk?refresh=true",
        Some(body.as_bytes()),
        &[("content-type", "application/x-ndjson")],
    );
    assert_eq!(r.json()["errors"], false);
    c.add(2, port);
    let newcomer = common::cluster::local_id(c.node(2));
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let v = get(c.node(0).http, "/_cluster/state/routing_table").json();
        let mut per_node: BTreeMap<String, usize> = BTreeMap::new();
        for copies in v["routing_table"]["indices"]["spread"]["shards"].as_object().unwrap().values() {
            for x in copies.as_array().unwrap() {
                if x["state"] == "STARTED" {
                    *per_node.entry(x["node"].as_str().unwrap().to_string()).or_default() += 1;
                }
            }
        }
        if per_node.get(&newcomer) == Some(&2) && per_node.values().all(|n| *n == 2) {
            break;
        }
        assert!(Instant::now() < deadline, "the shards did not spread: {per_node:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    wait_green(c.node(0), "spread", Duration::from_secs(30));
    let v = get(c.node(2).http, "/spread/_count").json();
    assert_eq!(v["count"], 600, "{v}");
}
