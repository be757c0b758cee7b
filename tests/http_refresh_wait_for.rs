//! `refresh=wait_for` waits for the shard's next refresh (scheduled, or asked for by anyone)
//! instead of forcing one, as OpenSearch's refresh listeners do: the answer carries no
//! `forced_refresh`, and the write is visible to search when it comes back.

mod common;

use std::time::{Duration, Instant};

use common::http::{get, post, put, TestServer};
use serde_json::json;

fn count(s: &TestServer, index: &str) -> u64 {
    post(s.addr, &format!("/{index}/_count"), "{}").json()["count"].as_u64().unwrap_or(u64::MAX)
}

#[test]
fn wait_for_is_answered_by_the_scheduled_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/w", r#"{"settings":{"number_of_shards":1,"refresh_interval":"300ms"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = put(s.addr, "/w/_doc/1?refresh=wait_for", r#"{"a":1}"#);
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(r.json().get("forced_refresh").is_none(), "{}", r.text());
    assert_eq!(count(&s, "w"), 1);
    // Bulk and update wait too.
    let body = "{\"index\":{\"_id\":\"2\"}}\n{\"a\":2}\n{\"index\":{\"_id\":\"3\"}}\n{\"a\":3}\n";
    let r = common::http::send(
        s.addr,
        "POST",
        "/w/_bulk?refresh=wait_for",
        Some(body.as_bytes()),
        &[("Content-Type", "application/x-ndjson")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["items"][0]["index"].get("forced_refresh").is_none(), "{}", r.text());
    assert_eq!(count(&s, "w"), 3);
    let r = post(s.addr, "/w/_update/1?refresh=wait_for", r#"{"doc":{"b":true}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(post(s.addr, "/w/_count", r#"{"query":{"term":{"b":true}}}"#).json()["count"], json!(1));
    // `refresh=true` still forces.
    let r = put(s.addr, "/w/_doc/4?refresh=true", r#"{"a":4}"#);
    assert_eq!(r.json()["forced_refresh"], json!(true), "{}", r.text());
}

#[test]
fn with_refresh_disabled_wait_for_waits_for_someone_else_to_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/off", r#"{"settings":{"number_of_shards":1,"refresh_interval":"-1"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let addr = s.addr;
    let refresher = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        post(addr, "/off/_refresh", "").status
    });
    let t = Instant::now();
    let r = put(s.addr, "/off/_doc/1?refresh=wait_for", r#"{"a":1}"#);
    let waited = t.elapsed();
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(r.json().get("forced_refresh").is_none(), "{}", r.text());
    assert!(waited >= Duration::from_millis(300), "answered after {waited:?}, before anyone refreshed");
    assert_eq!(refresher.join().unwrap(), 200);
    assert_eq!(count(&s, "off"), 1);
    assert_eq!(get(s.addr, "/off/_doc/1").status, 200);
}

#[test]
fn waiting_writes_do_not_hold_the_write_threads() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/held", r#"{"settings":{"number_of_shards":1,"refresh_interval":"-1"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let addr = s.addr;
    // More waiting writes than the node has write threads (one per core).
    let n = std::thread::available_parallelism().map_or(2, |p| p.get()) + 2;
    let waiters: Vec<_> = (0..n)
        .map(|i| {
            std::thread::spawn(move || put(addr, &format!("/held/_doc/w{i}?refresh=wait_for"), r#"{"a":1}"#).status)
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // A plain write and a read still go through while they wait.
    let t = Instant::now();
    assert_eq!(put(s.addr, "/held/_doc/plain", r#"{"a":2}"#).status, 201);
    assert_eq!(get(s.addr, "/held/_doc/plain").status, 200);
    assert!(t.elapsed() < Duration::from_secs(5), "a plain write waited {:?} behind the waiting ones", t.elapsed());
    assert!(waiters.iter().all(|w| !w.is_finished()), "nobody refreshed yet");
    assert_eq!(post(s.addr, "/held/_refresh", "").status, 200);
    for w in waiters {
        assert_eq!(w.join().unwrap(), 201);
    }
    assert_eq!(count(&s, "held"), n as u64 + 1);
}
