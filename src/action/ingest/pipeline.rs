//! A compiled pipeline and how it runs: processors in order, each with its `if` condition,
//! `ignore_failure` and `on_failure` handlers (OpenSearch's `CompoundProcessor`), the
//! pipeline-level `on_failure`, `_ingest.on_failure_*` metadata while handlers run, and the
//! per-processor trace of a verbose `_simulate`.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::config::{config_error, java_type};
use super::doc::IngestDocument;
use super::processors;
use crate::error::{ErrorKind, OsError, OsResult};

/// What a processor did to the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The `drop` processor: the document is not indexed.
    Drop,
}

/// One kind of processor, configured.
pub trait Op: Send + Sync + std::fmt::Debug {
    /// Runs on `doc`.
    fn run(&self, doc: &mut IngestDocument, x: &mut Exec<'_>) -> OsResult<Flow>;
    /// The pipeline a `pipeline` processor calls (for verbose tracing and cycle checks).
    fn inner_pipeline(&self, _doc: &IngestDocument) -> Option<(String, bool)> {
        None
    }
    /// Checks made before a traced run (a `pipeline` processor: its pipeline exists and
    /// calls make no cycle).
    fn precheck(&self, _doc: &IngestDocument, _x: &Exec<'_>) -> OsResult<()> {
        Ok(())
    }
    /// The pipeline a `pipeline` processor calls by a plain (untemplated) name.
    fn static_pipeline(&self) -> Option<(&str, bool)> {
        None
    }
}

/// An `if` condition: a Painless expression over `ctx`.
#[derive(Debug, Clone)]
pub struct Condition {
    pub source: String,
    script: crate::script::Script,
    params: Map<String, Value>,
}

/// A processor with its common options.
#[derive(Debug)]
pub struct Processor {
    pub ty: String,
    pub tag: Option<String>,
    pub description: Option<String>,
    pub cond: Option<Condition>,
    pub ignore_failure: bool,
    pub on_failure: Vec<Processor>,
    pub op: Box<dyn Op>,
}

/// A compiled pipeline.
#[derive(Debug)]
pub struct Pipeline {
    pub id: String,
    pub processors: Vec<Processor>,
    pub on_failure: Vec<Processor>,
}

/// Where pipelines called by name (`pipeline` processor) come from.
pub trait PipelineSource {
    fn pipeline(&self, id: &str) -> OsResult<Option<Arc<Pipeline>>>;
}

/// A failed processor: the error and which processor threw it.
#[derive(Debug, Clone)]
pub struct Failure {
    pub error: Box<OsError>,
    pub processor_type: String,
    pub processor_tag: Option<String>,
}

/// The state of one document's run.
pub struct Exec<'a> {
    pub source: &'a dyn PipelineSource,
    /// Pipelines being run, outermost first (cycle detection, `_ingest.pipeline`).
    pub stack: Vec<String>,
    /// The verbose `_simulate` trace, when one is kept.
    pub trace: Option<Vec<Value>>,
    /// Where the top-level processors' counts go (`_nodes/stats/ingest`), when kept.
    pub stats: Option<&'a crate::cluster::ingest_stats::IngestStats>,
}

