//! `POST /_cluster/reroute`.

use crate::action::cluster_reroute::{parse_body, parse_metrics, reroute, RerouteRequest};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn handle(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let mut r = RerouteRequest {
        dry_run: req.bool_param("dry_run", false)?,
        explain: req.bool_param("explain", false)?,
        retry_failed: req.bool_param("retry_failed", false)?,
        ..Default::default()
    };
    if let Some(m) = req.param("metric") {
        r.metrics = parse_metrics(m)?;
    }
    // Validated here; the publication waits as any cluster state update does.
    for t in ["timeout", "master_timeout", "cluster_manager_timeout"] {
        req.time_param(t)?;
    }
    if req.has_body() {
        let body = req.json()?;
        let dry_run_param = r.dry_run;
        parse_body(&body, &mut r)?;
        r.dry_run |= dry_run_param;
    }
    Ok(RestResponse::ok(reroute(&node.cluster, &r)?))
}

const PARAMS: &[&str] =
    &["dry_run", "explain", "retry_failed", "metric", "master_timeout", "cluster_manager_timeout", "timeout"];

/// Registers the route.
pub fn register(r: &mut Router) {
    r.add(&[Method::Post], "/_cluster/reroute", "cluster:admin/reroute", Pool::Management, PARAMS, handle);
}
