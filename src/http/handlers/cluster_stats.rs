//! `GET /_cluster/stats[/{metric}[/{index_metric}]]/nodes/{node_id}` (and without the node filter).

use crate::action::{cluster_stats, nodes_fanout};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// `{metric}` sections of `nodes` and `indices` (OpenSearch's `ClusterStatsRequest.Metric`).
const METRICS: &[&str] = &[
    "os",
    "process",
    "jvm",
    "fs",
    "plugins",
    "ingest",
    "network_types",
    "discovery_types",
    "packaging_types",
    "indices",
];
/// `{index_metric}` sections of `indices` (`IndexMetric`).
const INDEX_METRICS: &[&str] =
    &["shards", "docs", "store", "fielddata", "query_cache", "completion", "segments", "mappings", "analysis"];

/// The names of a metric list, checked against `known`.
fn names<'a>(path: &str, list: &'a str, known: &[&str], what: &str) -> OsResult<std::collections::BTreeSet<&'a str>> {
    let set: std::collections::BTreeSet<&str> = list.split(',').filter(|x| !x.is_empty()).collect();
    if set.contains("_all") {
        return Ok(std::iter::once("_all").collect());
    }
    let invalid: std::collections::BTreeSet<&str> = set.iter().copied().filter(|m| !known.contains(m)).collect();
    if !invalid.is_empty() {
        return Err(crate::error::OsError::illegal(crate::action::node_stats_request::unrecognized(
            path, &invalid, known, what,
        )));
    }
    Ok(set)
}

/// Keeps the asked sections (`nodes.count` and `indices.count` always stay).
fn filter(
    v: &mut serde_json::Value,
    metrics: &std::collections::BTreeSet<&str>,
    index: Option<&std::collections::BTreeSet<&str>>,
) {
    let all = metrics.contains("_all");
    if let Some(n) = v["nodes"].as_object_mut() {
        n.retain(|k, _| k == "count" || k == "versions" || all || metrics.contains(k.as_str()));
    }
    if !all && !metrics.contains("indices") {
        if let Some(o) = v.as_object_mut() {
            o.remove("indices");
        }
    } else if let (Some(keep), Some(i)) = (index, v["indices"].as_object_mut()) {
        if !keep.contains("_all") {
            i.retain(|k, _| k == "count" || keep.contains(k.as_str()));
        }
    }
}

fn stats(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let metrics = match req.path_param("metric") {
        Some(m) => Some(names(&req.path, m, METRICS, "metric")?),
        None => None,
    };
    let index_metrics = match req.path_param("index_metric") {
        Some(m) => Some(names(&req.path, m, INDEX_METRICS, "index metric")?),
        None => None,
    };
    let filters: Vec<&str> =
        req.path_param("node_id").map(|f| f.split(',').filter(|x| !x.is_empty()).collect()).unwrap_or_default();
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    let settings = super::nodes::settings_map(node);
    let mut v =
        cluster_stats::stats(&node.cluster, &node.pools, &filters, &settings, node.max_content_length, timeout)?;
    if let Some(m) = &metrics {
        filter(&mut v, m, index_metrics.as_ref());
    }
    Ok(RestResponse::ok(v))
}

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in [
        "/_cluster/stats",
        "/_cluster/stats/nodes/{node_id}",
        "/_cluster/stats/{metric}/nodes/{node_id}",
        "/_cluster/stats/{metric}/{index_metric}/nodes/{node_id}",
    ] {
        r.add(&[Method::Get], p, "cluster:monitor/stats", Pool::Management, &["timeout"], stats);
    }
}
