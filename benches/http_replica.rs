//! `_bulk` into an index with one replica on two nodes of this machine, against the same bulk
//! into one node without replicas (the baseline, same group). Issue 18's target: at least 0.5×
//! the single node's docs/s (both processes share the machine's two cores; every write is made
//! durable on both copies before it is acknowledged). Each sample asserts every document was
//! acknowledged and, for the replicated index, that the replica holds them all.

#[path = "common/mod.rs"]
mod common;
#[path = "fathom_server/mod.rs"]
mod fathom_server;

use std::time::{Duration, Instant};

use common::Corpus;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use fathom_server::{bulk_bodies, bulk_load, Conn, Server};

const BATCH: usize = 1000;
const CLIENTS: usize = 2;
/// Documents per sample (the first lines of the logs corpus).
const DOCS: usize = 100_000;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// Two nodes forming one cluster.
fn two_nodes() -> (Server, Server) {
    let ports = [free_port(), free_port()];
    let seeds = format!("discovery.seed_hosts=127.0.0.1:{},127.0.0.1:{}", ports[0], ports[1]);
    let start = |i: usize| {
        let extra = vec![
            format!("transport.port={}", ports[i]),
            format!("node.name=b{i}"),
            seeds.clone(),
            "cluster.initial_cluster_manager_nodes=b0,b1".to_string(),
        ];
        Server::start_with(&extra, false).0
    };
    let (a, b) = (start(0), start(1));
    let mut c = Conn::open(&a.addr);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let h = String::from_utf8_lossy(&c.ok("GET", "/_cluster/health", "")).to_string();
        if h.contains("\"number_of_data_nodes\":2") {
            break;
        }
        assert!(Instant::now() < deadline, "the two nodes did not form a cluster: {h}");
        std::thread::sleep(Duration::from_millis(100));
    }
    (a, b)
}

/// Creates `index`, loads `bodies` through the node holding its primary (`holders`: node name
/// and HTTP address of each node, all of which hold a copy) and checks that every holder
/// counts every document on its own copy; the load's wall time. The load goes to the
/// primary's node so that the figure is the cost of replication, not of a coordinating hop
/// that depends on where the primary was allocated.
fn ingest(
    holders: &[(&str, &str)],
    index: &str,
    replicas: u32,
    corpus: Corpus,
    bodies: &[Vec<u8>],
    docs: usize,
) -> Duration {
    let mut c = Conn::open(holders[0].1);
    let m = corpus.mapping().to_json();
    let body = serde_json::json!({"settings": {"number_of_shards": 1, "number_of_replicas": replicas}, "mappings": m});
    c.ok("PUT", &format!("/{index}"), &body.to_string());
    c.ok("GET", &format!("/_cluster/health/{index}?wait_for_status=green&timeout=60s"), "");
    let cat = String::from_utf8_lossy(&c.ok("GET", &format!("/_cat/shards/{index}?h=prirep,node"), "")).to_string();
    let primary = cat.lines().find_map(|l| l.strip_prefix("p ")).map(str::trim).expect("the primary is assigned");
    let addr = holders.iter().find(|(name, _)| holders.len() == 1 || *name == primary).expect("primary's node").1;
    let t0 = Instant::now();
    let acked = bulk_load(addr, index, bodies, CLIENTS);
    let wall = t0.elapsed();
    assert_eq!(acked, docs, "every document acknowledged");
    c.ok("POST", &format!("/{index}/_refresh"), "");
    for (_, holder) in holders {
        let mut h = Conn::open(holder);
        let count =
            String::from_utf8_lossy(&h.ok("GET", &format!("/{index}/_count?preference=_only_local"), "")).to_string();
        assert!(count.contains(&format!("\"count\":{docs}")), "{holder}: {count}");
    }
    c.ok("DELETE", &format!("/{index}"), "");
    wall
}

fn benches(c: &mut Criterion) {
    let corpus = Corpus::Logs;
    let Some(mut lines) = corpus.load() else { return };
    lines.truncate(DOCS);
    let docs = lines.len();
    let bodies = bulk_bodies(&lines, BATCH);
    let (single, _) = Server::start();
    let (a, b) = two_nodes();
    let mut g = c.benchmark_group("http_bulk_replica/logs");
    g.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(30));
    g.throughput(Throughput::Elements(docs as u64));
    let mut n = 0;
    let mut rates: Vec<(&str, f64)> = Vec::new();
    g.bench_function("one_node_no_replica", |bn| {
        bn.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                let w = ingest(&[("single", &single.addr)], &format!("r{n}"), 0, corpus, &bodies, docs);
                rates.push(("single", docs as f64 / w.as_secs_f64()));
                total += w;
            }
            total
        })
    });
    g.bench_function("two_nodes_one_replica", |bn| {
        bn.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                // Both nodes hold a copy (primary and replica): each counts every document on
                // its own copy (`_only_local`).
                let w = ingest(&[("b0", &a.addr), ("b1", &b.addr)], &format!("r{n}"), 1, corpus, &bodies, docs);
                rates.push(("replica", docs as f64 / w.as_secs_f64()));
                total += w;
            }
            total
        })
    });
    g.finish();
    let med = |k: &str| {
        let mut v: Vec<f64> = rates.iter().filter(|(x, _)| *x == k).map(|(_, r)| *r).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let (s, r) = (med("single"), med("replica"));
    eprintln!("\n== http_bulk_replica logs ({docs} docs, {CLIENTS} connections, {BATCH}/bulk), medians ==");
    eprintln!("one node, no replica:    {s:>10.0} docs/s");
    eprintln!("two nodes, one replica:  {r:>10.0} docs/s");
    eprintln!("ratio: {:.2}  (target >= 0.5)", r / s);
}

criterion_group!(replica_benches, benches);
criterion_main!(replica_benches);
