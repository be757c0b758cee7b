//! Point in time, scroll and `_cat/pit_segments`: create, list and delete PITs; continue and
//! clear scrolls; the segments pinned by PITs. Searching with a PIT or opening a scroll goes
//! through `_search` (`search.rs`), which calls [`search_pit_or_scroll`].

use std::time::Duration;

use serde_json::Value;

use super::indices_options;
use crate::action::search::pit::{self, CreatePit};
use crate::action::search::pit_segments::{self, SegmentRow};
use crate::action::search::{remote_pit, remote_scroll, scroll, SearchRequest};
use crate::cluster::resolve::IndicesOptions;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::http::cat::{Cell, Table};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// Runs a `_search` that names a PIT or opens a scroll; `None` for a plain search.
pub fn search_pit_or_scroll(
    node: &Node,
    req: &RestRequest,
    r: &SearchRequest,
    o: IndicesOptions,
) -> Option<OsResult<Value>> {
    if let Some(p) = &r.pit {
        let mut errs = Vec::new();
        if r.scroll.is_some() {
            errs.push("using [point in time] is not allowed in a scroll context".to_string());
        }
        if req.path_param("index").is_some() {
            errs.push(
                "[indices] cannot be used with point in time. Do not specify any index with point in time.".to_string(),
            );
        }
        if ["expand_wildcards", "ignore_unavailable", "allow_no_indices"].iter().any(|k| req.has(k)) {
            errs.push("[indicesOptions] cannot be used with point in time".to_string());
        }
        if req.has("routing") {
            errs.push("[routing] cannot be used with point in time".to_string());
        }
        if req.has("preference") {
            errs.push("[preference] cannot be used with point in time".to_string());
        }
        if !errs.is_empty() {
            return Some(Err(OsError::validation(&errs)));
        }
        return Some(remote_pit::search(&node.cluster, &node.reader_contexts, p, r));
    }
    let keep_alive = r.scroll?;
    let expr = super::index_expr(req);
    Some(scroll::start(&node.cluster, &node.reader_contexts, &expr, o, r, keep_alive))
}

fn create_pit(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let o = indices_options(req, IndicesOptions::lenient_expand_open())?;
    // `allow_partial_pit_creation`: on one node every resolved shard is pinned or the creation
    // fails as a whole; across nodes the shards of a node that cannot be reached may fail.
    let allow_partial = req.bool_param("allow_partial_pit_creation", true)?;
    let p = CreatePit {
        keep_alive: req.time_param("keep_alive")?,
        routing: req.param("routing").map(str::to_string),
        allow_partial,
    };
    Ok(RestResponse::ok(pit::create(&node.cluster, &node.reader_contexts, &super::index_expr(req), o, &p)?))
}

fn all_pits(node: &Node, _: &RestRequest) -> OsResult<RestResponse> {
    let (status, body) = remote_pit::list(&node.cluster, &node.reader_contexts);
    Ok(RestResponse::json(status, body))
}

fn delete_pits(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let ids = pit::body_pit_ids(&req.json()?)?;
    Ok(RestResponse::ok(remote_pit::delete(&node.cluster, &node.reader_contexts, &ids)?))
}

fn delete_all_pits(node: &Node, _: &RestRequest) -> OsResult<RestResponse> {
    Ok(RestResponse::ok(remote_pit::delete_all(&node.cluster, &node.reader_contexts)?))
}

fn time(v: &str, key: &str) -> OsResult<Duration> {
    crate::cluster::settings::parse_time(v, key)
        .map_err(|_| {
            OsError::new(
                ErrorKind::Parse,
                format!(
                    "failed to parse setting [{key}] with value [{v}] as a time value: unit is missing or unrecognized"
                ),
            )
        })
        .map(|d| d.unwrap_or(Duration::ZERO))
}

fn scroll_next(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let body = req.json()?;
    if !matches!(body, Value::Null | Value::Object(_)) {
        return Err(OsError::parsing("Malformed content, must start with an object"));
    }
    let mut id = req.path_param("scroll_id").or_else(|| req.param("scroll_id")).map(str::to_string);
    let mut keep_alive = req.param("scroll").map(|s| time(s, "scroll")).transpose()?;
    if let Value::Object(m) = &body {
        for (k, v) in m {
            match (k.as_str(), v) {
                ("scroll_id", Value::String(s)) => id = Some(s.clone()),
                ("scroll", Value::String(s)) => keep_alive = Some(time(s, "scroll")?),
                (other, _) => {
                    return Err(OsError::illegal(format!(
                        "Unknown parameter [{other}] in request body or parameter is of the wrong type[{}] ",
                        type_name(v)
                    )))
                }
            }
        }
    }
    let id = id.filter(|s| !s.is_empty()).ok_or_else(|| OsError::validation(&["scrollId is missing".to_string()]))?;
    let rest_int =
        if req.has("rest_total_hits_as_int") { Some(req.bool_param("rest_total_hits_as_int", false)?) } else { None };
    match remote_scroll::next(&node.cluster, &node.reader_contexts, &id, keep_alive, rest_int) {
        Ok(v) => Ok(RestResponse::ok(v)),
        Err(e) if e.kind == ErrorKind::SearchPhaseExecution => {
            Ok(RestResponse::json(e.status, crate::action::search::error_body(&e)))
        }
        Err(e) => Err(e),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        Value::Number(_) => "VALUE_NUMBER",
        Value::Bool(_) => "VALUE_BOOLEAN",
        Value::Null => "VALUE_NULL",
        Value::String(_) => "VALUE_STRING",
    }
}

