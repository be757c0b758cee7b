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
//! | [`terms_lookup`] | terms lookups resolved before the shards parse the query |
//! | [`dsl_doc_values`] | term-level queries on fields searched through their doc values |
//! | [`dsl_geo`] | geo_distance, geo_bounding_box, geo_polygon |
//! | [`dsl_text`] | match family and multi_match |
//! | [`dsl_wildcard`] | queries on `wildcard` fields |
//! | [`dsl_constant`] | queries on `constant_keyword` fields, answered from the mapping |
//! | [`dsl_flat_object`] | queries on `flat_object` fields and their key paths |
//! | [`dsl_nested`] | the `nested` query |
//! | [`query_string`] | `query_string`, `simple_query_string`, `q=` |
//! | [`combine`] | dis_max, boosting, function_score |
//! | [`date_math`] | `now-1d/d`, time zones |
//! | [`sort`] | sort specs, resolution against the mapping, sort values |
//! | [`sort_missing`] | keyword sorts with a custom `missing` value |
//! | [`execute`] | query-then-fetch, merging, the response |
//! | [`count`] | `_count` over pinned shards |
//! | `parallel` | the query phase's units run in parallel on the search pool |
//! | [`body`] | the response body, as a JSON tree or written straight to bytes |
//! | [`fetch`] | one hit's JSON |
//! | [`field_values`] | `docvalue_fields`, the `fields` API, `stored_fields` |
//! | [`highlight`] | plain highlighting |
//! | [`inner_hits`] | nested `inner_hits`: the matching nested documents of each hit |
//! | [`limits`] | per-index limits checked before a search (`index.max_docvalue_fields_search`, ...) |
//! | [`match_only`] | `match_only_text` phrases checked against the re-analyzed `_source` |
//! | [`context_id`] | PIT and scroll ids (base64 of the pinned shards' context numbers) |
//! | [`pit`] | reader contexts (PIT and scroll), PIT ids, the PIT APIs |
//! | [`scroll`] | scroll over the reader contexts |
//! | [`node_result`] | one node's query+fetch result, and the reduce of several into the body |
//! | [`remote`] | searches and counts whose shards are spread over nodes |
//! | [`dfs_phase`] | the dfs round of `dfs_query_then_fetch` across nodes |
//! | [`remote_collapse`] | collapse `inner_hits` searched across nodes once the heads are known |
//! | [`remote_contexts`] | reader contexts opened, named and freed on other nodes |
//! | [`remote_pit`] | points in time whose shards are spread over nodes |
//! | [`remote_scroll`] | scrolls whose shards are spread over nodes |
//! | [`pit_segments`] | the segments PITs pin, per node (`_cat/pit_segments`) |

pub mod aggs;
pub mod bitmap;
pub mod body;
pub mod collapse;
pub mod combine;
pub mod context;
pub mod context_id;
pub mod copy_choice;
pub mod count;
pub mod date_math;
pub mod dfs_phase;
pub mod dsl;
pub mod dsl_combined_fields;
pub mod dsl_constant;
pub mod dsl_cross_fields;
pub mod dsl_distance_feature;
pub mod dsl_doc_values;
pub mod dsl_flat_object;
pub mod dsl_fuzzy;
pub mod dsl_geo;
pub mod dsl_intervals;
pub mod dsl_keyword;
pub mod dsl_nested;
pub mod dsl_span;
pub mod dsl_term;
pub mod dsl_text;
pub mod dsl_wildcard;
pub mod execute;
pub mod fetch;
pub mod field_values;
pub mod highlight;
pub mod index_boost;
pub mod inner_hits;
pub mod limits;
pub mod match_only;
pub mod named;
pub mod nested_fields;
pub mod node_result;
mod parallel;
pub mod pit;
pub mod pit_segments;
pub mod profile;
pub mod query_string;
pub mod remote;
pub mod remote_collapse;
pub mod remote_contexts;
pub mod remote_pit;
pub mod remote_scroll;
pub mod request;
pub mod request_cache;
pub mod rescore;
pub mod rounding;
pub mod scroll;
pub mod slice;
pub mod sort;
pub mod sort_missing;
pub mod terms_lookup;

#[cfg(test)]
mod tests;

use crate::action::deferred::{Deferred, Warnings};
use serde_json::{json, Value};

pub use context::{acquire, ShardContext};
pub use request::SearchRequest;

