//! Reads across nodes: three `fathom` processes, an index of 6 shards and no replicas spread
//! over them, 300 documents bulked through one node; `_count`, a match_all, a sorted and paged
//! search and aggregations through each node see every shard and every document.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, start, wait_agreement, Proc};
use common::http::{get, post, put};
use serde_json::{json, Value};

const DOCS: usize = 300;

fn doc(i: usize) -> Value {
    // 37 is prime to 300: `n` is a permutation of 0..300, so the sorted order is exact.
    json!({"n": (i * 37) % DOCS, "g": format!("g{}", i % 7), "v": i as f64 * 0.5})
}

fn search(p: &Proc, body: &Value) -> Value {
    let r = post(p.http, "/idx/_search", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

#[test]
fn searches_and_counts_see_the_shards_of_every_node() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["n0", "n1", "n2"];
    let initial = names.join(",");
    let mut procs: Vec<Proc> = (0..3).map(|i| start(dirs[i].path(), names[i], ports[i], &seeds, &initial)).collect();
    let all: Vec<&Proc> = procs.iter().collect();
    let manager = wait_agreement(&all, 3, Duration::from_secs(60));

    let r = put(
        procs[0].http,
        "/idx",
        r#"{"settings": {"number_of_shards": 6, "number_of_replicas": 0},
            "mappings": {"properties": {"n": {"type": "long"}, "g": {"type": "keyword"}, "v": {"type": "double"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for i in 0..DOCS {
        bulk.push_str(&format!("{}\n{}\n", json!({"index": {"_id": i.to_string()}}), doc(i)));
    }
    // The copies start on their nodes shortly after the index is created: the bulk (by id, so
    // idempotent) is retried until every item lands.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = post(procs[0].http, "/idx/_bulk", &bulk);
        if r.status == 200 && r.json()["errors"] == false {
            break;
        }
        assert!(Instant::now() < deadline, "bulk keeps failing: {}", r.text());
        std::thread::sleep(Duration::from_millis(200));
    }
    for p in &procs {
        let r = post(p.http, "/idx/_refresh", "");
        assert_eq!(r.status, 200, "{}", r.text());
    }
    // Each node's copies refresh on their own schedule too: wait until node 0 counts them all.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let c = get(procs[0].http, "/idx/_count").json();
        if c["count"] == DOCS {
            break;
        }
        assert!(Instant::now() < deadline, "count stays short: {c}");
        std::thread::sleep(Duration::from_millis(200));
    }

    // The expectations, computed from the documents.
    let mut by_n: Vec<(u64, usize)> = (0..DOCS).map(|i| (doc(i)["n"].as_u64().unwrap(), i)).collect();
    by_n.sort();
    let mut groups: BTreeMap<String, u64> = BTreeMap::new();
    for i in 0..DOCS {
        *groups.entry(doc(i)["g"].as_str().unwrap().to_string()).or_default() += 1;
    }
    let avg = (0..DOCS).map(|i| i as f64 * 0.5).sum::<f64>() / DOCS as f64;

    for (pi, p) in procs.iter().enumerate() {
        let c = get(p.http, "/idx/_count").json();
        assert_eq!(c["count"], DOCS, "node {pi}: {c}");
        assert_eq!(c["_shards"]["total"], 6, "node {pi}: {c}");
        assert_eq!(c["_shards"]["successful"], 6, "node {pi}: {c}");

        let all = search(p, &json!({"size": 1000}));
        assert_eq!(all["_shards"]["total"], 6, "node {pi}: {}", all["_shards"]);
        assert_eq!(all["_shards"]["successful"], 6, "node {pi}: {}", all["_shards"]);
        assert_eq!(all["hits"]["total"]["value"], DOCS, "node {pi}");
        let hits = all["hits"]["hits"].as_array().unwrap();
        assert_eq!(hits.len(), DOCS, "node {pi}");
        let ids: HashSet<&str> = hits.iter().map(|h| h["_id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), DOCS, "node {pi}: every id once");

        for (from, size) in [(0usize, 10usize), (45, 20), (290, 20)] {
            let r = search(p, &json!({"from": from, "size": size, "sort": [{"n": "asc"}]}));
            let got: Vec<String> =
                r["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_id"].as_str().unwrap().to_string()).collect();
            let want: Vec<String> = by_n.iter().skip(from).take(size).map(|(_, i)| i.to_string()).collect();
            assert_eq!(got, want, "node {pi}: sorted page from {from} size {size}");
            let sorts: Vec<u64> =
                r["hits"]["hits"].as_array().unwrap().iter().map(|h| h["sort"][0].as_u64().unwrap()).collect();
            let want_sorts: Vec<u64> = by_n.iter().skip(from).take(size).map(|(n, _)| *n).collect();
            assert_eq!(sorts, want_sorts, "node {pi}");
        }
        let desc = search(p, &json!({"size": 5, "sort": [{"n": "desc"}], "_source": false}));
        let got: Vec<&str> =
            desc["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_id"].as_str().unwrap()).collect();
        let want: Vec<String> = by_n.iter().rev().take(5).map(|(_, i)| i.to_string()).collect();
        assert_eq!(got, want, "node {pi}: descending");

        let a = search(
            p,
            &json!({"size": 0, "aggs": {"g": {"terms": {"field": "g", "size": 10}}, "avg_v": {"avg": {"field": "v"}}}}),
        );
        let buckets = a["aggregations"]["g"]["buckets"].as_array().unwrap();
        let got: BTreeMap<String, u64> = buckets
            .iter()
            .map(|b| (b["key"].as_str().unwrap().to_string(), b["doc_count"].as_u64().unwrap()))
            .collect();
        assert_eq!(got, groups, "node {pi}: terms");
        let got_avg = a["aggregations"]["avg_v"]["value"].as_f64().unwrap();
        assert!((got_avg - avg).abs() < 1e-9, "node {pi}: avg {got_avg} != {avg}");
        assert_eq!(a["hits"]["total"]["value"], DOCS, "node {pi}");

        // `profile`: every shard's profile comes back, those of other nodes over transport.
        let pr = search(p, &json!({"size": 0, "profile": true, "aggs": {"g": {"terms": {"field": "g"}}}}));
        let shards = pr["profile"]["shards"].as_array().unwrap();
        let ids: Vec<&str> = shards.iter().map(|s| s["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), 6, "node {pi}: {ids:?}");
        for s in 0..6 {
            assert!(ids.iter().any(|id| id.ends_with(&format!("][idx][{s}]"))), "node {pi}: shard {s} in {ids:?}");
        }
        let nodes: HashSet<&str> = ids.iter().filter_map(|id| id.split(']').next()).collect();
        assert_eq!(nodes.len(), 3, "node {pi}: profiles of every node: {ids:?}");
        let collected: u64 =
            shards.iter().map(|s| s["aggregations"][0]["breakdown"]["collect_count"].as_u64().unwrap()).sum();
        assert_eq!(collected, DOCS as u64, "node {pi}");

        // A query that matches some documents on every node; scores merge across nodes.
        let q = search(p, &json!({"size": 300, "query": {"term": {"g": "g3"}}}));
        assert_eq!(q["hits"]["total"]["value"], groups["g3"], "node {pi}");
        assert_eq!(q["hits"]["hits"].as_array().unwrap().len() as u64, groups["g3"], "node {pi}");
    }

    // dfs_query_then_fetch across nodes: a dfs round first, then every document (scores are
    // compared with one node's in tests/cluster_reads.rs; scrolls and PITs across nodes:
    // tests/cluster_contexts.rs).
    let r = post(procs[1].http, "/idx/_search?search_type=dfs_query_then_fetch", r#"{"size": 0}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["hits"]["total"]["value"], DOCS, "{}", r.text());

    // `_search_shards` from any node: the six shards with their copy on the node holding it,
    // and every holding node described (by its own name).
    for p in &procs {
        let r = get(p.http, "/idx/_search_shards");
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        let groups = v["shards"].as_array().unwrap();
        assert_eq!(groups.len(), 6, "{v}");
        for (i, g) in groups.iter().enumerate() {
            assert_eq!(g[0]["shard"], i, "{v}");
            assert_eq!(g[0]["state"], "STARTED", "{v}");
            let node = g[0]["node"].as_str().unwrap();
            assert!(names.contains(&v["nodes"][node]["name"].as_str().unwrap()), "{v}");
        }
        assert_eq!(v["indices"]["idx"], json!({}), "{v}");
    }
    let v = get(procs[2].http, "/idx/_search_shards?routing=7&preference=_primary").json();
    assert_eq!(v["shards"].as_array().unwrap().len(), 1, "{v}");

    // A node that goes away (not the manager, not node 0): its shards count as failed, the
    // others answer (partial results), before and after the cluster drops it.
    let k = (1..3).find(|&i| local_id(&procs[i]) != manager).unwrap();
    drop(procs.remove(k));
    for _ in 0..3 {
        let r = search(&procs[0], &json!({"size": 1000}));
        let sh = &r["_shards"];
        assert_eq!(sh["total"], 6, "{sh}");
        let failed = sh["failed"].as_u64().unwrap();
        assert!(failed > 0, "the lost node's shards fail: {sh}");
        assert_eq!(sh["successful"].as_u64().unwrap() + failed, 6, "{sh}");
        assert!(sh["failures"].as_array().is_some_and(|f| !f.is_empty()), "{sh}");
        let n = r["hits"]["hits"].as_array().unwrap().len();
        assert!(n < DOCS, "only the shards still reachable answer");
        assert_eq!(r["hits"]["total"]["value"], n, "{}", r["hits"]["total"]);
        let c = get(procs[0].http, "/idx/_count").json();
        assert_eq!(c["count"], n, "{c}");
        assert_eq!(c["_shards"]["failed"], failed, "{c}");
        std::thread::sleep(Duration::from_millis(1500));
    }
}
