//! Index APIs.

use super::{index_expr, indices_options};
use crate::action::indices::{self, Broadcast};
use crate::cluster::resolve::{ExpandWildcards, IndicesOptions};
use crate::error::{OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

const fn opts(
    ignore_unavailable: bool,
    allow_no_indices: bool,
    open: bool,
    closed: bool,
    forbid_closed: bool,
) -> IndicesOptions {
    IndicesOptions {
        ignore_unavailable,
        allow_no_indices,
        expand: ExpandWildcards { open, closed, hidden: false },
        forbid_closed,
    }
}

const MASTER: &[&str] = &["timeout", "master_timeout", "cluster_manager_timeout"];

fn create(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let name = req.path_param("index").unwrap_or_default();
    let body = req.json()?;
    let (created, deferred) = indices::create(&node.cluster, name, &body)?;
    Ok(RestResponse::ok(created).with_deferred(deferred))
}

fn delete(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, true, false))?;
    Ok(RestResponse::ok(indices::delete(&node.cluster, &index_expr(req), o)?))
}

fn get(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, false, false))?;
    let expr = index_expr(req);
    if req.method == Method::Head {
        let o = IndicesOptions { allow_no_indices: req.bool_param("allow_no_indices", false)?, ..o };
        return Ok(RestResponse::status(if indices::exists(&node.cluster, &expr, o) { 200 } else { 404 }));
    }
    let flat = req.bool_param("flat_settings", false)?;
    let defaults = req.bool_param("include_defaults", false)?;
    Ok(RestResponse::ok(indices::get(&node.cluster, &expr, o, flat, defaults)?))
}

/// `wait_for_completion=false` answers with a task to poll; the requests that do not run in
/// the background yet refuse it instead of running in the foreground as if it were not there.
fn refuse_background(req: &RestRequest) -> OsResult<()> {
    if !req.bool_param("wait_for_completion", true)? {
        return Err(OsError::illegal(
            "[wait_for_completion=false] is not supported yet: Fathom has no task management API to report the task to",
        ));
    }
    Ok(())
}

/// `Arrays.toString` of the request's index expression (task descriptions).
fn indices_list(expr: &str) -> String {
    format!("[{}]", expr.split(',').collect::<Vec<_>>().join(", "))
}

/// Runs `work` as the background task `action` (`wait_for_completion=false`): answers
/// `{"task": "node:id"}` at once; the result lands in `.tasks`.
fn in_background(
    node: &Node,
    action: &'static str,
    description: String,
    work: impl FnOnce() -> OsResult<serde_json::Value> + Send + 'static,
) -> OsResult<RestResponse> {
    let pool = &node.pools.generic;
    let id =
        crate::action::task_results::run_in_background(&node.cluster, &node.tasks, pool, action, description, work)?;
    Ok(RestResponse::ok(serde_json::json!({ "task": id.to_string() })))
}

fn open(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, false, true, false))?;
    let expr = index_expr(req);
    let description = format!("open indices {}", indices_list(&expr));
    if let Some(t) = crate::tasks::current() {
        t.set_description(description.clone());
    }
    if !req.bool_param("wait_for_completion", true)? {
        let cs = node.cluster.clone();
        return in_background(node, "indices:admin/open", description, move || indices::open(&cs, &expr, o));
    }
    Ok(RestResponse::ok(indices::open(&node.cluster, &expr, o)?))
}

fn close(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, false, false))?;
    refuse_background(req)?;
    Ok(RestResponse::ok(indices::close(&node.cluster, &index_expr(req), o)?))
}

fn resolve_index(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    // `ResolveIndexAction.Request.DEFAULT_INDICES_OPTIONS`: strict, open indices.
    let expand = match req.param("expand_wildcards") {
        Some(e) => ExpandWildcards::parse(e)?,
        None => ExpandWildcards { open: true, closed: false, hidden: false },
    };
    let name = req.path_param("name").unwrap_or("*");
    Ok(RestResponse::ok(crate::action::resolve_index::resolve_index(&node.cluster.metadata(), name, expand)?))
}

fn refresh(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, false, true))?;
    Ok(RestResponse::ok(indices::broadcast(&node.cluster, &index_expr(req), o, Broadcast::Refresh)?))
}

fn flush(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, false, true))?;
    // `FlushRequest.validate`. A flush here always commits (what `force` asks for) and waits for
    // one in progress (the shard's flush lock), so `wait_if_ongoing=true` is what runs.
    if req.bool_param("force", false)? && !req.bool_param("wait_if_ongoing", true)? {
        return Err(OsError::validation(&["wait_if_ongoing must be true for a force flush".into()]));
    }
    Ok(RestResponse::ok(indices::broadcast(&node.cluster, &index_expr(req), o, Broadcast::Flush)?))
}

