//! Document APIs: `_doc`, `_create`, `_source`, `_update`, `_bulk`, `_mget`.

use serde_json::Value;

use crate::action::bulk::{self, BulkDefaults};
use crate::action::documents::active_shards::{ActiveShardCount, DEFAULT_TIMEOUT};
use crate::action::documents::mget::MgetDefaults;
use crate::action::documents::{
    self, parse_version_type, ActiveWait, DeleteRequest, GetRequest, IndexRequest, Refresh,
};
use crate::action::source_filter::SourceFilter;
use crate::action::update::{self, UpdateRequest};
use crate::error::{ErrorKind, OsError, OsResult};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;
use crate::shard::versioning::{Constraints, VersionType};

fn constraints(req: &RestRequest) -> OsResult<Constraints> {
    let c = Constraints {
        if_seq_no: req.int_param("if_seq_no")?,
        if_primary_term: req.int_param("if_primary_term")?.map(|v| v.max(0) as u64),
        version: req.int_param("version")?,
        version_type: parse_version_type(req.param("version_type"))?,
        create: false,
    };
    if c.version.is_some() && c.version_type == VersionType::Internal {
        return Err(OsError::validation(&[
            "internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead".into(),
        ]));
    }
    if c.if_seq_no.is_some() && c.version_type != VersionType::Internal {
        return Err(OsError::validation(&[
            "compare and write operations can not be used with version type [external]".into(),
        ]));
    }
    Ok(c)
}

/// `wait_for_active_shards` and `timeout` (default 1m; `-1` is bounded to the default too).
fn active_wait(req: &RestRequest) -> OsResult<ActiveWait> {
    let want = ActiveShardCount::parse(req.param("wait_for_active_shards"))?;
    let timeout = req.time_param("timeout")?.unwrap_or(DEFAULT_TIMEOUT);
    Ok(ActiveWait { want, timeout })
}

fn index_doc(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let mut c = constraints(req)?;
    let create_path = req.path.contains("/_create/");
    match req.param("op_type") {
        None | Some("index") => {}
        Some("create") => c.create = true,
        Some(other) => return Err(OsError::illegal(format!("opType must be 'create' or 'index', found: [{other}]"))),
    }
    if create_path {
        c.create = true;
    }
    if !req.has_body() {
        return Err(OsError::validation(&["source is missing".into(), "content type is missing".into()]));
    }
    let id = req.path_param("id").map(str::to_string);
    if id.is_none() && c.create && req.param("op_type") == Some("create") && !create_path {
        // POST with op_type=create and no id: an auto-generated id is always a create.
    }
    let r = IndexRequest {
        index: req.path_param("index").unwrap_or_default().to_string(),
        id,
        routing: req.param("routing").map(str::to_string),
        source: req.body.to_vec(),
        constraints: c,
        refresh: Refresh::parse(req.param("refresh"))?,
        require_alias: req.bool_param("require_alias", false)?,
        pipeline: req.param("pipeline").map(str::to_string),
        wait: active_wait(req)?,
    };
    let o = documents::index(&node.cluster, r)?;
    Ok(RestResponse::json(o.status, documents::write_response(&o)).with_deferred(o.deferred))
}

/// `_source`, `_source_includes`, `_source_excludes` as OpenSearch's
/// `FetchSourceContext.parseFromRestRequest` reads them: `None` when none is given.
fn source_filter(req: &RestRequest) -> Option<SourceFilter> {
    if req.has("_source") || req.has("_source_includes") || req.has("_source_excludes") {
        Some(SourceFilter::from_params(
            req.param("_source"),
            req.param("_source_includes"),
            req.param("_source_excludes"),
        ))
    } else {
        None
    }
}

