//! Alias APIs: `_alias`, `_aliases`.

use super::indices_options;
use crate::action::aliases::{self, AliasAction};
use crate::cluster::metadata::AliasMetadata;
use crate::cluster::resolve::{ExpandWildcards, IndicesOptions};
use serde_json::Value;

use crate::error::{OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let default = IndicesOptions {
        ignore_unavailable: false,
        allow_no_indices: true,
        expand: ExpandWildcards { open: true, closed: true, hidden: false },
        forbid_closed: false,
    };
    let o = indices_options(req, default)?;
    let md = node.cluster.metadata();
    let (status, body) = aliases::get(&md, req.path_param("index"), req.path_param("name"), o)?;
    if req.method == Method::Head {
        let found = body.as_object().is_some_and(|m| {
            m.iter().any(|(k, v)| {
                k != "error"
                    && k != "status"
                    && v["aliases"].as_object().is_some_and(|a| !a.is_empty() || req.path_param("name").is_none())
            })
        });
        return Ok(RestResponse::status(if status == 200 && found { 200 } else { 404 }));
    }
    Ok(RestResponse::json(status, body))
}

/// `PUT {index}/_alias/{name}` and its forms (`RestIndexPutAliasAction`): `index` and
/// `alias` in the body override the path.
fn put(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let split = |s: &str| s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect::<Vec<_>>();
    let mut indices = req.path_param("index").map(split).unwrap_or_default();
    let mut name = req.path_param("name").map(str::to_string);
    let mut fields = serde_json::Map::new();
    if req.has_body() {
        let body = req.json()?;
        let Some(m) = body.as_object() else {
            return Err(OsError::illegal("No index alias is specified"));
        };
        for (k, v) in m {
            let text = || match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            };
            match k.as_str() {
                "index" => indices = text().map(|s| split(&s)).unwrap_or_default(),
                "alias" => name = text(),
                "routing" | "index_routing" | "indexRouting" | "index-routing" | "search_routing" | "searchRouting"
                | "search-routing" | "is_write_index" | "is_hidden" | "filter" => {
                    if !v.is_null() {
                        fields.insert(k.clone(), v.clone());
                    }
                }
                other => return Err(OsError::illegal(format!("unknown field [{other}]"))),
            }
        }
    }
    let mut errors = Vec::new();
    if indices.is_empty() {
        errors.push("One of [index/indices] is required".to_string());
    }
    let name = name.filter(|n| !n.is_empty());
    if name.is_none() {
        errors.push("One of [alias/aliases] is required".to_string());
    }
    if !errors.is_empty() {
        return Err(OsError::validation(&errors));
    }
    let name = name.unwrap_or_default();
    let def = AliasMetadata::from_json(&name, &Value::Object(fields))?;
    let aliases = split(&name);
    Ok(RestResponse::ok(aliases::apply(&node.cluster, &[AliasAction::Add { indices, aliases, def }])?))
}

fn delete(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let index = req.path_param("index").unwrap_or_default();
    let name = req.path_param("name").unwrap_or_default();
    Ok(RestResponse::ok(aliases::delete(&node.cluster, index, name)?))
}

fn update(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let body = req.required_json()?;
    let actions = aliases::parse_actions(&body)?;
    Ok(RestResponse::ok(aliases::apply(&node.cluster, &actions)?))
}

const GET_P: &[&str] = &["ignore_unavailable", "allow_no_indices", "expand_wildcards", "local"];
const PUT_P: &[&str] = &["timeout", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    for p in
        ["/_alias", "/_aliases", "/_alias/{name}", "/{index}/_alias", "/{index}/_aliases", "/{index}/_alias/{name}"]
    {
        r.add(&[Get, Head], p, "indices:admin/aliases/get", Pool::Management, GET_P, get);
    }
    for p in ["/{index}/_alias/{name}", "/{index}/_aliases/{name}", "/_alias/{name}", "/_aliases/{name}"] {
        r.add(&[Put, Post], p, "indices:admin/aliases", Pool::Management, PUT_P, put);
    }
    for p in ["/{index}/_alias", "/{index}/_aliases", "/_alias"] {
        r.add(&[Put], p, "indices:admin/aliases", Pool::Management, PUT_P, put);
    }
    for p in ["/{index}/_alias/{name}", "/{index}/_aliases/{name}"] {
        r.add(&[Delete], p, "indices:admin/aliases", Pool::Management, PUT_P, delete);
    }
    r.add(&[Post], "/_aliases", "indices:admin/aliases", Pool::Management, PUT_P, update);
}
