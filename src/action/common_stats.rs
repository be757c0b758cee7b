//! OpenSearch's `CommonStats` of a shard copy or a sum of copies, as JSON: the sections of
//! `_stats`, of `_nodes/stats` `indices` and of `_cluster/stats`, with OpenSearch 3.3's field
//! names and units. Each figure comes from [`CopyStats`] (what the node holding the copy
//! measured); see `shard::stats` for the counters and what is a true zero.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::node_stats_request::unrecognized;
use super::shard_stats::CopyStats;
use crate::error::{OsError, OsResult};

/// The metrics (`CommonStatsFlags.Flag`), in OpenSearch's order.
pub const METRICS: &[&str] = &[
    "docs",
    "store",
    "indexing",
    "get",
    "search",
    "merge",
    "refresh",
    "flush",
    "warmer",
    "query_cache",
    "fielddata",
    "completion",
    "segments",
    "translog",
    "request_cache",
    "recovery",
];

/// What the sections show beyond the metrics.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    /// Search stats groups to show (`groups`; `_all` shows every group).
    pub groups: Option<Vec<String>>,
    /// `include_segment_file_sizes`.
    pub file_sizes: bool,
    /// `human`: readable twins of times and sizes.
    pub human: bool,
    /// `fielddata_fields` (or `fields`): the fields whose fielddata is listed (patterns).
    pub fielddata_fields: Option<Vec<String>>,
}

/// Parses a `{metric}` list (`_all` or absent: every metric) with OpenSearch's messages.
pub fn parse_metrics(path: &str, metric: Option<&str>) -> OsResult<Vec<&'static str>> {
    let asked: BTreeSet<&str> = metric.unwrap_or("_all").split(',').filter(|x| !x.is_empty()).collect();
    if asked.is_empty() || (asked.len() == 1 && asked.contains("_all")) {
        return Ok(METRICS.to_vec());
    }
    if asked.contains("_all") {
        return Err(OsError::illegal(format!(
            "request [{path}] contains _all and individual metrics [{}]",
            metric.unwrap_or_default()
        )));
    }
    let invalid: BTreeSet<&str> = asked.iter().copied().filter(|m| !METRICS.contains(m)).collect();
    if !invalid.is_empty() {
        return Err(OsError::illegal(unrecognized(path, &invalid, METRICS, "metric")));
    }
    Ok(METRICS.iter().copied().filter(|m| asked.contains(m)).collect())
}

/// Adds `o`'s figures to `sum` (the translog's earliest age is the oldest non-zero one, as
/// OpenSearch's `TranslogStats.add`).
pub fn add(sum: &mut CopyStats, o: &CopyStats) {
    sum.docs += o.docs;
    sum.deleted += o.deleted;
    sum.store_bytes += o.store_bytes;
    sum.segments += o.segments;
    sum.counters.add(&o.counters);
    for (f, b) in &o.fielddata_fields {
        *sum.fielddata_fields.entry(f.clone()).or_default() += b;
    }
    let (t, u) = (&mut sum.translog, &o.translog);
    t.operations += u.operations;
    t.size_in_bytes += u.size_in_bytes;
    t.uncommitted_operations += u.uncommitted_operations;
    t.uncommitted_size_in_bytes += u.uncommitted_size_in_bytes;
    t.earliest_last_modified_age = match (t.earliest_last_modified_age, u.earliest_last_modified_age) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a.min(b),
    };
    for (k, v) in &o.file_sizes {
        *sum.file_sizes.entry(k.clone()).or_default() += v;
    }
    sum.refresh_listeners += o.refresh_listeners;
}

fn ms(ns: u64) -> u64 {
    ns / 1_000_000
}

/// The bytes of the segment files of the extensions `exts`.
fn kind(c: &CopyStats, exts: &[&str]) -> u64 {
    exts.iter().filter_map(|e| c.file_sizes.get(*e)).sum()
}

