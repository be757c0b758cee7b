//! `_reindex`, `{index}/_update_by_query`, `{index}/_delete_by_query` and their `_rethrottle`
//! endpoints (OpenSearch's `RestReindexAction`, `RestUpdateByQueryAction`,
//! `RestDeleteByQueryAction`, `RestRethrottleAction`).

use serde_json::{json, Value};

use super::{index_expr, indices_options};
use crate::action::documents::active_shards::{ActiveShardCount, DEFAULT_TIMEOUT};
use crate::action::documents::{ActiveWait, Refresh};
use crate::action::nodes_fanout::Gathered;
use crate::action::reindex::request::{self as rq, Job, Kind};
use crate::action::reindex::{self, Env};
use crate::action::tasks::list_response;
use crate::cluster::resolve::IndicesOptions;
use crate::error::{OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;
use crate::tasks::TaskId;

/// The node setting naming the remote hosts a reindex may read from.
pub const ALLOWLIST_SETTING: &str = "reindex.remote.allowlist";

fn env(node: &Node) -> Env {
    Env {
        cs: node.cluster.clone(),
        reg: node.reader_contexts.clone(),
        allowlist: node.settings.get(ALLOWLIST_SETTING).map(str::to_string),
    }
}

/// The parameters every bulk-by-scroll request reads (`AbstractBaseReindexRestHandler`).
fn common_params(job: &mut Job, req: &RestRequest) -> OsResult<()> {
    job.refresh = Refresh::parse(req.param("refresh"))? != Refresh::False;
    job.wait = ActiveWait {
        want: ActiveShardCount::parse(req.param("wait_for_active_shards"))?,
        timeout: req.time_param("timeout")?.unwrap_or(DEFAULT_TIMEOUT),
    };
    if let Some(rps) = rq::parse_rps(req.param("requests_per_second"))? {
        job.requests_per_second = rps;
    }
    job.slices = rq::parse_slices(req.param("slices"))?;
    if let Some(s) = req.time_param("scroll")? {
        job.scroll = s;
    }
    Ok(())
}

/// Runs the job in the foreground, or (`wait_for_completion=false`) as a background task whose
/// result lands in `.tasks`.
fn run(node: &Node, req: &RestRequest, job: Job, description: String) -> OsResult<RestResponse> {
    if let Some(t) = crate::tasks::current() {
        t.set_description(description.clone());
    }
    // Checked before the answer, in the background as in the foreground.
    job.validate()?;
    if let Some(r) = &job.remote {
        reindex::remote::check_allowlist(node.settings.get(ALLOWLIST_SETTING), r)?;
    }
    let env = env(node);
    if !req.bool_param("wait_for_completion", true)? {
        let id = crate::action::task_results::run_in_background(
            &node.cluster,
            &node.tasks,
            &node.pools.generic,
            job.kind.action(),
            description,
            move || reindex::execute(&env, &job).map(|(_, body)| body),
        )?;
        return Ok(RestResponse::ok(json!({ "task": id.to_string() })));
    }
    let (status, body) = reindex::execute(&env, &job)?;
    Ok(RestResponse::json(status, body))
}

fn do_reindex(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let body = req.required_json()?;
    let mut job = Job::new(Kind::Reindex);
    rq::parse_reindex_body(&mut job, &body)?;
    if let Some(m) = req.int_param("max_docs")? {
        job.set_max_docs(m)?;
    }
    common_params(&mut job, req)?;
    job.require_alias = req.bool_param("require_alias", false)?;
    let dest = job.dest.as_ref().map(|d| d.index.clone()).unwrap_or_default();
    let source = match &job.remote {
        Some(r) => format!("[host={} port={}] {:?}", r.host, r.port, job.source.split(',').collect::<Vec<_>>()),
        None => format!("{:?}", job.source.split(',').collect::<Vec<_>>()),
    };
    let description = format!("reindex from {} to [{dest}]", source.replace('"', ""));
    run(node, req, job, description)
}

/// The search parameters of a by-query request (`timeout` of the search is `search_timeout`;
/// `size` is the old name of `max_docs`; `scroll` and `scroll_size` are the scroll's).
fn search_param(req: &RestRequest, k: &str) -> Option<String> {
    match k {
        "size" | "scroll" | "from" => None,
        "timeout" => req.param("search_timeout").map(str::to_string),
        _ => req.param(k).map(str::to_string),
    }
}

fn by_query(node: &Node, req: &RestRequest, kind: Kind) -> OsResult<RestResponse> {
    let body = req.json()?;
    let mut job = Job::new(kind);
    if !body.is_null() || kind == Kind::DeleteByQuery {
        rq::parse_by_query_body(&mut job, &if body.is_null() { json!({}) } else { body })?;
    }
    job.search.apply_params(&|k: &str| search_param(req, k))?;
    job.source = index_expr(req);
    job.opts = indices_options(req, IndicesOptions::lenient_expand_open())?;
    if let Some(c) = req.param("conflicts") {
        job.set_conflicts(c)?;
    }
    if let Some(n) = req.int_param("size")? {
        job.set_max_docs(n)?;
    }
    if let Some(n) = req.int_param("max_docs")? {
        job.set_max_docs(n)?;
    }
    if let Some(n) = req.int_param("scroll_size")? {
        if n < 0 {
            return Err(OsError::illegal(format!("[scroll_size] parameter cannot be negative, found [{n}]")));
        }
        job.search.size = n as usize;
    }
    if let Some(n) = req.int_param("from")? {
        job.search.from = n.max(0) as usize;
    }
    job.routing = req.param("routing").map(str::to_string);
    job.pipeline = req.param("pipeline").map(str::to_string);
    common_params(&mut job, req)?;
    let indices = format!("[{}]", job.source.split(',').collect::<Vec<_>>().join(", "));
    let description = match kind {
        Kind::UpdateByQuery => format!("update-by-query {indices}"),
        _ => format!("delete-by-query {indices}"),
    };
    run(node, req, job, description)
}

fn update_by_query(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    by_query(node, req, Kind::UpdateByQuery)
}

fn delete_by_query(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    by_query(node, req, Kind::DeleteByQuery)
}

/// `POST /_reindex/{task_id}/_rethrottle` (and the by-query ones, which like OpenSearch's accept
/// any bulk-by-scroll task): the new rate, split over the slices; answers the task as `_tasks` lists it (grouped by `group_by`, default nodes).
fn rethrottle(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let rps = rq::parse_rps(req.param("requests_per_second"))?
        .ok_or_else(|| OsError::validation(&["requests_per_second must be set".to_string()]))?;
    let id = TaskId::parse(req.path_param("task_id").unwrap_or_default())?;
    if id.node != node.tasks.node_id() {
        return Err(OsError::illegal(format!("task [{id}] runs on another node: rethrottle it through that node")));
    }
    reindex::rethrottle(&id, rps)?;
    let infos: Vec<Value> = reindex::task_of(&node.tasks, &id)
        .map(|t| crate::tasks::info::task_info(node.tasks.node_id(), &t, true))
        .into_iter()
        .collect();
    let group = req.param("group_by").unwrap_or("nodes").to_string();
    Ok(RestResponse::ok(list_response(&node.cluster, infos, &Gathered::default(), &group)))
}

const REINDEX_P: &[&str] = &[
    "max_docs",
    "refresh",
    "requests_per_second",
    "scroll",
    "slices",
    "timeout",
    "wait_for_active_shards",
    "wait_for_completion",
    "require_alias",
];

const BY_QUERY_P: &[&str] = &[
    "analyzer",
    "analyze_wildcard",
    "default_operator",
    "df",
    "from",
    "ignore_unavailable",
    "allow_no_indices",
    "conflicts",
    "expand_wildcards",
    "lenient",
    "preference",
    "q",
    "routing",
    "scroll",
    "search_type",
    "search_timeout",
    "size",
    "max_docs",
    "sort",
    "_source",
    "_source_excludes",
    "_source_includes",
    "terminate_after",
    "stats",
    "version",
    "request_cache",
    "refresh",
    "timeout",
    "wait_for_active_shards",
    "scroll_size",
    "wait_for_completion",
    "requests_per_second",
    "slices",
];

const UPDATE_BY_QUERY_P: &[&str] = &[
    "analyzer",
    "analyze_wildcard",
    "default_operator",
    "df",
    "from",
    "ignore_unavailable",
    "allow_no_indices",
    "conflicts",
    "expand_wildcards",
    "lenient",
    "pipeline",
    "preference",
    "q",
    "routing",
    "scroll",
    "search_type",
    "search_timeout",
    "size",
    "max_docs",
    "sort",
    "_source",
    "_source_excludes",
    "_source_includes",
    "terminate_after",
    "stats",
    "version",
    "request_cache",
    "refresh",
    "timeout",
    "wait_for_active_shards",
    "scroll_size",
    "wait_for_completion",
    "requests_per_second",
    "slices",
];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(&[Post], "/_reindex", Kind::Reindex.action(), Pool::Write, REINDEX_P, do_reindex);
    r.add(
        &[Post],
        "/{index}/_update_by_query",
        Kind::UpdateByQuery.action(),
        Pool::Write,
        UPDATE_BY_QUERY_P,
        update_by_query,
    );
    r.add(&[Post], "/{index}/_delete_by_query", Kind::DeleteByQuery.action(), Pool::Write, BY_QUERY_P, delete_by_query);
    for p in [
        "/_reindex/{task_id}/_rethrottle",
        "/_update_by_query/{task_id}/_rethrottle",
        "/_delete_by_query/{task_id}/_rethrottle",
    ] {
        r.add(
            &[Post],
            p,
            "cluster:admin/reindex/rethrottle",
            Pool::Management,
            &["requests_per_second", "group_by"],
            rethrottle,
        );
    }
}