fn get_request(req: &RestRequest) -> OsResult<GetRequest> {
    let vt = parse_version_type(req.param("version_type"))?;
    Ok(GetRequest {
        index: req.path_param("index").unwrap_or_default().to_string(),
        id: req.path_param("id").unwrap_or_default().to_string(),
        routing: req.param("routing").map(str::to_string),
        source: source_filter(req),
        stored_fields: req.list_param("stored_fields"),
        version: req.int_param("version")?,
        version_type: vt,
        refresh: req.bool_param("refresh", false)?,
        not_realtime: !req.bool_param("realtime", true)?,
        preference: req.param("preference").map(str::to_string),
    })
}

fn get_doc(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let g = get_request(req)?;
    let (found, body) = documents::get(&node.cluster, &g)?;
    if req.method == Method::Head {
        return Ok(RestResponse::status(if found { 200 } else { 404 }));
    }
    Ok(RestResponse::json(if found { 200 } else { 404 }, body))
}

fn get_source(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let g = get_request(req)?;
    if g.source.as_ref().is_some_and(|f| f.disabled) {
        return Err(OsError::validation(&["fetching source can not be disabled".into()]));
    }
    let (found, body) = documents::get(&node.cluster, &g)?;
    let index = body.get("_index").and_then(Value::as_str).unwrap_or(&g.index).to_string();
    let source = body.get("_source").filter(|_| found);
    if req.method == Method::Head {
        return Ok(RestResponse::status(if source.is_some() { 200 } else { 404 }));
    }
    match source {
        Some(s) => Ok(RestResponse::ok(s.clone())),
        None if !found => {
            Err(OsError::new(ErrorKind::ResourceNotFound, format!("Document not found [{index}]/[{}]", g.id)))
        }
        None => Err(OsError::new(ErrorKind::ResourceNotFound, format!("Source not found [{index}]/[{}]", g.id))),
    }
}

fn delete_doc(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let r = DeleteRequest {
        index: req.path_param("index").unwrap_or_default().to_string(),
        id: req.path_param("id").unwrap_or_default().to_string(),
        routing: req.param("routing").map(str::to_string),
        constraints: constraints(req)?,
        refresh: Refresh::parse(req.param("refresh"))?,
        wait: active_wait(req)?,
    };
    let o = documents::delete(&node.cluster, r)?;
    Ok(RestResponse::json(o.status, documents::write_response(&o)).with_deferred(o.deferred))
}

fn update_doc(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    // `RestUpdateAction`: versioned updates are refused before anything else.
    if req.has("version") || req.has("version_type") {
        return Err(OsError::validation(&[
            "internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead".into(),
        ]));
    }
    let mut u = UpdateRequest {
        index: req.path_param("index").unwrap_or_default().to_string(),
        id: req.path_param("id").unwrap_or_default().to_string(),
        routing: req.param("routing").map(str::to_string),
        retry_on_conflict: req.int_param("retry_on_conflict")?.unwrap_or(0).max(0) as u32,
        if_seq_no: req.int_param("if_seq_no")?,
        if_primary_term: req.int_param("if_primary_term")?.map(|v| v.max(0) as u64),
        refresh: Refresh::parse(req.param("refresh"))?,
        require_alias: req.bool_param("require_alias", false)?,
        wait: active_wait(req)?,
        ..Default::default()
    };
    let body = req.required_json()?;
    u.apply_body(&body)?;
    if let Some(f) = source_filter(req) {
        u.source = Some(f);
    }
    let (o, get) = update::update(&node.cluster, &u)?;
    let resp = RestResponse::json(o.status, update::response(&o, get));
    Ok(resp.with_deferred(o.deferred))
}

fn bulk_docs(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    // `batch_size` (how many documents go through ingest at once) changes nothing here:
    // pipelines run per document; only its validation is OpenSearch's.
    if req.int_param("batch_size")?.is_some_and(|b| b < 1) {
        return Err(OsError::validation(&["batch size must be greater than 0".into()]));
    }
    let d = BulkDefaults {
        index: req.path_param("index").map(str::to_string),
        routing: req.param("routing").map(str::to_string),
        pipeline: req.param("pipeline").map(str::to_string),
        require_alias: req.bool_param("require_alias", false)?,
        refresh: Refresh::parse(req.param("refresh"))?,
        source: source_filter(req),
        wait: active_wait(req)?,
        forwarded: false,
    };
    let (body, deferred) = bulk::bulk(&node.cluster, &req.body, &d)?;
    Ok(RestResponse::raw_json(200, body).with_deferred(deferred))
}