use crate::cluster::resolve::IndicesOptions;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// `search.max_buckets` from the effective cluster settings (65535).
pub fn max_buckets(cs: &ClusterService) -> u64 {
    let settings = cs.cluster_settings(&cs.metadata());
    let v = settings.get("search.max_buckets").and_then(crate::cluster::cluster_settings::text);
    v.and_then(|s| s.trim().parse().ok()).unwrap_or(aggs::DEFAULT_MAX_BUCKETS)
}

/// `search.allow_expensive_queries`, as the cluster settings set it (default true).
pub fn allow_expensive_queries(cs: &ClusterService) -> bool {
    let settings = cs.cluster_settings(&cs.metadata());
    settings.get("search.allow_expensive_queries").and_then(crate::cluster::cluster_settings::text).as_deref()
        != Some("false")
}

/// The request-wide limits the cluster settings set, on `req` (the coordinating node's).
pub fn apply_cluster_limits(cs: &ClusterService, req: &mut SearchRequest) {
    req.max_buckets = max_buckets(cs);
    req.allow_expensive_queries = allow_expensive_queries(cs);
}

/// `_search` over an index expression.
pub fn search(cs: &ClusterService, expr: &str, opts: IndicesOptions, req: &SearchRequest) -> OsResult<Value> {
    let resolved = terms_lookup::resolve(cs, req)?;
    let req = resolved.as_ref().unwrap_or(req);
    let (remote_shards, unavailable) = remote::remote_targets(cs, expr, opts, req)?;
    if !remote_shards.is_empty() {
        let (ctxs, failed) = across_targets(cs, expr, opts, req, &remote_shards, unavailable)?;
        return remote::search(cs, expr, req, ctxs, failed, remote_shards).map(body::SearchBody::into_value);
    }
    let (ctxs, failed) = targets(cs, expr, opts, req, unavailable)?;
    let mut v = execute::search_contexts(&ctxs, req)?;
    context::add_failed(&mut v["_shards"], &failed);
    Ok(v)
}

/// This node's part of a search across nodes: its contexts, and the shards that failed here or
/// have no active copy (a shard searched on another node is not counted failed here).
fn across_targets(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    req: &SearchRequest,
    remote: &[remote::NodeShards],
    unavailable: Vec<context::FailedShard>,
) -> OsResult<(Vec<ShardContext>, Vec<context::FailedShard>)> {
    let (mut ctxs, mut failed) = context::acquire_with_failed(cs, expr, opts)?;
    let keep = context::shard_filter(cs, req.routing.as_deref(), req.preference.as_deref())?;
    // The copies chosen on other nodes, and shards no copy fits, are not searched here.
    ctxs.retain(|c| keep(&c.index, c.shard) && !remote::read_elsewhere(remote, &unavailable, &c.index, c.shard));
    failed.retain(|f| keep(&f.0, f.1) && !remote.iter().any(|g| g.1.iter().any(|s| s.0 == f.0 && s.1 == f.1)));
    for u in unavailable {
        if !failed.iter().any(|f| f.0 == u.0 && f.1 == u.1) {
            failed.push(u);
        }
    }
    Ok((ctxs, failed))
}

/// The shard contexts a request searches, and the shards of its indices that failed to open
/// (reported as failed; not with `routing` or `preference`, which pick shards themselves) or
/// have no active copy anywhere (`unavailable`, already restricted to the shards searched).
fn targets(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    req: &SearchRequest,
    unavailable: Vec<context::FailedShard>,
) -> OsResult<(Vec<ShardContext>, Vec<context::FailedShard>)> {
    let (mut ctxs, mut failed) = context::acquire_with_failed(cs, expr, opts)?;
    if req.routing.is_some() || req.preference.is_some() {
        failed.clear();
    }
    for u in unavailable {
        if !failed.iter().any(|f| f.0 == u.0 && f.1 == u.1) {
            failed.push(u);
        }
    }
    context::restrict(cs, &mut ctxs, req.routing.as_deref(), req.preference.as_deref())?;
    if ctxs.is_empty() && !failed.is_empty() {
        return Err(context::all_failed_to_open(&failed));
    }
    Ok((ctxs, failed))
}

