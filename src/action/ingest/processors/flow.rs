//! Processors that run other things: pipeline (another stored pipeline), foreach (a processor
//! per list element, the element as `_ingest._value`), script (the Painless subset over `ctx`).

use serde_json::{Map, Value};

use super::super::config::Config;
use super::super::doc::IngestDocument;
use super::super::pipeline::{self as pl, Exec, Flow, Op, PipelineSource, Processor};
use super::super::template::Template;
use crate::error::{ErrorKind, OsError, OsResult};

#[derive(Debug)]
pub struct PipelineCall {
    name: Template,
    ignore_missing: bool,
}

impl PipelineCall {
    pub fn new(c: &mut Config) -> OsResult<PipelineCall> {
        Ok(PipelineCall { name: c.req_template("name")?, ignore_missing: c.bool("ignore_missing_pipeline", false)? })
    }
}

/// Whether running `id` would enter a cycle (a pipeline already on `stack`), following the
/// pipelines it calls by name.
fn find_cycle(
    src: &dyn PipelineSource,
    id: &str,
    doc: &IngestDocument,
    stack: &mut Vec<String>,
) -> OsResult<Option<String>> {
    if stack.iter().any(|s| s == id) {
        return Ok(Some(id.to_string()));
    }
    let Some(p) = src.pipeline(id)? else { return Ok(None) };
    stack.push(id.to_string());
    for proc_ in p.processors.iter().chain(p.on_failure.iter()) {
        if let Some((inner, _)) = proc_.op.inner_pipeline(doc) {
            if let Some(c) = find_cycle(src, &inner, doc, stack)? {
                return Ok(Some(c));
            }
        }
    }
    stack.pop();
    Ok(None)
}

impl Op for PipelineCall {
    fn run(&self, doc: &mut IngestDocument, x: &mut Exec<'_>) -> OsResult<Flow> {
        let name = self.name.render(doc);
        let Some(p) = x.source.pipeline(&name)? else {
            if self.ignore_missing {
                return Ok(Flow::Continue);
            }
            let msg = format!("Pipeline processor configured for non-existent pipeline [{name}]");
            let kind = if x.trace.is_some() { ErrorKind::IllegalArgument } else { ErrorKind::IllegalState };
            return Err(OsError::new(kind, msg));
        };
        pl::run_pipeline(&p, doc, x).map_err(|f| *f.error)
    }

    fn precheck(&self, doc: &IngestDocument, x: &Exec<'_>) -> OsResult<()> {
        let name = self.name.render(doc);
        if x.source.pipeline(&name)?.is_none() {
            if self.ignore_missing {
                return Ok(());
            }
            return Err(OsError::illegal(format!("Pipeline processor configured for non-existent pipeline [{name}]")));
        }
        // A verbose run checks the whole call graph first, as OpenSearch's tracking
        // processors do: a cycle fails this processor before any inner one runs.
        let mut stack = x.stack.clone();
        if let Some(c) = find_cycle(x.source, &name, doc, &mut stack)? {
            return Err(OsError::new(ErrorKind::IllegalState, format!("Cycle detected for pipeline: {c}")));
        }
        Ok(())
    }

    fn inner_pipeline(&self, doc: &IngestDocument) -> Option<(String, bool)> {
        Some((self.name.render(doc), self.ignore_missing))
    }

    fn static_pipeline(&self) -> Option<(&str, bool)> {
        match &self.name {
            Template::Plain(s) => Some((s.as_str(), self.ignore_missing)),
            Template::Parts(_) => None,
        }
    }
}

#[derive(Debug)]
pub struct Foreach {
    field: String,
    processor: Processor,
    ignore_missing: bool,
}

impl Foreach {
    pub fn new(c: &mut Config, src: &dyn PipelineSource) -> OsResult<Foreach> {
        let field = c.req_str("field")?;
        let ignore_missing = c.bool("ignore_missing", false)?;
        let Some(p) = c.opt_map("processor")? else {
            return Err(c.err("processor", "required property is missing"));
        };
        if p.len() != 1 {
            return Err(c.err("processor", "Must specify exactly one processor type"));
        }
        let processor = pl::processor_from_json(&Value::Object(p), src)?;
        Ok(Foreach { field, processor, ignore_missing })
    }
}

impl Op for Foreach {
    fn run(&self, doc: &mut IngestDocument, x: &mut Exec<'_>) -> OsResult<Flow> {
        let list = match doc.get_opt(&self.field) {
            Some(Value::Array(a)) => a.clone(),
            Some(Value::Null) | None if self.ignore_missing => return Ok(Flow::Continue),
            None => {
                return Err(OsError::illegal(format!(
                    "field [{}] not present as part of path [{}]",
                    self.field, self.field
                )))
            }
            Some(Value::Null) => {
                return Err(OsError::illegal(format!("field [{}] is null, cannot loop over its elements.", self.field)))
            }
            Some(other) => {
                return Err(OsError::illegal(format!(
                    "field [{}] of type [{}] cannot be cast to [java.util.List]",
                    self.field,
                    super::super::config::java_type(other)
                )))
            }
        };
        let prev = doc.ingest.shift_remove("_value");
        let mut out = Vec::with_capacity(list.len());
        let mut result = Ok(Flow::Continue);
        for v in list {
            doc.ingest.insert("_value".into(), v);
            let single = std::slice::from_ref(&self.processor);
            match pl::run_list_public(single, doc, x) {
                Ok(Flow::Drop) => {
                    result = Ok(Flow::Drop);
                    break;
                }
                Ok(Flow::Continue) => out.push(doc.ingest.get("_value").cloned().unwrap_or(Value::Null)),
                Err(f) => {
                    result = Err(*f.error);
                    break;
                }
            }
        }
        match prev {
            Some(p) => {
                doc.ingest.insert("_value".into(), p);
            }
            None => {
                doc.ingest.shift_remove("_value");
            }
        }
        let flow = result?;
        doc.set(&self.field, Value::Array(out))?;
        Ok(flow)
    }
}

#[derive(Debug)]
pub struct ScriptOp {
    script: crate::script::Script,
    params: Map<String, Value>,
}

impl ScriptOp {
    pub fn new(c: &mut Config) -> OsResult<ScriptOp> {
        let source = c.opt_str("source")?;
        let id = c.opt_str("id")?;
        let lang = c.opt_str("lang")?;
        let params = c.opt_map("params")?.unwrap_or_default();
        let source = match (source, id) {
            (Some(_), Some(_)) => return Err(c.err_plain("Only one of [id] or [source] may be configured")),
            (None, None) => return Err(c.err_plain("Need [id] or [source] for script processor")),
            (None, Some(id)) => {
                return Err(OsError::new(ErrorKind::ResourceNotFound, format!("unable to find script [{id}]")))
            }
            (Some(s), None) => s,
        };
        let script = crate::script::Script::compile(&source, lang.as_deref())
            .map_err(|e| crate::action::script_glue::search_script_error(&e))?;
        Ok(ScriptOp { script, params })
    }
}

impl Op for ScriptOp {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let mut ctx = std::mem::take(&mut doc.sm);
        let before = ctx.clone();
        match self.script.execute_ctx(&mut ctx, &self.params) {
            Ok(_) => {
                doc.sm = ctx;
                Ok(Flow::Continue)
            }
            Err(e) => {
                doc.sm = before;
                Err(crate::action::script_glue::search_script_error(&e))
            }
        }
    }
}
