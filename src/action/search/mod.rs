//! action/search/: `_search`, `_count` and `_msearch`.
//!
//! A search resolves its targets to [`ShardContext`]s (each a pinned engine searcher with the
//! index mapping), parses the query DSL per index into an engine [`crate::engine::query::Query`],
//! runs query-then-fetch over the contexts and renders OpenSearch's body. A point in time or a
//! scroll keeps the contexts and calls [`execute::search_contexts`] again.
//!
//! | file | holds |
//! |---|---|
//! | [`context`] | pinned shards: [`ShardContext`], [`context::acquire`] |
//! | [`request`] | the request body and URL parameters |
//! | [`dsl`] | query DSL dispatch and compound queries (bool, constant_score, dis_max, ...) |
//! | [`dsl_term`] | term-level queries and value encoding per field type |
//! | [`dsl_doc_values`] | term-level queries on fields searched through their doc values |
//! | [`dsl_geo`] | geo_distance, geo_bounding_box, geo_polygon |
//! | [`dsl_text`] | match family and multi_match |
//! | [`query_string`] | `query_string`, `simple_query_string`, `q=` |
//! | [`combine`] | dis_max, boosting, function_score |
//! | [`date_math`] | `now-1d/d`, time zones |
//! | [`sort`] | sort specs, resolution against the mapping, sort values |
//! | [`sort_missing`] | keyword sorts with a custom `missing` value |
//! | [`execute`] | query-then-fetch, merging, the response |
//! | [`body`] | the response body, as a JSON tree or written straight to bytes |
//! | [`fetch`] | one hit's JSON |
//! | [`field_values`] | `docvalue_fields`, the `fields` API, `stored_fields` |
//! | [`highlight`] | plain highlighting |
//! | [`context_id`] | PIT and scroll ids (base64 of the pinned shards' context numbers) |
//! | [`pit`] | reader contexts (PIT and scroll), PIT ids, the PIT APIs |
//! | [`scroll`] | scroll over the reader contexts |

pub mod body;
pub mod combine;
pub mod context;
pub mod context_id;
pub mod date_math;
pub mod dsl;
pub mod dsl_cross_fields;
pub mod dsl_doc_values;
pub mod dsl_fuzzy;
pub mod dsl_geo;
pub mod dsl_keyword;
pub mod dsl_term;
pub mod dsl_text;
pub mod execute;
pub mod fetch;
pub mod field_values;
pub mod highlight;
pub mod pit;
pub mod query_string;
pub mod request;
pub mod scroll;
pub mod sort;
pub mod sort_missing;

#[cfg(test)]
mod tests;

use serde_json::{json, Value};

pub use context::{acquire, ShardContext};
pub use request::SearchRequest;

use crate::cluster::resolve::IndicesOptions;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// `_search` over an index expression.
pub fn search(cs: &ClusterService, expr: &str, opts: IndicesOptions, req: &SearchRequest) -> OsResult<Value> {
    let ctxs = acquire(cs, expr, opts)?;
    execute::search_contexts(&ctxs, req)
}

/// [`search`] as a [`body::SearchBody`], for writing the response straight to bytes.
pub fn search_body(cs: &ClusterService, expr: &str, opts: IndicesOptions, req: &SearchRequest) -> OsResult<body::SearchBody> {
    let ctxs = acquire(cs, expr, opts)?;
    execute::search_contexts_body(&ctxs, req)
}

/// `_count` over an index expression.
pub fn count(cs: &ClusterService, expr: &str, opts: IndicesOptions, req: &SearchRequest) -> OsResult<Value> {
    let ctxs = acquire(cs, expr, opts)?;
    execute::count_contexts(&ctxs, req)
}

/// The REST error body of a search error: for `search_phase_execution_exception`, the shard
/// failures' causes are the `root_cause`, as OpenSearch prints them.
pub fn error_body(e: &OsError) -> Value {
    let mut body = e.to_body();
    if e.kind == "search_phase_execution_exception" {
        if let Some(fs) = e.meta.get("failed_shards").and_then(Value::as_array) {
            let roots: Vec<Value> = fs
                .iter()
                .filter_map(|f| f.get("reason").cloned())
                .map(|mut r| {
                    if let Some(o) = r.as_object_mut() {
                        o.remove("caused_by");
                    }
                    r
                })
                .collect();
            if !roots.is_empty() {
                body["error"]["root_cause"] = json!(roots);
            }
        }
    }
    body
}

/// `_msearch`: each item `(header, body)` runs with `default_index`, `opts` and `apply` for what
/// the header leaves out; a body with `pit` searches that point in time (`reg`), and then the
/// header must name no index.
pub fn msearch(
    cs: &ClusterService,
    reg: &pit::ReaderContexts,
    items: Vec<(Value, Value)>,
    default_index: Option<&str>,
    opts: IndicesOptions,
    apply: &dyn Fn(&mut SearchRequest) -> OsResult<()>,
) -> OsResult<Value> {
    let start = std::time::Instant::now();
    let mut responses = Vec::with_capacity(items.len());
    for (header, body) in items {
        let r = (|| -> OsResult<Value> {
            let index = match header.get("index") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(","),
                _ => default_index.unwrap_or("_all").to_string(),
            };
            let mut o = opts;
            if let Some(b) = header.get("ignore_unavailable").and_then(Value::as_bool) {
                o.ignore_unavailable = b;
            }
            if let Some(b) = header.get("allow_no_indices").and_then(Value::as_bool) {
                o.allow_no_indices = b;
            }
            if let Some(e) = header.get("expand_wildcards").and_then(Value::as_str) {
                o.expand = crate::cluster::resolve::ExpandWildcards::parse(e)?;
            }
            let mut req = SearchRequest::from_body(body)?;
            apply(&mut req)?;
            if header.get("search_type").and_then(Value::as_str) == Some("dfs_query_then_fetch") {
                req.dfs = true;
            }
            req.finish()?;
            if let Some(p) = &req.pit {
                if header.get("index").is_some_and(|i| !i.is_null()) || default_index.is_some() {
                    return Err(OsError::validation(&["[indices] cannot be used with point in time. Do not specify any index with point in time.".to_string()]));
                }
                return pit::search(reg, p, &req);
            }
            search(cs, &index, o, &req)
        })();
        responses.push(match r {
            Ok(mut v) => {
                v["status"] = json!(200);
                v
            }
            Err(e) => {
                let mut b = error_body(&e);
                b["status"] = json!(e.status);
                b
            }
        });
    }
    Ok(json!({"took": start.elapsed().as_millis() as u64, "responses": responses}))
}