impl<'a> Exec<'a> {
    /// A run without trace.
    pub fn new(source: &'a dyn PipelineSource) -> Exec<'a> {
        Exec { source, stack: Vec::new(), trace: None, stats: None }
    }
}

/// Builds a processor from `{"type": {options}}`.
pub fn processor_from_json(v: &Value, src: &dyn PipelineSource) -> OsResult<Processor> {
    let Some(m) = v.as_object().filter(|m| m.len() == 1) else {
        return Err(OsError::new(ErrorKind::Parse, "processor definition must be an object with a single key"));
    };
    let (ty, cfg) = m.iter().next().ok_or_else(|| OsError::new(ErrorKind::Parse, "empty processor"))?;
    let mut map = match cfg {
        Value::Object(o) => o.clone(),
        // `"drop": {}` is the usual form; a script processor also takes a bare string.
        Value::String(s) if ty == "script" => {
            let mut o = Map::new();
            o.insert("source".into(), Value::String(s.clone()));
            o
        }
        other => {
            return Err(config_error(
                ty,
                None,
                None,
                &format!("processor config isn't a map, but of type [{}]", java_type(other)),
            ))
        }
    };
    let tag = match map.shift_remove("tag") {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    let description = map.shift_remove("description").and_then(|d| d.as_str().map(str::to_string));
    let cond = match map.shift_remove("if") {
        None | Some(Value::Null) => None,
        Some(c) => Some(condition(&c, ty, tag.as_deref())?),
    };
    let ignore_failure = match map.shift_remove("ignore_failure") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(Value::String(s)) if s == "true" || s == "false" => s == "true",
        Some(other) => {
            return Err(config_error(
                ty,
                tag.as_deref(),
                Some("ignore_failure"),
                &format!("property isn't a boolean, but of type [{}]", java_type(&other)),
            ))
        }
    };
    let on_failure = match map.shift_remove("on_failure") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) if a.is_empty() => {
            return Err(config_error(ty, tag.as_deref(), Some("on_failure"), "processors list is empty"))
        }
        Some(Value::Array(a)) => a.iter().map(|p| processor_from_json(p, src)).collect::<OsResult<_>>()?,
        Some(other) => {
            return Err(config_error(
                ty,
                tag.as_deref(),
                Some("on_failure"),
                &format!("property isn't a list, but of type [{}]", java_type(&other)),
            ))
        }
    };
    let mut config = super::config::Config { ty: ty.clone(), tag: tag.clone(), map };
    let op = processors::build(&mut config, src)?;
    config.finish()?;
    Ok(Processor { ty: ty.clone(), tag, description, cond, ignore_failure, on_failure, op })
}

fn condition(v: &Value, ty: &str, tag: Option<&str>) -> OsResult<Condition> {
    let (source, lang, params) = match v {
        Value::String(s) => (s.clone(), None, Map::new()),
        Value::Object(m) => (
            m.get("source").and_then(Value::as_str).unwrap_or_default().to_string(),
            m.get("lang").and_then(Value::as_str).map(str::to_string),
            m.get("params").and_then(Value::as_object).cloned().unwrap_or_default(),
        ),
        other => {
            return Err(config_error(
                ty,
                tag,
                Some("if"),
                &format!("property isn't a string or map, but of type [{}]", java_type(other)),
            ))
        }
    };
    let script = crate::script::Script::compile_aggregation(&source, lang.as_deref())
        .map_err(|e| crate::action::script_glue::search_script_error(&e))?;
    Ok(Condition { source, script, params })
}

/// Builds a pipeline from its definition (`description`, `processors`, `on_failure`, `version`).
pub fn pipeline_from_json(id: &str, v: &Value, src: &dyn PipelineSource) -> OsResult<Pipeline> {
    let Some(m) = v.as_object() else {
        return Err(OsError::new(ErrorKind::Parse, "pipeline definition must be an object"));
    };
    let mut processors = None;
    let mut on_failure = Vec::new();
    let mut unknown = Vec::new();
    for (k, val) in m {
        match k.as_str() {
            "description" | "version" | "_meta" => {}
            "processors" => processors = Some(processor_list(val, "processors", src)?),
            "on_failure" => {
                on_failure = processor_list(val, "on_failure", src)?;
                if on_failure.is_empty() && val.is_array() {
                    return Err(pipeline_error("on_failure", "pipeline on_failure processors list is empty"));
                }
            }
            other => unknown.push(other.to_string()),
        }
    }
    let Some(processors) = processors else {
        return Err(pipeline_error("processors", "required property is missing"));
    };
    if !unknown.is_empty() {
        return Err(OsError::new(
            ErrorKind::Parse,
            format!("pipeline [{id}] doesn't support one or more provided configuration parameters {unknown:?}")
                .replace('"', ""),
        ));
    }
    Ok(Pipeline { id: id.to_string(), processors, on_failure })
}

fn pipeline_error(property: &str, msg: &str) -> OsError {
    OsError::new(ErrorKind::Parse, format!("[{property}] {msg}")).with("property_name", property)
}

