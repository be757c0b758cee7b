//! The `script` object of a request, parsed as OpenSearch's `Script.parse` does: a string (an
//! inline painless script) or `{"source", "lang", "params", "options"}`, or `{"id"}` for a stored
//! script, which Fathom does not keep: that is OpenSearch's answer for a missing stored script,
//! `resource_not_found_exception` "unable to find script [id] in cluster state".

use crate::error::ErrorKind;
use serde_json::{Map, Value as Json};

use super::error::ScriptError;
use super::{Script, PAINLESS};

/// An inline script as the request gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptRequest {
    pub source: String,
    pub lang: String,
    pub params: Map<String, Json>,
}

impl ScriptRequest {
    /// Compiles the source (see [`Script::compile`]).
    pub fn compile(&self) -> Result<Script, ScriptError> {
        Script::compile(&self.source, Some(&self.lang))
    }
}

fn parse_error(reason: String) -> ScriptError {
    ScriptError::plain(ErrorKind::XContentParse, reason)
}

fn illegal(reason: &str) -> ScriptError {
    ScriptError::plain(ErrorKind::IllegalArgument, reason.to_string())
}

fn token_name(v: &Json) -> &'static str {
    match v {
        Json::Null => "VALUE_NULL",
        Json::Bool(_) => "VALUE_BOOLEAN",
        Json::Number(_) => "VALUE_NUMBER",
        Json::String(_) => "VALUE_STRING",
        Json::Array(_) => "START_ARRAY",
        Json::Object(_) => "START_OBJECT",
    }
}

/// Parses the value of a request's `script` field.
pub fn parse_script_request(v: &Json) -> Result<ScriptRequest, ScriptError> {
    let obj = match v {
        Json::String(s) => return Ok(ScriptRequest { source: s.clone(), lang: PAINLESS.into(), params: Map::new() }),
        Json::Object(o) => o,
        other => return Err(parse_error(format!("[script] unknown token [{}]", token_name(other)))),
    };
    let mut source: Option<String> = None;
    let mut id: Option<String> = None;
    let mut lang: Option<String> = None;
    let mut params = Map::new();
    let mut kinds = 0;
    for (key, value) in obj {
        match key.as_str() {
            "source" | "inline" => {
                kinds += 1;
                source = Some(match value {
                    Json::String(s) => s.clone(),
                    // Templates pass JSON objects as source; painless then fails to compile them.
                    Json::Object(_) => value.to_string(),
                    other => {
                        return Err(parse_error(format!(
                            "[script] source doesn't support values of type: {}",
                            token_name(other)
                        )))
                    }
                });
            }
            "id" => {
                kinds += 1;
                id = Some(match value {
                    Json::String(s) => s.clone(),
                    other => {
                        return Err(parse_error(format!(
                            "[script] id doesn't support values of type: {}",
                            token_name(other)
                        )))
                    }
                });
            }
            "lang" => {
                lang = Some(match value {
                    Json::String(s) => s.clone(),
                    other => {
                        return Err(parse_error(format!(
                            "[script] lang doesn't support values of type: {}",
                            token_name(other)
                        )))
                    }
                })
            }
            "params" => match value {
                Json::Object(p) => params = p.clone(),
                other => {
                    return Err(parse_error(format!(
                        "[script] params doesn't support values of type: {}",
                        token_name(other)
                    )))
                }
            },
            "options" => match value {
                Json::Object(o) if o.keys().all(|k| k == "content_type") => {}
                Json::Object(o) => {
                    let shown: Vec<String> = o
                        .iter()
                        .filter(|(k, _)| *k != "content_type")
                        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(&v.to_string())))
                        .collect();
                    return Err(illegal(&format!("illegal compiler options [{{{}}}] specified", shown.join(", "))));
                }
                other => {
                    return Err(parse_error(format!(
                        "[script] options doesn't support values of type: {}",
                        token_name(other)
                    )))
                }
            },
            other => {
                return Err(parse_error(crate::error::unknown_field(
                    "script",
                    other,
                    &["id", "lang", "options", "params", "source"],
                )))
            }
        }
    }
    if kinds > 1 {
        return Err(illegal("must only use one of [source, id] when specifying a script"));
    }
    if let Some(id) = id {
        if lang.is_some() {
            return Err(illegal("illegally specified <lang> for a stored script"));
        }
        return Err(ScriptError::plain(
            ErrorKind::ResourceNotFound,
            format!("unable to find script [{id}] in cluster state"),
        ));
    }
    match source {
        Some(source) => Ok(ScriptRequest { source, lang: lang.unwrap_or_else(|| PAINLESS.into()), params }),
        None => Err(illegal("must specify either [source] for an inline script or [id] for a stored script")),
    }
}
