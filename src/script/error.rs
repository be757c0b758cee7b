//! Script errors shaped like OpenSearch's `script_exception`.
//!
//! A compile error points at the offending token: `script_stack` holds the source 25 characters
//! either side of it (with `... ` / ` ...` where cut) and a `^---- HERE` line, and `position` is
//! `{offset, start, end}` of that window, as `PainlessScriptEngine.convertToScriptException` does.
//! A runtime error shows the statement that failed (from its start to the next statement's start)
//! as `PainlessScript.convertToScriptException` does. Offsets are in UTF-16 code units, like Java's.

use crate::error::ErrorKind;
use serde_json::{json, Value as Json};

/// An error found while lexing or parsing, at a byte offset of the source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CompileError {
    pub at: usize,
    /// The Java exception OpenSearch reports as the cause (`illegal_argument_exception`).
    pub kind: ErrorKind,
    pub message: String,
}

impl CompileError {
    pub(crate) fn new(at: usize, message: String) -> CompileError {
        CompileError { at, kind: ErrorKind::IllegalArgument, message }
    }
}

/// An error compiling or running a script, or in the request's `script` object.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError {
    /// OpenSearch's type name: `script_exception`, or `illegal_argument_exception` /
    /// `resource_not_found_exception` / `parsing_exception` for request-level problems.
    pub kind: ErrorKind,
    /// `compile error`, `runtime error`, or the request-level message.
    pub reason: String,
    /// `(offset, start, end)` in UTF-16 units of the source, when known.
    pub position: Option<(usize, usize, usize)>,
    pub script_stack: Vec<String>,
    /// The script's source (OpenSearch reports inline scripts by their source).
    pub script: String,
    pub lang: String,
    /// The Java cause: `(type, reason)`, e.g. `("null_pointer_exception", "...")`.
    pub caused_by: Option<(String, String)>,
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.reason)?;
        if let Some((kind, reason)) = &self.caused_by {
            write!(f, " ({kind}: {reason})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScriptError {}

impl ScriptError {
    /// A request-level error with no script metadata (e.g. `illegal_argument_exception`).
    pub(crate) fn plain(kind: ErrorKind, reason: String) -> ScriptError {
        ScriptError {
            kind,
            reason,
            position: None,
            script_stack: Vec::new(),
            script: String::new(),
            lang: String::new(),
            caused_by: None,
        }
    }

    /// Whether this is a `script_exception` (carrying script, lang, stack and position).
    pub fn is_script_exception(&self) -> bool {
        self.kind == ErrorKind::Script
    }

    /// The HTTP status OpenSearch answers with: 404 for a missing stored script, else 400.
    pub fn status(&self) -> u16 {
        if self.kind == ErrorKind::ResourceNotFound {
            404
        } else {
            400
        }
    }

    /// The error object as OpenSearch renders it (the value of `"error"` without `root_cause`,
    /// or one `root_cause` entry when `caused_by` is dropped by the caller).
    pub fn to_json(&self) -> Json {
        let mut out = serde_json::Map::new();
        out.insert("type".into(), json!(self.kind));
        out.insert("reason".into(), json!(self.reason));
        if self.is_script_exception() {
            out.insert("script_stack".into(), json!(self.script_stack));
            out.insert("script".into(), json!(self.script));
            out.insert("lang".into(), json!(self.lang));
            if let Some((offset, start, end)) = self.position {
                out.insert("position".into(), json!({"offset": offset, "start": start, "end": end}));
            }
        }
        if let Some((kind, reason)) = &self.caused_by {
            out.insert("caused_by".into(), json!({"type": kind, "reason": reason}));
        }
        Json::Object(out)
    }

    /// The body the `_update` API fails with: `UpdateHelper` wraps any script failure in
    /// `illegal_argument_exception` "failed to execute script" (status 400).
    pub fn to_update_failure_json(&self) -> Json {
        if !self.is_script_exception() {
            return self.to_json();
        }
        json!({
            "type": "illegal_argument_exception",
            "reason": "failed to execute script",
            "caused_by": self.to_json(),
        })
    }
}

/// UTF-16 offset of byte offset `at` in `source` (clamped to the source).
fn utf16_offset(source: &str, at: usize) -> usize {
    let at = at.min(source.len());
    source.char_indices().take_while(|(i, _)| *i < at).map(|(_, c)| c.len_utf16()).sum()
}

/// The substring of `source` between two UTF-16 offsets.
fn utf16_slice(source: &str, start: usize, end: usize) -> String {
    let mut out = String::new();
    let mut pos = 0;
    for c in source.chars() {
        if pos >= end {
            break;
        }
        if pos >= start {
            out.push(c);
        }
        pos += c.len_utf16();
    }
    out
}

/// A compile error as OpenSearch reports it: ±25 characters around the offending offset.
pub(crate) fn compile_error(source: &str, lang: &str, err: &CompileError) -> ScriptError {
    let len = utf16_offset(source, source.len());
    let offset = utf16_offset(source, err.at);
    let start = offset.saturating_sub(25);
    let end = (offset + 25).min(len);
    let mut snippet = String::new();
    if start > 0 {
        snippet.push_str("... ");
    }
    snippet.push_str(&utf16_slice(source, start, end));
    if end < len {
        snippet.push_str(" ...");
    }
    let mut pointer = String::new();
    if start > 0 {
        pointer.push_str("    ");
    }
    pointer.push_str(&" ".repeat(offset - start));
    pointer.push_str("^---- HERE");
    ScriptError {
        kind: ErrorKind::Script,
        reason: "compile error".into(),
        position: Some((offset, start, end)),
        script_stack: vec![snippet, pointer],
        script: source.to_string(),
        lang: lang.to_string(),
        caused_by: Some((err.kind.to_string(), err.message.clone())),
    }
}

/// A runtime error as OpenSearch reports it: the failing statement, from its start (the last
/// statement start at or before `at`) to the next statement's start.
pub(crate) fn runtime_error(
    source: &str,
    lang: &str,
    statement_starts: &[usize],
    at: usize,
    kind: &str,
    reason: String,
) -> ScriptError {
    let stmt_start = statement_starts.iter().copied().filter(|s| *s <= at).max().unwrap_or(0);
    let stmt_end = statement_starts.iter().copied().filter(|s| *s > stmt_start).min().unwrap_or(source.len());
    let offset = utf16_offset(source, at);
    let start = utf16_offset(source, stmt_start);
    let end = utf16_offset(source, stmt_end);
    let snippet = utf16_slice(source, start, end);
    let pointer = format!("{}^---- HERE", " ".repeat(offset.saturating_sub(start)));
    ScriptError {
        kind: ErrorKind::Script,
        reason: "runtime error".into(),
        position: Some((offset, start, end)),
        script_stack: vec![snippet, pointer],
        script: source.to_string(),
        lang: lang.to_string(),
        caused_by: Some((kind.to_string(), reason)),
    }
}
