//! `GET /_cluster/stats[/nodes/{node_id}]`.

use crate::action::{cluster_stats, nodes_fanout};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn stats(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let filters: Vec<&str> =
        req.path_param("node_id").map(|f| f.split(',').filter(|x| !x.is_empty()).collect()).unwrap_or_default();
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    let settings = super::nodes::settings_map(node);
    Ok(RestResponse::ok(cluster_stats::stats(
        &node.cluster,
        &node.pools,
        &filters,
        &settings,
        node.max_content_length,
        timeout,
    )?))
}

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_cluster/stats", "/_cluster/stats/nodes/{node_id}"] {
        r.add(&[Method::Get], p, "cluster:monitor/stats", Pool::Management, &["timeout"], stats);
    }
}
