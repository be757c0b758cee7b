//! Faults across `fathom` processes: the cluster manager killed, a node paused (SIGSTOP), a
//! node cut off by the transport's fault injection, and two of five nodes killed at once. The cluster goes on on the majority side,
//! a node on the minority side acknowledges no write, and after healing every acknowledged
//! write is on every copy.

mod common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, start_with, view, Proc};
use common::http::{get, post, put, send, try_send};
use serde_json::{json, Value};

/// Faster fault detection than OpenSearch's defaults (1s, 10s, 3), so the tests wait less.
const FAST: &[(&str, &str)] = &[
    ("cluster.fault_detection.follower_check.interval", "500ms"),
    ("cluster.fault_detection.follower_check.timeout", "1s"),
    ("cluster.fault_detection.follower_check.retry_count", "3"),
    ("cluster.publish.timeout", "5s"),
    ("fathom.test.fault_injection", "true"),
];

struct Cluster {
    dirs: Vec<tempfile::TempDir>,
    procs: Vec<Proc>,
    ids: Vec<String>,
    ports: Vec<u16>,
    seeds: String,
    initial: String,
}

impl Cluster {
    fn start(n: usize, extra: &[(&str, &str)]) -> Cluster {
        let dirs: Vec<_> = (0..n).map(|_| tempfile::tempdir().unwrap()).collect();
        let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
        let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
        let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
        let initial = names.join(",");
        let procs: Vec<Proc> =
            (0..n).map(|i| start_with(dirs[i].path(), &names[i], ports[i], &seeds, &initial, extra)).collect();
        let all: Vec<&Proc> = procs.iter().collect();
        wait_members(&all, n, Duration::from_secs(60));
        let ids = procs.iter().map(local_id).collect();
        Cluster { dirs, procs, ids, ports, seeds, initial }
    }

    /// Starts node `i` again on its data and transport port (after it was killed).
    fn restart(&mut self, i: usize, extra: &[(&str, &str)]) {
        let name = format!("f{i}");
        self.procs[i] = start_with(self.dirs[i].path(), &name, self.ports[i], &self.seeds, &self.initial, extra);
    }
}

