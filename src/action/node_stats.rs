//! `GET /_nodes[/{node_id}]/stats[/{metric}]`: each selected node's figures, measured by that
//! node (`cluster:monitor/nodes/stats[n]`) and gathered by the node asked.
//!
//! Sections Fathom measures: `indices` (documents, store, segments of its copies), `os`
//! (machine CPU, load, memory), `process` (descriptors, CPU time, virtual memory), `jvm` (the
//! process's heap as [`super::os_probe`] defines it, and uptime), `thread_pool` and `fs` (the
//! data path's file system). OpenSearch's other sections name subsystems Fathom does not have;
//! asking for one by name is refused rather than answered empty (`node_stats_request.rs`).

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::nodes_fanout;
use super::os_probe;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};
use crate::threadpool::Pools;

/// The node-level action answering with this node's stats.
pub const ACTION_NODE_STATS: &str = "cluster:monitor/nodes/stats[n]";

pub use super::node_stats_request::{parse as parse_request, StatsRequest};

/// The identity fields every per-node body starts with.
pub fn node_header(cs: &ClusterService) -> Map<String, Value> {
    let n = &cs.node;
    let mut roles = n.roles.clone();
    roles.sort();
    let attrs: Map<String, Value> = n.attributes.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    let mut m = Map::new();
    m.insert("name".into(), json!(n.node_name));
    m.insert("transport_address".into(), json!(cs.transport_address()));
    m.insert("host".into(), json!(n.host));
    m.insert("ip".into(), json!(cs.transport_address().rsplit_once(':').map_or(n.host.as_str(), |(h, _)| h)));
    m.insert("roles".into(), json!(roles));
    m.insert("attributes".into(), Value::Object(attrs));
    m
}

/// The `indices` section: this node's copies summed (`level=indices`: also per index,
/// `level=shards`: also per copy).
fn indices_section(cs: &ClusterService, req: &StatsRequest) -> Value {
    use super::common_stats::{self, Detail};
    use super::shard_stats::CopyStats;
    let metrics: Vec<&str> = match &req.index_metrics {
        Some(keep) => common_stats::METRICS.iter().copied().filter(|m| keep.iter().any(|k| k == m)).collect(),
        None => common_stats::METRICS.to_vec(),
    };
    let detail = Detail {
        groups: req.groups.clone(),
        file_sizes: req.file_sizes,
        human: false,
        fielddata_fields: req.fielddata_fields.clone(),
    };
    let copies = super::shard_stats::local_copies(cs);
    let mut sum = CopyStats::default();
    for c in &copies {
        common_stats::add(&mut sum, c);
    }
    let mut v = common_stats::sections(&sum, &metrics, &detail);
    match req.level.as_str() {
        "indices" => {
            let mut per: std::collections::BTreeMap<&str, CopyStats> = Default::default();
            for c in &copies {
                common_stats::add(per.entry(c.index.as_str()).or_default(), c);
            }
            let m: Map<String, Value> =
                per.iter().map(|(k, s)| (k.to_string(), common_stats::sections(s, &metrics, &detail))).collect();
            v["indices"] = Value::Object(m);
        }
        "shards" => {
            let mut per: std::collections::BTreeMap<&str, Vec<Value>> = Default::default();
            for c in &copies {
                let mut one = Map::new();
                one.insert(c.shard.to_string(), common_stats::sections(c, &metrics, &detail));
                per.entry(c.index.as_str()).or_default().push(Value::Object(one));
            }
            v["shards"] = json!(per);
        }
        _ => {}
    }
    v
}

