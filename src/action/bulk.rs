//! `_bulk`: NDJSON action/source pairs, executed in order with per-item results. The body is held
//! once; each item's source is sliced out of it. Writes are acknowledged after one translog
//! fsync per touched shard (group commit), not one per item.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::documents::{delete_in, index_into, parse_version_type, shards_total, write_response, write_target, Refresh, WriteOutcome};
use super::update::{self, UpdateRequest};
use crate::cluster::{ClusterService, IndexShard};
use crate::engine::translog::Durability;
use crate::error::{OsError, OsResult};
use crate::shard::engine::WriteResult;
use crate::shard::versioning::Constraints;

/// Defaults from the URL (`/{index}/_bulk?routing=&pipeline=&require_alias=`).
#[derive(Debug, Clone, Default)]
pub struct BulkDefaults {
    pub index: Option<String>,
    pub routing: Option<String>,
    pub pipeline: Option<String>,
    pub require_alias: bool,
    pub refresh: Refresh,
    pub source: Option<super::source_filter::SourceFilter>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpType {
    Index,
    Create,
    Update,
    Delete,
}

impl OpType {
    fn name(self) -> &'static str {
        match self {
            OpType::Index => "index",
            OpType::Create => "create",
            OpType::Update => "update",
            OpType::Delete => "delete",
        }
    }
}

fn lines(body: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    body.split(|b| *b == b'\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l))).filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
}

fn str_field(m: &Map<String, Value>, k: &str) -> Option<String> {
    match m.get(k) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Runs a bulk request; returns the response body.
pub fn bulk(cs: &ClusterService, body: &[u8], d: &BulkDefaults) -> OsResult<Value> {
    let start = Instant::now();
    let mut it = lines(body).peekable();
    let mut items: Vec<Value> = Vec::new();
    let mut errors = false;
    // Per shard, the furthest translog location written: synced once at the end.
    let mut to_sync: HashMap<*const IndexShard, (Arc<IndexShard>, WriteResult)> = HashMap::new();
    let mut refreshed: Vec<Arc<IndexShard>> = Vec::new();
    if it.peek().is_none() {
        return Err(OsError::validation(&["no requests added".into()]));
    }
    while let Some((line_no, line)) = it.next() {
        let action: Value = serde_json::from_slice(line).map_err(|e| {
            OsError::illegal(format!("Malformed action/metadata line [{line_no}], expected START_OBJECT but found [{}]", json_token_name(line, &e)))
        })?;
        let Some(obj) = action.as_object() else {
            return Err(OsError::illegal(format!("Malformed action/metadata line [{line_no}], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]")));
        };
        if obj.is_empty() {
            return Err(OsError::illegal(format!("Malformed action/metadata line [{line_no}], expected FIELD_NAME but found [END_OBJECT]")));
        }
        if obj.len() != 1 {
            return Err(OsError::illegal(format!("Malformed action/metadata line [{line_no}], expected a simple value for field [{}] but found [START_OBJECT]", obj.keys().nth(1).map(String::as_str).unwrap_or(""))));
        }
        let (name, meta) = obj.iter().next().expect("length checked above");
        let op = match name.as_str() {
            "index" => OpType::Index,
            "create" => OpType::Create,
            "update" => OpType::Update,
            "delete" => OpType::Delete,
            other => {
                return Err(OsError::illegal(format!(
                    "Malformed action/metadata line [{line_no}], expected field [create], [delete], [index] or [update] but found [{other}]"
                )))
            }
        };
        let Some(meta) = meta.as_object() else {
            return Err(OsError::illegal(format!("Malformed action/metadata line [{line_no}], expected START_OBJECT but found [VALUE_STRING]")));
        };
        for k in meta.keys() {
            if !matches!(
                k.as_str(),
                "_index" | "_id" | "routing" | "_routing" | "if_seq_no" | "if_primary_term" | "version" | "version_type" | "pipeline"
                    | "require_alias" | "retry_on_conflict" | "_source" | "op_type" | "dynamic_templates" | "_type"
            ) {
                return Err(OsError::illegal(format!("Action/metadata line [{line_no}] contains an unknown parameter [{k}]")));
            }
        }
        let op = match (op, meta.get("op_type").and_then(Value::as_str)) {
            (OpType::Index, Some("create")) => OpType::Create,
            (OpType::Index, Some(other)) if other != "index" => {
                return Err(OsError::illegal(format!("opType must be 'create' or 'index', found: [{other}]")));
            }
            (op, _) => op,
        };
        let source_line = if op == OpType::Delete {
            None
        } else {
            match it.next() {
                Some((_, l)) => Some(l),
                None => return Err(OsError::illegal("The bulk request must be terminated by a newline [\\n]")),
            }
        };
        let index = str_field(meta, "_index").or_else(|| d.index.clone());
        let id = str_field(meta, "_id");
        let routing = str_field(meta, "routing").or_else(|| str_field(meta, "_routing")).or_else(|| d.routing.clone());
        let Some(index) = index else {
            return Err(OsError::validation(&["index is missing".into()]));
        };
        let require_alias = meta.get("require_alias").and_then(Value::as_bool).unwrap_or(d.require_alias);
        let result = run_item(cs, op, &index, id.clone(), routing, meta, source_line, require_alias, d);
        let item = match result {
            Ok((outcome, shard, get)) => {
                if let (Some(shard), Some(w)) = (shard, outcome.write) {
                    let key = Arc::as_ptr(&shard);
                    let e = to_sync.entry(key).or_insert_with(|| (shard.clone(), w));
                    if w.location > e.1.location {
                        e.1 = w;
                    }
                    if d.refresh != Refresh::False && !refreshed.iter().any(|s| Arc::ptr_eq(s, &shard)) {
                        refreshed.push(shard);
                    }
                }
                let mut v = if op == OpType::Update { update::response(&outcome, get) } else { write_response(&outcome) };
                if d.refresh == Refresh::True && outcome.write.is_some() {
                    v["forced_refresh"] = json!(true);
                }
                v["status"] = json!(outcome.status);
                v
            }
            Err(e) => {
                errors = true;
                let mut v = json!({"_index": index, "_id": id.clone().unwrap_or_default()});
                if id.is_none() && op != OpType::Index {
                    v["_id"] = Value::Null;
                }
                v["status"] = json!(e.status);
                v["error"] = e.to_json();
                v
            }
        };
        let mut wrapped = Map::with_capacity(1);
        wrapped.insert(op.name().to_owned(), item);
        items.push(Value::Object(wrapped));
    }
    for (_, (shard, w)) in to_sync {
        if shard.engine.durability() == Durability::Request {
            if let Err(e) = shard.engine.ensure_synced(w.location, w.seq_no) {
                // Nothing of this shard may be acknowledged: fail every item the shard took.
                return Err(OsError::from(e));
            }
        }
    }
    for s in refreshed {
        s.refresh()?;
    }
    Ok(json!({"took": start.elapsed().as_millis() as u64, "errors": errors, "items": items}))
}

fn json_token_name(line: &[u8], _e: &serde_json::Error) -> &'static str {
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => "START_ARRAY",
        Some(b'"') => "VALUE_STRING",
        Some(b'0'..=b'9') | Some(b'-') => "VALUE_NUMBER",
        _ => "VALUE_STRING",
    }
}

