//! Search APIs: `_search`, `_count`, `_msearch` (a `_search` with a PIT or `scroll=` goes to `pit.rs`).

use serde_json::Value;

use super::{index_expr, indices_options};
use crate::action::search::{self, SearchRequest};
use crate::cluster::resolve::IndicesOptions;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{parse_json, Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn params(req: &RestRequest) -> impl Fn(&str) -> Option<String> + '_ {
    move |k: &str| req.param(k).map(str::to_string)
}

/// Renders an action error: search failures print their shard causes as `root_cause`.
fn err(e: OsError) -> OsResult<RestResponse> {
    if e.kind == ErrorKind::SearchPhaseExecution {
        return Ok(RestResponse::json(e.status, search::error_body(&e)));
    }
    Err(e)
}

fn request(req: &RestRequest) -> OsResult<SearchRequest> {
    let body = req.json()?;
    let mut r = SearchRequest::from_body(body)?;
    r.apply_params(&params(req))?;
    Ok(r)
}

/// The search's task description (`SearchRequest.getDescription`; the source as sent).
fn describe(req: &RestRequest) {
    if let Some(t) = crate::tasks::current() {
        let search_type = match req.param("search_type") {
            Some("dfs_query_then_fetch") => "DFS_QUERY_THEN_FETCH",
            _ => "QUERY_THEN_FETCH",
        };
        let scroll = req.param("scroll").map(|s| format!("scroll[{s}], ")).unwrap_or_default();
        let source = std::str::from_utf8(&req.body).unwrap_or_default().trim();
        t.set_description(format!(
            "indices[{}], search_type[{search_type}], {scroll}source[{source}]",
            index_expr(req)
        ));
    }
}

fn do_search(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    describe(req);
    let o = indices_options(req, IndicesOptions::lenient_expand_open())?;
    let mut r = request(req)?;
    search::apply_cluster_limits(&node.cluster, &mut r);
    crate::action::search::index_boost::resolve_request(&node.cluster, &mut r, o)?;
    let resp = match super::pit::search_pit_or_scroll(node, req, &r, o) {
        Some(Ok(v)) => Ok(RestResponse::ok(v)),
        Some(Err(e)) => err(e),
        None => match search::search_body(&node.cluster, &index_expr(req), o, &r) {
            Ok(b) => Ok(RestResponse::raw_json(200, b.to_json())),
            Err(e) => err(e),
        },
    };
    with_warnings(resp, &r)
}

fn do_count(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, IndicesOptions::lenient_expand_open())?;
    let body = req.json()?;
    if let Value::Object(m) = &body {
        if let Some(k) = m.keys().find(|k| *k != "query") {
            return Err(OsError::parsing(format!("request does not support [{k}]")));
        }
    }
    let mut r = SearchRequest::from_body(body)?;
    r.apply_params(&params(req))?;
    search::apply_cluster_limits(&node.cluster, &mut r);
    if let Some(m) = req.param("min_score") {
        r.min_score =
            Some(m.parse::<f32>().map_err(|_| {
                OsError::illegal(format!("Failed to parse float parameter [min_score] with value [{m}]"))
            })?);
    }
    let resp = match search::count(&node.cluster, &index_expr(req), o, &r) {
        Ok(v) => Ok(RestResponse::ok(v)),
        Err(e) => err(e),
    };
    with_warnings(resp, &r)
}

/// The answer with the deprecation warnings the request's query parsers left.
fn with_warnings(resp: OsResult<RestResponse>, r: &SearchRequest) -> OsResult<RestResponse> {
    let warnings = r.warnings.take();
    resp.map(|mut resp| {
        for w in warnings {
            resp.deferred.warn(w);
        }
        resp
    })
}

fn validate_query(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    use crate::action::validate_query::{validate, ValidateRequest};
    let mut r = ValidateRequest {
        explain: req.bool_param("explain", false)?,
        rewrite: req.bool_param("rewrite", false)?,
        ..Default::default()
    };
    if req.has_body() {
        match req.json().and_then(|b| crate::action::explain::parse_body(&b)) {
            Ok(q) => r.query = q,
            Err(e) => r.parse_error = Some(e),
        }
    } else if let Some(q) = req.param("q") {
        r.q = Some(crate::action::search::request::QueryStringParams {
            q: q.to_string(),
            df: req.param("df").map(str::to_string),
            default_operator: req.param("default_operator").map(str::to_string),
            analyzer: req.param("analyzer").map(str::to_string),
            lenient: req.bool_param("lenient", false)?,
            analyze_wildcard: req.bool_param("analyze_wildcard", false)?,
        });
    }
    let o = indices_options(req, IndicesOptions::lenient_expand_open())?;
    let (body, deferred) = validate(&node.cluster, &index_expr(req), o, &r)?;
    Ok(RestResponse::ok(body).with_deferred(deferred))
}

