//! Point in time and scroll over real HTTP: a PIT sees exactly the documents present at its
//! creation across refreshes, deletes, updates and a force merge; its segment files stay on disk
//! while it lives and go with it; keep_alive expiry; `search.max_open_pit_context`; scroll paging.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::http::{get, post, send, TestServer};
use serde_json::{json, Value};

fn call(s: &TestServer, method: &str, path: &str, body: Value) -> (u16, Value) {
    let b = body.to_string();
    let r = send(s.addr, method, path, if body.is_null() { None } else { Some(b.as_bytes()) }, &[]);
    let v = if r.body.is_empty() { Value::Null } else { serde_json::from_slice(&r.body).unwrap_or(Value::Null) };
    (r.status, v)
}

fn ok(s: &TestServer, method: &str, path: &str, body: Value) -> Value {
    let (st, v) = call(s, method, path, body);
    assert!(st < 300, "{method} {path} -> {st}: {v}");
    v
}

fn create_index(s: &TestServer, name: &str, shards: u32) {
    ok(
        s,
        "PUT",
        &format!("/{name}"),
        json!({"settings": {"number_of_shards": shards, "refresh_interval": "-1"}, "mappings": {"properties": {"n": {"type": "long"}}}}),
    );
}

fn index_doc(s: &TestServer, index: &str, id: &str, n: i64) {
    ok(s, "PUT", &format!("/{index}/_doc/{id}"), json!({"n": n}));
}

fn create_pit(s: &TestServer, index: &str, keep_alive: &str) -> String {
    let v = ok(s, "POST", &format!("/{index}/_search/point_in_time?keep_alive={keep_alive}"), Value::Null);
    assert_eq!(v["_shards"]["failed"], json!(0));
    assert!(v["creation_time"].as_i64().is_some(), "{v}");
    v["pit_id"].as_str().expect("pit_id").to_string()
}

/// Every hit of a PIT search: id → n.
fn pit_docs(s: &TestServer, pit: &str) -> BTreeMap<String, i64> {
    let v = ok(
        s,
        "POST",
        "/_search",
        json!({"size": 1000, "pit": {"id": pit, "keep_alive": "1m"}, "sort": [{"n": "asc"}]}),
    );
    assert_eq!(v["pit_id"], json!(pit));
    v["hits"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| (h["_id"].as_str().unwrap_or("").to_string(), h["_source"]["n"].as_i64().unwrap_or(-1)))
        .collect()
}

fn shard_index_dir(data: &Path, s: &TestServer, index: &str) -> PathBuf {
    let v = ok(s, "GET", &format!("/{index}/_settings"), Value::Null);
    let uuid = v[index]["settings"]["index"]["uuid"].as_str().expect("uuid").to_string();
    data.join("nodes").join("0").join("indices").join(uuid).join("0").join("index")
}

fn segment_files(dir: &Path, segment: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("index dir").flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.strip_prefix(segment).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('_')) {
            out.push(name);
        }
    }
    out
}