#[allow(clippy::too_many_arguments)]
fn run_item(
    cs: &ClusterService,
    op: OpType,
    index: &str,
    id: Option<String>,
    routing: Option<String>,
    meta: &Map<String, Value>,
    source: Option<&[u8]>,
    require_alias: bool,
    d: &BulkDefaults,
) -> OsResult<(WriteOutcome, Option<Arc<IndexShard>>, Option<Value>)> {
    let constraints = Constraints {
        if_seq_no: meta.get("if_seq_no").and_then(Value::as_i64),
        if_primary_term: meta.get("if_primary_term").and_then(Value::as_u64),
        version: meta.get("version").and_then(Value::as_i64),
        version_type: parse_version_type(meta.get("version_type").and_then(Value::as_str))?,
        create: op == OpType::Create || meta.get("op_type").and_then(Value::as_str) == Some("create"),
    };
    match op {
        OpType::Index | OpType::Create => {
            let source = source.unwrap_or_default();
            // Content detection (OpenSearch's XContentFactory) needs an object's opening brace;
            // malformed JSON after it is the document parser's `json_parse_exception`.
            if source.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
                return Err(OsError::new("mapper_parsing_exception", "failed to parse").caused_by(OsError::new("not_x_content_exception", "Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes")));
            }
            if op == OpType::Create && id.is_none() {
                // An auto-generated id is a create anyway.
            }
            if let Some(p) = meta.get("pipeline").and_then(Value::as_str).or(d.pipeline.as_deref()) {
                if p != "_none" {
                    return Err(OsError::illegal(format!("pipeline with id [{p}] does not exist")));
                }
            }
            let svc = write_target(cs, index, require_alias)?;
            let (shard, id, w) = index_into(cs, &svc, id, routing, source.to_vec(), constraints)?;
            let outcome = WriteOutcome {
                index: svc.name.clone(),
                id,
                result: if w.created_or_found { "created" } else { "updated" },
                write: Some(w),
                shards_total: shards_total(&svc),
                forced_refresh: false,
                status: if w.created_or_found { 201 } else { 200 },
            };
            Ok((outcome, Some(shard), None))
        }
        OpType::Delete => {
            let Some(id) = id else {
                return Err(OsError::validation(&["id is missing".into()]));
            };
            let svc = write_target(cs, index, require_alias)?;
            let (shard, w) = delete_in(&svc, &id, routing.as_deref(), constraints)?;
            let outcome = WriteOutcome {
                index: svc.name.clone(),
                id,
                result: if w.created_or_found { "deleted" } else { "not_found" },
                write: Some(w),
                shards_total: shards_total(&svc),
                forced_refresh: false,
                status: if w.created_or_found { 200 } else { 404 },
            };
            Ok((outcome, Some(shard), None))
        }
        OpType::Update => {
            let Some(id) = id else {
                return Err(OsError::validation(&["id is missing".into()]));
            };
            let body: Value = serde_json::from_slice(source.unwrap_or_default())?;
            let mut req = UpdateRequest {
                index: index.to_string(),
                id: id.clone(),
                routing: routing.clone(),
                retry_on_conflict: meta.get("retry_on_conflict").and_then(Value::as_u64).unwrap_or(0) as u32,
                if_seq_no: constraints.if_seq_no,
                if_primary_term: constraints.if_primary_term,
                require_alias,
                source: d.source.clone(),
                ..Default::default()
            };
            req.apply_body(&body)?;
            if let Some(s) = meta.get("_source") {
                req.source = Some(super::source_filter::SourceFilter::from_json(s).map_err(OsError::parsing)?);
            }
            let (outcome, get) = update::update(cs, &req)?;
            let shard = cs.index(&outcome.index).ok().map(|svc| svc.route(routing.as_deref().unwrap_or(&id)).clone());
            // Updates synced inside the update action already; the entry only drives refresh.
            Ok((outcome, shard, get))
        }
    }
}
