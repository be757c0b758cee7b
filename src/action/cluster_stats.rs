//! `GET /_cluster/stats[/nodes/{node_id}]`: the cluster's figures summed over its nodes, each
//! node measuring itself (`cluster:monitor/nodes/stats[n]` and `cluster:monitor/nodes/info[n]`,
//! as OpenSearch's `cluster:monitor/stats[n]` gathers both). Caches and completion come from
//! the copies' counters (see `common_stats`); mappings and analysis from the metadata. Fathom
//! runs no JVM: `jvm.versions` is empty and the heap is the process's (see `os_probe`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::{node_stats, nodes_fanout, nodes_info};
use crate::cluster::ClusterService;
use crate::error::OsResult;
use crate::threadpool::Pools;

/// `{min, max, avg}` of a list (zeros for none), as `ClusterStatsIndices.ShardStats` prints.
fn min_max_avg(v: &[f64]) -> Value {
    if v.is_empty() {
        return json!({"min": 0, "max": 0, "avg": 0.0});
    }
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    json!({"min": min as u64, "max": max as u64, "avg": v.iter().sum::<f64>() / v.len() as f64})
}

/// The `indices` section from every node's copies (`(index, primary, docs, deleted, store,
/// segments)` per copy).
pub fn indices_section(copies: &[(String, bool, u64, u64, u64, u64)]) -> Value {
    let mut per_index: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    let (mut docs, mut deleted, mut store, mut segments) = (0u64, 0u64, 0u64, 0u64);
    for (index, primary, d, del, s, seg) in copies {
        let e = per_index.entry(index).or_default();
        e.0 += 1.0;
        if *primary {
            e.1 += 1.0;
            docs += d;
            deleted += del;
        }
        store += s;
        segments += seg;
    }
    let total = copies.len();
    let primaries = copies.iter().filter(|c| c.1).count();
    let shards = if total == 0 {
        json!({})
    } else {
        let t: Vec<f64> = per_index.values().map(|v| v.0).collect();
        let p: Vec<f64> = per_index.values().map(|v| v.1).collect();
        let r: Vec<f64> = per_index.values().map(|v| if v.1 > 0.0 { (v.0 - v.1) / v.1 } else { 0.0 }).collect();
        json!({
            "total": total,
            "primaries": primaries,
            "replication": if primaries == 0 { 0.0 } else { (total - primaries) as f64 / primaries as f64 },
            "index": {"shards": min_max_avg(&t), "primaries": min_max_avg(&p), "replication": min_max_avg(&r)},
        })
    };
    json!({
        "count": per_index.len(),
        "shards": shards,
        "docs": {"count": docs, "deleted": deleted},
        "store": {"size_in_bytes": store},
        "segments": {"count": segments},
    })
}

/// The `nodes.count` section from the members' roles.
pub fn count_section(roles: &[Vec<String>]) -> Value {
    let mut m = Map::new();
    m.insert("total".into(), json!(roles.len()));
    let has = |r: &Vec<String>, x: &str| r.iter().any(|y| y == x);
    m.insert("coordinating_only".into(), json!(roles.iter().filter(|r| r.is_empty()).count()));
    for role in ["cluster_manager", "data", "ingest", "remote_cluster_client", "search", "warm"] {
        m.insert(role.into(), json!(roles.iter().filter(|r| has(r, role)).count()));
    }
    m.insert("master".into(), m["cluster_manager"].clone());
    Value::Object(m)
}

fn sum(answers: &[&Value], path: &[&str]) -> u64 {
    answers.iter().filter_map(|a| path.iter().try_fold(*a, |v, k| v.get(*k))?.as_u64()).sum()
}

