//! `_nodes/hot_threads` over real HTTP: a search pool thread kept busy by a search loop is
//! named with a nonzero share of the interval and symbolized stack frames; the parameters are
//! validated.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::http::{get, post, put, TestServer};

/// The percentage of a `NN.N% (... out of ...) cpu usage by thread '...'` line.
fn percent(line: &str) -> f64 {
    line.trim().split('%').next().and_then(|p| p.trim().parse().ok()).unwrap_or(0.0)
}

#[test]
fn hot_threads_catches_a_busy_search_thread() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[("node.name", "hot-node")]);
    let r = put(s.addr, "/books", r#"{"settings":{"number_of_shards":2,"number_of_replicas":0}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    let mut bulk = String::new();
    for i in 0..3000 {
        bulk.push_str(&format!(
            "{{\"index\":{{\"_id\":\"{i}\"}}}}\n{{\"title\":\"book number {i} about topic {} and more words\",\"n\":{i},\"tag\":\"t{}\"}}\n",
            i % 37,
            i % 101
        ));
    }
    let r = post(s.addr, "/books/_bulk?refresh=true", &bulk);
    assert_eq!(r.status, 200);
    let stop = Arc::new(AtomicBool::new(false));
    let addr = s.addr;
    let loops: Vec<_> = (0..2)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let q = r#"{"query":{"match":{"title":"book topic words more"}},"aggs":{"t":{"terms":{"field":"tag.keyword","size":50}},"h":{"histogram":{"field":"n","interval":7}}}}"#;
                while !stop.load(Ordering::Relaxed) {
                    let r = post(addr, "/books/_search", q);
                    assert_eq!(r.status, 200, "{}", r.text());
                }
            })
        })
        .collect();
    let mut found = None;
    let mut last = String::new();
    for _ in 0..5 {
        let r = get(s.addr, "/_nodes/hot_threads?threads=20&interval=300ms&snapshots=5");
        assert_eq!(r.status, 200);
        assert!(
            r.header("content-type").is_some_and(|c| c.starts_with("text/plain")),
            "{:?}",
            r.header("content-type")
        );
        last = r.text();
        let lines: Vec<&str> = last.lines().collect();
        if let Some(i) = lines.iter().position(|l| l.contains("cpu usage by thread 'fathom[hot-node][search][T#")) {
            found = Some((
                lines[i].to_string(),
                lines[i + 1..]
                    .iter()
                    .take_while(|l| !l.contains("usage by thread"))
                    .map(|l| l.to_string())
                    .collect::<Vec<_>>(),
            ));
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for l in loops {
        l.join().unwrap();
    }
    assert!(last.starts_with("::: {hot-node}{"), "{last}");
    assert!(last.contains("   Hot threads at "), "{last}");
    assert!(last.contains(", interval=300ms, busiestThreads=20, ignoreIdleThreads=true:\n"), "{last}");
    let (line, stack) = found.unwrap_or_else(|| panic!("no search thread in {last}"));
    assert!(percent(&line) > 0.0, "{line}");
    assert!(line.contains(" out of 300ms) cpu usage"), "{line}");
    assert!(stack.iter().any(|l| l.contains("snapshot")), "{stack:?}");
    // Symbolized frames of Fathom's own code, the pool worker at the bottom.
    assert!(stack.iter().any(|l| l.trim_start().starts_with("fathom::")), "{stack:?}");
    assert!(stack.iter().any(|l| l.contains("fathom::threadpool::worker")), "{stack:?}");
    s.stop();
}

#[test]
fn hot_threads_parameters_are_validated() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = get(s.addr, "/_nodes/hot_threads?type=mem");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["reason"], "type not supported [mem]");
    assert_eq!(get(s.addr, "/_nodes/hot_threads?snapshots=0").status, 400);
    assert_eq!(get(s.addr, "/_nodes/hot_threads?snapshots=500000000").status, 400);
    assert_eq!(get(s.addr, "/_nodes/hot_threads?threads=abc").status, 400);
    assert_eq!(get(s.addr, "/_nodes/hot_threads?bogus=1").status, 400);
    let r =
        get(s.addr, "/_nodes/_all/hot_threads?type=wait&interval=50ms&snapshots=2&ignore_idle_threads=false&threads=2");
    assert_eq!(r.status, 200);
    let t = r.text();
    assert!(t.contains("interval=50ms, busiestThreads=2, ignoreIdleThreads=false:"), "{t}");
    assert!(t.contains("wait usage by thread '"), "{t}");
    let r = get(s.addr, "/_cluster/nodes/nobody/hot_threads?interval=10ms");
    assert_eq!((r.status, r.text()), (200, String::new()));
    s.stop();
}
