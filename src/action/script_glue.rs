//! The update action's view of scripts: the request's `script` compiled by the Painless subset
//! (`crate::script`) with its params, run against an update context; failures become the
//! `OsError` OpenSearch answers with (`illegal_argument_exception` "failed to execute script"
//! caused by the `script_exception`).

use serde_json::{Map, Value};

use crate::error::{ErrorKind, OsError};
use crate::script::{self, ScriptError};

/// What an update script sees and changes (the interpreter's own context).
pub use crate::script::UpdateContext;

/// A script of a request, compiled, with its params.
#[derive(Debug, Clone)]
pub struct Script {
    script: script::Script,
    params: Map<String, Value>,
}

/// A script failure.
#[derive(Debug, Clone)]
pub struct ScriptFailure(OsError);

impl ScriptFailure {
    /// As an OpenSearch error.
    pub fn to_os_error(&self) -> OsError {
        self.0.clone()
    }
}

/// Builds an `OsError` from an error object (`type`, `reason`, metadata, `caused_by`).
fn os_error_from_json(v: &Value, status: u16) -> OsError {
    let kind = v["type"].as_str().and_then(ErrorKind::from_name).unwrap_or(ErrorKind::Exception);
    let mut e = OsError::new(kind, v["reason"].as_str().unwrap_or_default()).status(status);
    if let Some(m) = v.as_object() {
        for (k, val) in m {
            if !matches!(k.as_str(), "type" | "reason" | "caused_by") {
                e.meta.insert(k.clone(), val.clone());
            }
        }
    }
    if let Some(c) = v.get("caused_by").filter(|c| c.is_object()) {
        e = e.caused_by(os_error_from_json(c, status));
    }
    e
}

fn failure(e: &ScriptError) -> ScriptFailure {
    ScriptFailure(os_error_from_json(&e.to_update_failure_json(), e.status()))
}

impl Script {
    /// Parses the request's `script` (string or object) and compiles it.
    pub fn from_request(v: &Value) -> Result<Script, ScriptFailure> {
        let req = script::parse_script_request(v).map_err(|e| failure(&e))?;
        let compiled = req.compile().map_err(|e| failure(&e))?;
        Ok(Script { script: compiled, params: req.params })
    }
    /// The script's source text.
    pub fn source(&self) -> &str {
        self.script.source()
    }
    /// Runs the script on `ctx` (source and op change in place; unchanged on failure).
    pub fn execute_update(&self, ctx: &mut UpdateContext) -> Result<(), ScriptFailure> {
        self.script.execute_update(ctx, &self.params).map_err(|e| failure(&e))
    }
}

/// A script error as the OpenSearch error a search answers with (a `script_exception` with its
/// source, stack and position, status 400).
pub fn search_script_error(e: &ScriptError) -> OsError {
    os_error_from_json(&e.to_json(), e.status())
}
