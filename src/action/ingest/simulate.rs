//! `POST _ingest/pipeline[/{id}]/_simulate`: runs a stored or given pipeline on the request's
//! documents without indexing them; `verbose` reports the document after every processor.

use serde_json::{json, Map, Value};

use super::config::config_error;
use super::doc::IngestDocument;
use super::pipeline::{self, doc_json, error_json, Exec, Flow, Pipeline, PipelineSource, Processor};
use super::Stored;
use crate::cluster::metadata::Metadata;
use crate::error::{ErrorKind, OsError, OsResult};

/// The id a pipeline given in the request runs under.
pub const SIMULATED_ID: &str = "_simulate_pipeline";

fn int_meta(d: &Map<String, Value>, key: &str) -> OsResult<Value> {
    match d.get(key) {
        None | Some(Value::Null) => Ok(Value::Null),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(Value::Number(n.clone())),
        Some(_) => Err(OsError::illegal(format!("Failed to parse parameter [{key}], only int or long is accepted"))),
    }
}

fn parse_doc(d: &Value) -> OsResult<IngestDocument> {
    let Some(d) = d.as_object() else {
        return Err(OsError::new(ErrorKind::Parse, "[docs] document must be an object"));
    };
    let source = match d.get("_source") {
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(config_error_plain("_source", "property isn't a map")),
        None => return Err(config_error_plain("_source", "required property is missing")),
    };
    let s = |k: &str, default: Option<&str>| match d.get(k) {
        Some(Value::String(s)) => json!(s),
        Some(Value::Number(n)) => json!(n.to_string()),
        _ => default.map_or(Value::Null, |x| json!(x)),
    };
    let meta = [
        ("_index", s("_index", Some("_index"))),
        ("_id", s("_id", Some("_id"))),
        ("_routing", s("_routing", None)),
        ("_version", int_meta(d, "_version")?),
        ("_version_type", s("_version_type", None)),
        ("_if_seq_no", int_meta(d, "_if_seq_no")?),
        ("_if_primary_term", int_meta(d, "_if_primary_term")?),
        ("_op_type", s("_op_type", None)),
    ];
    Ok(IngestDocument::new(source, &meta))
}

fn config_error_plain(property: &str, msg: &str) -> OsError {
    OsError::new(ErrorKind::Parse, format!("[{property}] {msg}")).with("property_name", property)
}

/// Pipelines called by a plain name that do not exist (a verbose simulate refuses them).
fn check_called(list: &[Processor], src: &dyn PipelineSource) -> OsResult<()> {
    for p in list {
        if let Some((name, ignore)) = p.op.static_pipeline() {
            if !ignore && src.pipeline(name)?.is_none() {
                return Err(OsError::illegal(format!(
                    "Pipeline processor configured for non-existent pipeline [{name}]"
                )));
            }
        }
        check_called(&p.on_failure, src)?;
    }
    Ok(())
}

/// Runs the simulation.
pub fn simulate(md: &Metadata, id: Option<&str>, body: &Value, verbose: bool) -> OsResult<Value> {
    let Some(b) = body.as_object() else {
        return Err(OsError::new(ErrorKind::Parse, "request body is required"));
    };
    let src = Stored { md };
    let pipeline: std::sync::Arc<Pipeline> = match id {
        Some(id) => src.pipeline(id)?.ok_or_else(|| OsError::illegal(format!("pipeline [{id}] does not exist")))?,
        None => match b.get("pipeline") {
            Some(p @ Value::Object(_)) => std::sync::Arc::new(pipeline::pipeline_from_json(SIMULATED_ID, p, &src)?),
            Some(_) => return Err(config_error_plain("pipeline", "property isn't a map")),
            None => return Err(config_error_plain("pipeline", "required property is missing")),
        },
    };
    for k in b.keys() {
        if k != "pipeline" && k != "docs" {
            return Err(config_error(SIMULATED_ID, None, None, &format!("unknown key [{k}] in the simulate request")));
        }
    }
    let docs = match b.get("docs") {
        Some(Value::Array(a)) => a,
        Some(_) => return Err(config_error_plain("docs", "property isn't a list")),
        None => return Err(config_error_plain("docs", "required property is missing")),
    };
    if verbose {
        check_called(&pipeline.processors, &src)?;
        check_called(&pipeline.on_failure, &src)?;
    }
    let parsed: Vec<IngestDocument> = docs.iter().map(parse_doc).collect::<OsResult<_>>()?;
    let mut out = Vec::with_capacity(parsed.len());
    for mut doc in parsed {
        let mut x = Exec::new(&src);
        if verbose {
            x.trace = Some(Vec::new());
        }
        let r = pipeline::run_pipeline(&pipeline, &mut doc, &mut x);
        if verbose {
            out.push(json!({"processor_results": x.trace.unwrap_or_default()}));
            continue;
        }
        out.push(match r {
            Ok(Flow::Continue) => json!({"doc": doc_json(&doc)}),
            Ok(Flow::Drop) => Value::Null,
            Err(f) => json!({"error": error_json(&f.error)}),
        });
    }
    Ok(json!({"docs": out}))
}
