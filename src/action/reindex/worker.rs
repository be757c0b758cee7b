//! One worker of a bulk-by-scroll job (OpenSearch's `AbstractAsyncBulkByScrollAction`): scroll
//! the source, turn each page of hits into bulk items (through the script when there is one),
//! run them through the internal `_bulk` path, count what happened, and keep to the requested
//! rate between pages. A failure other than a tolerated version conflict ends the worker after
//! its batch, as in OpenSearch.

use std::time::Instant;

use serde_json::{json, Map, Value};

use super::pages::Pages;
use super::request::{Job, Kind, Routing};
use super::status::WorkerState;
use crate::action::bulk::{self, BulkDefaults};
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// What one worker ends with: its bulk failures and the indices it wrote to.
#[derive(Debug, Default)]
pub struct WorkerResult {
    pub failures: Vec<Value>,
    pub written: Vec<String>,
    pub canceled: bool,
}

/// One write the worker sends to `_bulk`.
#[derive(Debug)]
struct BulkWrite {
    op: &'static str,
    index: String,
    id: Option<String>,
    routing: Option<String>,
    version: Option<(i64, String)>,
    seq: Option<(i64, u64)>,
    source: Option<Value>,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Runs a worker over `pages` until the source is exhausted, `max_docs` are processed, a
/// failure stops it, or its task is cancelled.
pub fn run(
    cs: &ClusterService,
    job: &Job,
    w: &WorkerState,
    pages: &mut (dyn Pages + Send),
    max_docs: Option<u64>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> OsResult<WorkerResult> {
    let mut out = WorkerResult::default();
    let mut page = pages.first()?;
    let total = page.total;
    w.update(|c| c.total = max_docs.map_or(total, |m| m.min(total)));
    let mut processed: u64 = 0;
    loop {
        if cancelled() {
            out.canceled = true;
            break;
        }
        let mut hits = std::mem::take(&mut page.hits);
        if hits.is_empty() {
            break;
        }
        if let Some(m) = max_docs {
            let remaining = m.saturating_sub(processed) as usize;
            hits.truncate(remaining);
        }
        let started = Instant::now();
        let n = hits.len();
        w.update(|c| c.batches += 1);
        processed += n as u64;
        // Unthrottled, the next page is read while this batch is written (the scroll's reader
        // and the bulk's writers overlap; a rate waits for the batch as before).
        let prefetch = w.unthrottled() && max_docs.is_none_or(|m| processed < m);
        let task = crate::tasks::current();
        let (sent, fetched) = std::thread::scope(|s| {
            let h = prefetch.then(|| {
                s.spawn(|| {
                    let _working = task.as_ref().map(|t| t.enter());
                    pages.next()
                })
            });
            let sent = write_batch(cs, job, hits, w, &mut out);
            let fetched = h.map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("a page fetch panicked"))));
            (sent, fetched)
        });
        sent?;
        if !out.failures.is_empty() {
            break;
        }
        if max_docs.is_some_and(|m| processed >= m) {
            break;
        }
        w.throttle(started, n, cancelled);
        if cancelled() {
            out.canceled = true;
            break;
        }
        page = match fetched {
            Some(p) => p?,
            None => pages.next()?,
        };
    }
    pages.close();
    Ok(out)
}

/// Turns one page's hits into writes and sends them.
fn write_batch(
    cs: &ClusterService,
    job: &Job,
    hits: Vec<Value>,
    w: &WorkerState,
    out: &mut WorkerResult,
) -> OsResult<()> {
    let mut writes = Vec::with_capacity(hits.len());
    for hit in hits {
        if let Some(wr) = to_write(job, hit, w)? {
            writes.push(wr);
        }
    }
    if writes.is_empty() {
        return Ok(());
    }
    send(cs, job, &writes, w, out)
}

