//! `GET/POST [/{index}]/_analyze`.

use serde_json::{json, Value};

use crate::action::analyze;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn handle(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let mut body = req.json()?;
    if body.is_null() {
        // Parameters-only form: `?text=...&analyzer=...`.
        let mut m = serde_json::Map::new();
        for k in ["text", "analyzer", "tokenizer", "field", "normalizer", "explain"] {
            if let Some(v) = req.param(k) {
                m.insert(k.into(), if k == "explain" { json!(v == "true" || v.is_empty()) } else { json!(v) });
            }
        }
        for k in ["filter", "char_filter", "attributes"] {
            if let Some(v) = req.list_param(k) {
                m.insert(k.into(), json!(v));
            }
        }
        if m.is_empty() {
            return Err(OsError::new(ErrorKind::Parse, "request body or source parameter is required"));
        }
        body = Value::Object(m);
    }
    let index = req.path_param("index").map(str::to_string).or_else(|| req.param("index").map(str::to_string));
    Ok(RestResponse::ok(analyze::analyze(&node.cluster, index.as_deref(), &body)?))
}

const PARAMS: &[&str] = &[
    "index",
    "text",
    "analyzer",
    "tokenizer",
    "filter",
    "char_filter",
    "field",
    "normalizer",
    "explain",
    "attributes",
];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_analyze", "/{index}/_analyze"] {
        r.add(&[Method::Get, Method::Post], p, "indices:admin/analyze", Pool::Management, PARAMS, handle);
    }
}