/// The whole response for the nodes `filters` select (all without).
pub fn stats(
    cs: &ClusterService,
    pools: &Pools,
    filters: &[&str],
    settings: &Map<String, Value>,
    max_content_length: usize,
    timeout: Duration,
) -> OsResult<Value> {
    let req = node_stats::parse_request("/_cluster/stats", Some("os,process,jvm,fs"), None)?;
    let stats = node_stats::gather(cs, pools, filters, &req, timeout);
    let filter = (!filters.is_empty()).then(|| filters.join(","));
    let info_metrics: Vec<String> = ["settings", "os", "plugins"].iter().map(|s| s.to_string()).collect();
    let infos = nodes_info::gather(cs, pools, filter.as_deref(), &info_metrics, timeout, settings, max_content_length);
    // Copies of every answering node.
    let members = nodes_fanout::members(cs);
    let holders: Vec<String> = stats.answers.iter().map(|(m, _)| m.node_id.clone()).collect();
    let copies = super::shard_stats::gather(cs, &holders, timeout);
    let rows: Vec<(String, bool, u64, u64, u64, u64)> = copies
        .by_copy
        .values()
        .map(|c| (c.index.clone(), c.primary, c.docs, c.deleted, c.store_bytes, c.segments))
        .collect();
    let mut all = super::shard_stats::CopyStats::default();
    for c in copies.by_copy.values() {
        super::common_stats::add(&mut all, c);
    }
    let mut indices = indices_section(&rows);
    let detail = super::common_stats::Detail::default();
    let common =
        super::common_stats::sections(&all, &["store", "fielddata", "query_cache", "completion", "segments"], &detail);
    if let (Some(o), Value::Object(c)) = (indices.as_object_mut(), common) {
        o.extend(c);
    }
    indices["mappings"] = super::cluster_stats_mappings::mappings(&cs.metadata());
    indices["analysis"] = super::cluster_stats_mappings::analysis(&cs.metadata());
    let answers: Vec<&Value> = stats.answers.iter().map(|(_, v)| v).collect();
    let infos_v: Vec<&Value> = infos.answers.iter().map(|(_, v)| v).collect();
    let roles: Vec<Vec<String>> = stats
        .answers
        .iter()
        .map(|(m, _)| members.iter().find(|x| x.node_id == m.node_id).map_or(m.roles.clone(), |x| x.roles.clone()))
        .collect();
    let mut names: BTreeMap<String, u64> = BTreeMap::new();
    let mut discovery: BTreeMap<String, u64> = BTreeMap::new();
    let mut plugins: Vec<Value> = Vec::new();
    for i in &infos_v {
        if let Some(n) = i["os"]["name"].as_str() {
            *names.entry(n.to_string()).or_default() += 1;
        }
        let d = i["settings"]["discovery"]["type"].as_str().unwrap_or("zen");
        *discovery.entry(d.to_string()).or_default() += 1;
        for p in i["plugins"].as_array().into_iter().flatten() {
            if !plugins.contains(p) {
                plugins.push(p.clone());
            }
        }
    }
    let fds: Vec<f64> =
        answers.iter().filter_map(|a| a["process"]["open_file_descriptors"].as_i64()).map(|x| x as f64).collect();
    let fd = min_max_avg(&fds);
    let (total_mem, free_mem) =
        (sum(&answers, &["os", "mem", "total_in_bytes"]), sum(&answers, &["os", "mem", "free_in_bytes"]));
    let used_mem = total_mem.saturating_sub(free_mem);
    let used_pct = super::os_probe::percent(used_mem, total_mem);
    let processors: u64 = infos_v.iter().filter_map(|i| i["os"]["available_processors"].as_u64()).sum();
    let nodes = json!({
        "count": count_section(&roles),
        "versions": ["3.3.0"],
        "os": {
            "available_processors": processors,
            "allocated_processors": processors,
            "names": names.iter().map(|(n, c)| json!({"name": n, "count": c})).collect::<Vec<_>>(),
            "mem": {"total_in_bytes": total_mem, "free_in_bytes": free_mem, "used_in_bytes": used_mem,
                    "free_percent": 100 - used_pct, "used_percent": used_pct},
        },
        "process": {
            "cpu": {"percent": sum(&answers, &["process", "cpu", "percent"])},
            "open_file_descriptors": {"min": fd["min"], "max": fd["max"], "avg": fd["avg"].as_f64().unwrap_or(0.0).round() as u64},
        },
        "jvm": {
            "max_uptime_in_millis": answers.iter().filter_map(|a| a["jvm"]["uptime_in_millis"].as_u64()).max().unwrap_or(0),
            "mem": {"heap_used_in_bytes": sum(&answers, &["jvm", "mem", "heap_used_in_bytes"]),
                    "heap_max_in_bytes": sum(&answers, &["jvm", "mem", "heap_max_in_bytes"])},
            "threads": sum(&answers, &["jvm", "threads", "count"]),
            // Fathom is a native process: no JVM runs, so no JVM version is listed.
            "versions": [],
        },
        "network_types": {
            "transport_types": {"fathom-transport": infos_v.len()},
            "http_types": {"fathom-http": infos_v.len()},
        },
        // Fathom keeps no per-processor counts (only per pipeline): no processor_stats.
        "ingest": {"number_of_pipelines": cs.metadata().ingest_pipelines.len(), "processor_stats": {}},
        "fs": {
            "total_in_bytes": sum(&answers, &["fs", "total", "total_in_bytes"]),
            "free_in_bytes": sum(&answers, &["fs", "total", "free_in_bytes"]),
            "available_in_bytes": sum(&answers, &["fs", "total", "available_in_bytes"]),
        },
        "plugins": plugins,
        "discovery_types": discovery,
        "packaging_types": [{"type": "tar", "count": infos_v.len()}],
    });
    let (_, health) = super::cluster_info::health(cs, &super::cluster_info::HealthRequest::default())?;
    Ok(json!({
        "_nodes": stats.header(),
        "cluster_name": cs.node.cluster_name,
        "cluster_uuid": cs.metadata().cluster_uuid,
        "timestamp": super::os_probe::now_millis(),
        "status": health["status"],
        "indices": indices,
        "nodes": nodes,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_sum_copies_and_describe_the_spread() {
        let c = |i: &str, p, d| (i.to_string(), p, d, 1, 10, 2);
        let v = indices_section(&[c("a", true, 5), c("a", false, 5), c("a", true, 3), c("b", true, 1)]);
        assert_eq!(v["count"], 2);
        assert_eq!(v["docs"]["count"], 9);
        assert_eq!(v["docs"]["deleted"], 3);
        assert_eq!(v["store"]["size_in_bytes"], 40);
        assert_eq!(v["shards"]["total"], 4);
        assert_eq!(v["shards"]["primaries"], 3);
        assert_eq!(v["shards"]["index"]["shards"], json!({"min": 1, "max": 3, "avg": 2.0}));
        assert_eq!(v["shards"]["index"]["replication"]["max"], 0);
        assert_eq!(indices_section(&[])["shards"], json!({}));
    }

    #[test]
    fn nodes_count_by_role() {
        let r = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let v = count_section(&[r(&["cluster_manager", "data"]), r(&["data", "ingest"]), r(&[])]);
        assert_eq!(v["total"], 3);
        assert_eq!(v["cluster_manager"], 1);
        assert_eq!(v["master"], 1);
        assert_eq!(v["data"], 2);
        assert_eq!(v["coordinating_only"], 1);
        assert_eq!(v["warm"], 0);
    }
}