/// The write a hit becomes (`None`: the script said noop).
fn to_write(job: &Job, hit: Value, w: &WorkerState) -> OsResult<Option<BulkWrite>> {
    let Value::Object(mut hit) = hit else {
        return Err(OsError::internal("a search hit is not an object"));
    };
    let index = hit.get("_index").and_then(text).unwrap_or_default();
    let id = hit.get("_id").and_then(text).unwrap_or_default();
    let routing = hit.get("_routing").and_then(text);
    let version = hit.get("_version").and_then(Value::as_i64);
    let seq = match (hit.get("_seq_no").and_then(Value::as_i64), hit.get("_primary_term").and_then(Value::as_u64)) {
        (Some(s), Some(t)) => Some((s, t)),
        _ => None,
    };
    let source = hit.remove("_source");
    if job.kind != Kind::DeleteByQuery && source.is_none() {
        return Err(OsError::illegal(format!("[{index}][{id}] didn't store _source")));
    }
    let mut wr = match job.kind {
        Kind::Reindex => {
            let dest = job.dest.as_ref().ok_or_else(|| OsError::validation(&["index must be specified".into()]))?;
            let routing = match &dest.routing {
                Routing::Keep => routing,
                Routing::Discard => None,
                Routing::Set(r) => Some(r.clone()),
            };
            let version = match dest.version_type.as_deref() {
                None | Some("internal") => None,
                Some(t) => version.map(|v| (v, t.to_string())),
            };
            BulkWrite {
                op: if dest.op_create { "create" } else { "index" },
                index: dest.index.clone(),
                id: Some(id.clone()),
                routing,
                version,
                seq: None,
                source,
            }
        }
        Kind::UpdateByQuery => {
            BulkWrite { op: "index", index: index.clone(), id: Some(id.clone()), routing, version: None, seq, source }
        }
        Kind::DeleteByQuery => BulkWrite {
            op: "delete",
            index: index.clone(),
            id: Some(id.clone()),
            routing,
            version: None,
            seq,
            source: None,
        },
    };
    if let Some(s) = &job.script {
        let mut ctx = Map::new();
        ctx.insert("_index".into(), json!(index));
        ctx.insert("_id".into(), json!(id));
        ctx.insert("_version".into(), version.map_or(Value::Null, |v| json!(v)));
        ctx.insert("_routing".into(), wr.routing.clone().map_or(Value::Null, Value::String));
        ctx.insert("op".into(), json!("index"));
        ctx.insert("_source".into(), wr.source.take().unwrap_or_else(|| json!({})));
        let mut after = ctx.clone();
        s.script.execute_ctx(&mut after, &s.params).map_err(|e| crate::action::script_glue::search_script_error(&e))?;
        if !apply_ctx(job.kind, &mut wr, &ctx, &mut after)? {
            w.update(|c| c.noops += 1);
            return Ok(None);
        }
    }
    Ok(Some(wr))
}

/// Applies what the script left in `ctx` (`ScriptApplier.apply`); false for a noop.
fn apply_ctx(
    kind: Kind,
    wr: &mut BulkWrite,
    before: &Map<String, Value>,
    after: &mut Map<String, Value>,
) -> OsResult<bool> {
    let op = match after.shift_remove("op") {
        Some(Value::String(s)) => s,
        None | Some(Value::Null) => return Err(OsError::illegal("Script cleared operation type")),
        Some(other) => other.to_string(),
    };
    match after.shift_remove("_source") {
        Some(Value::Object(m)) => wr.source = Some(Value::Object(m)),
        _ => return Err(OsError::illegal("Script cleared or changed the type of _source")),
    }
    for key in ["_index", "_id", "_version", "_routing"] {
        let new = after.shift_remove(key).unwrap_or(Value::Null);
        if before.get(key).unwrap_or(&Value::Null) == &new {
            continue;
        }
        if kind != Kind::Reindex {
            return Err(OsError::illegal(format!("Modifying [{key}] not allowed")));
        }
        match key {
            "_index" => match text(&new) {
                Some(i) => wr.index = i,
                None => return Err(OsError::illegal("Can't reindex without a destination index!")),
            },
            "_id" => wr.id = text(&new),
            "_version" => {
                wr.version = match new.as_i64() {
                    None => None,
                    Some(v) => Some((v, wr.version.as_ref().map_or_else(|| "internal".to_string(), |x| x.1.clone()))),
                }
            }
            _ => wr.routing = text(&new),
        }
    }
    if !after.is_empty() {
        let keys: Vec<&str> = after.keys().map(String::as_str).collect();
        return Err(OsError::illegal(format!("Invalid fields added to context [{}]", keys.join(","))));
    }
    match op.as_str() {
        "noop" => Ok(false),
        "index" => Ok(true),
        "delete" => {
            wr.op = "delete";
            wr.source = None;
            if kind == Kind::Reindex {
                wr.version = None;
            }
            Ok(true)
        }
        other => Err(OsError::illegal(format!(
            "Operation type [{other}] not allowed, only [noop, index, delete] are allowed"
        ))),
    }
}

/// The bulk body of `writes`.
fn bulk_body(job: &Job, writes: &[BulkWrite]) -> Vec<u8> {
    let mut body = Vec::with_capacity(writes.len() * 256);
    let pipeline = match job.kind {
        Kind::Reindex => job.dest.as_ref().and_then(|d| d.pipeline.clone()),
        _ => job.pipeline.clone(),
    };
    for wr in writes {
        let mut meta = Map::new();
        meta.insert("_index".into(), json!(wr.index));
        if let Some(id) = &wr.id {
            meta.insert("_id".into(), json!(id));
        }
        if let Some(r) = &wr.routing {
            meta.insert("routing".into(), json!(r));
        }
        if let Some((v, t)) = &wr.version {
            if t != "internal" {
                meta.insert("version".into(), json!(v));
                meta.insert("version_type".into(), json!(t));
            }
        }
        if let Some((s, t)) = wr.seq {
            meta.insert("if_seq_no".into(), json!(s));
            meta.insert("if_primary_term".into(), json!(t));
        }
        if wr.op != "delete" {
            if let Some(p) = &pipeline {
                meta.insert("pipeline".into(), json!(p));
            }
            if job.require_alias {
                meta.insert("require_alias".into(), json!(true));
            }
        }
        let mut line = Map::new();
        line.insert(wr.op.to_string(), Value::Object(meta));
        let _ = serde_json::to_writer(&mut body, &line);
        body.push(b'\n');
        if let Some(s) = &wr.source {
            let _ = serde_json::to_writer(&mut body, s);
            body.push(b'\n');
        }
    }
    body
}