#[test]
fn pit_is_frozen_and_pins_its_segment_files() {
    let dir = tempfile::tempdir().expect("tmp");
    let s = TestServer::start(dir.path(), &[]);
    create_index(&s, "frozen", 1);
    let mut model = BTreeMap::new();
    for i in 0..30i64 {
        index_doc(&s, "frozen", &format!("d{i}"), i);
        model.insert(format!("d{i}"), i);
        if i % 10 == 9 {
            ok(&s, "POST", "/frozen/_refresh", Value::Null);
        }
    }
    let pit = create_pit(&s, "frozen", "5m");
    assert_eq!(pit_docs(&s, &pit), model);

    // Segments pinned by the PIT, and their files on disk.
    let segs = ok(&s, "GET", "/_cat/pit_segments?format=json", json!({"pit_id": [pit]}));
    let names: Vec<String> =
        segs.as_array().expect("rows").iter().map(|r| r["segment"].as_str().unwrap_or("").to_string()).collect();
    assert_eq!(names.len(), 3, "{segs}");
    let total: i64 = segs
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["docs.count"].as_str().and_then(|x| x.parse::<i64>().ok()).unwrap_or(0))
        .sum();
    assert_eq!(total, 30);
    let idx_dir = shard_index_dir(dir.path(), &s, "frozen");
    for n in &names {
        assert!(!segment_files(&idx_dir, n).is_empty(), "files of {n} in {idx_dir:?}");
    }

    // Deletes, updates, new documents, refreshes and a force merge after the PIT.
    for i in 0..10i64 {
        ok(&s, "DELETE", &format!("/frozen/_doc/d{i}"), Value::Null);
    }
    for i in 10..20i64 {
        index_doc(&s, "frozen", &format!("d{i}"), 1000 + i);
    }
    for i in 30..40i64 {
        index_doc(&s, "frozen", &format!("d{i}"), i);
    }
    ok(&s, "POST", "/frozen/_refresh", Value::Null);
    ok(&s, "POST", "/frozen/_forcemerge?max_num_segments=1", Value::Null);
    ok(&s, "POST", "/frozen/_flush", Value::Null);
    ok(&s, "POST", "/frozen/_refresh", Value::Null);
    let now = ok(&s, "POST", "/frozen/_search", json!({"size": 0, "track_total_hits": true}));
    assert_eq!(now["hits"]["total"]["value"], json!(30));
    assert_eq!(pit_docs(&s, &pit), model, "the PIT still sees the documents of its creation");
    for n in &names {
        assert!(!segment_files(&idx_dir, n).is_empty(), "{n} is pinned by the PIT");
    }

    // Listing, then deleting: the pinned files go.
    let all = ok(&s, "GET", "/_search/point_in_time/_all", Value::Null);
    assert_eq!(all["pits"][0]["pit_id"], json!(pit));
    assert_eq!(all["pits"][0]["keep_alive"], json!(300_000));
    let del = ok(&s, "DELETE", "/_search/point_in_time", json!({"pit_id": pit}));
    assert_eq!(del["pits"][0], json!({"successful": true, "pit_id": pit}));
    for n in &names {
        assert!(segment_files(&idx_dir, n).is_empty(), "{n} deleted with the PIT: {:?}", segment_files(&idx_dir, n));
    }
    let (st, v) = call(&s, "POST", "/_search", json!({"pit": {"id": pit}}));
    assert_eq!(st, 404, "{v}");
    assert_eq!(v["error"]["root_cause"][0]["type"], json!("search_context_missing_exception"));
    // Deleting an already deleted PIT succeeds, as in OpenSearch.
    let del = ok(&s, "DELETE", "/_search/point_in_time", json!({"pit_id": [pit]}));
    assert_eq!(del["pits"][0]["successful"], json!(true));
}

#[test]
fn pit_errors() {
    let dir = tempfile::tempdir().expect("tmp");
    let s = TestServer::start(dir.path(), &[]);
    create_index(&s, "e", 2);
    index_doc(&s, "e", "1", 1);
    ok(&s, "POST", "/e/_refresh", Value::Null);
    let (st, v) = call(&s, "POST", "/_search", json!({"pit": {"id": "bm90IGFuIGlk"}}));
    assert_eq!((st, v["error"]["type"].as_str()), (400, Some("illegal_argument_exception")), "{v}");
    assert_eq!(v["error"]["reason"], json!("invalid id: [bm90IGFuIGlk]"));
    let pit = create_pit(&s, "e", "1m");
    let (st, v) = call(&s, "POST", "/e/_search", json!({"pit": {"id": pit}}));
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["error"]["reason"], json!("Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;"));
    let (st, v) = call(&s, "POST", "/_search?scroll=1m", json!({"pit": {"id": pit}}));
    assert_eq!(st, 400, "{v}");
    let (st, v) = call(&s, "POST", "/e/_search/point_in_time", Value::Null);
    assert_eq!(
        (st, v["error"]["reason"].as_str()),
        (400, Some("Validation Failed: 1: keep alive not specified;")),
        "{v}"
    );
    let (st, v) = call(&s, "POST", "/e/_search/point_in_time?keep_alive=2d", Value::Null);
    assert_eq!(st, 400, "{v}");
    let (st, _) = call(&s, "POST", "/missing/_search/point_in_time?keep_alive=1m", Value::Null);
    assert_eq!(st, 404);
    let v = ok(&s, "POST", "/_search", json!({"pit": {"id": pit}}));
    assert_eq!(v["_shards"]["total"], json!(2));
    assert_eq!(v["hits"]["total"]["value"], json!(1));
    // Text CAT output has one line per pinned segment.
    let r = send(s.addr, "GET", "/_cat/pit_segments/_all?v&h=index,shard,docs.count", None, &[]);
    assert_eq!(r.status, 200);
    assert!(r.text().starts_with("index shard docs.count\n"), "{}", r.text());
}

