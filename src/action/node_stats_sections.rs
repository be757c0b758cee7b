//! The smaller `_nodes/stats` sections (the breakers' is `cluster::breakers`): scripts, discovery, the
//! indexing pressure limit and the process's threads.

use std::sync::atomic::Ordering::Relaxed;

use serde_json::{json, Value};

use super::os_probe;

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
        assert!(threads().unwrap() >= 1);
        assert!(script()["compilations"].is_u64());
    }
}