fn do_msearch(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, IndicesOptions::lenient_expand_open())?;
    let mut items = Vec::new();
    let mut lines = req.body.split(|b| *b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace));
    while let Some(h) = lines.next() {
        let header = parse_json(h)?;
        if !header.is_object() {
            return Err(OsError::illegal("msearch header must be an object"));
        }
        let body = match lines.next() {
            Some(b) => parse_json(b)?,
            None => return Err(OsError::illegal("The msearch request must be terminated by a newline [\n]")),
        };
        items.push((header, body));
        if items.len() > 10_000 {
            return Err(OsError::illegal("too many searches in one msearch request"));
        }
    }
    if items.is_empty() {
        return Err(OsError::validation(&["no requests added".into()]));
    }
    let rest_int = req.bool_param("rest_total_hits_as_int", false)?;
    let search_type = req.param("search_type").map(str::to_string);
    let apply = move |r: &mut SearchRequest| -> OsResult<()> {
        r.rest_total_hits_as_int = rest_int;
        if search_type.as_deref() == Some("dfs_query_then_fetch") {
            r.dfs = true;
        }
        Ok(())
    };
    let default_index = req.path_param("index");
    let (body, deferred) = search::msearch(&node.cluster, &node.reader_contexts, items, default_index, o, &apply)?;
    Ok(RestResponse::ok(body).with_deferred(deferred))
}

// Parameters that ask for something Fathom does not build yet are left out, so they get
// OpenSearch's unrecognized-parameter error instead of being dropped:
// `stats`, `phase_took`, `cancel_after_time_interval`, the `suggest_*` family, and
// `search_pipeline`/`verbose_pipeline` (issue 25).
const SEARCH_P: &[&str] = &[
    "allow_no_indices",
    "allow_partial_search_results",
    "analyze_wildcard",
    "analyzer",
    "batched_reduce_size",
    "ccs_minimize_roundtrips",
    "default_operator",
    "df",
    "docvalue_fields",
    "expand_wildcards",
    "explain",
    "from",
    "ignore_throttled",
    "ignore_unavailable",
    "include_named_queries_score",
    "lenient",
    "max_concurrent_shard_requests",
    "pre_filter_shard_size",
    "preference",
    "q",
    "request_cache",
    "rest_total_hits_as_int",
    "routing",
    "scroll",
    "search_type",
    "seq_no_primary_term",
    "size",
    "sort",
    "_source",
    "_source_excludes",
    "_source_includes",
    "stats",
    "stored_fields",
    "terminate_after",
    "timeout",
    "track_scores",
    "track_total_hits",
    "typed_keys",
    "version",
];
const COUNT_P: &[&str] = &[
    "allow_no_indices",
    "analyze_wildcard",
    "analyzer",
    "default_operator",
    "df",
    "expand_wildcards",
    "ignore_throttled",
    "ignore_unavailable",
    "lenient",
    "min_score",
    "preference",
    "q",
    "routing",
    "terminate_after",
];
const MSEARCH_P: &[&str] = &[
    "ccs_minimize_roundtrips",
    "max_concurrent_searches",
    "max_concurrent_shard_requests",
    "pre_filter_shard_size",
    "rest_total_hits_as_int",
    "search_type",
    "typed_keys",
];

const VALIDATE_P: &[&str] = &[
    "explain",
    "rewrite",
    "all_shards",
    "q",
    "df",
    "analyzer",
    "analyze_wildcard",
    "default_operator",
    "lenient",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];

/// Registers the routes.
const SEARCH_SHARDS_P: &[&str] =
    &["allow_no_indices", "expand_wildcards", "ignore_unavailable", "local", "preference", "routing"];

/// `GET|POST [/{index}]/_search_shards`: the shards and copies a search would reach.
fn search_shards(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let opts = indices_options(req, IndicesOptions::lenient_expand_open())?;
    // Every node answers from its applied cluster state; `local` is validated only.
    req.bool_param("local", false)?;
    let mut r = crate::action::search_shards::SearchShardsRequest {
        expr: index_expr(req),
        routing: req.param("routing").map(str::to_string),
        preference: req.param("preference").map(str::to_string),
        slice: None,
    };
    match req.json()? {
        Value::Null => {}
        Value::Object(m) => {
            for (k, v) in &m {
                match k.as_str() {
                    "slice" => r.slice = Some(search::slice::parse(v)?),
                    other => return Err(OsError::parsing(format!("request does not support [{other}]"))),
                }
            }
        }
        _ => return Err(OsError::parsing("request body must be an object")),
    }
    Ok(RestResponse::ok(crate::action::search_shards::search_shards(&node.cluster, opts, &r)?))
}

pub fn register(r: &mut Router) {
    use Method::*;
    for p in ["/_search_shards", "/{index}/_search_shards"] {
        r.add(&[Get, Post], p, "indices:admin/shards/search_shards", Pool::Management, SEARCH_SHARDS_P, search_shards);
    }
    for p in ["/_search", "/{index}/_search"] {
        r.add(&[Get, Post], p, "indices:data/read/search", Pool::Search, SEARCH_P, do_search);
    }
    for p in ["/_count", "/{index}/_count"] {
        r.add(&[Get, Post], p, "indices:data/read/search", Pool::Search, COUNT_P, do_count);
    }
    for p in ["/_validate/query", "/{index}/_validate/query"] {
        r.add(&[Get, Post], p, "indices:admin/validate/query", Pool::Search, VALIDATE_P, validate_query);
    }
    for p in ["/_msearch", "/{index}/_msearch"] {
        r.add(&[Get, Post], p, "indices:data/read/msearch", Pool::Search, MSEARCH_P, do_msearch);
    }
}
