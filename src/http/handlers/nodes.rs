//! `GET /_nodes[/{node_id}][/{metric}]`.

use serde_json::{Map, Value};

use crate::action::nodes_info;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn info(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    // `/_nodes/{x}`: a metric list or a node filter, as OpenSearch decides.
    let (filter, metrics) = match (req.path_param("node_id"), req.path_param("metric")) {
        (Some(n), Some(m)) => (Some(n.to_string()), Some(m.to_string())),
        (Some(x), None) if nodes_info::is_metric_list(x) => (None, Some(x.to_string())),
        (Some(x), None) => (Some(x.to_string()), None),
        _ => (None, None),
    };
    let settings: Map<String, Value> =
        node.settings.all().iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    Ok(RestResponse::ok(nodes_info::info(
        &node.cluster,
        &node.pools,
        filter.as_deref(),
        metrics.as_deref(),
        &settings,
        node.max_content_length,
    )?))
}

const PARAMS: &[&str] = &["flat_settings", "timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_nodes", "/_nodes/{node_id}", "/_nodes/{node_id}/{metric}"] {
        r.add(&[Method::Get], p, "cluster:monitor/nodes/info", Pool::Management, PARAMS, info);
    }
}
