//! Points in time and scrolls across nodes: three `fathom` processes, an index of 3 shards and
//! no replicas spread over them. A PIT created on one node is paged with `search_after` from
//! another and keeps its view while documents are added; a scroll opened on a third node is
//! continued from every node; listing, `_cat/pit_segments`, deleting PITs and clearing
//! scrolls reach every node; a PIT whose node was killed answers from the other shards and
//! reports the lost ones failed.

mod common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, start, wait_agreement, Proc};
use common::http::{get, post, put, send};
use serde_json::{json, Value};

const FIRST: usize = 60;
const MORE: usize = 30;

fn bulk(p: &Proc, from: usize, to: usize) {
    let mut body = String::new();
    for i in from..to {
        body.push_str(&format!("{}\n{}\n", json!({"index": {"_id": i.to_string()}}), json!({"n": i})));
    }
    // The copies start on their nodes shortly after the index is created: the bulk (by id, so
    // idempotent) is retried until every item lands.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = post(p.http, "/idx/_bulk", &body);
        if r.status == 200 && r.json()["errors"] == false {
            break;
        }
        assert!(Instant::now() < deadline, "bulk keeps failing: {}", r.text());
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn refresh_until(procs: &[&Proc], want: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        for p in procs {
            post(p.http, "/idx/_refresh", "");
        }
        let c = get(procs[0].http, "/idx/_count").json();
        if c["count"] == want {
            return;
        }
        assert!(Instant::now() < deadline, "count stays short: {c}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn json_of(p: &Proc, method: &str, path: &str, body: &Value) -> (u16, Value) {
    let r = send(p.http, method, path, Some(body.to_string().as_bytes()), &[]);
    let v = if r.body.is_empty() { Value::Null } else { r.json() };
    (r.status, v)
}

fn ids(v: &Value) -> Vec<u64> {
    v["hits"]["hits"].as_array().unwrap().iter().map(|h| h["_source"]["n"].as_u64().unwrap()).collect()
}

fn create_pit(p: &Proc) -> String {
    let r = post(p.http, "/idx/_search/point_in_time?keep_alive=5m", "");
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["_shards"], json!({"total": 3, "successful": 3, "skipped": 0, "failed": 0}), "{v}");
    v["pit_id"].as_str().unwrap().to_string()
}

/// Pages through a PIT by `n` with `search_after`; returns every `n` seen.
fn page_pit(p: &Proc, pit: &str, size: usize) -> Vec<u64> {
    let mut seen = Vec::new();
    let mut after: Option<Value> = None;
    for _ in 0..1000 {
        let mut body = json!({"size": size, "sort": [{"n": "asc"}], "pit": {"id": pit, "keep_alive": "5m"}});
        if let Some(a) = &after {
            body["search_after"] = a.clone();
        }
        let (st, v) = json_of(p, "POST", "/_search", &body);
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["pit_id"], pit);
        assert_eq!(v["_shards"]["successful"], 3, "{}", v["_shards"]);
        assert_eq!(v["hits"]["total"]["value"], FIRST, "the PIT's view");
        let page = ids(&v);
        if page.is_empty() {
            return seen;
        }
        after = Some(v["hits"]["hits"].as_array().unwrap().last().unwrap()["sort"].clone());
        seen.extend(page);
    }
    panic!("the PIT never ends");
}