/// [`search`] as a [`body::SearchBody`], for writing the response straight to bytes.
pub fn search_body(
    cs: &ClusterService,
    expr: &str,
    opts: IndicesOptions,
    req: &SearchRequest,
) -> OsResult<body::SearchBody> {
    let resolved = terms_lookup::resolve(cs, req)?;
    let req = resolved.as_ref().unwrap_or(req);
    let (remote_shards, unavailable) = remote::remote_targets(cs, expr, opts, req)?;
    if !remote_shards.is_empty() {
        let (ctxs, failed) = across_targets(cs, expr, opts, req, &remote_shards, unavailable)?;
        return remote::search(cs, expr, req, ctxs, failed, remote_shards);
    }
    let (ctxs, failed) = targets(cs, expr, opts, req, unavailable)?;
    let mut b = execute::search_contexts_body(&ctxs, req)?;
    context::add_failed(&mut b.shards, &failed);
    Ok(b)
}

/// `_count` over an index expression.
pub fn count(cs: &ClusterService, expr: &str, opts: IndicesOptions, req: &SearchRequest) -> OsResult<Value> {
    let resolved = terms_lookup::resolve(cs, req)?;
    let req = resolved.as_ref().unwrap_or(req);
    let (remote_shards, unavailable) = remote::remote_targets(cs, expr, opts, req)?;
    if !remote_shards.is_empty() {
        let (ctxs, failed) = across_targets(cs, expr, opts, req, &remote_shards, unavailable)?;
        return remote::count(cs, expr, req, ctxs, failed, remote_shards);
    }
    let (ctxs, failed) = targets(cs, expr, opts, req, unavailable)?;
    let mut v = count::count_contexts(&ctxs, req)?;
    context::add_failed(&mut v["_shards"], &failed);
    Ok(v)
}

/// The REST error body of a search error: for `search_phase_execution_exception`, the shard
/// failures' causes are the `root_cause`, as OpenSearch prints them.
pub fn error_body(e: &OsError) -> Value {
    let mut body = e.to_body();
    if e.kind == ErrorKind::SearchPhaseExecution {
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
) -> OsResult<(Value, Deferred)> {
    let start = std::time::Instant::now();
    let mut deferred = Deferred::default();
    // Every item is read first: `rest_total_hits_as_int` with an inexact `track_total_hits`
    // fails the whole request (OpenSearch checks it while parsing, `checkRestTotalHits`);
    // other problems of an item are that item's error.
    let mut prepared = Vec::with_capacity(items.len());
    for (header, body) in items {
        let p = (|| -> OsResult<Result<(Value, String, IndicesOptions, SearchRequest), OsError>> {
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
                match crate::cluster::resolve::ExpandWildcards::parse(e) {
                    Ok(x) => o.expand = x,
                    Err(e) => return Ok(Err(e)),
                }
            }
            let mut req = match SearchRequest::from_body(body) {
                Ok(r) => r,
                Err(e) => return Ok(Err(e)),
            };
            if let Err(e) = apply(&mut req) {
                return Ok(Err(e));
            }
            if header.get("search_type").and_then(Value::as_str) == Some("dfs_query_then_fetch") {
                req.dfs = true;
            }
            req.finish()?;
            apply_cluster_limits(cs, &mut req);
            if let Err(e) = index_boost::resolve_request(cs, &mut req, o) {
                return Ok(Err(e));
            }
            Ok(Ok((header, index, o, req)))
        })()?;
        prepared.push(p);
    }
    let mut responses = Vec::with_capacity(prepared.len());
    for p in prepared {
        let r = p.and_then(|(header, index, o, req)| {
            let _warnings = WarningsInto(&req.warnings, &mut deferred);
            if let Some(p) = &req.pit {
                if header.get("index").is_some_and(|i| !i.is_null()) || default_index.is_some() {
                    return Err(OsError::validation(&[
                        "[indices] cannot be used with point in time. Do not specify any index with point in time."
                            .to_string(),
                    ]));
                }
                return remote_pit::search(cs, reg, p, &req);
            }
            search(cs, &index, o, &req)
        });
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
    Ok((json!({"took": start.elapsed().as_millis() as u64, "responses": responses}), deferred))
}

/// Moves a request's warnings into the answer's [`Deferred`] when dropped (on every return).
struct WarningsInto<'a>(&'a Warnings, &'a mut Deferred);

impl Drop for WarningsInto<'_> {
    fn drop(&mut self) {
        for w in self.0.take() {
            self.1.warn(w);
        }
    }
}