fn processor_list(v: &Value, name: &str, src: &dyn PipelineSource) -> OsResult<Vec<Processor>> {
    match v {
        Value::Array(a) => a.iter().map(|p| processor_from_json(p, src)).collect(),
        other => Err(pipeline_error(name, &format!("property isn't a list, but of type [{}]", java_type(other)))),
    }
}

/// A document's state for the trace (`{_index, _id, ..., _source, _ingest}`).
pub fn doc_json(doc: &IngestDocument) -> Value {
    let mut m = Map::new();
    for k in super::doc::METADATA {
        if let Some(v) = doc.meta_str(k) {
            m.insert((*k).to_string(), Value::String(v));
        }
    }
    m.insert("_source".into(), Value::Object(doc.source()));
    m.insert("_ingest".into(), Value::Object(doc.ingest.clone()));
    Value::Object(m)
}

fn trace_entry(p: &Processor, status: &str, cond: Option<bool>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("processor_type".into(), json!(p.ty));
    m.insert("status".into(), json!(status));
    if let Some(d) = &p.description {
        m.insert("description".into(), json!(d));
    }
    if let Some(t) = &p.tag {
        m.insert("tag".into(), json!(t));
    }
    if let (Some(c), Some(r)) = (&p.cond, cond) {
        m.insert("if".into(), json!({"condition": c.source, "result": r}));
    }
    m
}

/// The error object of a trace entry or a simulate result (`root_cause`, `type`, `reason`).
pub fn error_json(e: &OsError) -> Value {
    let mut v = e.to_json();
    if let Some(o) = v.as_object_mut() {
        let mut root = e.to_json();
        if let Some(r) = root.as_object_mut() {
            r.remove("caused_by");
        }
        let mut out = Map::new();
        out.insert("root_cause".into(), json!([root]));
        for (k, x) in std::mem::take(o) {
            out.insert(k, x);
        }
        *o = out;
    }
    v
}

fn eval_condition(c: &Condition, doc: &IngestDocument) -> OsResult<bool> {
    let mut ctx = doc.sm.clone();
    ctx.insert("_ingest".into(), Value::Object(doc.ingest.clone()));
    match c.script.execute_ctx(&mut ctx, &c.params) {
        Ok(Value::Bool(b)) => Ok(b),
        Ok(other) => Err(OsError::illegal(format!(
            "Condition [{}] returned a value of type [{}], a boolean was expected",
            c.source,
            java_type(&other)
        ))),
        Err(e) => Err(crate::action::script_glue::search_script_error(&e)),
    }
}

/// Runs `pipeline` on `doc` (pushing it on the stack; a pipeline already on it is a cycle).
pub fn run_pipeline(p: &Pipeline, doc: &mut IngestDocument, x: &mut Exec<'_>) -> Result<Flow, Failure> {
    if x.stack.iter().any(|s| s == &p.id) {
        return Err(Failure {
            error: Box::new(OsError::new(ErrorKind::IllegalState, format!("Cycle detected for pipeline: {}", p.id))),
            processor_type: "pipeline".into(),
            processor_tag: None,
        });
    }
    // A pipeline called by another one is counted here; the outermost by the write.
    let nested = x.stats.filter(|_| !x.stack.is_empty()).map(|s| (s, std::time::Instant::now()));
    x.stack.push(p.id.clone());
    let prev = doc.ingest.insert("pipeline".into(), json!(p.id));
    let r = run_list(&p.processors, &p.on_failure, doc, x, &p.id, true);
    x.stack.pop();
    if let Some((stats, start)) = nested {
        stats.record_nested(&p.id, start.elapsed().as_nanos() as u64, r.is_err());
    }
    match prev {
        Some(v) => {
            doc.ingest.insert("pipeline".into(), v);
        }
        None => {
            doc.ingest.shift_remove("pipeline");
        }
    }
    r
}

fn run_list(
    list: &[Processor],
    on_failure: &[Processor],
    doc: &mut IngestDocument,
    x: &mut Exec<'_>,
    pipeline: &str,
    top: bool,
) -> Result<Flow, Failure> {
    for (i, p) in list.iter().enumerate() {
        let start = x.stats.filter(|_| top).map(|_| std::time::Instant::now());
        let r = run_one(p, doc, x, pipeline);
        if let (Some(stats), Some(start)) = (x.stats, start) {
            let nanos = start.elapsed().as_nanos() as u64;
            stats.record_processor(pipeline, i, &p.ty, p.tag.as_deref(), nanos, r.is_err());
        }
        match r {
            Ok(Flow::Drop) => return Ok(Flow::Drop),
            Ok(Flow::Continue) => {}
            Err(f) if on_failure.is_empty() => return Err(f),
            Err(f) => return run_handlers(on_failure, &f, doc, x, pipeline),
        }
    }
    Ok(Flow::Continue)
}

