//! `GET` and `PUT /_cluster/settings`.

use crate::action::cluster_settings;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn put(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let flat = req.bool_param("flat_settings", false)?;
    let update = cluster_settings::parse(&req.required_json()?)?;
    Ok(RestResponse::ok(cluster_settings::put(&node.cluster, &update, flat)?))
}

fn get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let flat = req.bool_param("flat_settings", false)?;
    let include_defaults = req.bool_param("include_defaults", false)?;
    let node_settings =
        node.settings.all().iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
    Ok(RestResponse::ok(cluster_settings::get(&node.cluster, &node_settings, flat, include_defaults)?))
}

const PUT_P: &[&str] = &["flat_settings", "master_timeout", "cluster_manager_timeout", "timeout"];
const GET_P: &[&str] =
    &["flat_settings", "include_defaults", "master_timeout", "cluster_manager_timeout", "timeout", "local"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(&[Put], "/_cluster/settings", "cluster:admin/settings/update", Pool::Management, PUT_P, put);
    r.add(&[Get], "/_cluster/settings", "cluster:monitor/state", Pool::Management, GET_P, get);
}
