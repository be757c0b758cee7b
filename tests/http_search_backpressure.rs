//! Search backpressure over real HTTP: the node is put in duress deterministically (CPU
//! threshold 0, one breach) with task thresholds at 0, the monitor running every 20 ms; in
//! `enforced` mode a long search is cancelled with the trackers' reasons and the stats count
//! it, in `monitor_only` mode the same search completes and only completions are counted.

mod common;

use common::http::{get, post, put, send, TestServer};
use serde_json::{json, Value};

/// A search that takes a while in a debug build: 25 clauses of 40 terms each over every doc,
/// all hits counted and sorted by a field.
fn long_search_body() -> String {
    let clauses: Vec<Value> = (0..25)
        .map(|i| {
            let terms: Vec<String> = (0..40).map(|j| format!("w{}", (i * 7 + j) % 100)).collect();
            json!({"match": {"t": terms.join(" ")}})
        })
        .collect();
    json!({"size": 5, "track_total_hits": true, "sort": [{"n": "desc"}], "query": {"bool": {"should": clauses}}})
        .to_string()
}

fn fill(s: &TestServer, docs: u64) {
    assert_eq!(put(s.addr, "/big", r#"{"settings": {"number_of_shards": 1}}"#).status, 200);
    let mut seed = 7u64;
    let mut bulk = String::new();
    for i in 0..docs {
        let words: Vec<String> = (0..8)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                format!("w{}", (seed >> 33) % 100)
            })
            .collect();
        bulk.push_str("{\"index\":{}}\n");
        bulk.push_str(&json!({"n": i, "t": words.join(" ")}).to_string());
        bulk.push('\n');
    }
    let r = send(s.addr, "POST", "/big/_bulk", Some(bulk.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 200);
    assert_eq!(post(s.addr, "/big/_refresh", "").status, 200);
}

fn stats(s: &TestServer) -> Value {
    let v = get(s.addr, "/_nodes/stats/search_backpressure").json();
    let node = v["nodes"].as_object().and_then(|n| n.values().next()).cloned().expect("one node");
    node["search_backpressure"].clone()
}

fn set(s: &TestServer, settings: Value) {
    let r = put(s.addr, "/_cluster/settings", &json!({"transient": settings}).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
}

fn count(v: &Value, ty: &str, path: &[&str]) -> u64 {
    let mut x = &v[ty];
    for p in path {
        x = &x[*p];
    }
    x.as_u64().unwrap_or_else(|| panic!("{ty}.{path:?} is a count: {v}"))
}

#[test]
fn enforced_cancels_a_search_in_duress_and_monitor_only_lets_it_run() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[("search_backpressure.interval_millis", "20")]);
    let before = stats(&s);
    assert_eq!(before["mode"], "monitor_only", "{before}");
    for ty in ["search_task", "search_shard_task"] {
        for tracker in ["cpu_usage_tracker", "heap_usage_tracker", "elapsed_time_tracker"] {
            assert_eq!(count(&before, ty, &["resource_tracker_stats", tracker, "cancellation_count"]), 0);
        }
        assert_eq!(count(&before, ty, &["cancellation_stats", "cancellation_count"]), 0);
        assert_eq!(count(&before, ty, &["cancellation_stats", "cancellation_limit_reached_count"]), 0);
    }
    fill(&s, 50_000);
    let duress = json!({
        "search_backpressure.node_duress.cpu_threshold": 0.0,
        "search_backpressure.node_duress.num_successive_breaches": 1,
        "search_backpressure.search_task.elapsed_time_millis_threshold": 0,
        "search_backpressure.search_task.cpu_time_millis_threshold": 0,
        "search_backpressure.search_task.total_heap_percent_threshold": 0.0,
        "search_backpressure.search_shard_task.elapsed_time_millis_threshold": 0,
        "search_backpressure.search_shard_task.cpu_time_millis_threshold": 0,
        "search_backpressure.search_shard_task.total_heap_percent_threshold": 0.0,
    });

    // monitor_only: the search completes; completions count, cancellations do not.
    set(&s, duress.clone());
    let r = post(s.addr, "/big/_search", &long_search_body());
    assert_eq!(r.status, 200, "{}", r.text());
    let mid = stats(&s);
    assert_eq!(mid["mode"], "monitor_only");
    assert!(count(&mid, "search_task", &["completion_count"]) >= 1, "{mid}");
    assert!(count(&mid, "search_shard_task", &["completion_count"]) >= 1, "{mid}");
    for ty in ["search_task", "search_shard_task"] {
        assert_eq!(count(&mid, ty, &["cancellation_stats", "cancellation_count"]), 0, "{mid}");
    }

    // enforced: the same search is cancelled for what it used.
    set(&s, json!({"search_backpressure.mode": "enforced"}));
    let r = post(s.addr, "/big/_search", &long_search_body());
    assert_ne!(r.status, 200, "the search is cancelled: {}", r.text());
    let text = r.text();
    assert!(text.contains("task_cancelled_exception"), "{text}");
    assert!(text.contains("elapsed time exceeded ["), "{text}");
    assert!(text.contains("cpu usage exceeded ["), "{text}");
    let after = stats(&s);
    assert_eq!(after["mode"], "enforced");
    let cancelled = count(&after, "search_task", &["cancellation_stats", "cancellation_count"])
        + count(&after, "search_shard_task", &["cancellation_stats", "cancellation_count"]);
    assert!(cancelled >= 1, "{after}");
    let by_elapsed =
        count(&after, "search_task", &["resource_tracker_stats", "elapsed_time_tracker", "cancellation_count"])
            + count(
                &after,
                "search_shard_task",
                &["resource_tracker_stats", "elapsed_time_tracker", "cancellation_count"],
            );
    assert_eq!(by_elapsed, cancelled, "every cancellation breached the elapsed threshold of 0: {after}");

    // Only the shard tasks breach: the search answers their shards' failures.
    set(
        &s,
        json!({"search_backpressure.search_task.elapsed_time_millis_threshold": 3_600_000,
               "search_backpressure.search_task.cpu_time_millis_threshold": 3_600_000}),
    );
    let r = post(s.addr, "/big/_search", &long_search_body());
    let text = r.text();
    assert_ne!(r.status, 200, "{text}");
    let e = r.json();
    assert_eq!(e["error"]["type"], "search_phase_execution_exception", "{e}");
    let reason = e["error"]["root_cause"][0]["reason"].as_str().unwrap_or_default();
    assert_eq!(e["error"]["root_cause"][0]["type"], "task_cancelled_exception", "{e}");
    assert!(reason.starts_with("cancelled task with reason: cpu usage exceeded ["), "{e}");
    let shard_cancels = count(&stats(&s), "search_shard_task", &["cancellation_stats", "cancellation_count"]);
    assert!(shard_cancels >= 1);

    // Backpressure off again: searches run.
    set(&s, json!({"search_backpressure.mode": "disabled"}));
    let r = post(s.addr, "/big/_search", &json!({"size": 0, "query": {"term": {"t": "w1"}}}).to_string());
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn unknown_or_bad_settings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    let r = put(s.addr, "/_cluster/settings", r#"{"persistent": {"search_backpressure.mode": "monitor-only"}}"#);
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["reason"], "Invalid SearchBackpressureMode: monitor-only");
    let r = put(
        s.addr,
        "/_cluster/settings",
        r#"{"persistent": {"search_backpressure.search_task.cancellation_rate": 0}}"#,
    );
    assert_eq!(r.status, 400);
    let r = put(s.addr, "/_cluster/settings", r#"{"persistent": {"search_backpressure.interval_millis": 10}}"#);
    assert_eq!(r.status, 400, "node scope only: {}", r.text());
    let r = get(s.addr, "/_cluster/settings?include_defaults=true&flat_settings=true").json();
    assert_eq!(r["defaults"]["search_backpressure.search_shard_task.cancellation_burst"], "10.0", "{r}");
    assert_eq!(r["defaults"]["search_backpressure.mode"], "monitor_only");
}
