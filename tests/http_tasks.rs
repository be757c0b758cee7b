//! `_tasks` and `_cat/tasks` over real HTTP: every request is a task with its action name and
//! `X-Opaque-Id`; lists group by nodes, parents or none; a long search is cancelled by id and
//! answers `task_cancelled_exception`; a background force merge stores its result in `.tasks`.

mod common;

use std::time::Duration;

use common::http::{get, post, put, send, TestServer};
use serde_json::{json, Value};

#[test]
fn lists_show_the_request_itself_with_its_headers_in_every_grouping() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = send(s.addr, "GET", "/_tasks?detailed=true", None, &[("X-Opaque-Id", "me-1")]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("x-opaque-id"), Some("me-1"), "OpenSearch echoes X-Opaque-Id");
    let v = r.json();
    let (node_id, node) = v["nodes"].as_object().unwrap().iter().next().unwrap();
    assert!(node["roles"].as_array().is_some_and(|r| !r.is_empty()), "{v}");
    let tasks = node["tasks"].as_object().unwrap();
    let list = tasks.values().find(|t| t["action"] == "cluster:monitor/tasks/lists").expect("the list task");
    assert_eq!(list["headers"]["X-Opaque-Id"], "me-1");
    assert_eq!(list["type"], "transport");
    assert_eq!(&list["node"], node_id);
    assert!(list["resource_stats"]["thread_info"]["active_threads"].as_u64() >= Some(1), "{list}");
    // Its per-node child points at it.
    let child = tasks.values().find(|t| t["action"] == "cluster:monitor/tasks/lists[n]").expect("the node child");
    assert_eq!(child["parent_task_id"], format!("{node_id}:{}", list["id"]));
    assert_eq!(child["headers"]["X-Opaque-Id"], "me-1", "children carry the headers");

    let p = get(s.addr, "/_tasks?group_by=parents").json();
    let roots = p["tasks"].as_object().unwrap();
    assert_eq!(roots.len(), 1, "the child nests under its parent: {p}");
    let root = roots.values().next().unwrap();
    assert_eq!(root["children"][0]["action"], "cluster:monitor/tasks/lists[n]");
    assert!(root.get("description").is_none(), "description only with detailed");

    let n = get(s.addr, "/_tasks?group_by=none&actions=cluster:monitor/tasks/lists").json();
    assert_eq!(n["tasks"].as_array().map(Vec::len), Some(1), "{n}");

    let bad = get(s.addr, "/_tasks?group_by=x");
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["error"]["type"], "illegal_argument_exception");
    let bad = get(s.addr, "/_tasks/nonsense");
    assert_eq!(bad.status, 400, "{}", bad.text());

    let cat = send(s.addr, "GET", "/_cat/tasks?h=action,x_opaque_id,parent_task_id", None, &[("X-Opaque-Id", "cat-9")]);
    assert!(
        cat.text().lines().any(|l| l.starts_with("cluster:monitor/tasks/lists ") && l.contains("cat-9")),
        "{}",
        cat.text()
    );
}

#[test]
fn a_finished_task_without_a_stored_result_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let v = get(s.addr, "/_tasks?group_by=none&actions=cluster:monitor/tasks/lists").json();
    let t = &v["tasks"][0];
    let id = format!("{}:{}", t["node"].as_str().unwrap(), t["id"]);
    let r = get(s.addr, &format!("/_tasks/{id}"));
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(r.json()["error"]["reason"], format!("task [{id}] isn't running and hasn't stored its results"));
    let r = get(s.addr, "/_tasks/nosuchnode:3");
    assert_eq!(r.status, 404, "{}", r.text());
    let c = post(s.addr, &format!("/_tasks/{id}/_cancel"), "").json();
    assert_eq!(c["node_failures"][0]["caused_by"]["type"], "resource_not_found_exception", "{c}");
}