/// This node's stats body for `metrics`.
pub fn local_stats(cs: &ClusterService, pools: &Pools, req: &StatsRequest) -> Value {
    let metrics = &req.metrics;
    let now = os_probe::now_millis();
    let mut m = Map::new();
    m.insert("timestamp".into(), json!(now));
    m.extend(node_header(cs));
    for metric in metrics {
        let v = match metric.as_str() {
            "indices" => indices_section(cs, req),
            "os" => os_section(now),
            "process" => process_section(now),
            "jvm" => jvm_section(cs, now),
            "thread_pool" => {
                let mut tp = Map::new();
                for p in pools.all() {
                    let s = p.stats();
                    tp.insert(
                        p.name().to_string(),
                        json!({"threads": s.threads, "queue": s.queue, "active": s.active,
                               "rejected": s.rejected, "largest": s.largest, "completed": s.completed,
                               "total_wait_time_in_nanos": u64::try_from(s.total_wait.as_nanos()).unwrap_or(u64::MAX)}),
                    );
                }
                Value::Object(tp)
            }
            "fs" => fs_section(cs, now),
            "transport" => cs.counters.transport().filter(|v| !v.is_null()).unwrap_or_else(|| {
                // No transport runs (a node built without one): it moved nothing.
                serde_json::to_value(crate::transport::TransportStats::default()).unwrap_or_default()
            }),
            "http" => json!({
                "current_open": cs.counters.http_open.load(std::sync::atomic::Ordering::Relaxed),
                "total_opened": cs.counters.http_total.load(std::sync::atomic::Ordering::Relaxed),
            }),
            "breaker" => cs.breakers().stats(),
            "script" => super::node_stats_sections::script(),
            "script_cache" => super::node_stats_sections::script_cache(),
            "discovery" => super::node_stats_sections::discovery(),
            "ingest" => cs.counters.ingest.section(),
            // Fathom ranks no copies by node response times: no node has an entry.
            "adaptive_selection" => json!({}),
            "indexing_pressure" => cs.counters.indexing_pressure.section(super::node_stats_sections::pressure_limit()),
            // A node whose backpressure service does not run (a unit test's) has no section.
            "search_backpressure" => match cs.counters.search_backpressure() {
                Some(v) => v,
                None => continue,
            },
            _ => continue,
        };
        // OpenSearch prints the `breaker` metric as its `breakers` section.
        let key = if metric == "breaker" { "breakers" } else { metric.as_str() };
        m.insert(key.to_string(), v);
    }
    Value::Object(m)
}

fn os_section(now: i64) -> Value {
    let mut cpu = Map::new();
    if let Some(p) = os_probe::cpu_percent() {
        cpu.insert("percent".into(), json!(p));
    }
    if let Some([a, b, c]) = os_probe::load_average() {
        cpu.insert("load_average".into(), json!({"1m": a, "5m": b, "15m": c}));
    }
    let mut v = json!({"timestamp": now, "cpu": cpu});
    if let Some(mem) = os_probe::mem() {
        v["mem"] = json!({
            "total_in_bytes": mem.total,
            "free_in_bytes": mem.free,
            "used_in_bytes": mem.used(),
            "free_percent": 100 - mem.used_percent(),
            "used_percent": mem.used_percent(),
        });
    }
    v
}

fn process_section(now: i64) -> Value {
    let p = os_probe::process();
    let mut v = json!({"timestamp": now});
    // OpenSearch reports -1 for descriptor counts it cannot read.
    v["open_file_descriptors"] = json!(p.open_fds.map_or(-1, |x| x as i64));
    v["max_file_descriptors"] = json!(p.max_fds.map_or(-1, |x| x as i64));
    if let Some(ms) = p.cpu_millis {
        let mut cpu = json!({"total_in_millis": ms});
        if let Some(pc) = os_probe::process_cpu_percent() {
            cpu["percent"] = json!(pc);
        }
        v["cpu"] = cpu;
    }
    if let Some(b) = p.virtual_bytes {
        v["mem"] = json!({"total_virtual_in_bytes": b});
    }
    v
}

fn jvm_section(cs: &ClusterService, now: i64) -> Value {
    let mut v = json!({"timestamp": now, "uptime_in_millis": cs.started.elapsed().as_millis() as u64});
    let used = os_probe::process().heap_used;
    let max = os_probe::heap_max();
    let mut mem = Map::new();
    if let Some(u) = used {
        mem.insert("heap_used_in_bytes".into(), json!(u));
        // Anonymous resident memory is committed by definition.
        mem.insert("heap_committed_in_bytes".into(), json!(u));
    }
    if let (Some(u), Some(m)) = (used, max) {
        mem.insert("heap_used_percent".into(), json!(os_probe::percent(u, m)));
    }
    if let Some(m) = max {
        mem.insert("heap_max_in_bytes".into(), json!(m));
    }
    mem.insert("pools".into(), json!({}));
    v["mem"] = Value::Object(mem);
    if let Some(t) = super::node_stats_sections::threads() {
        v["threads"] = json!({"count": t, "peak_count": t});
    }
    // A Rust process frees memory as it goes: there is no garbage collector. The two
    // collectors OpenSearch names are shown with the collections that really happened: none.
    let none = json!({"collection_count": 0, "collection_time_in_millis": 0});
    v["gc"] = json!({"collectors": {"young": none, "old": none}});
    v["buffer_pools"] = json!({});
    v
}

