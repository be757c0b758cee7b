//! Template APIs: `_template`, `_index_template`, `_component_template`.

use crate::action::template_api::{self, Kind};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn kind_of(req: &RestRequest) -> Kind {
    if req.path.starts_with("/_index_template") {
        Kind::Composable
    } else if req.path.starts_with("/_component_template") {
        Kind::Component
    } else {
        Kind::Legacy
    }
}

fn put(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let body = req.required_json()?;
    let create = req.bool_param("create", false)?;
    let order = req.int_param("order")?;
    let name = req.path_param("name").unwrap_or_default();
    Ok(RestResponse::ok(template_api::put(&node.cluster, kind_of(req), name, &body, create, order)?))
}

fn get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let md = node.cluster.metadata();
    let kind = kind_of(req);
    let name = req.path_param("name");
    if req.method == Method::Head {
        let found = template_api::exists(&md, kind, name.unwrap_or("*"));
        return Ok(RestResponse::status(if found { 200 } else { 404 }));
    }
    let flat = req.bool_param("flat_settings", false)?;
    if kind == Kind::Legacy {
        let (status, body) = template_api::get_legacy(&md, name, flat);
        return Ok(RestResponse::json(status, body));
    }
    Ok(RestResponse::ok(template_api::get(&md, kind, name, flat)?))
}

fn delete(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let name = req.path_param("name").unwrap_or_default();
    Ok(RestResponse::ok(template_api::delete(&node.cluster, kind_of(req), name)?))
}

fn simulate_index(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let name = req.path_param("name").unwrap_or_default();
    let body = if req.has_body() { Some(req.json()?) } else { None };
    Ok(RestResponse::ok(template_api::simulate_index(&node.cluster.metadata(), name, body.as_ref())?))
}

const PUT_P: &[&str] = &["create", "cause", "order", "timeout", "master_timeout", "cluster_manager_timeout"];
const GET_P: &[&str] = &["flat_settings", "local", "master_timeout", "cluster_manager_timeout"];
const DELETE_P: &[&str] = &["timeout", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    for base in ["/_template", "/_index_template", "/_component_template"] {
        let named: &'static str = match base {
            "/_template" => "/_template/{name}",
            "/_index_template" => "/_index_template/{name}",
            _ => "/_component_template/{name}",
        };
        r.add(&[Put, Post], named, "indices:admin/template/put", Pool::Management, PUT_P, put);
        r.add(&[Get], base, "indices:admin/template/get", Pool::Management, GET_P, get);
        r.add(&[Get, Head], named, "indices:admin/template/get", Pool::Management, GET_P, get);
        r.add(&[Delete], named, "indices:admin/template/delete", Pool::Management, DELETE_P, delete);
    }
    r.add(
        &[Post],
        "/_index_template/_simulate_index/{name}",
        "indices:admin/index_template/simulate_index",
        Pool::Management,
        GET_P,
        simulate_index,
    );
}
