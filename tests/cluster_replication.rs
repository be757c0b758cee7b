//! Replicas across `fathom` processes: peer recovery fills new replicas (files, then the
//! operations written meanwhile), every acknowledged write is on every in-sync copy, and when
//! the node holding a primary is killed a replica takes over without losing an acknowledged
//! write.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, start_with, wait_agreement, Proc};
use common::http::{get, post, put, send, try_send};
use serde_json::{json, Value};

/// Three nodes of one cluster, with their data directories.
struct Cluster {
    _dirs: Vec<tempfile::TempDir>,
    procs: Vec<Option<Proc>>,
}

impl Cluster {
    fn start(n: usize) -> Cluster {
        let dirs: Vec<_> = (0..n).map(|_| tempfile::tempdir().unwrap()).collect();
        let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
        let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
        let names: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
        let initial = names.join(",");
        let procs: Vec<Option<Proc>> =
            (0..n).map(|i| Some(start_with(dirs[i].path(), &names[i], ports[i], &seeds, &initial, &[]))).collect();
        let c = Cluster { _dirs: dirs, procs };
        wait_agreement(&c.alive(), n, Duration::from_secs(60));
        let deadline = Instant::now() + Duration::from_secs(30);
        while get(c.node(0).http, "/_cluster/health").json()["number_of_data_nodes"] != n {
            assert!(Instant::now() < deadline, "the nodes did not all join the cluster state");
            std::thread::sleep(Duration::from_millis(100));
        }
        c
    }
    fn node(&self, i: usize) -> &Proc {
        self.procs[i].as_ref().expect("node alive")
    }
    fn alive(&self) -> Vec<&Proc> {
        self.procs.iter().flatten().collect()
    }
    fn kill(&mut self, i: usize) {
        let mut p = self.procs[i].take().expect("node alive");
        p.child.kill().unwrap(); // SIGKILL
        p.child.wait().unwrap();
    }
}

