//! `_reindex`, `_update_by_query`, `_delete_by_query` over real HTTP: counts and contents after
//! each, scripts, `op_type: create` with `conflicts: proceed`, a background job throttled then
//! rethrottled (its status in `_tasks`, its result in `.tasks`), and a reindex from a second
//! server through `source.remote` behind `reindex.remote.allowlist`.

mod common;

use common::http::{get, post, put, TestServer};
use serde_json::{json, Value};

fn bulk_docs(s: &TestServer, index: &str, n: usize) {
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&format!("{{\"index\":{{\"_index\":\"{index}\",\"_id\":\"{i}\"}}}}\n"));
        body.push_str(&format!("{{\"n\":{i},\"tag\":\"{}\"}}\n", if i % 2 == 0 { "even" } else { "odd" }));
    }
    let r = post(s.addr, "/_bulk?refresh=true", &body);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false, "{}", r.text());
}

fn count(s: &TestServer, index: &str) -> u64 {
    post(s.addr, &format!("/{index}/_refresh"), "");
    get(s.addr, &format!("/{index}/_count")).json()["count"].as_u64().unwrap()
}

#[test]
fn reindex_copies_sliced_and_scripted_and_resumes_with_create() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    put(s.addr, "/src", r#"{"settings":{"number_of_shards":3}}"#);
    bulk_docs(&s, "src", 250);
    let r = post(
        s.addr,
        "/_reindex?slices=auto&refresh=true",
        r#"{"source":{"index":"src","size":40},"dest":{"index":"dst"}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!((v["total"].as_u64(), v["created"].as_u64()), (Some(250), Some(250)), "{v}");
    assert_eq!(v["slices"].as_array().map(Vec::len), Some(3), "auto: one slice per shard: {v}");
    assert_eq!(count(&s, "dst"), 250);
    let d = get(s.addr, "/dst/_doc/17").json();
    assert_eq!(d["_source"], json!({"n": 17, "tag": "odd"}));

    // A script: only the even ones, transformed.
    let body = json!({
        "source": {"index": "src", "query": {"term": {"tag": "even"}}},
        "dest": {"index": "evens"},
        "script": {"source": "ctx._source.double = ctx._source.n * 2; if (ctx._source.n == 4) { ctx.op = 'noop' }"}
    });
    let v = post(s.addr, "/_reindex?refresh=true", &body.to_string()).json();
    assert_eq!((v["created"].as_u64(), v["noops"].as_u64()), (Some(124), Some(1)), "{v}");
    assert_eq!(get(s.addr, "/evens/_doc/10").json()["_source"]["double"], 20);
    assert_eq!(get(s.addr, "/evens/_doc/4").status, 404);

    // Half the documents already there: create + proceed fills the rest, conflicts counted.
    post(s.addr, "/part/_doc/0", r#"{"n": -1}"#);
    post(s.addr, "/_reindex?refresh=true", r#"{"source":{"index":"src"},"dest":{"index":"part"},"max_docs":100}"#);
    let body = r#"{"source":{"index":"src"},"dest":{"index":"part","op_type":"create"},"conflicts":"proceed"}"#;
    let v = post(s.addr, "/_reindex?refresh=true", body).json();
    assert_eq!((v["created"].as_u64(), v["version_conflicts"].as_u64()), (Some(150), Some(100)), "{v}");
    assert_eq!(v["failures"], json!([]));
    assert_eq!(count(&s, "part"), 250);
    // Without `proceed` the first conflict ends it with a 409 and the failure.
    let body = r#"{"source":{"index":"src"},"dest":{"index":"part","op_type":"create"}}"#;
    let r = post(s.addr, "/_reindex", body);
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["failures"][0]["cause"]["type"], "version_conflict_engine_exception");
}

#[test]
fn update_and_delete_by_query() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    bulk_docs(&s, "docs", 60);
    let body = r#"{"query":{"term":{"tag":"odd"}},"script":{"source":"ctx._source.seen = true"}}"#;
    let v = post(s.addr, "/docs/_update_by_query?refresh=true&scroll_size=7", body).json();
    assert_eq!((v["updated"].as_u64(), v["batches"].as_u64()), (Some(30), Some(5)), "{v}");
    assert!(v.get("created").is_none(), "update by query does not show created: {v}");
    let d = get(s.addr, "/docs/_doc/3").json();
    assert_eq!((d["_source"]["seen"].as_bool(), d["_version"].as_i64()), (Some(true), Some(2)), "{d}");
    assert_eq!(get(s.addr, "/docs/_doc/2").json()["_version"], 1);
    // A script may not move a document.
    let r = post(s.addr, "/docs/_update_by_query", r#"{"script":{"source":"ctx._id = 'x'"}}"#);
    assert_eq!(r.status, 400);
    assert!(r.text().contains("Modifying [_id] not allowed"), "{}", r.text());

    let v = post(s.addr, "/docs/_delete_by_query?refresh=true", r#"{"query":{"range":{"n":{"lt":20}}}}"#).json();
    assert_eq!(v["deleted"], 20, "{v}");
    assert_eq!(count(&s, "docs"), 40);
    let r = post(s.addr, "/docs/_delete_by_query", "{}");
    assert_eq!(r.status, 400);
    assert!(r.text().contains("query is missing"), "{}", r.text());
}

#[test]
fn background_job_reports_status_rethrottles_and_stores_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    bulk_docs(&s, "src", 30);
    // One document per second with batches of 10: the job waits after its first batch.
    let r = post(
        s.addr,
        "/_reindex?wait_for_completion=false&requests_per_second=1",
        r#"{"source":{"index":"src","size":10},"dest":{"index":"dst"}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let task = r.json()["task"].as_str().unwrap().to_string();
    // Its status shows the first batch and the wait (bounded poll: the batch is quick).
    let mut status = Value::Null;
    for _ in 0..600 {
        let t = get(s.addr, &format!("/_tasks/{task}")).json();
        status = t["task"]["status"].clone();
        if status["batches"] == 1 && status["throttled_until_millis"].as_u64() > Some(0) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!((status["total"].as_u64(), status["created"].as_u64()), (Some(30), Some(10)), "{status}");
    assert_eq!(status["requests_per_second"], 1.0);
    let r = post(s.addr, &format!("/_reindex/{task}/_rethrottle?requests_per_second=-1"), "");
    assert_eq!(r.status, 200, "{}", r.text());
    let nodes = r.json()["nodes"].clone();
    let listed = nodes.as_object().unwrap().values().next().unwrap()["tasks"][&task].clone();
    assert_eq!(listed["action"], "indices:data/write/reindex", "{nodes}");
    let done = get(s.addr, &format!("/_tasks/{task}?wait_for_completion=true")).json();
    assert_eq!(done["completed"], true, "{done}");
    assert_eq!(done["response"]["created"], 30, "{done}");
    assert_eq!(done["task"]["status"]["requests_per_second"], -1.0, "{done}");
}

#[test]
fn reindex_from_a_remote_server_needs_the_allowlist() {
    let d1 = tempfile::tempdir().unwrap();
    let d2 = tempfile::tempdir().unwrap();
    let remote = TestServer::start(d1.path(), &[]);
    bulk_docs(&remote, "far", 75);
    let port = remote.addr.port();
    let body = json!({
        "source": {"remote": {"host": format!("http://127.0.0.1:{port}")}, "index": "far", "size": 20,
                   "query": {"term": {"tag": "even"}}},
        "dest": {"index": "near"}
    })
    .to_string();
    let closed = TestServer::start(d2.path(), &[]);
    let r = post(closed.addr, "/_reindex", &body);
    assert_eq!(r.status, 400);
    assert!(
        r.text().contains(&format!("[127.0.0.1:{port}] not allowlisted in reindex.remote.allowlist")),
        "{}",
        r.text()
    );
    closed.stop();
    let d3 = tempfile::tempdir().unwrap();
    let local = TestServer::start(d3.path(), &[("reindex.remote.allowlist", "127.0.0.1:*")]);
    let r = post(local.addr, "/_reindex?refresh=true", &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!((v["created"].as_u64(), v["batches"].as_u64()), (Some(38), Some(2)), "{v}");
    assert_eq!(count(&local, "near"), 38);
    assert_eq!(get(local.addr, "/near/_doc/8").json()["_source"], json!({"n": 8, "tag": "even"}));
}