/// What each segment file extension holds (`include_segment_file_sizes`' descriptions).
fn describe(ext: &str) -> &'static str {
    match ext {
        "si" => "Segment Info",
        "fnm" => "Fields",
        "tim" => "Term Dictionary",
        "tip" => "Term Index",
        "doc" => "Frequencies",
        "pos" => "Positions",
        "nvd" | "nvm" => "Norms",
        "dvd" | "dvm" => "DocValues",
        "pts" => "Points",
        "fdt" => "Field Data",
        "fdx" => "Field Index",
        "liv" => "Live Documents",
        _ => "Others",
    }
}

/// One section (`metric`) of `c`.
pub fn section(c: &CopyStats, metric: &str, d: &Detail) -> Value {
    let o = &c.counters.ops;
    let s = &c.counters.search;
    match metric {
        "docs" => json!({"count": c.docs, "deleted": c.deleted}),
        // Nothing is reserved ahead of a recovery or relocation: Fathom copies files as it goes.
        "store" => json!({"size_in_bytes": c.store_bytes, "reserved_in_bytes": 0}),
        "indexing" => json!({
            "index_total": o.index_total, "index_time_in_millis": ms(o.index_time_ns),
            "index_current": o.index_current, "index_failed": o.index_failed,
            "delete_total": o.delete_total, "delete_time_in_millis": ms(o.delete_time_ns),
            "delete_current": o.delete_current, "noop_update_total": o.noop_update_total,
            "is_throttled": false, "throttle_time_in_millis": 0, "doc_status": {},
        }),
        "get" => json!({
            "total": o.get_total, "time_in_millis": ms(o.get_time_ns),
            "exists_total": o.get_exists_total, "exists_time_in_millis": ms(o.get_exists_time_ns),
            "missing_total": o.get_missing_total, "missing_time_in_millis": ms(o.get_missing_time_ns),
            "current": o.get_current,
        }),
        "search" => {
            let mut m = Map::new();
            m.insert("open_contexts".into(), json!(o.open_contexts));
            m.extend(search_fields(s));
            if let Some(want) = &d.groups {
                let all = want.iter().any(|g| g == "_all");
                let groups: Map<String, Value> = c
                    .counters
                    .groups
                    .iter()
                    .filter(|(g, _)| all || want.iter().any(|w| crate::cluster::resolve::glob(w, g)))
                    .map(|(g, s)| (g.clone(), Value::Object(search_fields(s))))
                    .collect();
                if !groups.is_empty() {
                    m.insert("groups".into(), Value::Object(groups));
                }
            }
            Value::Object(m)
        }
        "merge" => {
            let m = &c.counters.merges;
            json!({
                "current": m.current, "current_docs": m.current_docs, "current_size_in_bytes": m.current_size,
                "total": m.total, "total_time_in_millis": ms(m.time_ns), "total_docs": m.docs,
                "total_size_in_bytes": m.size,
                // Fathom neither stops nor throttles merges.
                "total_stopped_time_in_millis": 0, "total_throttled_time_in_millis": 0,
                "unreferenced_file_cleanups_performed": 0,
            })
        }
        "refresh" => json!({
            "total": o.refresh_total, "total_time_in_millis": ms(o.refresh_time_ns),
            "external_total": o.refresh_external_total,
            "external_total_time_in_millis": ms(o.refresh_external_time_ns),
            "listeners": c.refresh_listeners,
        }),
        "flush" => {
            json!({"total": o.flush_total, "periodic": o.flush_periodic, "total_time_in_millis": ms(o.flush_time_ns)})
        }
        "warmer" => {
            json!({"current": o.warmer_current, "total": o.warmer_total, "total_time_in_millis": ms(o.warmer_time_ns)})
        }
        "query_cache" => json!({
            "memory_size_in_bytes": o.query_cache_memory,
            "total_count": o.query_cache_hit + o.query_cache_miss,
            "hit_count": o.query_cache_hit, "miss_count": o.query_cache_miss,
            "cache_size": o.query_cache_entries, "cache_count": o.query_cache_entries + o.query_cache_evictions,
            "evictions": o.query_cache_evictions,
        }),
        "fielddata" => {
            let mut v = json!({"memory_size_in_bytes": o.fielddata_memory, "evictions": o.fielddata_evictions});
            if let Some(patterns) = &d.fielddata_fields {
                let fields: serde_json::Map<String, Value> = c
                    .fielddata_fields
                    .iter()
                    .filter(|(f, _)| patterns.iter().any(|p| crate::cluster::resolve::glob(p, f)))
                    .map(|(f, b)| (f.clone(), json!({"memory_size_in_bytes": b})))
                    .collect();
                if !fields.is_empty() {
                    v["fields"] = Value::Object(fields);
                }
            }
            v
        }
        // No completion (suggester) fields exist in Fathom: nothing is loaded for them.
        "completion" => json!({"size_in_bytes": 0}),
        "segments" => segments_section(c, d),
        "translog" => json!({
            "operations": c.translog.operations, "size_in_bytes": c.translog.size_in_bytes,
            "uncommitted_operations": c.translog.uncommitted_operations,
            "uncommitted_size_in_bytes": c.translog.uncommitted_size_in_bytes,
            "earliest_last_modified_age": c.translog.earliest_last_modified_age,
        }),
        "request_cache" => json!({
            "memory_size_in_bytes": o.request_cache_memory, "evictions": o.request_cache_evictions,
            "hit_count": o.request_cache_hit, "miss_count": o.request_cache_miss,
        }),
        "recovery" => json!({
            "current_as_source": o.recovery_as_source, "current_as_target": o.recovery_as_target,
            "throttle_time_in_millis": ms(o.recovery_throttle_ns),
        }),
        _ => Value::Null,
    }
}

