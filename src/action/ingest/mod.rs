//! Ingest pipelines: stored in the cluster metadata (`Metadata::ingest_pipelines`, their JSON
//! definitions as given), compiled on first use and cached by definition, and run on documents
//! of index/create/bulk requests (`pipeline` parameter, `index.default_pipeline`,
//! `index.final_pipeline`) and by `_simulate`.
//!
//! | file | holds |
//! |---|---|
//! | `doc.rs` | the document model and dotted field paths |
//! | `config.rs` | option readers and their errors |
//! | `template.rs` | the `{{mustache}}` subset |
//! | `pipeline.rs` | processors, pipelines, how they run, the verbose trace |
//! | `processors/` | the processor types |
//! | `digest.rs` | MD5, SHA-1, SHA-256, SHA3-256 |
//! | `simulate.rs` | `_ingest/pipeline/_simulate` |

pub mod config;
pub mod digest;
pub mod doc;
pub mod pipeline;
pub mod processors;
pub mod simulate;
pub mod template;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::cluster::metadata::Metadata;
use crate::cluster::resolve::glob;
use crate::cluster::{ClusterService, CreateIndex};
use crate::error::{ErrorKind, OsError, OsResult};
use doc::IngestDocument;
use pipeline::{Exec, Flow, Pipeline, PipelineSource};

/// Compiled pipelines by id, with the definition they were compiled from.
static CACHE: Mutex<Option<HashMap<String, (Value, Arc<Pipeline>)>>> = Mutex::new(None);

/// The pipelines of a metadata snapshot, compiled on demand.
pub struct Stored<'a> {
    pub md: &'a Metadata,
}

impl PipelineSource for Stored<'_> {
    fn pipeline(&self, id: &str) -> OsResult<Option<Arc<Pipeline>>> {
        let Some(def) = self.md.ingest_pipelines.get(id) else { return Ok(None) };
        {
            let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((d, p)) = cache.as_ref().and_then(|c| c.get(id)) {
                if d == def {
                    return Ok(Some(p.clone()));
                }
            }
        }
        let p = Arc::new(pipeline::pipeline_from_json(id, def, self)?);
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache.get_or_insert_with(HashMap::new).insert(id.to_string(), (def.clone(), p.clone()));
        Ok(Some(p))
    }
}

/// `PUT _ingest/pipeline/{id}`: validates (compiles) and stores the definition.
pub fn put(cs: &ClusterService, id: &str, body: &Value) -> OsResult<Value> {
    if !body.is_object() {
        return Err(OsError::new(ErrorKind::Parse, "request body is required"));
    }
    {
        let md = cs.metadata();
        pipeline::pipeline_from_json(id, body, &Stored { md: &md })?;
    }
    cs.update(|md| {
        if md.ingest_pipelines.get(id) == Some(body) {
            return Ok((false, ()));
        }
        md.ingest_pipelines.insert(id.to_string(), body.clone());
        Ok((true, ()))
    })?;
    Ok(json!({"acknowledged": true}))
}

/// `GET _ingest/pipeline[/{ids}]`: `(status, body)`; 404 with `{}` when a named one is missing.
pub fn get(md: &Metadata, ids: Option<&str>) -> (u16, Value) {
    let mut out = Map::new();
    let exprs: Vec<&str> =
        ids.filter(|s| !s.is_empty() && *s != "_all").map(|s| s.split(',').collect()).unwrap_or_default();
    for (k, v) in &md.ingest_pipelines {
        if exprs.is_empty() || exprs.iter().any(|e| glob(e.trim(), k)) {
            out.insert(k.clone(), v.clone());
        }
    }
    let status = if out.is_empty() && !exprs.is_empty() { 404 } else { 200 };
    (status, Value::Object(out))
}

/// `DELETE _ingest/pipeline/{ids}` (wildcards allowed).
pub fn delete(cs: &ClusterService, ids: &str) -> OsResult<Value> {
    cs.update(|md| {
        let mut removed = false;
        for e in ids.split(',') {
            let e = e.trim();
            let names: Vec<String> = md.ingest_pipelines.keys().filter(|k| glob(e, k)).cloned().collect();
            if names.is_empty() {
                if e.contains('*') {
                    continue;
                }
                return Err(OsError::new(ErrorKind::ResourceNotFound, format!("pipeline [{e}] is missing")));
            }
            for n in names {
                md.ingest_pipelines.shift_remove(&n);
                removed = true;
            }
        }
        Ok((removed, ()))
    })?;
    Ok(json!({"acknowledged": true}))
}

