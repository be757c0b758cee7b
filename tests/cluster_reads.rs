//! Reads across nodes against the same reads on one node: three `fathom` processes and a fourth
//! one alone. `dfs_query_then_fetch` over shards spread on three nodes scores as one shard
//! holding every document (and plain query-then-fetch does not); `collapse` with `inner_hits`
//! answers as on one node with the same shards; gets honour `preference` on every node, read
//! replicas in real time, and pass to the next copy when a node is gone.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, one_cluster_at_a_time, start, wait_agreement, Proc};
use common::http::{get, post, put, send};
use serde_json::{json, Value};

const DOCS: usize = 60;

/// Documents whose words spread unevenly: "fox" in the first third only, "dog" in most.
fn doc(i: usize) -> Value {
    let words = ["fox", "dog", "cat", "bird"];
    let text: Vec<&str> = (0..1 + i % 5).map(|k| words[(i / 20 + k * (i % 3)) % 4]).collect();
    json!({"t": text.join(" "), "g": format!("g{}", i % 7), "n": i})
}

fn create(p: &Proc, index: &str, shards: usize, replicas: usize) {
    let body = json!({
        "settings": {"number_of_shards": shards, "number_of_replicas": replicas},
        "mappings": {"properties": {"t": {"type": "text"}, "g": {"type": "keyword"}, "n": {"type": "long"}}},
    });
    let r = put(p.http, &format!("/{index}"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
}

/// Writes the documents (by id, retried until every item lands: copies start shortly after
/// the index is created), without refreshing.
fn bulk(p: &Proc, index: &str) {
    let mut body = String::new();
    for i in 0..DOCS {
        body.push_str(&format!("{}\n{}\n", json!({"index": {"_id": i.to_string()}}), doc(i)));
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = post(p.http, &format!("/{index}/_bulk"), &body);
        if r.status == 200 && r.json()["errors"] == false {
            return;
        }
        assert!(Instant::now() < deadline, "bulk keeps failing: {}", r.text());
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn wait_green(p: &Proc, index: &str) {
    let r = get(p.http, &format!("/_cluster/health/{index}?wait_for_status=green&timeout=60s"));
    assert_eq!(r.json()["status"], "green", "{}", r.text());
}

fn search(p: &Proc, index: &str, query: &str, body: &Value) -> Value {
    let r = send(p.http, "POST", &format!("/{index}/_search{query}"), Some(body.to_string().as_bytes()), &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// `_id` → `_score` of the hits.
fn scores(v: &Value) -> BTreeMap<String, f64> {
    v["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["_id"].as_str().unwrap().to_string(), h["_score"].as_f64().unwrap()))
        .collect()
}

#[test]
fn reads_across_nodes_answer_as_one_node() {
    let _turn = one_cluster_at_a_time();
    let dirs: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..4).map(|_| free_port()).collect();
    let seeds = ports[..3].iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["n0", "n1", "n2"];
    let mut procs: Vec<Proc> =
        (0..3).map(|i| start(dirs[i].path(), names[i], ports[i], &seeds, &names.join(","))).collect();
    let solo = start(dirs[3].path(), "solo", ports[3], &format!("127.0.0.1:{}", ports[3]), "solo");
    let all: Vec<&Proc> = procs.iter().collect();
    wait_agreement(&all, 3, Duration::from_secs(60));
    wait_agreement(&[&solo], 1, Duration::from_secs(60));

    // Three shards on three nodes; one shard on the node alone; the same shards there too.
    create(&procs[0], "spread", 3, 0);
    create(&solo, "one", 1, 0);
    create(&solo, "spread", 3, 0);
    for (p, index) in [(&procs[0], "spread"), (&solo, "one"), (&solo, "spread")] {
        bulk(p, index);
        let r = post(p.http, &format!("/{index}/_refresh"), "");
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let rt = get(procs[0].http, "/_cluster/state/routing_table/spread").json();
    let holders: std::collections::BTreeSet<String> = (0..3)
        .map(|i| rt["routing_table"]["indices"]["spread"]["shards"][i.to_string()][0]["node"].to_string())
        .collect();
    assert!(holders.len() >= 2, "the shards spread over the nodes: {rt}");

    // dfs_query_then_fetch: the scores of one shard holding everything, from every node.
    for q in [
        json!({"match": {"t": "fox"}}),
        json!({"match": {"t": "fox dog bird"}}),
        json!({"match_phrase": {"t": "dog cat"}}),
        json!({"bool": {"must": [{"match": {"t": "dog"}}], "should": [{"term": {"t": "bird"}}]}}),
    ] {
        let body = json!({"query": q, "size": DOCS});
        let expected = scores(&search(&solo, "one", "", &body));
        assert!(!expected.is_empty(), "{q}");
        for p in &procs {
            let v = search(p, "spread", "?search_type=dfs_query_then_fetch", &body);
            assert_eq!(v["_shards"]["successful"], 3, "{v}");
            assert_eq!(scores(&v), expected, "{q}");
        }
        // Query-then-fetch scores each shard by its own statistics.
        assert_ne!(scores(&search(&procs[1], "spread", "", &body)), expected, "{q}");
    }

    // collapse with inner_hits: the heads and each group's hits as on one node with the same
    // shards (sorted by a unique value: ties between nodes' hits are ordered by node).
    let body = json!({
        "query": {"match": {"t": "dog fox"}},
        "size": 4,
        "from": 1,
        "sort": [{"n": "desc"}],
        "collapse": {"field": "g", "inner_hits": [
            {"name": "by_n", "size": 2, "sort": [{"n": "desc"}]},
            {"name": "first", "size": 3, "_source": false, "sort": [{"n": "asc"}], "track_scores": true},
        ]},
    });
    let expected = search(&solo, "spread", "", &body)["hits"].clone();
    assert_eq!(expected["hits"].as_array().unwrap().len(), 4, "{expected}");
    assert!(expected["hits"][0]["inner_hits"]["by_n"]["hits"]["hits"][0]["_id"].is_string(), "{expected}");
    for p in &procs {
        assert_eq!(search(p, "spread", "", &body)["hits"], expected);
    }

    // Gets: an index with a replica of each shard, written without a refresh (realtime gets).
    create(&procs[1], "docs", 3, 1);
    wait_green(&procs[1], "docs");
    bulk(&procs[2], "docs");
    let ids: Vec<String> = procs.iter().map(local_id).collect();
    for pref in ["_local", "_primary", "_replica", "_only_nodes:n0,n1,n2", "custom-string"] {
        for p in &procs {
            for i in (0..DOCS).step_by(7) {
                let r = get(p.http, &format!("/docs/_doc/{i}?preference={pref}"));
                assert_eq!(r.status, 200, "{pref}: {}", r.text());
                assert_eq!(r.json()["_source"], doc(i), "{pref}");
            }
        }
    }
    // _prefer_nodes and _mget with a preference.
    for (p, id) in procs.iter().zip(&ids) {
        let r = get(p.http, &format!("/docs/_doc/5?preference=_prefer_nodes:{id}"));
        assert_eq!(r.json()["found"], true, "{}", r.text());
        let body = json!({"ids": ["1", "2", "3", "40"]});
        let r = send(p.http, "POST", "/docs/_mget?preference=_local", Some(body.to_string().as_bytes()), &[]);
        let docs = r.json()["docs"].clone();
        assert!(docs.as_array().unwrap().iter().all(|d| d["found"] == true), "{docs}");
    }

    // _explain and terms lookups read the document's shard wherever it lives.
    for p in &procs {
        for i in [0, 1, 2, 3] {
            let body = json!({"query": {"match": {"t": "dog"}}});
            let r = send(p.http, "POST", &format!("/spread/_explain/{i}"), Some(body.to_string().as_bytes()), &[]);
            let v = r.json();
            assert_eq!(v["_id"], i.to_string(), "{v}");
            assert!(v["matched"].is_boolean(), "{v}");
        }
        let body = json!({"query": {"terms": {"n": {"index": "docs", "id": "7", "path": "n"}}}});
        let v = search(p, "spread", "", &body);
        assert_eq!(v["hits"]["hits"][0]["_id"], "7", "{v}");
    }

    // A node gone: gets preferring it pass to the other copy.
    let gone = ids[2].clone();
    let mut last = procs.pop().unwrap();
    let _ = last.child.kill();
    let _ = last.child.wait();
    for i in 0..DOCS {
        let r = get(procs[0].http, &format!("/docs/_doc/{i}?preference=_prefer_nodes:{gone}"));
        assert_eq!(r.status, 200, "{i}: {}", r.text());
        assert_eq!(r.json()["_source"], doc(i));
    }
}
