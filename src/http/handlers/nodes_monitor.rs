//! `GET /_nodes[/{node_id}]/hot_threads` and its other spellings (`hotthreads`,
//! `/_cluster/nodes/...`): plain text, see `action::hot_threads`; and
//! `GET /_nodes[/{node_id}]/usage[/{metric}]` (see `action::nodes_usage`).

use crate::action::hot_threads::{self, HotThreadsRequest};
use crate::action::{nodes_fanout, nodes_usage};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn hot(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let r = HotThreadsRequest::new(
        req.int_param("threads")?,
        req.time_param("interval")?,
        req.int_param("snapshots")?,
        req.param("type"),
        if req.has("ignore_idle_threads") { Some(req.bool_param("ignore_idle_threads", true)?) } else { None },
    )?;
    let filters: Vec<&str> =
        req.path_param("node_id").map(|f| f.split(',').filter(|x| !x.is_empty()).collect()).unwrap_or_default();
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    Ok(RestResponse::text(hot_threads::hot_threads(&node.cluster, &filters, &r, timeout)))
}

fn usage(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let metrics = nodes_usage::parse_metrics(&req.path, req.path_param("metric"))?;
    let filters: Vec<&str> =
        req.path_param("node_id").map(|f| f.split(',').filter(|x| !x.is_empty()).collect()).unwrap_or_default();
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    Ok(RestResponse::ok(nodes_usage::usage(&node.cluster, &node.usage, &filters, &metrics, timeout)))
}

const P: &[&str] = &["threads", "interval", "snapshots", "type", "ignore_idle_threads", "timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in [
        "/_nodes/hot_threads",
        "/_nodes/{node_id}/hot_threads",
        "/_nodes/hotthreads",
        "/_nodes/{node_id}/hotthreads",
        "/_cluster/nodes/hot_threads",
        "/_cluster/nodes/{node_id}/hot_threads",
        "/_cluster/nodes/hotthreads",
        "/_cluster/nodes/{node_id}/hotthreads",
    ] {
        r.add(&[Method::Get], p, "cluster:monitor/nodes/hot_threads", Pool::Management, P, hot);
    }
    for p in ["/_nodes/usage", "/_nodes/{node_id}/usage", "/_nodes/usage/{metric}", "/_nodes/{node_id}/usage/{metric}"]
    {
        r.add(&[Method::Get], p, "cluster:monitor/nodes/usage", Pool::Management, &["timeout"], usage);
    }
}