/// The settings an index write would see: the index's (through an alias to its write index),
/// or those templates give a new index of that name.
fn index_pipelines(md: &Metadata, index: &str) -> (Option<String>, Option<String>) {
    let read = |get: &dyn Fn(&str) -> Option<String>| {
        let f = |k: &str| get(k).filter(|p| p != "_none");
        (f("index.default_pipeline"), f("index.final_pipeline"))
    };
    if let Some(m) = md.indices.get(index) {
        return read(&|k| m.setting(k).map(str::to_string));
    }
    let aliased = md.alias_indices(index);
    if let Some(m) = aliased
        .iter()
        .find(|m| m.aliases.get(index).and_then(|a| a.is_write_index) == Some(true))
        .or_else(|| aliased.first().filter(|_| aliased.len() == 1))
    {
        return read(&|k| m.setting(k).map(str::to_string));
    }
    if md.templates.is_empty() && md.index_templates.is_empty() {
        return (None, None);
    }
    match crate::action::templates::apply(md, CreateIndex { name: index.to_string(), ..Default::default() }) {
        Ok(r) => read(&|k| crate::cluster::settings::get_str(&r.settings, k).map(str::to_string)),
        Err(_) => (None, None),
    }
}

/// A document after its pipelines ran.
#[derive(Debug, Clone)]
pub struct Ingested {
    pub dropped: bool,
    pub index: String,
    pub id: Option<String>,
    pub routing: Option<String>,
    pub source: Vec<u8>,
    /// `_op_type` when a processor set it (`index` or `create`).
    pub op_type: Option<String>,
}

/// What a write names about its document.
#[derive(Debug, Clone, Default)]
pub struct WriteDoc<'a> {
    pub index: &'a str,
    pub id: Option<&'a str>,
    pub routing: Option<&'a str>,
    pub version: Option<i64>,
    pub version_type: Option<&'a str>,
    pub op_type: Option<&'a str>,
    pub source: &'a [u8],
}

/// Runs the pipelines that apply to a write (`pipeline`, else the index's default, then its
/// final pipeline); `None` when none applies.
pub fn run_for_write(cs: &ClusterService, w: &WriteDoc<'_>, explicit: Option<&str>) -> OsResult<Option<Ingested>> {
    let md = cs.metadata();
    if md.ingest_pipelines.is_empty() {
        if let Some(p) = explicit.filter(|p| *p != "_none") {
            return Err(OsError::illegal(format!("pipeline with id [{p}] does not exist")));
        }
        let (d, f) = index_pipelines(&md, w.index);
        if let Some(p) = d.or(f) {
            return Err(OsError::illegal(format!("pipeline with id [{p}] does not exist")));
        }
        return Ok(None);
    }
    let (default, final_) = index_pipelines(&md, w.index);
    let first = match explicit {
        Some("_none") => None,
        Some(p) => Some(p.to_string()),
        None => default,
    };
    if first.is_none() && final_.is_none() {
        return Ok(None);
    }
    let src = Stored { md: &md };
    let source: Map<String, Value> = match serde_json::from_slice::<Value>(w.source) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(OsError::new(ErrorKind::Parse, "failed to parse source: not an object")),
        Err(e) => return Err(OsError::from(e)),
    };
    let meta = [
        ("_index", json!(w.index)),
        ("_id", w.id.map_or(Value::Null, |s| json!(s))),
        ("_routing", w.routing.map_or(Value::Null, |s| json!(s))),
        ("_version", w.version.map_or(Value::Null, |v| json!(v))),
        ("_version_type", w.version_type.map_or(Value::Null, |s| json!(s))),
        ("_op_type", w.op_type.map_or(Value::Null, |s| json!(s))),
    ];
    let mut doc = IngestDocument::new(source, &meta);
    for id in [first, final_].into_iter().flatten() {
        let Some(p) = src.pipeline(&id)? else {
            return Err(OsError::illegal(format!("pipeline with id [{id}] does not exist")));
        };
        let start = Instant::now();
        let mut x = Exec::new(&src);
        x.stats = Some(&cs.counters.ingest);
        let r = pipeline::run_pipeline(&p, &mut doc, &mut x);
        cs.counters.ingest.record(&id, start.elapsed().as_nanos() as u64, r.is_err());
        match r {
            Ok(Flow::Drop) => {
                return Ok(Some(Ingested {
                    dropped: true,
                    index: w.index.to_string(),
                    id: w.id.map(str::to_string),
                    routing: None,
                    source: Vec::new(),
                    op_type: None,
                }))
            }
            Ok(Flow::Continue) => {}
            Err(f) => return Err(*f.error),
        }
    }
    // A date-math name (`date_index_name`) is resolved here, where the write names its index.
    let index = match doc.meta_str("_index") {
        Some(i) => processors::date::resolve_index_name(&i, crate::clock::now_millis())?,
        None => w.index.to_string(),
    };
    let (id, routing, op_type) = (doc.meta_str("_id"), doc.meta_str("_routing"), doc.meta_str("_op_type"));
    // The source is the document without its metadata fields (taken, not copied).
    let mut sm = std::mem::take(&mut doc.sm);
    for k in doc::METADATA {
        sm.shift_remove(*k);
    }
    let source = serde_json::to_vec(&Value::Object(sm)).map_err(|e| OsError::internal(e.to_string()))?;
    Ok(Some(Ingested { dropped: false, index, id, routing, source, op_type }))
}

/// `ingest.processors` of `_nodes` info.
pub fn processors_info() -> Value {
    Value::Array(processors::TYPES.iter().map(|t| json!({"type": t})).collect())
}
