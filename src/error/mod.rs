//! OpenSearch's exceptions as values: one type, one table of status codes.
//!
//! Every layer above the engine (cluster, action, http) reports failures as an [`OsError`]; the
//! HTTP layer renders it as OpenSearch's body:
//! `{"error": {"root_cause": [...], "type", "reason", <metadata>, "caused_by"}, "status": N}`.

use serde_json::{json, Map, Value};
use std::fmt;

mod kind;
pub use kind::{java_simple_name, ErrorKind};

use crate::engine::schema::MappingError;
use crate::engine::Error as EngineError;

/// An OpenSearch exception: its type name (`index_not_found_exception`), reason, HTTP status,
/// metadata fields (`index`, `index_uuid`, `shard`, `resource.id`, ...) and cause.
#[derive(Debug, Clone, PartialEq)]
pub struct OsError {
    pub status: u16,
    pub kind: ErrorKind,
    pub reason: String,
    /// Extra fields printed beside `type` and `reason`.
    pub meta: Map<String, Value>,
    pub caused_by: Option<Box<OsError>>,
}

/// Result with an [`OsError`].
pub type OsResult<T> = Result<T, OsError>;

impl OsError {
    /// An exception of type `kind` with its usual status.
    pub fn new(kind: ErrorKind, reason: impl Into<String>) -> OsError {
        OsError { status: kind.status(), kind, reason: reason.into(), meta: Map::new(), caused_by: None }
    }
    /// `illegal_argument_exception` (400).
    pub fn illegal(reason: impl Into<String>) -> OsError {
        OsError::new(ErrorKind::IllegalArgument, reason)
    }
    /// `parsing_exception` (400).
    pub fn parsing(reason: impl Into<String>) -> OsError {
        OsError::new(ErrorKind::Parsing, reason)
    }
    /// `action_request_validation_exception`: "Validation Failed: 1: a;2: b;".
    pub fn validation(errors: &[String]) -> OsError {
        let mut reason = String::from("Validation Failed: ");
        for (i, e) in errors.iter().enumerate() {
            reason.push_str(&format!("{}: {};", i + 1, e));
        }
        OsError::new(ErrorKind::ActionRequestValidation, reason)
    }
    /// `index_not_found_exception` for `index`.
    pub fn index_not_found(index: &str) -> OsError {
        OsError::new(ErrorKind::IndexNotFound, format!("no such index [{index}]"))
            .with("index", index)
            .with("resource.id", index)
            .with("resource.type", "index_or_alias")
            .with("index_uuid", "_na_")
    }
    /// `resource_already_exists_exception` for an index.
    pub fn index_exists(index: &str, uuid: &str) -> OsError {
        OsError::new(ErrorKind::ResourceAlreadyExists, format!("index [{index}/{uuid}] already exists"))
            .with("index", index)
            .with("index_uuid", uuid)
    }
    /// `index_closed_exception`.
    pub fn index_closed(index: &str, uuid: &str) -> OsError {
        OsError::new(ErrorKind::IndexClosed, "closed").with("index", index).with("index_uuid", uuid)
    }
    /// A server-side failure (500).
    pub fn internal(reason: impl Into<String>) -> OsError {
        OsError::new(ErrorKind::Exception, reason)
    }
    /// Adds a metadata field.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> OsError {
        self.meta.insert(key.to_string(), value.into());
        self
    }
    /// Sets the index metadata (`index`, `index_uuid`), as exceptions about one index carry.
    pub fn with_index(self, index: &str, uuid: &str) -> OsError {
        self.with("index", index).with("index_uuid", uuid)
    }
    /// Adds a cause.
    pub fn caused_by(mut self, cause: OsError) -> OsError {
        self.caused_by = Some(Box::new(cause));
        self
    }
    /// Overrides the status.
    pub fn status(mut self, status: u16) -> OsError {
        self.status = status;
        self
    }

    /// The error object (`type`, `reason`, metadata, `caused_by`), as in `root_cause` entries and
    /// bulk item errors.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!(self.kind.name()));
        m.insert("reason".into(), json!(self.reason));
        for (k, v) in &self.meta {
            m.insert(k.clone(), v.clone());
        }
        if let Some(c) = &self.caused_by {
            m.insert("caused_by".into(), c.to_json());
        }
        Value::Object(m)
    }

    fn shallow_json(&self) -> Value {
        let mut v = self.to_json();
        if let Some(o) = v.as_object_mut() {
            o.remove("caused_by");
        }
        v
    }

    /// Reads [`OsError::to_json`]'s form back (another node's item error), with `status`. A
    /// type this node does not know becomes `exception` with the type in the reason.
    pub fn from_json(v: &Value, status: u16) -> OsError {
        fn read(v: &Value, status: u16, depth: usize) -> OsError {
            let ty = v["type"].as_str().unwrap_or("exception");
            let reason = v["reason"].as_str().unwrap_or_default();
            let mut e = match ErrorKind::from_name(ty) {
                Some(kind) => OsError::new(kind, reason),
                None => OsError::internal(format!("[{ty}] {reason}")),
            };
            e.status = status;
            if let Some(o) = v.as_object() {
                for (k, x) in o {
                    match k.as_str() {
                        "type" | "reason" | "root_cause" | "caused_by" => {}
                        _ => {
                            e.meta.insert(k.clone(), x.clone());
                        }
                    }
                }
                if let (Some(c), true) = (o.get("caused_by"), depth < 16) {
                    e.caused_by = Some(Box::new(read(c, status, depth + 1)));
                }
            }
            e
        }
        read(v, status, 0)
    }

    /// The whole REST error body.
    pub fn to_body(&self) -> Value {
        let mut err = self.to_json();
        if let Some(o) = err.as_object_mut() {
            o.insert("root_cause".into(), json!([self.shallow_json()]));
        }
        json!({"error": err, "status": self.status})
    }
}