#[test]
fn pits_and_scrolls_span_the_nodes() {
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
        r#"{"settings": {"number_of_shards": 3, "number_of_replicas": 0},
            "mappings": {"properties": {"n": {"type": "long"}}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    bulk(&procs[0], 0, FIRST);
    refresh_until(&all, FIRST);
    // The node id holding each shard.
    let rt = get(procs[0].http, "/_cluster/state/routing_table/idx").json();
    let shards: Vec<String> = (0..3)
        .map(|i| {
            rt["routing_table"]["indices"]["idx"]["shards"][i.to_string()][0]["node"].as_str().unwrap().to_string()
        })
        .collect();
    let holders: HashSet<String> = shards.iter().cloned().collect();
    assert!(holders.len() >= 2, "the shards spread over the nodes: {shards:?}");

    // A PIT created on node 0, paged from node 1 while documents are added.
    let pit = create_pit(&procs[0]);
    bulk(&procs[2], FIRST, FIRST + MORE);
    refresh_until(&all, FIRST + MORE);
    let seen = page_pit(&procs[1], &pit, 7);
    assert_eq!(seen, (0..FIRST as u64).collect::<Vec<_>>(), "a stable, complete, ordered view");
    // from + size over the PIT merges the nodes' pages too.
    let (st, v) = json_of(
        &procs[2],
        "POST",
        "/_search",
        &json!({"from": 20, "size": 5, "sort": [{"n": "desc"}], "pit": {"id": pit}}),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(ids(&v), vec![39, 38, 37, 36, 35]);
    let (st, v) = json_of(
        &procs[1],
        "POST",
        "/_search",
        &json!({"size": 0, "aggs": {"m": {"max": {"field": "n"}}}, "pit": {"id": pit}}),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["aggregations"]["m"]["value"], (FIRST - 1) as f64);
    // Paged by `_shard_doc` alone: each shard's place in the PIT orders the shards across nodes.
    let mut seen: Vec<u64> = Vec::new();
    let mut after: Option<Value> = None;
    for _ in 0..100 {
        let mut body = json!({"size": 9, "sort": [{"_shard_doc": "asc"}], "pit": {"id": pit}});
        if let Some(a) = &after {
            body["search_after"] = a.clone();
        }
        let (st, v) = json_of(&procs[2], "POST", "/_search", &body);
        assert_eq!(st, 200, "{v}");
        let hits = v["hits"]["hits"].as_array().unwrap().clone();
        if hits.is_empty() {
            break;
        }
        let sorts: Vec<i64> = hits.iter().map(|h| h["sort"][0].as_i64().unwrap()).collect();
        assert!(sorts.windows(2).all(|w| w[0] < w[1]), "ascending _shard_doc: {sorts:?}");
        after = Some(hits.last().unwrap()["sort"].clone());
        seen.extend(ids(&v));
    }
    seen.sort();
    assert_eq!(seen, (0..FIRST as u64).collect::<Vec<_>>(), "every document of the PIT once by _shard_doc");
    // Slices of the PIT split its shards by number, whichever node holds them.
    let mut sliced: Vec<u64> = Vec::new();
    for id in 0..2 {
        let body = json!({"size": 100, "slice": {"id": id, "max": 2}, "pit": {"id": pit}});
        let (st, v) = json_of(&procs[0], "POST", "/_search", &body);
        assert_eq!(st, 200, "{v}");
        sliced.extend(ids(&v));
    }
    sliced.sort();
    assert_eq!(sliced, (0..FIRST as u64).collect::<Vec<_>>(), "the slices cover the PIT once");
    // Unsupported parts across nodes are refused, not half answered.
    let body = json!({"collapse": {"field": "n", "inner_hits": {"name": "x"}}, "pit": {"id": pit}});
    let (st, v) = json_of(&procs[1], "POST", "/_search", &body);
    assert_eq!(st, 400, "{v}");

    // Every node lists the PIT once, and its segments on every node holding a shard.
    for p in &procs {
        let v = get(p.http, "/_search/point_in_time/_all").json();
        let listed: Vec<&str> = v["pits"].as_array().unwrap().iter().map(|p| p["pit_id"].as_str().unwrap()).collect();
        assert_eq!(listed, vec![pit.as_str()], "{v}");
    }
    let r = send(
        procs[1].http,
        "GET",
        "/_cat/pit_segments?format=json",
        Some(json!({"pit_id": pit}).to_string().as_bytes()),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let rows = r.json();
    let segs: HashSet<(String, String)> =
        rows.as_array().unwrap().iter().map(|r| (r["shard"].to_string(), r["id"].to_string())).collect();
    let shard_nums: HashSet<&String> = segs.iter().map(|s| &s.0).collect();
    assert_eq!(shard_nums.len(), 3, "every shard's pinned segments: {rows}");
    let r = get(procs[2].http, "/_cat/pit_segments/_all?format=json");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json().as_array().unwrap().len(), rows.as_array().unwrap().len());

    // A scroll over every document, opened on node 2 and continued from each node in turn.
    let (st, v) = json_of(&procs[2], "POST", "/idx/_search?scroll=1m", &json!({"size": 13, "sort": [{"n": "asc"}]}));
    assert_eq!(st, 200, "{v}");
    let scroll_id = v["_scroll_id"].as_str().unwrap().to_string();
    assert_eq!(v["hits"]["total"]["value"], FIRST + MORE);
    assert_eq!(v["_shards"]["total"], 3);
    let mut got = ids(&v);
    for i in 0..100 {
        let (st, v) =
            json_of(&procs[i % 3], "POST", "/_search/scroll", &json!({"scroll_id": scroll_id, "scroll": "1m"}));
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["hits"]["total"]["value"], FIRST + MORE, "every page keeps the first page's total");
        let page = ids(&v);
        if page.is_empty() {
            break;
        }
        got.extend(page);
    }
    assert_eq!(got, (0..(FIRST + MORE) as u64).collect::<Vec<_>>(), "every document once, in order");
    // A scroll by score (no sort) sees every document once too.
    let (st, v) = json_of(&procs[1], "POST", "/idx/_search?scroll=1m", &json!({"size": 17}));
    assert_eq!(st, 200, "{v}");
    let by_score = v["_scroll_id"].as_str().unwrap().to_string();
    let mut got: HashSet<u64> = ids(&v).into_iter().collect();
    let mut n = got.len();
    for _ in 0..100 {
        let (_, v) = json_of(&procs[0], "POST", "/_search/scroll", &json!({"scroll_id": by_score}));
        let page = ids(&v);
        if page.is_empty() {
            break;
        }
        n += page.len();
        got.extend(page);
    }
    assert_eq!((got.len(), n), (FIRST + MORE, FIRST + MORE), "each document once");

    // Sliced scrolls across nodes: together every document once.
    let mut sliced: Vec<u64> = Vec::new();
    for id in 0..2 {
        let body = json!({"size": 20, "slice": {"id": id, "max": 2}, "sort": ["n"]});
        let (st, v) = json_of(&procs[1], "POST", "/idx/_search?scroll=1m", &body);
        assert_eq!(st, 200, "{v}");
        let sid = v["_scroll_id"].as_str().unwrap().to_string();
        sliced.extend(ids(&v));
        for _ in 0..100 {
            let (_, v) = json_of(&procs[2], "POST", "/_search/scroll", &json!({"scroll_id": sid}));
            let page = ids(&v);
            if page.is_empty() {
                break;
            }
            sliced.extend(page);
        }
        json_of(&procs[0], "DELETE", "/_search/scroll", &json!({"scroll_id": sid}));
    }
    sliced.sort();
    assert_eq!(sliced, (0..(FIRST + MORE) as u64).collect::<Vec<_>>(), "the slices cover the index once");

    // Clear scroll by id frees each node's contexts; `_all` frees the rest.
    let (st, v) = json_of(&procs[0], "DELETE", "/_search/scroll", &json!({"scroll_id": scroll_id}));
    assert_eq!((st, v["succeeded"].as_bool(), v["num_freed"].as_u64()), (200, Some(true), Some(3)), "{v}");
    let (st, v) = json_of(&procs[1], "POST", "/_search/scroll", &json!({"scroll_id": scroll_id}));
    assert_eq!(st, 404, "{v}");
    assert_eq!(v["error"]["root_cause"][0]["type"], "search_context_missing_exception", "{v}");
    let (st, v) = json_of(&procs[2], "DELETE", "/_search/scroll/_all", &json!({}));
    assert_eq!((st, v["num_freed"].as_u64()), (200, Some(3)), "{v}");
    let (st, _) = json_of(&procs[2], "DELETE", "/_search/scroll/_all", &json!({}));
    assert_eq!(st, 404);

    // Deleting every PIT from node 1 frees them on every node.
    let second = create_pit(&procs[2]);
    let (st, v) = json_of(&procs[1], "DELETE", "/_search/point_in_time/_all", &json!({}));
    assert_eq!(st, 200, "{v}");
    let mut deleted: Vec<&str> = v["pits"].as_array().unwrap().iter().map(|p| p["pit_id"].as_str().unwrap()).collect();
    deleted.sort();
    let mut want = vec![pit.as_str(), second.as_str()];
    want.sort();
    assert_eq!(deleted, want, "{v}");
    assert!(v["pits"].as_array().unwrap().iter().all(|p| p["successful"] == true), "{v}");
    for p in &procs {
        assert_eq!(get(p.http, "/_search/point_in_time/_all").json()["pits"], json!([]));
    }
    let (st, v) = json_of(&procs[0], "POST", "/_search", &json!({"pit": {"id": pit}}));
    assert_eq!(st, 404, "{v}");
    assert_eq!(v["error"]["root_cause"][0]["type"], "search_context_missing_exception", "{v}");
    // Deleting by id reaches each node too.
    let third = create_pit(&procs[1]);
    let (st, v) = json_of(&procs[0], "DELETE", "/_search/point_in_time", &json!({"pit_id": [third]}));
    assert_eq!((st, v["pits"][0]["successful"].as_bool()), (200, Some(true)), "{v}");
    assert_eq!(get(procs[2].http, "/_search/point_in_time/_all").json()["pits"], json!([]));
    // A malformed id is OpenSearch's 400.
    let (st, v) = json_of(&procs[0], "POST", "/_search", &json!({"pit": {"id": "bm9wZQ=="}}));
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["error"]["reason"], "invalid id: [bm9wZQ==]", "{v}");

    // A PIT whose node is killed (one holding a shard, not the manager): the other shards
    // answer, the lost one is a failed shard, before and after the cluster drops the node.
    let pit = create_pit(&procs[0]);
    let k = (0..3)
        .find(|&i| local_id(&procs[i]) != manager && holders.contains(&local_id(&procs[i])))
        .expect("a node holding a shard that does not manage");
    let held = shards.iter().filter(|s| **s == local_id(&procs[k])).count() as u64;
    drop(procs.remove(k));
    for _ in 0..4 {
        let (st, v) = json_of(&procs[0], "POST", "/_search", &json!({"size": 100, "pit": {"id": pit}}));
        assert_eq!(st, 200, "{v}");
        let sh = &v["_shards"];
        assert_eq!(sh["total"], 3, "{sh}");
        assert_eq!(sh["failed"], held, "{sh}");
        assert!(sh["failures"].as_array().is_some_and(|f| !f.is_empty()), "{sh}");
        let n = ids(&v).len();
        assert!(n < FIRST + MORE && n > 0, "only the shards still reachable answer: {n}");
        std::thread::sleep(Duration::from_millis(1500));
    }
    // A PIT created now holds the shards that opened (`allow_partial_pit_creation`, the
    // default) and searches only them; without it the creation fails.
    let r = post(procs[0].http, "/idx/_search/point_in_time?keep_alive=1m", "");
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(
        (v["_shards"]["failed"].as_u64(), v["_shards"]["successful"].as_u64()),
        (Some(held), Some(3 - held)),
        "{v}"
    );
    let partial = v["pit_id"].as_str().unwrap().to_string();
    let (st, v) = json_of(&procs[1], "POST", "/_search", &json!({"size": 0, "pit": {"id": partial}}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["_shards"], json!({"total": 3 - held, "successful": 3 - held, "skipped": 0, "failed": 0}), "{v}");
    let r = post(procs[1].http, "/idx/_search/point_in_time?keep_alive=1m&allow_partial_pit_creation=false", "");
    assert!(r.status >= 400, "{}", r.text());
    let v = r.json();
    assert_eq!(v["error"]["type"], "search_phase_execution_exception", "{v}");
    assert_eq!(v["error"]["phase"], "create_pit", "{v}");
    assert_eq!(v["error"]["reason"], "Partial shards failure", "{v}");
    // What the failed creation opened is freed again: only the partial PIT is listed.
    let v = get(procs[1].http, "/_search/point_in_time/_all").json();
    let listed: Vec<&str> = v["pits"].as_array().unwrap().iter().map(|p| p["pit_id"].as_str().unwrap()).collect();
    assert!(listed.contains(&partial.as_str()) && listed.len() == 2, "{v}");
}
