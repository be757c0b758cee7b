//! `POST {index}/_update/{id}`: partial documents (`doc`, merged), scripts, upserts, noop
//! detection and retries on version conflicts, as OpenSearch's `UpdateHelper` does it.

use crate::clock::now_millis;
use serde_json::{json, Map, Value};

use super::deferred::Deferred;
use super::documents::{
    active_shards, delete_in, doc_error, index_into, shards_total, sync_and_refresh, write_target, ActiveWait, Refresh,
    WriteOutcome,
};
use super::script_glue::{Script, UpdateContext};
use super::source_filter::SourceFilter;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::shard::versioning::{check_seq_no, Constraints, Current};

/// An update request.
#[derive(Debug, Clone, Default)]
pub struct UpdateRequest {
    pub index: String,
    pub id: String,
    pub routing: Option<String>,
    pub doc: Option<Value>,
    pub script: Option<Value>,
    pub upsert: Option<Value>,
    pub doc_as_upsert: bool,
    pub scripted_upsert: bool,
    pub detect_noop: bool,
    pub retry_on_conflict: u32,
    pub if_seq_no: Option<i64>,
    pub if_primary_term: Option<u64>,
    pub refresh: Refresh,
    pub source: Option<SourceFilter>,
    pub require_alias: bool,
    /// `wait_for_active_shards`/`timeout`, checked once before the first attempt.
    pub wait: ActiveWait,
    /// The ingest pipeline of a bulk update item (for its upsert).
    pub pipeline: Option<String>,
}

impl UpdateRequest {
    /// Reads the body keys (`doc`, `script`, `upsert`, `doc_as_upsert`, `scripted_upsert`,
    /// `detect_noop`, `_source`).
    pub fn apply_body(&mut self, body: &Value) -> OsResult<()> {
        let Some(m) = body.as_object() else {
            return Err(OsError::parsing("request body is required"));
        };
        self.detect_noop = true;
        for (k, v) in m {
            match k.as_str() {
                "doc" => self.doc = Some(v.clone()),
                "script" => self.script = Some(v.clone()),
                "upsert" => self.upsert = Some(v.clone()),
                "doc_as_upsert" => self.doc_as_upsert = v.as_bool().unwrap_or(false),
                "scripted_upsert" => self.scripted_upsert = v.as_bool().unwrap_or(false),
                "detect_noop" => self.detect_noop = v.as_bool().unwrap_or(true),
                "_source" => self.source = Some(SourceFilter::from_json(v).map_err(OsError::parsing)?),
                "if_seq_no" => self.if_seq_no = v.as_i64(),
                "if_primary_term" => self.if_primary_term = v.as_u64(),
                other => {
                    let known = [
                        "doc",
                        "script",
                        "upsert",
                        "doc_as_upsert",
                        "scripted_upsert",
                        "detect_noop",
                        "_source",
                        "if_seq_no",
                        "if_primary_term",
                    ];
                    return Err(OsError::new(
                        ErrorKind::XContentParse,
                        format!(
                            "[1:2] [UpdateRequest] unknown field [{other}]{}",
                            crate::error::did_you_mean(other, &known, 0.5)
                        ),
                    ));
                }
            }
        }
        let errors = self.validate();
        if !errors.is_empty() {
            return Err(OsError::validation(&errors));
        }
        Ok(())
    }
}

impl UpdateRequest {
    /// The checks of OpenSearch's `UpdateRequest.validate`, in its order.
    pub fn validate(&self) -> Vec<String> {
        let mut errors = Vec::new();
        match (self.if_seq_no, self.if_primary_term) {
            (Some(_), None | Some(0)) => errors.push("ifSeqNo is set, but primary term is [0]".to_string()),
            (None, Some(t)) if t != 0 => errors.push(format!("ifSeqNo is unassigned, but primary term is [{t}]")),
            _ => {}
        }
        if self.if_seq_no.is_some() {
            if self.retry_on_conflict > 0 {
                errors.push("compare and write operations can not be retried".to_string());
            }
            if self.doc_as_upsert {
                errors.push("compare and write operations can not be used with upsert".to_string());
            }
            if self.upsert.is_some() {
                errors.push("upsert requests don't support `if_seq_no` and `if_primary_term`".to_string());
            }
        }
        if self.doc.is_none() && self.script.is_none() {
            errors.push("script or doc is missing".to_string());
        }
        if self.doc.is_some() && self.script.is_some() {
            errors.push("can't provide both script and doc".to_string());
        }
        if self.doc.is_none() && self.doc_as_upsert {
            errors.push("doc must be specified if doc_as_upsert is enabled".to_string());
        }
        errors
    }
}