fn run_handlers(
    handlers: &[Processor],
    f: &Failure,
    doc: &mut IngestDocument,
    x: &mut Exec<'_>,
    pipeline: &str,
) -> Result<Flow, Failure> {
    let keys = ["on_failure_message", "on_failure_processor_type", "on_failure_processor_tag", "on_failure_pipeline"];
    doc.ingest.insert(keys[0].into(), json!(f.error.reason));
    doc.ingest.insert(keys[1].into(), json!(f.processor_type));
    doc.ingest.insert(keys[2].into(), f.processor_tag.as_ref().map_or(Value::Null, |t| json!(t)));
    doc.ingest.insert(keys[3].into(), json!(pipeline));
    let r = run_list(handlers, &[], doc, x, pipeline, false);
    for k in keys {
        doc.ingest.shift_remove(k);
    }
    r
}

fn run_one(p: &Processor, doc: &mut IngestDocument, x: &mut Exec<'_>, pipeline: &str) -> Result<Flow, Failure> {
    let fail =
        |error: OsError| Failure { error: Box::new(error), processor_type: p.ty.clone(), processor_tag: p.tag.clone() };
    let mut cond = None;
    if let Some(c) = &p.cond {
        let ok = eval_condition(c, doc).map_err(fail)?;
        cond = Some(ok);
        if !ok {
            if let Some(t) = x.trace.as_mut() {
                t.push(Value::Object(trace_entry(p, "skipped", cond)));
            }
            return Ok(Flow::Continue);
        }
    }
    // A `pipeline` processor shows itself (as a success, without a document) before the
    // processors it runs, once its pipeline is known to exist and to make no cycle.
    let call = x.trace.is_some() && p.op.inner_pipeline(doc).is_some();
    let mut traced = false;
    let r = if call {
        match p.op.precheck(doc, x) {
            Ok(()) => {
                if let Some(t) = x.trace.as_mut() {
                    let mut e = trace_entry(p, "success", cond);
                    e.insert("doc".into(), Value::Null);
                    t.push(Value::Object(e));
                }
                traced = true;
                p.op.run(doc, x)
            }
            Err(e) => Err(e),
        }
    } else {
        p.op.run(doc, x)
    };
    match r {
        Ok(flow) => {
            if let (Some(t), false) = (x.trace.as_mut(), traced) {
                let mut e = trace_entry(p, if flow == Flow::Drop { "dropped" } else { "success" }, cond);
                if flow == Flow::Continue {
                    e.insert("doc".into(), doc_json(doc));
                }
                t.push(Value::Object(e));
            }
            Ok(flow)
        }
        Err(error) => {
            if let (Some(t), false) = (x.trace.as_mut(), traced) {
                let mut e = trace_entry(p, if p.ignore_failure { "error_ignored" } else { "error" }, cond);
                if p.ignore_failure {
                    e.insert("ignored_error".into(), json!({"error": error_json(&error)}));
                    e.insert("doc".into(), doc_json(doc));
                } else {
                    e.insert("error".into(), error_json(&error));
                }
                t.push(Value::Object(e));
            }
            if p.ignore_failure {
                return Ok(Flow::Continue);
            }
            let f = fail(error);
            if p.on_failure.is_empty() {
                return Err(f);
            }
            run_handlers(&p.on_failure, &f, doc, x, pipeline)
        }
    }
}

/// Runs `list` as one processor group of the pipeline on top of the stack (`foreach`).
pub fn run_list_public(list: &[Processor], doc: &mut IngestDocument, x: &mut Exec<'_>) -> Result<Flow, Failure> {
    let pipeline = x.stack.last().cloned().unwrap_or_default();
    run_list(list, &[], doc, x, &pipeline, false)
}