/// Waits until `procs` agree on one manager and `members` data nodes in the cluster state.
fn wait_members(procs: &[&Proc], members: usize, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let views: Vec<_> = procs.iter().map(|p| view(p)).collect();
        if let Some(Some(first)) = views.first() {
            if first.1.len() == members && views.iter().all(|v| v.as_ref() == Some(first)) {
                return first.0.clone();
            }
        }
        assert!(Instant::now() < deadline, "no agreement on {members} members within {within:?}: {views:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn wait_green(p: &Proc, index: &str, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let h = get(p.http, &format!("/_cluster/health/{index}")).json();
        if h["status"] == "green" && h["initializing_shards"] == 0 {
            return;
        }
        assert!(Instant::now() < deadline, "{index} not green: {h}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn routing(p: &Proc, index: &str) -> Value {
    get(p.http, "/_cluster/state/routing_table").json()["routing_table"]["indices"][index]["shards"].clone()
}

/// The node ids holding a primary of `index`.
fn primary_nodes(p: &Proc, index: &str) -> Vec<String> {
    let r = routing(p, index);
    let mut out: Vec<String> = r
        .as_object()
        .unwrap()
        .values()
        .flat_map(|copies| copies.as_array().unwrap().clone())
        .filter(|c| c["primary"] == true)
        .filter_map(|c| c["node"].as_str().map(str::to_string))
        .collect();
    out.sort();
    out
}

/// Every document of `index` on the copies a node holds: id → (version, value).
fn local_docs(p: &Proc, index: &str) -> BTreeMap<String, (i64, i64)> {
    assert_eq!(post(p.http, &format!("/{index}/_refresh"), "").status, 200);
    let body = json!({"size": 10000, "version": true});
    let r = post(p.http, &format!("/{index}/_search?preference=_only_local"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["_id"].as_str().unwrap().to_string(),
                (h["_version"].as_i64().unwrap(), h["_source"]["v"].as_i64().unwrap()),
            )
        })
        .collect()
}

/// Clients that write `{"v": k}` to ids of their own and record acknowledgements.
struct Writers {
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<BTreeMap<String, (i64, i64)>>>,
    /// When the last acknowledgement of each id arrived.
    acked_at: Arc<Mutex<BTreeMap<String, Instant>>>,
    attempted: Arc<Mutex<BTreeMap<String, Vec<i64>>>>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl Writers {
    fn start(index: &str, prefix: &str, addrs: &[SocketAddr], timeout: Duration) -> Writers {
        let stop = Arc::new(AtomicBool::new(false));
        let acked: Arc<Mutex<BTreeMap<String, (i64, i64)>>> = Arc::default();
        let acked_at: Arc<Mutex<BTreeMap<String, Instant>>> = Arc::default();
        let attempted: Arc<Mutex<BTreeMap<String, Vec<i64>>>> = Arc::default();
        let handles = addrs
            .iter()
            .enumerate()
            .map(|(t, addr)| {
                let (stop, acked, attempted, addr) = (stop.clone(), acked.clone(), attempted.clone(), *addr);
                let acked_at = acked_at.clone();
                let (index, prefix) = (index.to_string(), prefix.to_string());
                std::thread::spawn(move || {
                    let mut k: i64 = 0;
                    while !stop.load(Ordering::SeqCst) && k < 100_000 {
                        let id = format!("{prefix}{t}-{}", k % 40);
                        attempted.lock().unwrap().entry(id.clone()).or_default().push(k);
                        let body = json!({"v": k}).to_string();
                        let path = format!("/{index}/_doc/{id}");
                        if let Some(r) = try_send(addr, "PUT", &path, body.as_bytes(), timeout) {
                            if r.status == 200 || r.status == 201 {
                                acked_at.lock().unwrap().insert(id.clone(), Instant::now());
                                acked.lock().unwrap().insert(id, (r.json()["_version"].as_i64().unwrap(), k));
                            }
                        }
                        k += 1;
                    }
                })
            })
            .collect();
        Writers { stop, acked, acked_at, attempted, handles }
    }

    fn finish(self) -> (BTreeMap<String, (i64, i64)>, BTreeMap<String, Vec<i64>>) {
        self.stop.store(true, Ordering::SeqCst);
        for h in self.handles {
            h.join().unwrap();
        }
        let a = self.acked.lock().unwrap().clone();
        let t = self.attempted.lock().unwrap().clone();
        (a, t)
    }
}

/// Every acknowledged write is present (or a later attempt of the same client), and nothing
/// present was never written.
fn check_docs(
    docs: &BTreeMap<String, (i64, i64)>,
    acked: &BTreeMap<String, (i64, i64)>,
    attempted: &BTreeMap<String, Vec<i64>>,
) {
    for (id, (version, value)) in acked {
        let (v, got) = docs.get(id).unwrap_or_else(|| panic!("acknowledged {id} is missing"));
        assert!(v >= version && got >= value, "{id}: ({v}, {got}) is older than the acknowledged ({version}, {value})");
    }
    for (id, (_, got)) in docs {
        if let Some(tried) = attempted.get(id) {
            assert!(tried.contains(got), "{id} holds a value never written: {got}");
        }
    }
}

fn create(p: &Proc, index: &str, shards: u32, replicas: u32) {
    let settings = json!({"settings": {
        "number_of_shards": shards,
        "number_of_replicas": replicas,
        "index.unassigned.node_left.delayed_timeout": "0s"
    }});
    let r = put(p.http, &format!("/{index}"), &settings.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    wait_green(p, index, Duration::from_secs(60));
}

#[test]
fn the_cluster_manager_killed_another_is_elected_and_writes_go_on() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let mut c = Cluster::start(3, FAST);
    create(&c.procs[0], "cm", 2, 1);
    let manager = wait_members(&c.procs.iter().collect::<Vec<_>>(), 3, Duration::from_secs(10));
    let m = c.ids.iter().position(|id| *id == manager).unwrap();
    let killed = Instant::now();
    let mut p = c.procs.remove(m);
    p.child.kill().unwrap();
    p.child.wait().unwrap();
    let survivors: Vec<&Proc> = c.procs.iter().collect();
    // A new manager, and a metadata change (it needs one) acknowledged.
    let new_manager = wait_members(&survivors, 2, Duration::from_secs(30));
    assert_ne!(new_manager, manager);
    let elected = killed.elapsed();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = try_send(survivors[0].http, "PUT", "/after", b"{}", Duration::from_secs(30));
        if r.as_ref().is_some_and(|r| r.status == 200) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no index could be created after the manager died: {:?}",
            r.map(|r| r.text())
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let created = killed.elapsed();
    // Documents of every shard are written again.
    for i in 0..20 {
        let r = send(survivors[i % 2].http, "PUT", &format!("/cm/_doc/d{i}"), Some(br#"{"v":1}"#), &[]);
        assert!(r.status == 201 || r.status == 200, "{}", r.text());
    }
    let written = killed.elapsed();
    eprintln!("manager killed: new manager agreed after {elected:?}, index created after {created:?}, writes after {written:?}");
    assert!(created < Duration::from_secs(15), "writes accepted again only after {created:?}");
}

#[test]
fn a_paused_primary_is_replaced_and_rejoins_without_losing_a_write() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let c = Cluster::start(3, FAST);
    create(&c.procs[0], "pz", 2, 1);
    let manager = wait_members(&c.procs.iter().collect::<Vec<_>>(), 3, Duration::from_secs(10));
    let holders = primary_nodes(&c.procs[0], "pz");
    let victim = (0..3)
        .find(|&i| c.ids[i] != manager && holders.contains(&c.ids[i]))
        .unwrap_or_else(|| (0..3).find(|&i| c.ids[i] != manager).unwrap());
    let others: Vec<usize> = (0..3).filter(|&i| i != victim).collect();
    let addrs: Vec<SocketAddr> = others.iter().flat_map(|&i| [c.procs[i].http, c.procs[i].http]).collect();
    let w = Writers::start("pz", "p", &addrs, Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(1));
    let pid = c.procs[victim].child.id().to_string();
    assert!(std::process::Command::new("kill").args(["-STOP", &pid]).status().unwrap().success());
    // The others remove the paused node and promote its primaries' replicas.
    let rest: Vec<&Proc> = others.iter().map(|&i| &c.procs[i]).collect();
    wait_members(&rest, 2, Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(3));
    assert!(std::process::Command::new("kill").args(["-CONT", &pid]).status().unwrap().success());
    let all: Vec<&Proc> = c.procs.iter().collect();
    wait_members(&all, 3, Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(1));
    let (acked, attempted) = w.finish();
    assert!(!acked.is_empty());
    wait_green(&c.procs[others[0]], "pz", Duration::from_secs(60));
    // Every node holds what the others hold, and every acknowledged write.
    let copies: Vec<_> = all.iter().map(|p| (local_docs(p, "pz"), routing(p, "pz"))).collect();
    let total: BTreeMap<String, (i64, i64)> =
        copies.iter().flat_map(|(d, _)| d.iter().map(|(k, v)| (k.clone(), *v))).collect();
    check_docs(&total, &acked, &attempted);
    let r = get(all[0].http, "/pz/_count").json();
    assert_eq!(r["count"].as_u64().unwrap() as usize, total.len(), "{r}");
    for (docs, _) in &copies {
        for (id, v) in docs {
            assert_eq!(total.get(id), Some(v), "copies disagree on {id}");
        }
    }
}

#[test]
fn a_partitioned_primary_acknowledges_no_write() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let c = Cluster::start(3, FAST);
    create(&c.procs[0], "part", 1, 1);
    wait_members(&c.procs.iter().collect::<Vec<_>>(), 3, Duration::from_secs(10));
    // The primary's node may be the cluster manager too: then the majority elects another.
    let holder = primary_nodes(&c.procs[0], "part")[0].clone();
    let p = c.ids.iter().position(|id| *id == holder).unwrap();
    let others: Vec<usize> = (0..3).filter(|&i| i != p).collect();
    let cut: Vec<String> = others.iter().map(|&i| c.ids[i].clone()).collect();
    let r = put(c.procs[p].http, "/_fathom/test/faults", &json!({"partition": cut}).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    // Clients of the cut-off node: nothing may be acknowledged there.
    let minority = Writers::start("part", "m", &[c.procs[p].http, c.procs[p].http], Duration::from_secs(120));
    let rest: Vec<&Proc> = others.iter().map(|&i| &c.procs[i]).collect();
    wait_members(&rest, 2, Duration::from_secs(30));
    // The cut-off node knows of no cluster manager any more (a leader cut off from the voters
    // stops acting as one): its writes are refused with the no-cluster-manager block.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = get(c.procs[p].http, "/_cluster/state/cluster_manager_node,blocks").json();
        if v["cluster_manager_node"].is_null() {
            assert_eq!(v["blocks"]["global"]["2"]["description"], "no cluster-manager", "{v}");
            break;
        }
        assert!(Instant::now() < deadline, "the cut-off node still names a cluster manager: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = send(c.procs[p].http, "PUT", "/part/_doc/blocked?timeout=1s", Some(br#"{"v":0}"#), &[]);
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.json()["error"]["reason"], "blocked by: [SERVICE_UNAVAILABLE/2/no cluster-manager];");
    // The majority promotes the replica and takes writes.
    let majority = Writers::start("part", "M", &[rest[0].http, rest[1].http], Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(3));
    let (acked_majority, attempted_majority) = majority.finish();
    assert!(!acked_majority.is_empty(), "the majority acknowledged nothing");
    // Heal; the cut-off node's clients end once their requests come back. A write that waited
    // for a cluster manager may be acknowledged once the node has one again (it is then a write
    // of the healed cluster, checked below with the others); none before.
    let healing = Instant::now();
    let r = send(c.procs[p].http, "DELETE", "/_fathom/test/faults", None, &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let acked_at = minority.acked_at.clone();
    let (acked_minority, attempted_minority) = minority.finish();
    let early: Vec<String> =
        acked_at.lock().unwrap().iter().filter(|(_, t)| **t < healing).map(|(id, _)| id.clone()).collect();
    assert!(early.is_empty(), "the cut-off node acknowledged {early:?} before the partition healed");
    assert!(!attempted_minority.is_empty());
    let all: Vec<&Proc> = c.procs.iter().collect();
    wait_members(&all, 3, Duration::from_secs(60));
    wait_green(&c.procs[others[0]], "part", Duration::from_secs(60));
    let mut attempted = attempted_majority;
    attempted.extend(attempted_minority);
    let table = routing(all[0], "part");
    let holders: Vec<String> =
        table["0"].as_array().unwrap().iter().filter_map(|c| c["node"].as_str().map(str::to_string)).collect();
    assert_eq!(holders.len(), 2, "{table}");
    for (q, id) in all.iter().zip(&c.ids) {
        if holders.contains(id) {
            check_docs(&local_docs(q, "part"), &acked_majority, &attempted);
            check_docs(&local_docs(q, "part"), &acked_minority, &attempted);
        }
    }
}

/// Five nodes, every shard with two replicas: the cluster manager and another node killed at
/// once while clients write through every node. The three left (a majority of the five voters)
/// elect a manager, promote replicas and go on; the two come back, recover, and every copy of
/// every shard ends with every acknowledged write.
#[test]
fn five_nodes_lose_two_at_once_and_lose_no_write() {
    let _turn = common::cluster::one_cluster_at_a_time();
    let mut c = Cluster::start(5, FAST);
    create(&c.procs[0], "five", 3, 2);
    let manager = wait_members(&c.procs.iter().collect::<Vec<_>>(), 5, Duration::from_secs(10));
    let m = c.ids.iter().position(|id| *id == manager).unwrap();
    // The other victim holds a primary when one is not on the manager's node already.
    let holders = primary_nodes(&c.procs[0], "five");
    let second = (0..5).find(|&i| i != m && holders.contains(&c.ids[i])).unwrap_or((m + 1) % 5);
    let victims = [m, second];
    let rest: Vec<usize> = (0..5).filter(|i| !victims.contains(i)).collect();
    let addrs: Vec<SocketAddr> = rest.iter().map(|&i| c.procs[i].http).collect();
    let w = Writers::start("five", "w", &addrs, Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(1));
    let killed = Instant::now();
    for &v in &victims {
        c.procs[v].child.kill().unwrap();
        c.procs[v].child.wait().unwrap();
    }
    let survivors: Vec<&Proc> = rest.iter().map(|&i| &c.procs[i]).collect();
    let new_manager = wait_members(&survivors, 3, Duration::from_secs(30));
    assert_ne!(new_manager, manager);
    eprintln!("two of five killed: three members agree after {:?}", killed.elapsed());
    // Writes go on on the three: the writers', and 30 more documents spread over the shards.
    assert!(acked_after(&w, Duration::from_secs(30)), "no write acknowledged after two nodes died");
    let deadline = Instant::now() + Duration::from_secs(30);
    for i in 0..30 {
        loop {
            let r = try_send(
                survivors[i % 3].http,
                "PUT",
                &format!("/five/_doc/after{i}"),
                b"{\"v\":0}",
                Duration::from_secs(30),
            );
            if r.as_ref().is_some_and(|r| r.status == 201) {
                break;
            }
            assert!(Instant::now() < deadline, "after{i} not written: {:?}", r.map(|r| r.text()));
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    eprintln!("two of five killed: 30 documents written after {:?}", killed.elapsed());
    // Both come back and recover; every copy converges.
    for &v in &victims {
        c.restart(v, FAST);
    }
    let all: Vec<&Proc> = c.procs.iter().collect();
    wait_members(&all, 5, Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(1));
    let (acked, attempted) = w.finish();
    assert!(!acked.is_empty());
    wait_green(all[rest[0]], "five", Duration::from_secs(120));
    let table = routing(all[0], "five");
    for copies in table.as_object().unwrap().values() {
        let nodes: std::collections::BTreeSet<&str> =
            copies.as_array().unwrap().iter().filter_map(|c| c["node"].as_str()).collect();
        assert_eq!(nodes.len(), 3, "three copies on three nodes: {table}");
    }
    // Each node's copies hold the same documents as every other copy of the shard, and
    // together every acknowledged write.
    let copies: Vec<_> = all.iter().map(|p| local_docs(p, "five")).collect();
    let total: BTreeMap<String, (i64, i64)> =
        copies.iter().flat_map(|d| d.iter().map(|(k, v)| (k.clone(), *v))).collect();
    check_docs(&total, &acked, &attempted);
    for docs in &copies {
        for (id, v) in docs {
            assert_eq!(total.get(id), Some(v), "copies disagree on {id}");
        }
    }
    // Three copies of each document across the five nodes.
    let held: usize = copies.iter().map(BTreeMap::len).sum();
    assert_eq!(held, 3 * total.len(), "each document on three copies");
    let r = get(all[0].http, "/five/_count").json();
    assert_eq!(r["count"].as_u64().unwrap() as usize, total.len(), "{r}");
}

/// Whether the writers get a new acknowledgement within `within` (counted from now).
fn acked_after(w: &Writers, within: Duration) -> bool {
    let before = w.acked.lock().unwrap().clone();
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if *w.acked.lock().unwrap() != before {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}