fn scroll_clear(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let mut ids: Vec<String> = req
        .path_param("scroll_id")
        .map(|s| s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect())
        .unwrap_or_default();
    let body = req.json()?;
    ids.extend(scroll::body_scroll_ids(&body)?);
    if ids.is_empty() {
        return Err(OsError::validation(&["no scroll ids specified".to_string()]));
    }
    let (status, v) = remote_scroll::clear(&node.cluster, &node.reader_contexts, &ids)?;
    Ok(RestResponse::json(status, v))
}

pub(crate) const PIT_SEGMENT_COLUMNS: &[(&str, &str)] = &[
    ("index", "default:true;alias:i,idx;desc:index name"),
    ("shard", "default:true;alias:s,sh;desc:shard name"),
    ("prirep", "alias:p,pr,primaryOrReplica;default:true;desc:primary or replica"),
    ("ip", "default:true;desc:ip of node where it lives"),
    ("id", "default:false;desc:unique id of node where it lives"),
    ("segment", "default:true;alias:seg;desc:segment name"),
    ("generation", "default:true;alias:g,gen;text-align:right;desc:segment generation"),
    ("docs.count", "default:true;alias:dc,docsCount;text-align:right;desc:number of docs in segment"),
    ("docs.deleted", "default:true;alias:dd,docsDeleted;text-align:right;desc:number of deleted docs in segment"),
    ("size", "default:true;alias:si;text-align:right;desc:segment size in bytes"),
    ("size.memory", "default:true;alias:sm,sizeMemory;text-align:right;desc:segment memory in bytes"),
    ("committed", "default:true;alias:ic,isCommitted;desc:is segment committed"),
    ("searchable", "default:true;alias:is,isSearchable;desc:is segment searched"),
    ("version", "default:true;alias:v,ver;desc:version"),
    ("compound", "default:true;alias:ico,isCompound;desc:is segment compound"),
];

/// The Lucene version OpenSearch 3.3 reports for its segments.
pub(crate) const SEGMENT_VERSION: &str = "10.3.1";

fn segments_table(rows: Vec<SegmentRow>) -> Table {
    let mut t = Table::with_columns(PIT_SEGMENT_COLUMNS);
    for r in rows {
        t.rows.push(vec![
            Cell::from(r.index.as_str()),
            Cell::Int(i64::from(r.shard)),
            Cell::from("p"),
            Cell::from(r.ip.as_str()),
            Cell::from(r.node_id.as_str()),
            Cell::from(r.segment),
            Cell::Int(r.generation as i64),
            Cell::Int(r.docs_count as i64),
            Cell::Int(r.docs_deleted as i64),
            Cell::Bytes(r.size),
            Cell::Int(0),
            Cell::from(r.committed.to_string()),
            Cell::from("true"),
            Cell::from(SEGMENT_VERSION),
            Cell::from("false"),
        ]);
    }
    t
}

fn cat_pit_segments(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let rows = if req.path.ends_with("/_all") {
        pit_segments::segments(&node.cluster, &node.reader_contexts, None)?
    } else {
        let ids = pit::body_pit_ids(&req.json()?)?;
        pit_segments::segments(&node.cluster, &node.reader_contexts, Some(&ids))?
    };
    segments_table(rows).respond(req)
}

const CREATE_P: &[&str] = &[
    "keep_alive",
    "preference",
    "routing",
    "expand_wildcards",
    "allow_partial_pit_creation",
    "ignore_unavailable",
    "allow_no_indices",
];
const SCROLL_P: &[&str] = &["scroll", "scroll_id", "rest_total_hits_as_int"];
const CAT_P: &[&str] =
    &["format", "h", "help", "s", "v", "bytes", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(
        &[Post],
        "/{index}/_search/point_in_time",
        "indices:data/read/point_in_time/create",
        Pool::Search,
        CREATE_P,
        create_pit,
    );
    r.add(
        &[Get],
        "/_search/point_in_time/_all",
        "indices:data/read/point_in_time/readall",
        Pool::Search,
        &[],
        all_pits,
    );
    r.add(
        &[Delete],
        "/_search/point_in_time",
        "indices:data/read/point_in_time/delete",
        Pool::Search,
        &[],
        delete_pits,
    );
    r.add(
        &[Delete],
        "/_search/point_in_time/_all",
        "indices:data/read/point_in_time/delete",
        Pool::Search,
        &[],
        delete_all_pits,
    );
    for p in ["/_search/scroll", "/_search/scroll/{scroll_id}"] {
        r.add(&[Get, Post], p, "indices:data/read/scroll", Pool::Search, SCROLL_P, scroll_next);
        r.add(&[Delete], p, "indices:data/read/scroll/clear", Pool::Search, &[], scroll_clear);
    }
    for p in ["/_cat/pit_segments", "/_cat/pit_segments/_all"] {
        r.add(&[Get], p, "indices:monitor/point_in_time/segments", Pool::Management, CAT_P, cat_pit_segments);
    }
}
