//! The smaller `_nodes/stats` sections: circuit breakers, scripts, discovery, ingest, the
//! indexing pressure limit and the process's threads.

use std::sync::atomic::Ordering::Relaxed;

use serde_json::{json, Map, Value};

use super::os_probe;
use super::units::human_bytes;

/// OpenSearch's breakers with their default limits (fractions of the heap) and overheads.
/// Fathom has no circuit breakers yet: nothing is estimated against them and none trips, so
/// their estimates and trip counts are true zeros; the limits are the default fractions of the
/// process's heap figure (see `os_probe`).
const BREAKERS: &[(&str, u64, f64)] =
    &[("request", 60, 1.0), ("fielddata", 40, 1.03), ("in_flight_requests", 100, 2.0), ("parent", 95, 1.0)];

/// The `breaker` section.
pub fn breakers() -> Value {
    let heap = os_probe::heap_max().unwrap_or(0);
    let mut m = Map::new();
    for (name, percent, overhead) in BREAKERS {
        let limit = heap / 100 * percent;
        m.insert(
            name.to_string(),
            json!({
                "limit_size_in_bytes": limit, "limit_size": human_bytes(limit),
                "estimated_size_in_bytes": 0, "estimated_size": human_bytes(0),
                "overhead": overhead, "tripped": 0,
            }),
        );
    }
    Value::Object(m)
}

fn script_figures() -> Value {
    // Fathom keeps no compiled-script cache: nothing is evicted and no compilation rate limit
    // applies.
    json!({
        "compilations": crate::script::COMPILATIONS.load(Relaxed),
        "cache_evictions": 0,
        "compilation_limit_triggered": 0,
    })
}

/// The `script` section.
pub fn script() -> Value {
    script_figures()
}

/// The `script_cache` section: one sum (Fathom has no per-context caches).
pub fn script_cache() -> Value {
    json!({"sum": script_figures(), "contexts": []})
}

/// The `discovery` section. Fathom's cluster states travel as entries of its Raft log, applied
/// in order as they commit: there is no queue of received states, and no OpenSearch full
/// states or diffs are published.
pub fn discovery() -> Value {
    json!({
        "cluster_state_queue": {"total": 0, "pending": 0, "committed": 0},
        "published_cluster_states": {"full_states": 0, "incompatible_diffs": 0, "compatible_diffs": 0},
    })
}

/// The `ingest` section: Fathom runs no ingest pipelines yet (issue 22), so none ran.
pub fn ingest() -> Value {
    json!({"total": {"count": 0, "time_in_millis": 0, "current": 0, "failed": 0}, "pipelines": {}})
}

/// `indexing_pressure.memory.limit`: OpenSearch's default, 10% of the heap.
pub fn pressure_limit() -> u64 {
    os_probe::heap_max().unwrap_or(0) / 10
}

/// The process's threads (`Threads:` of `/proc/self/status`).
pub fn threads() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find_map(|l| l.strip_prefix("Threads:")?.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_have_opensearch_shapes() {
        let b = breakers();
        assert_eq!(b["parent"]["tripped"], 0);
        assert!(b["parent"]["limit_size_in_bytes"].as_u64().unwrap() > 0);
        assert!(threads().unwrap() >= 1);
        assert!(script()["compilations"].is_u64());
        assert_eq!(ingest()["pipelines"], json!({}));
    }
}
