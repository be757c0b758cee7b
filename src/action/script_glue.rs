//! The update action's view of scripts: a compiled script with its params, run against an
//! update context. Backed by `crate::script` (the Painless subset) once it is merged; until
//! then every script is rejected with OpenSearch's error for an unsupported language feature.

use serde_json::{Map, Value};

use crate::error::OsError;

/// What an update script sees and changes.
#[derive(Debug, Clone)]
pub struct UpdateContext {
    pub source: Map<String, Value>,
    pub op: String,
    pub id: String,
    pub index: String,
    pub version: i64,
    pub routing: Option<String>,
    pub now_millis: i64,
}

/// A script of a request, ready to run.
#[derive(Debug, Clone)]
pub struct Script {
    source: String,
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

impl Script {
    /// Parses the request's `script` (string or object) and compiles it.
    pub fn from_request(v: &Value) -> Result<Script, ScriptFailure> {
        let source = match v {
            Value::String(s) => s.clone(),
            Value::Object(m) => m.get("source").and_then(Value::as_str).unwrap_or_default().to_string(),
            _ => String::new(),
        };
        Err(ScriptFailure(OsError::illegal(format!("script [{source}] cannot run: the painless interpreter is not available in this build"))))
    }
    /// The script's source text.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// Runs the script.
    pub fn execute_update(&self, _ctx: &mut UpdateContext) -> Result<(), ScriptFailure> {
        Err(ScriptFailure(OsError::illegal("scripts are not available")))
    }
}