/// Sends one batch and counts its items.
fn send(cs: &ClusterService, job: &Job, writes: &[BulkWrite], w: &WorkerState, out: &mut WorkerResult) -> OsResult<()> {
    let body = bulk_body(job, writes);
    let d = BulkDefaults { wait: job.wait, ..BulkDefaults::default() };
    let (resp, deferred) = bulk::bulk(cs, &body, &d)?;
    drop(deferred);
    let v: Value = serde_json::from_slice(&resp).map_err(|e| OsError::internal(e.to_string()))?;
    let items = v["items"].as_array().cloned().unwrap_or_default();
    for item in items {
        let Some((op, r)) = item.as_object().and_then(|m| m.iter().next()) else { continue };
        if let Some(err) = r.get("error") {
            let status = r["status"].as_u64().unwrap_or(500);
            let conflict = err["type"] == "version_conflict_engine_exception";
            if conflict {
                w.update(|c| c.version_conflicts += 1);
                if !job.abort_on_conflict {
                    continue;
                }
            }
            out.failures.push(json!({
                "index": r["_index"],
                "id": r["_id"],
                "cause": err,
                "status": status,
            }));
            continue;
        }
        if let Some(i) = r["_index"].as_str() {
            if !out.written.iter().any(|x| x == i) {
                out.written.push(i.to_string());
            }
        }
        match (op.as_str(), r["result"].as_str()) {
            ("delete", _) => w.update(|c| c.deleted += 1),
            (_, Some("created")) => w.update(|c| c.created += 1),
            _ => w.update(|c| c.updated += 1),
        }
    }
    Ok(())
}

/// The HTTP status of a finished job: the highest failure status, else 200.
pub fn response_status(failures: &[Value]) -> u16 {
    failures.iter().filter_map(|f| f["status"].as_u64()).max().map_or(200, |s| s as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::reindex::request::Dest;

    fn write() -> BulkWrite {
        BulkWrite {
            op: "index",
            index: "src".into(),
            id: Some("1".into()),
            routing: None,
            version: None,
            seq: Some((3, 1)),
            source: None,
        }
    }

    fn ctx() -> Map<String, Value> {
        let v =
            json!({"_index": "src", "_id": "1", "_version": 1, "_routing": null, "op": "index", "_source": {"a": 1}});
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn update_by_query_refuses_changed_metadata() {
        let mut after = ctx();
        after.insert("_id".into(), json!("stuff"));
        let e = apply_ctx(Kind::UpdateByQuery, &mut write(), &ctx(), &mut after).unwrap_err();
        assert_eq!(e.reason, "Modifying [_id] not allowed");
        let mut after = ctx();
        after.insert("junk".into(), json!("stuff"));
        let e = apply_ctx(Kind::UpdateByQuery, &mut write(), &ctx(), &mut after).unwrap_err();
        assert_eq!(e.reason, "Invalid fields added to context [junk]");
        let mut after = ctx();
        after.insert("op".into(), json!("junk"));
        let e = apply_ctx(Kind::UpdateByQuery, &mut write(), &ctx(), &mut after).unwrap_err();
        assert_eq!(e.reason, "Operation type [junk] not allowed, only [noop, index, delete] are allowed");
    }

    #[test]
    fn reindex_script_moves_and_noops() {
        let mut wr = write();
        let mut after = ctx();
        after.insert("_id".into(), Value::Null);
        after.insert("_index".into(), json!("other"));
        assert!(apply_ctx(Kind::Reindex, &mut wr, &ctx(), &mut after).expect("applied"));
        assert_eq!((wr.id, wr.index.as_str()), (None, "other"));
        let mut after = ctx();
        after.insert("op".into(), json!("noop"));
        assert!(!apply_ctx(Kind::Reindex, &mut write(), &ctx(), &mut after).expect("applied"));
    }

    #[test]
    fn bulk_lines() {
        let mut job = Job::new(Kind::Reindex);
        job.dest = Some(Dest { index: "d".into(), pipeline: Some("p".into()), ..Dest::default() });
        let mut wr = write();
        wr.seq = None;
        wr.source = Some(json!({"a": 1}));
        let body = String::from_utf8(bulk_body(&job, &[wr])).expect("utf8");
        assert_eq!(body, "{\"index\":{\"_index\":\"src\",\"_id\":\"1\",\"pipeline\":\"p\"}}\n{\"a\":1}\n");
    }
}
