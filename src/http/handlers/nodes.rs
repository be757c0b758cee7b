//! `GET /_nodes[/{node_id}][/{metric}]` and `GET /_nodes[/{node_id}]/stats[/{metric}]`: every
//! selected node answers for itself (see `action::nodes_fanout`).

use serde_json::{Map, Value};

use crate::action::{node_stats, nodes_fanout, nodes_info};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// The node's settings as `_nodes` shows them.
pub fn settings_map(node: &Node) -> Map<String, Value> {
    node.settings.all().iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect()
}

fn info(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    // `/_nodes/{x}`: a metric list or a node filter, as OpenSearch decides.
    let (filter, metrics) = match (req.path_param("node_id"), req.path_param("metric")) {
        (Some(n), Some(m)) => (Some(n.to_string()), Some(m.to_string())),
        (Some(x), None) if nodes_info::is_metric_list(x) => (None, Some(x.to_string())),
        (Some(x), None) => (Some(x.to_string()), None),
        _ => (None, None),
    };
    let r = nodes_info::InfoRequest {
        node_filter: filter.as_deref(),
        metrics: metrics.as_deref(),
        timeout: Some(nodes_fanout::parse_timeout(req.param("timeout"))?),
        human: req.bool_param("human", false)?,
    };
    Ok(RestResponse::ok(nodes_info::info(
        &node.cluster,
        &node.pools,
        &r,
        &settings_map(node),
        node.max_content_length,
    )?))
}

fn stats(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let mut r = node_stats::parse_request(&req.path, req.path_param("metric"), req.path_param("index_metric"))?;
    match req.param("level") {
        None => {}
        Some(l @ ("node" | "indices" | "shards")) => r.level = l.to_string(),
        Some(other) => {
            return Err(crate::error::OsError::illegal(format!(
                "level parameter must be one of [indices] or [node] or [shards] but was [{other}]"
            )))
        }
    }
    r.groups = req.param("groups").map(|g| g.split(',').filter(|x| !x.is_empty()).map(str::to_string).collect());
    r.file_sizes = req.bool_param("include_segment_file_sizes", false)?;
    let list = |k: &str| req.param(k).filter(|v| !v.is_empty()).map(|v| v.split(',').map(str::to_string).collect());
    r.fielddata_fields = list("fielddata_fields").or_else(|| list("fields"));
    let filters: Vec<&str> =
        req.path_param("node_id").map(|f| f.split(',').filter(|x| !x.is_empty()).collect()).unwrap_or_default();
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    Ok(RestResponse::ok(node_stats::stats(&node.cluster, &node.pools, &filters, &r, timeout)))
}

const PARAMS: &[&str] = &["flat_settings", "timeout"];
const STATS_PARAMS: &[&str] =
    &["timeout", "level", "groups", "include_segment_file_sizes", "fields", "completion_fields", "fielddata_fields"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in [
        "/_nodes/stats",
        "/_nodes/{node_id}/stats",
        "/_nodes/stats/{metric}",
        "/_nodes/{node_id}/stats/{metric}",
        "/_nodes/stats/{metric}/{index_metric}",
        "/_nodes/{node_id}/stats/{metric}/{index_metric}",
    ] {
        r.add(&[Method::Get], p, "cluster:monitor/nodes/stats", Pool::Management, STATS_PARAMS, stats);
    }
    for p in ["/_nodes", "/_nodes/{node_id}", "/_nodes/{node_id}/{metric}"] {
        r.add(&[Method::Get], p, "cluster:monitor/nodes/info", Pool::Management, PARAMS, info);
    }
}