fn forcemerge(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, false, true))?;
    let background = !req.bool_param("wait_for_completion", true)?;
    let max = req.int_param("max_num_segments")?.unwrap_or(1);
    if max < 1 && max != -1 {
        return Err(OsError::validation(&[format!("max_num_segments must be >= 1 or -1, got {max}")]));
    }
    let only_expunge = req.bool_param("only_expunge_deletes", false)?;
    // `RestForceMergeAction`: accepted with a deprecation warning.
    let warning = (only_expunge && max != -1).then_some(
        "setting only_expunge_deletes and max_num_segments at the same time is deprecated and will be rejected in a future version",
    );
    // `ForceMergeRequest.getDescription` (3.3: before the `upgrade` flag joined it).
    let expr = index_expr(req);
    let description = format!(
        "Force-merge indices {}, maxSegments[{max}], onlyExpungeDeletes[{only_expunge}], flush[{}], primaryOnly[{}]",
        indices_list(&expr),
        req.bool_param("flush", true)?,
        req.bool_param("primary_only", false)?
    );
    if let Some(t) = crate::tasks::current() {
        t.set_description(description.clone());
    }
    let max = if max == -1 { 1 } else { max as usize };
    let merge = Broadcast::ForceMerge { max_num_segments: max };
    if background {
        let cs = node.cluster.clone();
        return in_background(node, "indices:admin/forcemerge", description, move || {
            indices::broadcast(&cs, &expr, o, merge)
        });
    }
    let merged = indices::broadcast(&node.cluster, &expr, o, merge)?;
    let resp = RestResponse::ok(merged);
    Ok(match warning {
        Some(w) => resp.warn(w),
        None => resp,
    })
}

fn clear_cache(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, false, true))?;
    let expr = req.param("index").map(str::to_string).unwrap_or_else(|| index_expr(req));
    // OpenSearch's RestClearIndicesCacheAction: no cache named clears them all; `fields` names
    // the fielddata fields to clear (fielddata then).
    let (mut query, mut request, mut fielddata) =
        (req.bool_param("query", false)?, req.bool_param("request", false)?, req.bool_param("fielddata", false)?);
    let fields: Option<Vec<String>> = req
        .param("fields")
        .filter(|f| !f.is_empty())
        .map(|f| f.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect());
    fielddata |= fields.is_some();
    let file = req.bool_param("file", false)?;
    if !query && !request && !fielddata && !file {
        (query, request, fielddata) = (true, true, true);
    }
    let op = Broadcast::ClearCache { query, request, fielddata, fields };
    Ok(RestResponse::ok(indices::broadcast(&node.cluster, &expr, o, op)?))
}

fn get_mapping(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, false, false))?;
    Ok(RestResponse::ok(indices::get_mapping(&node.cluster, &index_expr(req), o)?))
}

fn put_mapping(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, false, true, true, false))?;
    let body = req.required_json()?;
    let write_only = req.bool_param("write_index_only", false)?;
    Ok(RestResponse::ok(indices::put_mapping(&node.cluster, &index_expr(req), o, write_only, &body)?))
}

fn get_settings(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, true, false))?;
    // `paramAsStringArrayOrEmptyIfAll("name")`: `_all` filters nothing.
    let names: Option<Vec<String>> =
        req.path_param("name").filter(|n| *n != "_all").map(|n| n.split(',').map(str::to_string).collect());
    let flat = req.bool_param("flat_settings", false)?;
    let defaults = req.bool_param("include_defaults", false)?;
    Ok(RestResponse::ok(indices::get_settings(&node.cluster, &index_expr(req), o, names.as_deref(), flat, defaults)?))
}

fn put_settings(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, false, true, true, false))?;
    let body = req.required_json()?;
    let preserve = req.bool_param("preserve_existing", false)?;
    Ok(RestResponse::ok(indices::put_settings(&node.cluster, &index_expr(req), o, &body, preserve)?))
}

fn add_block(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, opts(false, true, true, false, false))?;
    let block = req.path_param("block").unwrap_or_default();
    Ok(RestResponse::ok(indices::add_block(&node.cluster, &index_expr(req), o, block)?))
}

const OPTS: &[&str] = &["ignore_unavailable", "allow_no_indices", "expand_wildcards"];

// Parameter lists are spelled out per route (OpenSearch's rest-api-spec).
const CREATE_P: &[&str] =
    &["wait_for_active_shards", "timeout", "master_timeout", "cluster_manager_timeout", "include_type_name"];
