//! `_field_caps` and `_mapping/field/{fields}`.

use super::{index_expr, indices_options};
use crate::action::field_caps::{self, FieldCapsRequest};
use crate::cluster::resolve::{ExpandWildcards, IndicesOptions};
use crate::error::{OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

const OPEN: IndicesOptions = IndicesOptions {
    ignore_unavailable: false,
    allow_no_indices: true,
    expand: ExpandWildcards { open: true, closed: false, hidden: false },
    forbid_closed: true,
};

fn caps(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, OPEN)?;
    let mut r = FieldCapsRequest {
        fields: req.list_param("fields").unwrap_or_default(),
        include_unmapped: req.bool_param("include_unmapped", false)?,
        index_filter: None,
    };
    let body = req.json()?;
    if let Some(m) = body.as_object() {
        for (k, v) in m {
            match k.as_str() {
                "index_filter" => r.index_filter = Some(v.clone()),
                "fields" => match v {
                    serde_json::Value::String(s) => r.fields.extend(s.split(',').map(str::to_string)),
                    serde_json::Value::Array(a) => {
                        r.fields.extend(a.iter().filter_map(|x| x.as_str().map(str::to_string)))
                    }
                    _ => {
                        return Err(OsError::parsing(
                            "[field_caps_request] fields doesn't support values of type: VALUE_NUMBER",
                        ))
                    }
                },
                other => return Err(OsError::parsing(format!("[field_caps_request] unknown field [{other}]"))),
            }
        }
    }
    Ok(RestResponse::ok(field_caps::field_caps(&node.cluster, &index_expr(req), o, &r)?))
}

fn field_mapping(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, OPEN)?;
    let fields: Vec<String> = req.path_param("fields").unwrap_or_default().split(',').map(str::to_string).collect();
    let defaults = req.bool_param("include_defaults", false)?;
    Ok(RestResponse::ok(field_caps::field_mapping(&node.cluster, &index_expr(req), o, &fields, defaults)?))
}

const CAPS_P: &[&str] =
    &["fields", "ignore_unavailable", "allow_no_indices", "expand_wildcards", "include_unmapped", "types"];
const FM_P: &[&str] = &["include_defaults", "ignore_unavailable", "allow_no_indices", "expand_wildcards", "local"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    for p in ["/_field_caps", "/{index}/_field_caps"] {
        r.add(&[Get, Post], p, "indices:data/read/field_caps", Pool::Search, CAPS_P, caps);
    }
    for p in ["/_mapping/field/{fields}", "/{index}/_mapping/field/{fields}"] {
        r.add(&[Get], p, "indices:admin/mappings/fields/get", Pool::Management, FM_P, field_mapping);
    }
}