#[test]
fn keep_alive_expiry_and_max_open_contexts() {
    let dir = tempfile::tempdir().expect("tmp");
    let s = TestServer::start(dir.path(), &[("search.max_open_pit_context", "2")]);
    create_index(&s, "k", 1);
    index_doc(&s, "k", "1", 1);
    ok(&s, "POST", "/k/_refresh", Value::Null);
    let short = create_pit(&s, "k", "1s");
    let long = create_pit(&s, "k", "10m");
    let (st, v) = call(&s, "POST", "/k/_search/point_in_time?keep_alive=1m", Value::Null);
    assert_eq!(st, 429, "{v}");
    assert_eq!(v["error"]["type"], json!("rejected_execution_exception"));
    assert_eq!(
        v["error"]["reason"],
        json!("Trying to create too many Point In Time contexts. Must be less than or equal to: [2]. This limit can be set by changing the [search.max_open_pit_context] setting.")
    );
    // The reaper drops the short one.
    let start = Instant::now();
    loop {
        let all = ok(&s, "GET", "/_search/point_in_time/_all", Value::Null);
        let ids: Vec<&str> =
            all["pits"].as_array().expect("pits").iter().filter_map(|p| p["pit_id"].as_str()).collect();
        if ids == vec![long.as_str()] {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "expiry: {all}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let (st, _) = call(&s, "POST", "/_search", json!({"pit": {"id": short}}));
    assert_eq!(st, 404);
    create_pit(&s, "k", "1m");
    let del = ok(&s, "DELETE", "/_search/point_in_time/_all", Value::Null);
    assert_eq!(del["pits"].as_array().map(Vec::len), Some(2));
    assert_eq!(ok(&s, "DELETE", "/_search/point_in_time/_all", Value::Null), json!({"pits": []}));
}

#[test]
fn scroll_pages_over_every_document() {
    let dir = tempfile::tempdir().expect("tmp");
    let s = TestServer::start(dir.path(), &[]);
    create_index(&s, "sc", 3);
    let mut bulk = String::new();
    for i in 0..53 {
        bulk.push_str(&format!("{{\"index\":{{\"_index\":\"sc\",\"_id\":\"{i}\"}}}}\n{{\"n\":{i}}}\n"));
    }
    let r =
        send(s.addr, "POST", "/_bulk?refresh=true", Some(bulk.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 200);
    let first = ok(&s, "POST", "/sc/_search?scroll=1m", json!({"size": 10, "sort": ["n"]}));
    let mut id = first["_scroll_id"].as_str().expect("scroll id").to_string();
    assert_eq!(first["hits"]["total"]["value"], json!(53));
    let mut seen: Vec<i64> = first["hits"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["_source"]["n"].as_i64().unwrap_or(-1))
        .collect();
    // Documents indexed after the scroll started are not seen.
    post(s.addr, "/sc/_doc/late?refresh=true", "{\"n\": 999}");
    for round in 0..20 {
        let body = if round % 2 == 0 { json!({"scroll": "1m", "scroll_id": id}) } else { Value::Null };
        let path = if round % 2 == 0 {
            "/_search/scroll?rest_total_hits_as_int=true".to_string()
        } else {
            format!("/_search/scroll/{id}?scroll=1m")
        };
        let v = ok(&s, "POST", &path, body);
        if round % 2 == 0 {
            assert_eq!(v["hits"]["total"], json!(53));
        }
        id = v["_scroll_id"].as_str().expect("scroll id").to_string();
        let page: Vec<i64> = v["hits"]["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .map(|h| h["_source"]["n"].as_i64().unwrap_or(-1))
            .collect();
        if page.is_empty() {
            break;
        }
        seen.extend(page);
    }
    assert_eq!(seen, (0..53).collect::<Vec<_>>());
    let v = ok(&s, "DELETE", "/_search/scroll", json!({"scroll_id": [id]}));
    assert_eq!(v, json!({"succeeded": true, "num_freed": 3}));
    let (st, v) = call(&s, "POST", "/_search/scroll", json!({"scroll_id": id}));
    assert_eq!(st, 404, "{v}");
    let (st, v) = call(&s, "DELETE", "/_search/scroll/_all", Value::Null);
    assert_eq!((st, v), (404, json!({"succeeded": true, "num_freed": 0})));
    let (st, v) = call(&s, "POST", "/_search/scroll", json!({"scroll_id": "garbage"}));
    assert_eq!((st, v["error"]["reason"].as_str()), (400, Some("Cannot parse scroll id")));
    let _ = get(s.addr, "/");

    // Deleting an index frees the contexts on it.
    let pit = create_pit(&s, "sc", "10m");
    ok(&s, "DELETE", "/sc", Value::Null);
    let start = Instant::now();
    while ok(&s, "GET", "/_search/point_in_time/_all", Value::Null)["pits"].as_array().is_some_and(|a| !a.is_empty()) {
        assert!(start.elapsed() < Duration::from_secs(10), "contexts of a deleted index are freed");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (st, _) = call(&s, "POST", "/_search", json!({"pit": {"id": pit}}));
    assert_eq!(st, 404);
}
