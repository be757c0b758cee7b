//! `GET/POST {index}/_explain/{id}`.

use crate::action::explain::{self, ExplainRequest};
use crate::action::search::request::QueryStringParams;
use crate::action::source_filter::SourceFilter;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn do_explain(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let query = if req.has_body() { explain::parse_body(&req.json()?)? } else { None };
    // `RestActions.urlParamsToQueryBuilder`: `q` and its options when the body has no query.
    let q = match (&query, req.param("q")) {
        (None, Some(q)) => Some(QueryStringParams {
            q: q.to_string(),
            df: req.param("df").map(str::to_string),
            default_operator: req.param("default_operator").map(str::to_string),
            analyzer: req.param("analyzer").map(str::to_string),
            lenient: req.bool_param("lenient", false)?,
            analyze_wildcard: req.bool_param("analyze_wildcard", false)?,
        }),
        _ => None,
    };
    let source = if req.has("_source") || req.has("_source_includes") || req.has("_source_excludes") {
        Some(SourceFilter::from_params(
            req.param("_source"),
            req.param("_source_includes"),
            req.param("_source_excludes"),
        ))
    } else {
        None
    };
    let r = ExplainRequest {
        index: req.path_param("index").unwrap_or_default().to_string(),
        id: req.path_param("id").unwrap_or_default().to_string(),
        routing: req.param("routing").map(str::to_string),
        query,
        q,
        source,
        stored_fields: req.list_param("stored_fields"),
        preference: req.param("preference").map(str::to_string),
    };
    let (status, body, deferred) = explain::explain(&node.cluster, &r)?;
    Ok(RestResponse::json(status, body).with_deferred(deferred))
}

const EXPLAIN_P: &[&str] = &[
    "analyze_wildcard",
    "analyzer",
    "default_operator",
    "df",
    "lenient",
    "preference",
    "q",
    "routing",
    "stored_fields",
    "_source",
    "_source_excludes",
    "_source_includes",
];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(&[Get, Post], "/{index}/_explain/{id}", "indices:data/read/explain", Pool::Search, EXPLAIN_P, do_explain);
}
