//! `_cluster/health` and `_cluster/state`.

use std::time::Duration;

use super::indices_options;
use crate::action::cluster_info::{self, HealthRequest, Level};
use crate::cluster::health::Status;
use crate::error::{OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn health(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let mut h = HealthRequest { indices: req.path_param("index").map(str::to_string), ..Default::default() };
    h.expand = indices_options(req, h.expand)?;
    h.level = match req.param("level") {
        None | Some("cluster") => Level::Cluster,
        Some("indices") => Level::Indices,
        Some("shards") => Level::Shards,
        Some("awareness_attributes") => Level::AwarenessAttributes,
        Some(other) => {
            return Err(OsError::illegal(format!(
                "Unknown level [{other}], expected one of [cluster, indices, shards, awareness_attributes]"
            )))
        }
    };
    if let Some(s) = req.param("wait_for_status") {
        h.wait_for_status =
            Some(Status::parse(s).ok_or_else(|| OsError::illegal(format!("unknown cluster health status [{s}]")))?);
    }
    h.wait_for_nodes = req.param("wait_for_nodes").map(str::to_string);
    h.wait_for_active_shards = req.param("wait_for_active_shards").map(str::to_string);
    h.wait_for_no_relocating_shards = req.bool_param("wait_for_no_relocating_shards", false)?;
    h.wait_for_no_initializing_shards = req.bool_param("wait_for_no_initializing_shards", false)?;
    h.wait_for_events = req.param("wait_for_events").map(str::to_string);
    h.awareness_attribute = req.param("awareness_attribute").map(str::to_string);
    h.ensure_node_weighed_in = req.bool_param("ensure_node_weighed_in", false)?;
    h.local = req.bool_param("local", false)?;
    if let Some(t) = req.time_param("timeout")? {
        h.timeout = t;
    } else if req.has("timeout") {
        h.timeout = Duration::ZERO;
    }
    let (status, body) = cluster_info::health(&node.cluster, &h)?;
    Ok(RestResponse::json(status, body))
}

fn state(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let metrics: Vec<String> =
        req.path_param("metric").map(|m| m.split(',').map(str::to_string).collect()).unwrap_or_default();
    for m in &metrics {
        if !cluster_info::STATE_METRICS.contains(&m.as_str()) {
            return Err(OsError::illegal(format!("request [{}] contains unrecognized metric: [{m}]", req.path)));
        }
    }
    Ok(RestResponse::ok(cluster_info::state(&node.cluster, &metrics, req.path_param("index"))?))
}

const HEALTH_P: &[&str] = &[
    "expand_wildcards",
    "level",
    "local",
    "master_timeout",
    "cluster_manager_timeout",
    "timeout",
    "wait_for_active_shards",
    "wait_for_nodes",
    "wait_for_events",
    "wait_for_no_relocating_shards",
    "wait_for_no_initializing_shards",
    "wait_for_status",
    "awareness_attribute",
    "ensure_node_weighed_in",
    "ignore_unavailable",
    "allow_no_indices",
];
const STATE_P: &[&str] = &[
    "local",
    "master_timeout",
    "cluster_manager_timeout",
    "flat_settings",
    "wait_for_metadata_version",
    "wait_for_timeout",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];

fn allocation_explain(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let body = req.json()?;
    let r = crate::action::allocation_explain::parse(
        &body,
        req.bool_param("include_yes_decisions", false)?,
        req.bool_param("include_disk_info", false)?,
    )?;
    Ok(RestResponse::ok(crate::action::allocation_explain::explain(&node.cluster, &r)?))
}

const EXPLAIN_P: &[&str] = &["include_yes_decisions", "include_disk_info", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(
        &[Get, Post],
        "/_cluster/allocation/explain",
        "cluster:monitor/allocation/explain",
        Pool::Management,
        EXPLAIN_P,
        allocation_explain,
    );
    for p in ["/_cluster/health", "/_cluster/health/{index}"] {
        r.add(&[Get], p, "cluster:monitor/health", Pool::Management, HEALTH_P, health);
    }
    for p in ["/_cluster/state", "/_cluster/state/{metric}", "/_cluster/state/{metric}/{index}"] {
        r.add(&[Get], p, "cluster:monitor/state", Pool::Management, STATE_P, state);
    }
}
