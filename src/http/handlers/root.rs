//! `GET /` and `HEAD /`.

use crate::action::cluster_info;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn info(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    if req.method == Method::Head {
        return Ok(RestResponse::status(200));
    }
    Ok(RestResponse::ok(cluster_info::root(&node.cluster)))
}

/// Registers the routes.
pub fn register(r: &mut Router) {
    r.add(&[Method::Get, Method::Head], "/", "cluster:monitor/main", Pool::Management, &[], info);
}