/// Deep-merges `changes` into `source` (objects merge, anything else replaces); returns whether
/// anything changed.
pub fn merge_doc(source: &mut Map<String, Value>, changes: &Map<String, Value>) -> bool {
    let mut changed = false;
    for (k, v) in changes {
        match (source.get_mut(k), v) {
            (Some(Value::Object(old)), Value::Object(new)) => changed |= merge_doc(old, new),
            (Some(old), new) => {
                if old != new {
                    *old = new.clone();
                    changed = true;
                }
            }
            (None, new) => {
                source.insert(k.clone(), new.clone());
                changed = true;
            }
        }
    }
    changed
}

/// The result of an update: the outcome and, for `_source` in the request, the `get` object.
pub fn update(cs: &ClusterService, req: &UpdateRequest) -> OsResult<(WriteOutcome, Option<Value>)> {
    let script = match &req.script {
        Some(s) => Some(Script::from_request(s).map_err(|e| e.to_os_error())?),
        None => None,
    };
    cs.await_global_unblocked(crate::cluster::blocks::Level::Write, req.wait.timeout)?;
    if !req.wait.want.trivially_met() {
        let svc = write_target(cs, &req.index, req.require_alias)?;
        let shard = svc.route(req.routing.as_deref().unwrap_or(&req.id))?.clone();
        req.wait.check(cs, &svc, shard.id, || {
            active_shards::describe_shard_request(
                &svc.name,
                shard.id,
                1,
                &active_shards::describe_update(&svc.name, req),
                req.refresh,
            )
        })?;
    }
    let mut attempt = 0;
    loop {
        match update_once(cs, req, script.as_ref()) {
            Err(e)
                if e.kind == ErrorKind::VersionConflictEngine
                    && attempt < req.retry_on_conflict
                    && req.if_seq_no.is_none() =>
            {
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// Runs the ingest pipelines that apply to the source an update writes; `None` when one
/// dropped the document.
fn ingest(
    cs: &ClusterService,
    req: &UpdateRequest,
    index: &str,
    op_type: &str,
    body: Vec<u8>,
    pipeline: Option<&str>,
) -> OsResult<Option<Vec<u8>>> {
    let w = super::ingest::WriteDoc {
        index,
        id: Some(&req.id),
        routing: req.routing.as_deref(),
        op_type: Some(op_type),
        source: &body,
        ..Default::default()
    };
    match super::ingest::run_for_write(cs, &w, pipeline)? {
        None => Ok(Some(body)),
        Some(g) if g.dropped => Ok(None),
        Some(g) => Ok(Some(g.source)),
    }
}

fn update_once(
    cs: &ClusterService,
    req: &UpdateRequest,
    script: Option<&Script>,
) -> OsResult<(WriteOutcome, Option<Value>)> {
    let svc = write_target(cs, &req.index, req.require_alias)?;
    let shard = svc.route(req.routing.as_deref().unwrap_or(&req.id))?.clone();
    let current = shard.engine.get(&req.id)?;
    let base_constraints =
        Constraints { if_seq_no: req.if_seq_no, if_primary_term: req.if_primary_term, ..Default::default() };
    if let (Some(doc), Some(_)) = (&current, req.if_seq_no) {
        // As `ShardGetService.getForUpdate`: a stale pair is a conflict whatever the update
        // would do (noop, delete or index), and nothing changes.
        let cur = Current { seq_no: doc.seq_no, primary_term: doc.primary_term, version: doc.version, deleted: false };
        check_seq_no(&req.id, &base_constraints, Some(cur)).map_err(|e| doc_error(OsError::from(e), &svc, &shard))?;
    }
    let Some(doc) = current else {
        // Upsert paths.
        let mut upsert = match (&req.upsert, req.doc_as_upsert, &req.doc) {
            (Some(u), _, _) => u.clone(),
            (None, true, Some(d)) => d.clone(),
            _ => {
                return Err(doc_error(
                    OsError::new(ErrorKind::DocumentMissing, format!("[{}]: document missing", req.id)),
                    &svc,
                    &shard,
                ))
            }
        };
        if let (Some(s), true) = (script, req.scripted_upsert) {
            let mut ctx = UpdateContext {
                source: upsert.as_object().cloned().unwrap_or_default(),
                op: "create".into(),
                id: req.id.clone(),
                index: svc.name.clone(),
                version: -1,
                routing: req.routing.clone(),
                now_millis: now_millis(),
            };
            s.execute_update(&mut ctx).map_err(|e| e.to_os_error())?;
            match ctx.op.as_str() {
                "none" | "noop" => {
                    crate::shard::stats::inc(&shard.engine.counters().ops.noop_update_total);
                    return Ok((noop(&svc.name, &req.id, None, shards_total(&svc)), None));
                }
                "create" | "index" => {}
                other => {
                    return Err(OsError::illegal(format!(
                        "Invalid upsert operation [{other}] for script [{}], doing nothing...",
                        s.source()
                    )))
                }
            }
            upsert = Value::Object(ctx.source);
        }
        let Some(body) = ingest(cs, req, &svc.name, "create", serde_json::to_vec(&upsert)?, req.pipeline.as_deref())?
        else {
            return Ok((noop(&svc.name, &req.id, None, shards_total(&svc)), None));
        };
        upsert = serde_json::from_slice(&body)?;
        let constraints = Constraints { create: true, ..Default::default() };
        let (shard, id, w) = index_into(cs, &svc, Some(req.id.clone()), req.routing.clone(), body, constraints)?;
        let (forced, deferred, replicated) = sync_and_refresh(cs, &svc, &shard, &w, req.refresh)?;
        let get = req.source.as_ref().map(|f| get_field(&w.seq_no, w.primary_term, &upsert, f));
        return Ok((
            WriteOutcome {
                index: svc.name.clone(),
                id,
                result: "created",
                write: Some(w),
                shards_total: shards_total(&svc),
                forced_refresh: forced,
                deferred,
                replicated,
                status: 201,
            },
            get,
        ));
    };
    let mut source: Map<String, Value> =
        serde_json::from_slice::<Value>(&doc.source).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default();
    let mut op = "index".to_string();
    if let Some(changes) = &req.doc {
        let Some(changes) = changes.as_object() else {
            return Err(OsError::new(ErrorKind::MapperParsing, "failed to parse the [doc] of the update request"));
        };
        let changed = merge_doc(&mut source, changes);
        if !changed && req.detect_noop {
            op = "noop".into();
        }
    } else if let Some(s) = script {
        let mut ctx = UpdateContext {
            source,
            op: "index".into(),
            id: req.id.clone(),
            index: svc.name.clone(),
            version: doc.version,
            routing: doc.routing.clone(),
            now_millis: now_millis(),
        };
        s.execute_update(&mut ctx).map_err(|e| e.to_os_error())?;
        source = ctx.source;
        op = ctx.op;
    }
    let total = shards_total(&svc);
    match op.as_str() {
        "none" | "noop" => {
            crate::shard::stats::inc(&shard.engine.counters().ops.noop_update_total);
            let get = req
                .source
                .as_ref()
                .map(|f| get_field(&doc.seq_no, doc.primary_term, &Value::Object(source.clone()), f));
            let mut o = noop(&svc.name, &req.id, None, total);
            o.write = Some(crate::shard::engine::WriteResult {
                seq_no: doc.seq_no,
                primary_term: doc.primary_term,
                version: doc.version,
                created_or_found: false,
                location: crate::engine::translog::Location { generation: 0, offset: 0, size: 0 },
            });
            Ok((o, get))
        }
        "delete" => {
            let c = Constraints {
                if_seq_no: Some(doc.seq_no),
                if_primary_term: Some(doc.primary_term),
                ..Default::default()
            };
            let (shard, w) = delete_in(&svc, &req.id, req.routing.as_deref(), c)?;
            let (forced, deferred, replicated) = sync_and_refresh(cs, &svc, &shard, &w, req.refresh)?;
            Ok((
                WriteOutcome {
                    index: svc.name.clone(),
                    id: req.id.clone(),
                    result: "deleted",
                    write: Some(w),
                    shards_total: total,
                    forced_refresh: forced,
                    deferred,
                    replicated,
                    status: 200,
                },
                None,
            ))
        }
        "index" => {
            let c = if base_constraints.if_seq_no.is_some() {
                base_constraints
            } else {
                Constraints {
                    if_seq_no: Some(doc.seq_no),
                    if_primary_term: Some(doc.primary_term),
                    ..Default::default()
                }
            };
            // The index's default and final pipelines run on the updated document, with
            // OpenSearch's deprecation warning.
            let md = svc.metadata();
            let with_pipelines = md.setting("index.default_pipeline").is_some_and(|p| p != "_none")
                || md.setting("index.final_pipeline").is_some_and(|p| p != "_none");
            let Some(body) = ingest(cs, req, &svc.name, "index", serde_json::to_vec(&Value::Object(source))?, None)?
            else {
                return Ok((noop(&svc.name, &req.id, None, total), None));
            };
            let new_source: Value = serde_json::from_slice(&body)?;
            let routing = req.routing.clone().or(doc.routing.clone());
            let (shard, id, w) = index_into(cs, &svc, Some(req.id.clone()), routing, body, c)?;
            let (forced, mut deferred, replicated) = sync_and_refresh(cs, &svc, &shard, &w, req.refresh)?;
            if with_pipelines {
                deferred.warn(format!(
                    "the index [{}] has a default ingest pipeline or a final ingest pipeline, the support of the ingest pipelines for update operation causes unexpected result and will be removed in 3.0.0",
                    svc.name
                ));
            }
            let get = req.source.as_ref().map(|f| get_field(&w.seq_no, w.primary_term, &new_source, f));
            Ok((
                WriteOutcome {
                    index: svc.name.clone(),
                    id,
                    result: "updated",
                    write: Some(w),
                    shards_total: total,
                    forced_refresh: forced,
                    deferred,
                    replicated,
                    status: 200,
                },
                get,
            ))
        }
        other => Err(OsError::illegal(format!(
            "Operation type [{other}] not allowed, only [index, delete, noop, none] are allowed"
        ))),
    }
}

fn noop(index: &str, id: &str, _w: Option<()>, _total: u32) -> WriteOutcome {
    // A noop writes nothing: no shard copies took part.
    WriteOutcome {
        index: index.to_string(),
        id: id.to_string(),
        result: "noop",
        write: None,
        shards_total: 0,
        forced_refresh: false,
        deferred: Deferred::default(),
        replicated: Default::default(),
        status: 200,
    }
}

fn get_field(seq_no: &i64, primary_term: u64, source: &Value, f: &SourceFilter) -> Value {
    let mut g = json!({"_seq_no": seq_no, "_primary_term": primary_term, "found": true});
    if let Some(s) = f.apply(source) {
        g["_source"] = s;
    }
    g
}

/// The update response body.
pub fn response(o: &WriteOutcome, get: Option<Value>) -> Value {
    let mut v = super::documents::write_response(o);
    if o.result == "noop" {
        v["_shards"] = json!({"total": 0, "successful": 0, "failed": 0});
    }
    if let Some(g) = get {
        v["get"] = g;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_detects_changes() {
        let mut s = json!({"a": 1, "b": {"c": 1}}).as_object().cloned().unwrap();
        assert!(!merge_doc(&mut s, json!({"a": 1}).as_object().unwrap()));
        assert!(!merge_doc(&mut s, json!({"b": {"c": 1}}).as_object().unwrap()));
        assert!(merge_doc(&mut s, json!({"b": {"d": 2}}).as_object().unwrap()));
        assert_eq!(Value::Object(s), json!({"a": 1, "b": {"c": 1, "d": 2}}));
    }
}