fn search_fields(s: &crate::shard::stats::SearchSnapshot) -> Map<String, Value> {
    let v = json!({
        "query_total": s.query_total, "query_time_in_millis": ms(s.query_time_ns), "query_current": s.query_current,
        // Fathom searches a shard's segments on one thread: no concurrent segment search.
        "concurrent_query_total": 0, "concurrent_query_time_in_millis": 0, "concurrent_query_current": 0,
        "concurrent_avg_slice_count": 0.0,
        "fetch_total": s.fetch_total, "fetch_time_in_millis": ms(s.fetch_time_ns), "fetch_current": s.fetch_current,
        "scroll_total": s.scroll_total, "scroll_time_in_millis": ms(s.scroll_time_ns), "scroll_current": s.scroll_current,
        "point_in_time_total": s.point_in_time_total, "point_in_time_time_in_millis": ms(s.point_in_time_time_ns),
        "point_in_time_current": s.point_in_time_current,
        "suggest_total": s.suggest_total, "suggest_time_in_millis": ms(s.suggest_time_ns),
        "suggest_current": s.suggest_current,
    });
    v.as_object().cloned().unwrap_or_default()
}

/// Segment "memory": Fathom's segment readers map their files, so the figures are the bytes of
/// the mapped files of each kind (terms dictionary and index, stored fields, norms, points, doc
/// values); the writer's buffers, a version map and cached bit sets are not measured apart.
fn segments_section(c: &CopyStats, d: &Detail) -> Value {
    let terms = kind(c, &["tim", "tip", "doc", "pos"]);
    let stored = kind(c, &["fdt", "fdx"]);
    let norms = kind(c, &["nvd", "nvm"]);
    let points = kind(c, &["pts"]);
    let doc_values = kind(c, &["dvd", "dvm"]);
    let mut v = json!({
        "count": c.segments,
        "memory_in_bytes": terms + stored + norms + points + doc_values,
        "terms_memory_in_bytes": terms, "stored_fields_memory_in_bytes": stored,
        "term_vectors_memory_in_bytes": 0, "norms_memory_in_bytes": norms,
        "points_memory_in_bytes": points, "doc_values_memory_in_bytes": doc_values,
        "index_writer_memory_in_bytes": 0, "version_map_memory_in_bytes": 0,
        "fixed_bit_set_memory_in_bytes": 0, "max_unsafe_auto_id_timestamp": -1,
        "file_sizes": {},
    });
    if d.file_sizes {
        let sizes: BTreeMap<&String, Value> =
            c.file_sizes.iter().map(|(e, n)| (e, json!({"size_in_bytes": n, "description": describe(e)}))).collect();
        v["file_sizes"] = json!(sizes);
    }
    v
}

