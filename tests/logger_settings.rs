//! `logger.*` cluster settings take effect at once in a running `fathom` process: DEBUG lines
//! appear in its log after `logger._root: DEBUG` and stop after it is reset; a level OpenSearch
//! does not know is refused.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::http::{put, try_send};

fn debug_lines(log: &std::path::Path) -> usize {
    std::fs::read_to_string(log).unwrap_or_default().lines().filter(|l| l.contains(" DEBUG ")).count()
}

#[test]
fn log_levels_follow_the_settings() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fathom"))
        .args(["-E", &format!("path.data={}", dir.path().join("data").display()), "-E", "http.port=0"])
        .args(["-E", "transport.port=0"])
        .env_remove("FATHOM_LOG")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let l = lines.next().expect("the server prints its address").unwrap();
        if let Some(a) = l.strip_prefix("fathom listening on http://") {
            break a.parse::<std::net::SocketAddr>().unwrap();
        }
    };
    let wait = |what: &str, ok: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !ok() {
            assert!(Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    assert_eq!(put(addr, "/logs", r#"{"settings":{"number_of_replicas":0}}"#).status, 200);
    let quiet = debug_lines(&log);
    assert_eq!(quiet, 0, "info by default");
    let r = put(addr, "/_cluster/settings", r#"{"transient":{"logger._root":"DEBUG"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    for i in 0..5 {
        let _ = try_send(addr, "PUT", &format!("/logs/_doc/{i}?refresh=true"), br#"{"a":1}"#, Duration::from_secs(10));
    }
    wait("debug lines after logger._root: DEBUG", &|| debug_lines(&log) > 0);
    let r = put(addr, "/_cluster/settings", r#"{"transient":{"logger._root":null}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    std::thread::sleep(Duration::from_millis(500));
    let after_reset = debug_lines(&log);
    for i in 0..5 {
        let _ = try_send(addr, "PUT", &format!("/logs/_doc/x{i}?refresh=true"), br#"{"a":1}"#, Duration::from_secs(10));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(debug_lines(&log), after_reset, "no debug lines once reset");
    let r = put(addr, "/_cluster/settings", r#"{"persistent":{"logger.org.opensearch.discovery":"LOUD"}}"#);
    assert_eq!(r.status, 400);
    assert!(r.text().contains("Unknown level constant [LOUD]."), "{}", r.text());
    let _ = child.kill();
    let _ = child.wait();
}