fn fs_section(cs: &ClusterService, now: i64) -> Value {
    let path = cs.data_path();
    let mut v = json!({"timestamp": now});
    if let Ok(u) = crate::engine::store::disk::usage(&path) {
        // Fathom has no file cache (searchable snapshots): nothing is reserved or used for one.
        let fig = json!({
            "total_in_bytes": u.total, "free_in_bytes": u.free, "available_in_bytes": u.available,
            "cache_reserved_in_bytes": 0, "cache_utilized_in_bytes": 0,
        });
        let mut data = fig.clone();
        data["path"] = json!(path.display().to_string());
        v["total"] = fig;
        v["data"] = json!([data]);
    }
    v
}

/// The whole `_nodes/stats` response for the nodes `filters` select.
pub fn stats(cs: &ClusterService, pools: &Pools, filters: &[&str], req: &StatsRequest, timeout: Duration) -> Value {
    let g = gather(cs, pools, filters, req, timeout);
    json!({"_nodes": g.header(), "cluster_name": cs.node.cluster_name, "nodes": g.nodes_object()})
}

/// Each selected node's stats body (and the nodes that failed).
pub fn gather(
    cs: &ClusterService,
    pools: &Pools,
    filters: &[&str],
    req: &StatsRequest,
    timeout: Duration,
) -> nodes_fanout::Gathered {
    let members = nodes_fanout::members(cs);
    let manager = nodes_fanout::cluster_manager(cs);
    let ids = nodes_fanout::resolve_nodes(&members, &cs.node.node_id, manager.as_deref(), filters);
    let local = || Ok(local_stats(cs, pools, req));
    let payload = json!({"metrics": req.metrics, "index_metrics": req.index_metrics, "level": req.level,
                         "groups": req.groups, "file_sizes": req.file_sizes,
                         "fielddata_fields": req.fielddata_fields});
    nodes_fanout::fan_out(cs, &ids, ACTION_NODE_STATS, &payload, timeout, &local)
}

/// This node's answer to [`ACTION_NODE_STATS`].
pub fn handle(cs: &ClusterService, pools: &Pools, payload: &[u8]) -> OsResult<Vec<u8>> {
    let req: Value =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("bad stats request: {e}")))?;
    let strings = |v: &Value| -> Option<Vec<String>> {
        v.as_array().map(|a| a.iter().filter_map(|m| m.as_str().map(str::to_string)).collect())
    };
    let mut r = StatsRequest::of(strings(&req["metrics"]).unwrap_or_default(), strings(&req["index_metrics"]));
    if let Some(l) = req["level"].as_str() {
        r.level = l.to_string();
    }
    r.groups = strings(&req["groups"]);
    r.file_sizes = req["file_sizes"].as_bool().unwrap_or(false);
    r.fielddata_fields = strings(&req["fielddata_fields"]);
    Ok(serde_json::to_vec(&local_stats(cs, pools, &r)).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_reports_its_own_figures() {
        let d = tempfile::tempdir().unwrap();
        let id = crate::cluster::NodeIdentity {
            cluster_name: "c".into(),
            node_name: "n1".into(),
            node_id: "abcdef".into(),
            roles: vec!["data".into()],
            attributes: vec![],
            host: "127.0.0.1".into(),
            http_address: "127.0.0.1:9200".into(),
        };
        let cs = crate::cluster::ClusterService::open(d.path(), id).unwrap();
        let pools = Pools::new("t", 1);
        let v = local_stats(&cs, &pools, &parse_request("/p", None, None).unwrap());
        assert!(v["fs"]["total"]["total_in_bytes"].as_u64().unwrap() > 0, "{v}");
        assert!(v["jvm"]["mem"]["heap_used_in_bytes"].as_u64().unwrap() > 0, "{v}");
        assert!(v["os"]["mem"]["total_in_bytes"].as_u64().unwrap() > 0, "{v}");
        assert!(v["process"]["open_file_descriptors"].as_i64().unwrap() > 0, "{v}");
        assert_eq!(v["indices"]["docs"]["count"], 0);
        assert!(v["thread_pool"]["write"]["threads"].as_u64().is_some());
        let r =
            stats(&cs, &pools, &["_local"], &parse_request("/p", Some("os"), None).unwrap(), Duration::from_secs(1));
        assert_eq!(r["_nodes"], json!({"total": 1, "successful": 1, "failed": 0}));
        let only = &r["nodes"][&cs.node.node_id];
        assert!(only["os"].is_object() && only.get("fs").is_none(), "{r}");
        let docs = local_stats(&cs, &pools, &parse_request("/p", Some("indices"), Some("docs")).unwrap());
        assert!(docs["indices"]["docs"].is_object() && docs["indices"].get("store").is_none(), "{docs}");
        for p in pools.all() {
            p.shutdown();
        }
    }
}
