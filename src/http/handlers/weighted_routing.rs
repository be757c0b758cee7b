//! `_cluster/routing/awareness/{attribute}/weights` (weighted shard routing).

use crate::action::weighted_routing;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn attribute(req: &RestRequest) -> &str {
    req.path_param("attribute").unwrap_or_default()
}

fn put(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let r = weighted_routing::parse_put(attribute(req), &req.json()?)?;
    Ok(RestResponse::ok(weighted_routing::put(&node.cluster, &r)?))
}

fn get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    req.bool_param("local", false)?;
    Ok(RestResponse::ok(weighted_routing::get(&node.cluster, attribute(req))?))
}

fn delete(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let version = weighted_routing::parse_delete(&req.json()?)?;
    Ok(RestResponse::ok(weighted_routing::delete(&node.cluster, req.path_param("attribute"), version)?))
}

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    let path = "/_cluster/routing/awareness/{attribute}/weights";
    r.add(&[Put], path, "cluster:admin/routing/awareness/weights/put", Pool::Management, &[], put);
    r.add(&[Get], path, "cluster:admin/routing/awareness/weights/get", Pool::Management, &["local"], get);
    for p in ["/_cluster/routing/awareness/weights", path] {
        r.add(&[Delete], p, "cluster:admin/routing/awareness/weights/delete", Pool::Management, &[], delete);
    }
}