#[test]
fn a_background_force_merge_stores_its_result_for_get() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/fm", "{}").status, 200);
    let r = post(s.addr, "/fm/_forcemerge?wait_for_completion=false&max_num_segments=1", "");
    assert_eq!(r.status, 200, "{}", r.text());
    let id = r.json()["task"].as_str().unwrap().to_string();
    let g = get(s.addr, &format!("/_tasks/{id}?wait_for_completion=true"));
    assert_eq!(g.status, 200, "{}", g.text());
    let g = g.json();
    assert_eq!(g["completed"], true, "{g}");
    assert_eq!(g["task"]["action"], "indices:admin/forcemerge");
    assert_eq!(
        g["task"]["description"],
        "Force-merge indices [fm], maxSegments[1], onlyExpungeDeletes[false], flush[true], primaryOnly[false]"
    );
    assert_eq!(g["response"]["_shards"]["failed"], 0, "{g}");
    // Read again later: from `.tasks`.
    assert_eq!(get(s.addr, &format!("/_tasks/{id}")).json(), g);
    // A failure is stored as the task's error.
    let r = post(s.addr, "/missing/_forcemerge?wait_for_completion=false", "").json();
    let id = r["task"].as_str().unwrap().to_string();
    let g = get(s.addr, &format!("/_tasks/{id}?wait_for_completion=true")).json();
    assert_eq!(g["error"]["type"], "index_not_found_exception", "{g}");
}

/// A search that takes seconds in a debug build: 200k docs, 25 clauses of 40 terms each,
/// every hit counted and sorted by a field.
fn long_search_body() -> Value {
    let clauses: Vec<Value> = (0..25)
        .map(|i| {
            let terms: Vec<String> = (0..40).map(|j| format!("w{}", (i * 7 + j) % 100)).collect();
            json!({"match": {"t": terms.join(" ")}})
        })
        .collect();
    json!({"size": 5, "track_total_hits": true, "sort": [{"n": "desc"}], "query": {"bool": {"should": clauses}}})
}

#[test]
fn cancelling_a_long_search_answers_task_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/big", r#"{"settings": {"number_of_shards": 1}}"#).status, 200);
    let mut seed = 7u64;
    for part in 0..4 {
        let mut bulk = String::new();
        for i in 0..50_000u64 {
            let words: Vec<String> = (0..8)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    format!("w{}", (seed >> 33) % 100)
                })
                .collect();
            bulk.push_str("{\"index\":{}}\n");
            bulk.push_str(&json!({"n": part * 50_000 + i, "t": words.join(" ")}).to_string());
            bulk.push('\n');
        }
        let r = send(s.addr, "POST", "/big/_bulk", Some(bulk.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
        assert_eq!(r.status, 200);
    }
    assert_eq!(post(s.addr, "/big/_refresh", "").status, 200);
    let addr = s.addr;
    let body = long_search_body().to_string();
    let search = std::thread::spawn(move || {
        send(addr, "POST", "/big/_search", Some(body.as_bytes()), &[("X-Opaque-Id", "long-one")])
    });
    // The search task, found by its header.
    let mut found = None;
    for _ in 0..500 {
        let v = get(s.addr, "/_tasks?group_by=none&actions=indices:data/read/search").json();
        if let Some(t) =
            v["tasks"].as_array().and_then(|a| a.iter().find(|t| t["headers"]["X-Opaque-Id"] == "long-one"))
        {
            found = Some(t.clone());
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let t = found.expect("the search shows in _tasks while it runs");
    assert_eq!(t["cancellable"], true);
    assert_eq!(t["cancelled"], false);
    let id = format!("{}:{}", t["node"].as_str().unwrap(), t["id"]);
    let c = post(s.addr, &format!("/_tasks/{id}/_cancel"), "").json();
    let node = c["nodes"].as_object().unwrap().values().next().expect("the node that cancelled");
    assert_eq!(node["tasks"][&id]["cancelled"], true, "{c}");
    assert!(node["tasks"][&id]["cancellation_time_millis"].is_u64(), "{c}");
    let r = search.join().unwrap();
    assert_eq!(r.status, 500, "{}", r.text());
    let e = r.json();
    assert_eq!(e["error"]["type"], "task_cancelled_exception", "{e}");
    assert_eq!(e["error"]["reason"], "task cancelled [by user request]");
    // The same search left alone completes.
    let r = post(s.addr, "/big/_search", &json!({"size": 0, "query": {"term": {"t": "w1"}}}).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
}