/// The sections `metrics` of `c` (section names as OpenSearch prints them: `merge` is `merges`).
pub fn sections(c: &CopyStats, metrics: &[&str], d: &Detail) -> Value {
    let mut m = Map::new();
    for metric in metrics {
        let name = if *metric == "merge" { "merges" } else { metric };
        m.insert(name.to_string(), section(c, metric, d));
    }
    let mut v = Value::Object(m);
    if d.human {
        humanize(&mut v);
    }
    v
}

/// The figure a `_cat` statistics column (`indexing.index_total`, `get.time`, ...) shows,
/// read from `sections` (all of [`METRICS`] rendered by [`sections`]).
pub fn cat_value(sections: &Value, column: &str) -> u64 {
    let Some((section, field)) = column.split_once('.') else { return 0 };
    let (section, field) = match (section, field) {
        ("memory", "total") => ("segments", "memory".to_string()),
        ("suggest", f) => ("search", format!("suggest_{f}")),
        ("segments", "fixed_bitset_memory") => ("segments", "fixed_bit_set_memory".to_string()),
        ("refresh", "time") => ("refresh", "total_time".to_string()),
        ("refresh", "external_time") => ("refresh", "external_total_time".to_string()),
        (s, f) => (s, f.to_string()),
    };
    let sec = &sections[section];
    [field.clone(), format!("{field}_in_millis"), format!("{field}_in_bytes")]
        .iter()
        .find_map(|k| sec[k.as_str()].as_u64())
        .unwrap_or(0)
}

/// Adds the readable twin of every `x_in_millis` (`x`) and `x_in_bytes` (`x`) field.
pub fn humanize(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let mut twins = Vec::new();
            for (k, x) in m.iter_mut() {
                if let (Some(base), Some(n)) = (k.strip_suffix("_in_millis"), x.as_u64()) {
                    twins.push((base.to_string(), crate::units::human_millis(n)));
                } else if let (Some(base), Some(n)) = (k.strip_suffix("_in_bytes"), x.as_u64()) {
                    twins.push((base.to_string(), crate::units::human_bytes(n)));
                } else {
                    humanize(x);
                }
            }
            for (k, t) in twins {
                m.insert(k, json!(t));
            }
        }
        Value::Array(a) => a.iter_mut().for_each(humanize),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_parse_with_opensearch_messages() {
        assert_eq!(parse_metrics("/_stats", None).unwrap().len(), 16);
        assert_eq!(parse_metrics("/_stats", Some("store,docs")).unwrap(), ["docs", "store"]);
        assert_eq!(
            parse_metrics("/_stats/fieldata", Some("fieldata")).unwrap_err().reason,
            "request [/_stats/fieldata] contains unrecognized metric: [fieldata] -> did you mean [fielddata]?"
        );
        assert!(parse_metrics("/p", Some("_all,docs")).is_err());
    }

    #[test]
    fn sums_and_sections() {
        let mut a = CopyStats { docs: 2, segments: 1, ..Default::default() };
        a.counters.ops.index_total = 2;
        a.counters.ops.index_time_ns = 3_000_000;
        a.translog.earliest_last_modified_age = 50;
        a.file_sizes.insert("tim".into(), 10);
        let mut b = a.clone();
        b.translog.earliest_last_modified_age = 20;
        let mut sum = CopyStats::default();
        add(&mut sum, &a);
        add(&mut sum, &b);
        let d = Detail { file_sizes: true, human: true, ..Default::default() };
        let v = sections(&sum, &["docs", "indexing", "merge", "segments", "translog"], &d);
        assert_eq!(v["docs"]["count"], 4);
        assert_eq!(v["indexing"]["index_total"], 4);
        assert_eq!(v["indexing"]["index_time_in_millis"], 6);
        assert_eq!(v["indexing"]["index_time"], "6ms");
        assert!(v["merges"]["total"].is_u64());
        assert_eq!(v["segments"]["terms_memory_in_bytes"], 20);
        assert_eq!(v["segments"]["file_sizes"]["tim"]["size_in_bytes"], 20);
        assert_eq!(v["translog"]["earliest_last_modified_age"], 20);
    }
}
