//! What actions leave for after their answer (issue 16's structure item): deprecation warnings
//! and `refresh=wait_for` waits travel in the actions' results, not thread-locals, and reach the
//! HTTP answer: `Warning` headers (each once) and a write acknowledged only once searchable.
//! Also: `wait_for_completion=false` (a task to poll) is refused until the tasks API exists.
#![cfg(feature = "server")]

mod common;

use common::http::*;

fn warnings(r: &Resp) -> Vec<&str> {
    r.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("Warning")).map(|(_, v)| v.as_str()).collect()
}

#[test]
fn deprecation_warnings_reach_the_answer_once() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    // Create index: a warning from the action.
    let r = put(s.addr, "/w", r#"{"settings": {"number_of_shards": 3, "index.soft_deletes.enabled": true}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let w = warnings(&r);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("Creating indices with soft-deletes disabled is deprecated"), "{w:?}");
    let r = put(s.addr, "/w/_doc/1?refresh=true", r#"{"t": "a b c"}"#);
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(warnings(&r).is_empty());

    // A search over three shards whose query parser warns on each shard: one header.
    let q = r#"{"query": {"intervals": {"t": {"match": {"query": "a b", "ordered": true}}}}}"#;
    let r = post(s.addr, "/w/_search", q);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["hits"]["total"]["value"], 1);
    let w = warnings(&r);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("Deprecated field [ordered] used"), "{w:?}");
    // The next request on the same pool threads carries none.
    let r = post(s.addr, "/w/_search", r#"{"query": {"match_all": {}}}"#);
    assert!(warnings(&r).is_empty(), "{:?}", warnings(&r));

    // Count and msearch carry them too.
    let r = post(s.addr, "/w/_count", q);
    assert_eq!(warnings(&r).len(), 1, "{}", r.text());
    let body = format!("{{}}\n{q}\n{{}}\n{{\"query\": {{\"match_all\": {{}}}}}}\n");
    let r = send(s.addr, "POST", "/w/_msearch", Some(body.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(warnings(&r).len(), 1, "{}", r.text());
}

#[test]
fn wait_for_writes_are_searchable_when_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/r", r#"{"settings": {"number_of_shards": 2, "refresh_interval": "200ms"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = put(s.addr, "/r/_doc/1?refresh=wait_for", r#"{"x": 1}"#);
    assert_eq!(r.status, 201, "{}", r.text());
    let bulk = "{\"index\": {\"_id\": \"2\"}}\n{\"x\": 2}\n{\"delete\": {\"_id\": \"1\"}}\n";
    let r = send(
        s.addr,
        "POST",
        "/r/_bulk?refresh=wait_for",
        Some(bulk.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.json()["errors"], false, "{}", r.text());
    let r = post(s.addr, "/r/_search", r#"{"query": {"match_all": {}}}"#);
    assert_eq!(r.json()["hits"]["total"]["value"], 1, "{}", r.text());
    let r = post(s.addr, "/r/_update/2?refresh=wait_for", r#"{"doc": {"x": 3}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = post(s.addr, "/r/_search", r#"{"query": {"term": {"x": 3}}}"#);
    assert_eq!(r.json()["hits"]["total"]["value"], 1, "{}", r.text());
}

#[test]
fn background_open_and_forcemerge_answer_a_task_and_background_close_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/bg", "{}").status, 200);
    // Force merge and open in the background answer with their task (tests/http_tasks.rs
    // follows one to its stored result).
    let r = post(s.addr, "/bg/_forcemerge?wait_for_completion=false", "");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["task"].as_str().is_some_and(|t| t.contains(':')), "{}", r.text());
    // Close in the background is still refused, and does nothing.
    let r = post(s.addr, "/bg/_close?wait_for_completion=false", "");
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["type"], "illegal_argument_exception");
    assert!(r.text().contains("wait_for_completion=false"), "{}", r.text());
    assert_eq!(get(s.addr, "/bg/_search").status, 200);
    assert_eq!(post(s.addr, "/bg/_close", "").status, 200);
    let r = post(s.addr, "/bg/_open?wait_for_completion=false", "");
    assert_eq!(r.status, 200, "{}", r.text());
    let task = r.json()["task"].as_str().expect("a task id").to_string();
    let done = get(s.addr, &format!("/_tasks/{task}?wait_for_completion=true&timeout=30s"));
    assert_eq!(done.status, 200, "{}", done.text());
    assert_eq!(done.json()["completed"], true, "{}", done.text());
    assert_eq!(get(s.addr, "/bg/_search").status, 200, "the background open opened the index");
}
