//! Clusters of `fathom` processes on loopback for the multi-process tests: start a node with
//! seed hosts and bootstrap names, read who manages and who is a member, wait for agreement.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::http::get;
use serde_json::Value;

pub struct Proc {
    pub child: Child,
    pub http: SocketAddr,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Held by each multi-process test of a file while it runs: their clusters take turns on the
/// machine's two cores instead of starting a dozen processes at once (a poisoned lock, from a
/// test that failed, still serializes).
pub fn one_cluster_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// A port free now, below Linux's ephemeral range (32768–60999): a port the kernel picked from
/// that range and that was released could be handed out again as the local port of some
/// outbound connection (another node dialling its seeds) before the node meant to listen on it
/// starts, and that node would then fail to bind.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
        ^ u64::from(std::process::id()).rotate_left(32);
    for _ in 0..200 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let x = seed.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let port = 20_000 + (x >> 33) as u16 % 12_000;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub fn start(data: &std::path::Path, name: &str, port: u16, seeds: &str, initial: &str) -> Proc {
    start_with(data, name, port, seeds, initial, &[])
}

/// [`start`] with more `-E` settings.
pub fn start_with(
    data: &std::path::Path,
    name: &str,
    port: u16,
    seeds: &str,
    initial: &str,
    extra: &[(&str, &str)],
) -> Proc {
    start_with_env(data, name, port, seeds, initial, extra, &[])
}

/// [`start_with`] with environment variables for the process (`FATHOM_PATH_CONF`, ...).
pub fn start_with_env(
    data: &std::path::Path,
    name: &str,
    port: u16,
    seeds: &str,
    initial: &str,
    extra: &[(&str, &str)],
    env: &[(&str, &str)],
) -> Proc {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fathom"));
    cmd.envs(env.iter().copied());
    for (k, v) in extra {
        cmd.args(["-E", &format!("{k}={v}")]);
    }
    let mut child = cmd
        .args(["-E", &format!("path.data={}", data.display())])
        .args(["-E", "http.port=0", "-E", &format!("transport.port={port}"), "-E", &format!("node.name={name}")])
        .args(["-E", &format!("discovery.seed_hosts={seeds}")])
        .args(["-E", &format!("cluster.initial_cluster_manager_nodes={initial}")])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("fathom starts");
    let out = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(out).read_line(&mut line).unwrap();
    let http = line.trim().strip_prefix("fathom listening on http://").expect("listening line").parse().unwrap();
    Proc { child, http }
}

/// (cluster manager node id, member node ids) as a node reports them.
pub fn view(p: &Proc) -> Option<(String, Vec<String>)> {
    let r = get(p.http, "/_cluster/state/cluster_manager_node,nodes");
    if r.status != 200 {
        return None;
    }
    let v = r.json();
    let m = v["cluster_manager_node"].as_str()?.to_string();
    let mut ids: Vec<String> = v["nodes"].as_object()?.keys().cloned().collect();
    ids.sort();
    Some((m, ids))
}

pub fn local_id(p: &Proc) -> String {
    let v: Value = get(p.http, "/_nodes/_local").json();
    v["nodes"].as_object().unwrap().keys().next().unwrap().clone()
}

/// Waits until every node in `procs` reports the same manager and `members` members.
pub fn wait_agreement(procs: &[&Proc], members: usize, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let views: Vec<_> = procs.iter().map(|p| view(p)).collect();
        if let Some(Some(first)) = views.first() {
            if first.1.len() == members && views.iter().all(|v| v.as_ref() == Some(first)) {
                return first.0.clone();
            }
        }
        assert!(Instant::now() < deadline, "no agreement within {within:?}: {views:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The node ids of the committed voting configuration a node reports (`_cluster/state`
/// `metadata.cluster_coordination.last_committed_config`), sorted.
pub fn committed_config(p: &Proc) -> Option<Vec<String>> {
    let r = get(p.http, "/_cluster/state/metadata");
    if r.status != 200 {
        return None;
    }
    let v = r.json();
    let mut ids: Vec<String> = v["metadata"]["cluster_coordination"]["last_committed_config"]
        .as_array()?
        .iter()
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect();
    ids.sort();
    Some(ids)
}

/// Waits until every node in `procs` reports the same committed voting configuration and
/// `ok` accepts it; returns it.
pub fn wait_committed_config(procs: &[&Proc], within: Duration, ok: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = Instant::now() + within;
    loop {
        let configs: Vec<_> = procs.iter().map(|p| committed_config(p)).collect();
        if let Some(Some(first)) = configs.first() {
            if ok(first) && configs.iter().all(|c| c.as_ref() == Some(first)) {
                return first.clone();
            }
        }
        assert!(Instant::now() < deadline, "no agreed voting configuration within {within:?}: {configs:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
