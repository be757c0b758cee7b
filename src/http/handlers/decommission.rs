//! `_cluster/decommission/awareness`: decommission an awareness attribute value, its status,
//! and recommission.

use crate::action::decommission::{self, DecommissionRequest, DEFAULT_DELAY};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn put(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    // As RestDecommissionAction: `no_delay` first (it zeroes the delay), then `delay_timeout`.
    let no_delay = req.bool_param("no_delay", false)?;
    let mut delay_timeout = if no_delay { std::time::Duration::ZERO } else { DEFAULT_DELAY };
    if let Some(t) = req.time_param("delay_timeout")? {
        delay_timeout = t;
    }
    let r = DecommissionRequest {
        attribute: req.path_param("awareness_attribute_name").unwrap_or_default().to_string(),
        value: req.path_param("awareness_attribute_value").unwrap_or_default().to_string(),
        delay_timeout,
        no_delay,
    };
    Ok(RestResponse::ok(decommission::put(&node.cluster, &r)?))
}

fn status(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let attr = req.path_param("awareness_attribute_name").unwrap_or_default();
    Ok(RestResponse::ok(decommission::status(&node.cluster, attr)?))
}

fn delete(node: &Node, _req: &RestRequest) -> OsResult<RestResponse> {
    Ok(RestResponse::ok(decommission::delete(&node.cluster)?))
}

const PUT_P: &[&str] = &["delay_timeout", "no_delay", "master_timeout", "cluster_manager_timeout", "timeout"];
const GET_P: &[&str] = &["local", "master_timeout", "cluster_manager_timeout"];
const DELETE_P: &[&str] = &["master_timeout", "cluster_manager_timeout", "timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(
        &[Put],
        "/_cluster/decommission/awareness/{awareness_attribute_name}/{awareness_attribute_value}",
        "cluster:admin/decommission/awareness/put",
        Pool::Management,
        PUT_P,
        put,
    );
    r.add(
        &[Get],
        "/_cluster/decommission/awareness/{awareness_attribute_name}/_status",
        "cluster:admin/decommission/awareness/get",
        Pool::Management,
        GET_P,
        status,
    );
    r.add(
        &[Delete],
        "/_cluster/decommission/awareness",
        "cluster:admin/decommission/awareness/delete",
        Pool::Management,
        DELETE_P,
        delete,
    );
}