fn mget(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let body = req.required_json()?;
    let d = MgetDefaults {
        index: req.path_param("index").map(str::to_string),
        stored_fields: req.list_param("stored_fields"),
        source: source_filter(req),
        routing: req.param("routing").map(str::to_string),
        refresh: req.bool_param("refresh", false)?,
        not_realtime: !req.bool_param("realtime", true)?,
    };
    let mut items = documents::mget::parse(&body, &d)?;
    for g in &mut items {
        g.preference = req.param("preference").map(str::to_string);
    }
    Ok(RestResponse::ok(documents::mget::mget(&node.cluster, &items)))
}

const INDEX_P: &[&str] = &[
    "if_seq_no",
    "if_primary_term",
    "op_type",
    "pipeline",
    "refresh",
    "routing",
    "timeout",
    "version",
    "version_type",
    "wait_for_active_shards",
    "require_alias",
];
const GET_P: &[&str] = &[
    "stored_fields",
    "preference",
    "realtime",
    "refresh",
    "routing",
    "_source",
    "_source_excludes",
    "_source_includes",
    "version",
    "version_type",
];
const GET_SOURCE_P: &[&str] = &[
    "preference",
    "realtime",
    "refresh",
    "routing",
    "_source",
    "_source_excludes",
    "_source_includes",
    "version",
    "version_type",
];
const DELETE_P: &[&str] = &[
    "if_seq_no",
    "if_primary_term",
    "refresh",
    "routing",
    "timeout",
    "version",
    "version_type",
    "wait_for_active_shards",
];
const UPDATE_P: &[&str] = &[
    "if_seq_no",
    "if_primary_term",
    "lang",
    "refresh",
    "require_alias",
    "retry_on_conflict",
    "routing",
    "timeout",
    "wait_for_active_shards",
    "_source",
    "_source_excludes",
    "_source_includes",
    "version",
    "version_type",
];
const BULK_P: &[&str] = &[
    "pipeline",
    "refresh",
    "require_alias",
    "routing",
    "timeout",
    "wait_for_active_shards",
    "_source",
    "_source_excludes",
    "_source_includes",
    "type",
    "batch_size",
];
const MGET_P: &[&str] = &[
    "stored_fields",
    "preference",
    "realtime",
    "refresh",
    "routing",
    "_source",
    "_source_excludes",
    "_source_includes",
];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(&[Put, Post], "/{index}/_doc/{id}", "indices:data/write/index", Pool::Write, INDEX_P, index_doc);
    r.add(&[Post], "/{index}/_doc", "indices:data/write/index", Pool::Write, INDEX_P, index_doc);
    r.add(&[Put, Post], "/{index}/_create/{id}", "indices:data/write/index", Pool::Write, INDEX_P, index_doc);
    r.add(&[Get, Head], "/{index}/_doc/{id}", "indices:data/read/get", Pool::Get, GET_P, get_doc);
    r.add(&[Get, Head], "/{index}/_source/{id}", "indices:data/read/get", Pool::Get, GET_SOURCE_P, get_source);
    r.add(&[Delete], "/{index}/_doc/{id}", "indices:data/write/delete", Pool::Write, DELETE_P, delete_doc);
    r.add(&[Post], "/{index}/_update/{id}", "indices:data/write/update", Pool::Write, UPDATE_P, update_doc);
    for p in ["/_bulk", "/{index}/_bulk"] {
        r.add(&[Post, Put], p, "indices:data/write/bulk", Pool::Write, BULK_P, bulk_docs);
    }
    for p in ["/_mget", "/{index}/_mget"] {
        r.add(&[Get, Post], p, "indices:data/read/mget", Pool::Get, MGET_P, mget);
    }
}