impl OsError {
    /// Whether this error came from damaged bytes on disk (the engine's corruption errors).
    pub fn is_corruption(&self) -> bool {
        self.kind == ErrorKind::CorruptIndex || self.kind == ErrorKind::TranslogCorrupted
    }

    /// `ExceptionsHelper.detailedMessage`-like text: `Name[reason]; nested: Cause[reason]; `
    /// (just `Name[reason]` without a cause).
    pub fn detailed_message(&self) -> String {
        if self.caused_by.is_none() {
            return format!("{}[{}]", self.kind.java_simple_name(), self.reason);
        }
        let mut out = String::new();
        let mut next = Some(self);
        let mut first = true;
        while let Some(e) = next {
            if !first {
                out.push_str("nested: ");
            }
            first = false;
            out.push_str(&format!("{}[{}]; ", e.kind.java_simple_name(), e.reason));
            next = e.caused_by.as_deref();
        }
        out
    }
}

/// OpenSearch's suggestion suffix for an unknown name (its parsers suggest candidates whose
/// Levenshtein similarity exceeds 0.5): ` did you mean [a]?` or
/// ` did you mean any of [a, b]?`, empty when nothing is close.
/// Close candidates come best first, then by name (`SuggestingErrorOnUnknown.suggest`).
pub fn did_you_mean(name: &str, candidates: &[&str], threshold: f64) -> String {
    let mut scored: Vec<(f32, &str)> =
        candidates.iter().map(|c| (similarity(name, c) as f32, *c)).filter(|(s, _)| *s as f64 > threshold).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    let close: Vec<&str> = scored.into_iter().map(|(_, c)| c).collect();
    match close.len() {
        0 => String::new(),
        1 => format!(" did you mean [{}]?", close[0]),
        _ => format!(" did you mean any of [{}]?", close.join(", ")),
    }
}

/// ObjectParser's `[parser] unknown field [field]` with its suggestion among `candidates` (the
/// fields the parser declares).
pub fn unknown_field(parser: &str, field: &str, candidates: &[&str]) -> String {
    format!("[{parser}] unknown field [{field}]{}", did_you_mean(field, candidates, 0.5))
}

/// Lucene's LevenshteinDistance similarity: 1 - distance / max length.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    let max = a.len().max(b.len()).max(1) as f64;
    1.0 - prev[b.len()] as f64 / max
}

impl fmt::Display for OsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.kind, self.reason)
    }
}

impl std::error::Error for OsError {}

impl From<MappingError> for OsError {
    fn from(e: MappingError) -> OsError {
        let mut out = OsError::new(e.kind, e.reason);
        if let Some(c) = e.caused_by {
            out = out.caused_by(OsError::from(*c));
        }
        out
    }
}

impl From<EngineError> for OsError {
    fn from(e: EngineError) -> OsError {
        match &e {
            EngineError::VersionConflict { .. } => OsError::new(ErrorKind::VersionConflictEngine, e.to_string()),
            EngineError::InvalidArgument(m) => OsError::illegal(m.clone()),
            EngineError::Closed(_) => OsError::new(ErrorKind::Engine, e.to_string()).status(500),
            EngineError::TranslogCorrupted { .. } => OsError::new(ErrorKind::TranslogCorrupted, e.to_string()),
            _ if e.is_corruption() => OsError::new(ErrorKind::CorruptIndex, e.to_string()),
            _ => OsError::new(ErrorKind::Io, e.to_string()).status(500),
        }
    }
}

impl From<serde_json::Error> for OsError {
    fn from(e: serde_json::Error) -> OsError {
        OsError::new(ErrorKind::Parse, format!("Failed to parse content to map: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_exists_is_a_bad_request() {
        // OpenSearch's `ResourceAlreadyExistsException.status()` is `BAD_REQUEST`.
        assert_eq!(OsError::index_exists("a", "u").status, 400);
        assert_eq!(OsError::index_exists("a", "u").to_body()["status"], 400);
    }

    #[test]
    fn index_not_found_body() {
        let b = OsError::index_not_found("foo").to_body();
        assert_eq!(b["status"], 404);
        assert_eq!(b["error"]["type"], "index_not_found_exception");
        assert_eq!(b["error"]["root_cause"][0]["resource.id"], "foo");
        assert_eq!(b["error"]["reason"], "no such index [foo]");
    }

    #[test]
    fn root_cause_has_no_cause() {
        let e = OsError::new(ErrorKind::MapperParsing, "failed").caused_by(OsError::illegal("x"));
        let b = e.to_body();
        assert!(b["error"]["root_cause"][0].get("caused_by").is_none());
        assert_eq!(b["error"]["caused_by"]["type"], "illegal_argument_exception");
        assert_eq!(b["status"], 400);
    }

    #[test]
    fn validation_message() {
        let e = OsError::validation(&["a".into(), "b".into()]);
        assert_eq!(e.reason, "Validation Failed: 1: a;2: b;");
    }
}

#[cfg(test)]
mod suggestion_tests {
    use super::*;

    #[test]
    fn suggestions_come_best_first_then_by_name() {
        assert_eq!(did_you_mean("boool", &["bool", "boosting", "match"], 0.5), " did you mean [bool]?");
        assert_eq!(did_you_mean("xyz", &["bool"], 0.5), "");
        // Equal similarity: by name; better similarity first.
        assert_eq!(did_you_mean("abcd", &["abcf", "abce", "abcd1"], 0.5), " did you mean any of [abcd1, abce, abcf]?");
        assert_eq!(
            unknown_field("slice", "fiel", &["field", "id", "max"]),
            "[slice] unknown field [fiel] did you mean [field]?"
        );
    }
}