const DELETE_P: &[&str] = &[
    "timeout",
    "master_timeout",
    "cluster_manager_timeout",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];
const GET_P: &[&str] = &[
    "local",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
    "flat_settings",
    "include_defaults",
    "master_timeout",
    "cluster_manager_timeout",
];
const OPEN_P: &[&str] = &[
    "timeout",
    "master_timeout",
    "cluster_manager_timeout",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
    "wait_for_active_shards",
    "wait_for_completion",
    "task_execution_timeout",
];
const REFRESH_P: &[&str] = &["ignore_unavailable", "allow_no_indices", "expand_wildcards"];
const FLUSH_P: &[&str] = &["force", "wait_if_ongoing", "ignore_unavailable", "allow_no_indices", "expand_wildcards"];
const FM_P: &[&str] = &[
    "flush",
    "max_num_segments",
    "only_expunge_deletes",
    "wait_for_completion",
    "primary_only",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];
const CACHE_P: &[&str] = &[
    "fielddata",
    "fields",
    "query",
    "request",
    "file",
    "index",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];
const GET_MAPPING_P: &[&str] = &[
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
    "master_timeout",
    "cluster_manager_timeout",
    "local",
];
const PUT_MAPPING_P: &[&str] = &[
    "timeout",
    "master_timeout",
    "cluster_manager_timeout",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
    "write_index_only",
];
const GET_SETTINGS_P: &[&str] = &[
    "flat_settings",
    "include_defaults",
    "local",
    "master_timeout",
    "cluster_manager_timeout",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];
const ADD_BLOCK_P: &[&str] = &[
    "timeout",
    "master_timeout",
    "cluster_manager_timeout",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];
const PUT_SETTINGS_P: &[&str] = &[
    "preserve_existing",
    "flat_settings",
    "timeout",
    "master_timeout",
    "cluster_manager_timeout",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
];

/// Registers the routes.
pub fn register(r: &mut Router) {
    let _ = (OPTS, MASTER);
    use Method::*;
    r.add(&[Put], "/{index}", "indices:admin/create", Pool::Management, CREATE_P, create);
    r.add(&[Delete], "/{index}", "indices:admin/delete", Pool::Management, DELETE_P, delete);
    r.add(&[Get, Head], "/{index}", "indices:admin/get", Pool::Management, GET_P, get);
    r.add(&[Post], "/{index}/_open", "indices:admin/open", Pool::Management, OPEN_P, open);
    r.add(&[Post], "/{index}/_close", "indices:admin/close", Pool::Management, OPEN_P, close);
    r.add(
        &[Get],
        "/_resolve/index/{name}",
        "indices:admin/resolve/index",
        Pool::Management,
        &["expand_wildcards"],
        resolve_index,
    );
    for p in ["/_refresh", "/{index}/_refresh"] {
        r.add(&[Get, Post], p, "indices:admin/refresh", Pool::Refresh, REFRESH_P, refresh);
    }
    for p in ["/_flush", "/{index}/_flush"] {
        r.add(&[Get, Post], p, "indices:admin/flush", Pool::Flush, FLUSH_P, flush);
    }
    for p in ["/_forcemerge", "/{index}/_forcemerge"] {
        r.add(&[Post], p, "indices:admin/forcemerge", Pool::ForceMerge, FM_P, forcemerge);
    }
    for p in ["/_cache/clear", "/{index}/_cache/clear"] {
        r.add(&[Post], p, "indices:admin/cache/clear", Pool::Management, CACHE_P, clear_cache);
    }
    for p in ["/_mapping", "/{index}/_mapping"] {
        r.add(&[Get], p, "indices:admin/mappings/get", Pool::Management, GET_MAPPING_P, get_mapping);
    }
    r.add(&[Put, Post], "/{index}/_mapping", "indices:admin/mapping/put", Pool::Management, PUT_MAPPING_P, put_mapping);
    for p in ["/_settings", "/{index}/_settings", "/{index}/_settings/{name}", "/_settings/{name}"] {
        r.add(&[Get], p, "indices:monitor/settings/get", Pool::Management, GET_SETTINGS_P, get_settings);
    }
    for p in ["/_settings", "/{index}/_settings"] {
        r.add(&[Put], p, "indices:admin/settings/update", Pool::Management, PUT_SETTINGS_P, put_settings);
    }
    r.add(&[Put], "/{index}/_block/{block}", "indices:admin/block/add", Pool::Management, ADD_BLOCK_P, add_block);
}