fn wait_status(p: &Proc, index: &str, want: &[&str], within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let h = get(p.http, &format!("/_cluster/health/{index}")).json();
        if want.iter().any(|w| h["status"] == *w) && h["initializing_shards"] == 0 && h["relocating_shards"] == 0 {
            return h;
        }
        assert!(Instant::now() < deadline, "{index} not {want:?}: {h}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Every document of `index` on the copies this node holds: id → (seq_no, version, source).
fn local_docs(p: &Proc, index: &str) -> BTreeMap<String, (i64, i64, Value)> {
    let r = post(p.http, &format!("/{index}/_refresh"), "");
    assert_eq!(r.status, 200, "{}", r.text());
    let body = json!({"size": 10000, "seq_no_primary_term": true, "version": true, "query": {"match_all": {}}});
    let r = post(p.http, &format!("/{index}/_search?preference=_only_local"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["_shards"]["failed"], 0, "{v}");
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

fn bulk(p: &Proc, body: &str) -> Value {
    let r = send(p.http, "POST", "/_bulk", Some(body.as_bytes()), &[("content-type", "application/x-ndjson")]);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["errors"], false, "{v}");
    v
}

#[test]
fn replicas_recover_from_the_primary_and_hold_what_it_holds() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let c = Cluster::start(3);
    let r = put(c.node(0).http, "/rep", r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_status(c.node(0), "rep", &["green"], Duration::from_secs(30));
    // Files for the file phase: 3000 documents, some overwritten and deleted, flushed.
    for round in 0..3 {
        let mut body = String::new();
        for i in 0..1000 {
            let n = round * 1000 + i;
            body.push_str(&format!("{{\"index\":{{\"_index\":\"rep\",\"_id\":\"d{n}\"}}}}\n{{\"n\":{n}}}\n"));
        }
        bulk(c.node(round as usize % 3), &body);
    }
    let mut body = String::new();
    for n in (0..3000).step_by(7) {
        body.push_str(&format!("{{\"delete\":{{\"_index\":\"rep\",\"_id\":\"d{n}\"}}}}\n"));
    }
    for n in (1..3000).step_by(11) {
        body.push_str(&format!(
            "{{\"index\":{{\"_index\":\"rep\",\"_id\":\"d{n}\"}}}}\n{{\"n\":{n},\"again\":true}}\n"
        ));
    }
    bulk(c.node(1), &body);
    assert_eq!(post(c.node(0).http, "/rep/_flush", "").status, 200);

    // Writes keep coming while two replicas recover (the translog phase and replication
    // overlap).
    let stop = Arc::new(AtomicBool::new(false));
    let acked: Arc<Mutex<Vec<String>>> = Arc::default();
    let writer = {
        let (stop, acked, addr) = (stop.clone(), acked.clone(), c.node(2).http);
        std::thread::spawn(move || {
            let mut k = 0;
            while !stop.load(Ordering::SeqCst) && k < 20_000 {
                let id = format!("w{k}");
                let r = try_send(addr, "PUT", &format!("/rep/_doc/{id}"), br#"{"live":true}"#, Duration::from_secs(30));
                if r.is_some_and(|r| r.status == 201) {
                    acked.lock().unwrap().push(id);
                }
                k += 1;
            }
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let r = put(c.node(0).http, "/rep/_settings", r#"{"index":{"number_of_replicas":2}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_status(c.node(0), "rep", &["green"], Duration::from_secs(60));
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    let acked = acked.lock().unwrap().clone();
    assert!(!acked.is_empty(), "the writer got no acknowledgement");

    // Every node holds a copy: the three copies are the same documents, with the same seq_no,
    // version and source, and hold every acknowledged write.
    let copies: Vec<_> = c.alive().iter().map(|p| local_docs(p, "rep")).collect();
    let expected_docs = 3000 - (0..3000).step_by(7).count() + (1..3000).step_by(11).filter(|n| n % 7 == 0).count();
    assert_eq!(copies[0].len(), expected_docs + acked.len(), "documents on the first copy");
    for (i, copy) in copies.iter().enumerate().skip(1) {
        assert_eq!(copy, &copies[0], "copy {i} differs from copy 0");
    }
    for id in &acked {
        assert!(copies[0].contains_key(id), "acknowledged {id} is missing");
    }
    assert_eq!(copies[0]["d1"].2, json!({"n": 1, "again": true}));

    // Refresh reaches every copy: `_refresh` on every node that holds one, `refresh=true` on
    // the replicas of the write.
    let r = post(c.node(1).http, "/rep/_refresh", "");
    assert_eq!(r.json()["_shards"], json!({"total": 3, "successful": 3, "failed": 0}), "{}", r.text());
    let r = put(c.node(2).http, "/rep/_doc/seen?refresh=true", r#"{"x":0}"#);
    assert_eq!(r.status, 201, "{}", r.text());
    for p in c.alive() {
        let v = get(p.http, "/rep/_count?preference=_only_local&q=_id:seen").json();
        assert_eq!(v["count"], 1, "refresh=true did not reach this copy: {v}");
    }

    // `_shards` counts the three copies, for single documents and bulk items, whichever node
    // takes the request.
    for p in c.alive() {
        let r = put(p.http, "/rep/_doc/counted", r#"{"x":1}"#);
        assert_eq!(r.json()["_shards"], json!({"total": 3, "successful": 3, "failed": 0}), "{}", r.text());
        let b = bulk(p, "{\"index\":{\"_index\":\"rep\",\"_id\":\"counted2\"}}\n{\"x\":2}\n");
        assert_eq!(b["items"][0]["index"]["_shards"], json!({"total": 3, "successful": 3, "failed": 0}), "{b}");
    }

    // The replicas report PEER recoveries from the primary's node.
    let state = get(c.node(0).http, "/_cluster/state/routing_table").json();
    let primary_node = state["routing_table"]["indices"]["rep"]["shards"]["0"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["primary"] == true)
        .unwrap()["node"]
        .clone();
    // Any node lists every copy's recovery, each reported by the node holding it.
    for p in c.alive() {
        let rec = get(p.http, "/rep/_recovery").json();
        let shards = rec["rep"]["shards"].as_array().unwrap();
        assert_eq!(shards.len(), 3, "{rec}");
        let mut peers = 0;
        let mut targets = std::collections::BTreeSet::new();
        for s in shards {
            assert_eq!(s["stage"], "DONE", "{s}");
            targets.insert(s["target"]["id"].as_str().unwrap().to_string());
            if s["type"] == "PEER" {
                peers += 1;
                assert_eq!(s["source"]["id"], primary_node, "{s}");
                assert_eq!(s["primary"], false);
                assert!(s["index"]["files"]["recovered"].as_u64().unwrap() > 0, "{s}");
            } else {
                assert_eq!(s["target"]["id"], primary_node, "{s}");
            }
        }
        assert_eq!(peers, 2, "{rec}");
        assert_eq!(targets.len(), 3, "{rec}");
    }
}

#[test]
fn killing_the_node_of_a_primary_loses_no_acknowledged_write() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let mut c = Cluster::start(3);
    let settings = json!({"settings": {
        "number_of_shards": 2,
        "number_of_replicas": 1,
        "index.unassigned.node_left.delayed_timeout": "0s"
    }});
    let r = put(c.node(0).http, "/acks", &settings.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    wait_status(c.node(0), "acks", &["green"], Duration::from_secs(60));
    // The node to kill holds a primary and is not the cluster manager (that is the other test).
    let state = get(c.node(0).http, "/_cluster/state/routing_table,cluster_manager_node").json();
    let manager = state["cluster_manager_node"].as_str().unwrap().to_string();
    let ids: Vec<String> = c.alive().iter().map(|p| local_id(p)).collect();
    let shards = state["routing_table"]["indices"]["acks"]["shards"].as_object().unwrap().clone();
    let holds_primary = |id: &str| {
        shards.values().any(|copies| copies.as_array().unwrap().iter().any(|c| c["primary"] == true && c["node"] == id))
    };
    let victim = (0..3)
        .find(|&i| ids[i] != manager && holds_primary(&ids[i]))
        .unwrap_or_else(|| (0..3).find(|&i| holds_primary(&ids[i])).unwrap());
    let survivors: Vec<std::net::SocketAddr> = (0..3).filter(|&i| i != victim).map(|i| c.node(i).http).collect();

    // Four clients write (creates and overwrites) through the surviving nodes and record what
    // was acknowledged: id → (version, value).
    let stop = Arc::new(AtomicBool::new(false));
    let acked: Arc<Mutex<BTreeMap<String, (i64, i64)>>> = Arc::default();
    let attempted: Arc<Mutex<BTreeMap<String, Vec<i64>>>> = Arc::default();
    let ack_times: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let clients: Vec<_> = (0..4)
        .map(|t| {
            let (stop, acked, attempted) = (stop.clone(), acked.clone(), attempted.clone());
            let ack_times = ack_times.clone();
            let addr = survivors[t % 2];
            std::thread::spawn(move || {
                let mut k: i64 = 0;
                while !stop.load(Ordering::SeqCst) && k < 100_000 {
                    let id = format!("c{t}-{}", k % 50);
                    attempted.lock().unwrap().entry(id.clone()).or_default().push(k);
                    let body = json!({"v": k}).to_string();
                    let r =
                        try_send(addr, "PUT", &format!("/acks/_doc/{id}"), body.as_bytes(), Duration::from_secs(30));
                    if let Some(r) = r.filter(|r| r.status == 200 || r.status == 201) {
                        let version = r.json()["_version"].as_i64().unwrap();
                        acked.lock().unwrap().insert(id, (version, k));
                        ack_times.lock().unwrap().push(Instant::now());
                    }
                    k += 1;
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    let before = ack_times.lock().unwrap().len();
    assert!(before > 0, "no write was acknowledged before the kill");
    let killed = Instant::now();
    c.kill(victim);
    std::thread::sleep(Duration::from_secs(8));
    stop.store(true, Ordering::SeqCst);
    for h in clients {
        h.join().unwrap();
    }

    // The cluster heals on two nodes (each primary has a started replica again).
    let p = c.node(survivors_index(victim));
    wait_status(p, "acks", &["green"], Duration::from_secs(60));
    let acked = acked.lock().unwrap().clone();
    let attempted = attempted.lock().unwrap().clone();
    let copies: Vec<_> = c.alive().iter().map(|p| local_docs(p, "acks")).collect();
    let writes: usize = attempted.values().map(Vec::len).sum();
    let mut times = ack_times.lock().unwrap().clone();
    times.sort();
    let after: Vec<Instant> = times.iter().copied().filter(|t| *t > killed).collect();
    let longest_gap = std::iter::once(killed)
        .chain(after.iter().copied())
        .zip(after.iter().copied())
        .map(|(a, b)| b - a)
        .max()
        .unwrap_or_default();
    eprintln!(
        "{writes} writes, {} acknowledged ({before} before the kill, {} after; longest pause {longest_gap:?}), {} documents",
        times.len(),
        after.len(),
        copies[0].len()
    );
    assert!(!after.is_empty(), "no write was acknowledged after the kill");
    assert_eq!(copies[0], copies[1], "the two copies of each shard differ");
    for (id, (version, value)) in &acked {
        let (_, v, source) = copies[0].get(id).unwrap_or_else(|| panic!("acknowledged {id} is missing"));
        // A later write to the same id may have landed without its acknowledgement.
        assert!(*v >= *version, "{id}: version {v} is below the acknowledged {version}");
        let got = source["v"].as_i64().unwrap();
        assert!(got >= *value, "{id}: value {got} is older than the acknowledged {value}");
    }
    for (id, (_, _, source)) in &copies[0] {
        let tried = attempted.get(id).unwrap_or_else(|| panic!("{id} was never written"));
        assert!(tried.contains(&source["v"].as_i64().unwrap()), "{id} holds a value never written: {source}");
    }
}

/// The index in `0..3` of the first node that is not `victim`.
fn survivors_index(victim: usize) -> usize {
    if victim == 0 {
        1
    } else {
        0
    }
}

#[test]
fn a_rolling_restart_stays_green_between_steps_and_keeps_every_write() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["rr0", "rr1", "rr2"];
    let initial = names.join(",");
    let start = |i: usize| start_with(dirs[i].path(), names[i], ports[i], &seeds, &initial, &[]);
    let mut procs: Vec<Proc> = (0..3).map(start).collect();
    wait_agreement(&procs.iter().collect::<Vec<_>>(), 3, Duration::from_secs(60));
    let deadline = Instant::now() + Duration::from_secs(30);
    while get(procs[0].http, "/_cluster/health").json()["number_of_data_nodes"] != 3 {
        assert!(Instant::now() < deadline, "the nodes did not all join the cluster state");
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = put(procs[0].http, "/roll", r#"{"settings":{"number_of_shards":3,"number_of_replicas":1}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_status(&procs[0], "roll", &["green"], Duration::from_secs(60));
    let mut expected = 0;
    for step in 0..3 {
        // Writes before each restart, through the node that stays up.
        let via = &procs[(step + 1) % 3];
        let mut body = String::new();
        for i in 0..200 {
            body.push_str(&format!(
                "{{\"index\":{{\"_index\":\"roll\",\"_id\":\"s{step}-{i}\"}}}}\n{{\"step\":{step}}}\n"
            ));
        }
        bulk(via, &body);
        expected += 200;
        // Stop the node (SIGTERM: it flushes and leaves), start it again on the same data.
        let pid = procs[step].child.id().to_string();
        assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        procs[step].child.wait().unwrap();
        let survivors: Vec<&Proc> = (0..3).filter(|&i| i != step).map(|i| &procs[i]).collect();
        wait_agreement(&survivors, 2, Duration::from_secs(30));
        // Writes while it is down: its primaries failed over to their replicas.
        let mut body = String::new();
        for i in 0..100 {
            body.push_str(&format!(
                "{{\"index\":{{\"_index\":\"roll\",\"_id\":\"d{step}-{i}\"}}}}\n{{\"down\":{step}}}\n"
            ));
        }
        bulk(survivors[0], &body);
        expected += 100;
        procs[step] = start(step);
        wait_agreement(&procs.iter().collect::<Vec<_>>(), 3, Duration::from_secs(60));
        wait_status(&procs[step], "roll", &["green"], Duration::from_secs(90));
        assert_eq!(post(procs[step].http, "/roll/_refresh", "").status, 200);
        let n = get(procs[step].http, "/roll/_count").json()["count"].as_u64().unwrap();
        assert_eq!(n, expected, "documents after restarting node {step}");
    }
    // Every copy holds the same documents as the others (each node holds 2 of the 6 copies).
    let all: BTreeMap<String, (i64, i64, Value)> = procs.iter().flat_map(|p| local_docs(p, "roll")).collect();
    assert_eq!(all.len() as u64, expected);
    for p in &procs {
        for (id, v) in local_docs(p, "roll") {
            assert_eq!(all.get(&id), Some(&v), "copies disagree on {id}");
        }
    }
}

#[test]
fn a_replica_of_100k_documents_recovers_from_its_primary() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let c = Cluster::start(2);
    let r = put(c.node(0).http, "/big", r#"{"settings":{"number_of_shards":1,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_status(c.node(0), "big", &["green"], Duration::from_secs(30));
    let n = 100_000;
    for chunk in 0..(n / 5000) {
        let mut body = String::with_capacity(5000 * 80);
        for i in chunk * 5000..(chunk + 1) * 5000 {
            body.push_str(&format!(
                "{{\"index\":{{\"_index\":\"big\",\"_id\":\"{i}\"}}}}\n{{\"n\":{i},\"t\":\"doc {i}\"}}\n"
            ));
        }
        bulk(c.node(chunk % 2), &body);
    }
    let started = Instant::now();
    let r = put(c.node(0).http, "/big/_settings", r#"{"index":{"number_of_replicas":1}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_status(c.node(0), "big", &["green"], Duration::from_secs(120));
    let took = started.elapsed();
    for p in c.alive() {
        assert_eq!(post(p.http, "/big/_refresh", "").status, 200);
        let v = get(p.http, "/big/_count?preference=_only_local").json();
        assert_eq!(v["count"], n, "{v}");
    }
    let rec = get(c.node(0).http, "/big/_recovery").json();
    let s = rec["big"]["shards"]
        .as_array()
        .and_then(|copies| copies.iter().find(|s| s["type"] == "PEER"))
        .unwrap_or_else(|| panic!("a PEER recovery: {rec}"));
    let bytes = s["index"]["size"]["recovered_in_bytes"].as_u64().unwrap();
    eprintln!(
        "100k documents: replica green after {took:?}; {} files, {bytes} bytes copied in {} ms, {} translog operations",
        s["index"]["files"]["recovered"], s["index"]["total_time_in_millis"], s["translog"]["recovered"]
    );
    assert!(bytes > 0);
}
