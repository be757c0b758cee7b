//! Reading component settings: OpenSearch settings are strings or JSON values (`"true"` and
//! `true`, `"3"` and `3`, `"a,b"` and `["a","b"]` are the same), with OpenSearch's messages for
//! values that do not parse.

use crate::error::ErrorKind;
use serde_json::{Map, Value};

use super::error::AnalysisError;

/// The settings of one component (an object; anything else reads as empty).
#[derive(Clone, Copy, Debug)]
pub struct Params<'a> {
    map: Option<&'a Map<String, Value>>,
}

impl<'a> Params<'a> {
    /// Reads `value` (an object, else no settings).
    pub fn new(value: &'a Value) -> Self {
        Params { map: value.as_object() }
    }

    /// No settings.
    pub fn empty() -> Self {
        Params { map: None }
    }

    /// The raw value of `key`.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(key)).filter(|v| !v.is_null())
    }

    /// A string setting.
    pub fn string(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Array(_) | Value::Object(_) => None,
            other => Some(other.to_string()),
        }
    }

    /// A boolean setting (`true`/`false` or their strings).
    pub fn bool(&self, key: &str, default: bool) -> Result<bool, AnalysisError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) if s == "true" => Ok(true),
            Some(Value::String(s)) if s == "false" => Ok(false),
            Some(other) => {
                let text = other.as_str().map_or_else(|| other.to_string(), str::to_owned);
                Err(AnalysisError::illegal_argument(format!(
                    "Failed to parse value [{text}] as only [true] or [false] are allowed."
                )))
            }
        }
    }

    /// An integer setting.
    pub fn int(&self, key: &str, default: i64) -> Result<i64, AnalysisError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Number(n)) if n.as_i64().is_some() => Ok(n.as_i64().unwrap_or(default)),
            Some(Value::String(s)) => s.trim().parse().map_err(|_| AnalysisError {
                kind: ErrorKind::NumberFormat,
                reason: format!("For input string: \"{s}\""),
            }),
            Some(other) => {
                Err(AnalysisError { kind: ErrorKind::NumberFormat, reason: format!("For input string: \"{other}\"") })
            }
        }
    }

    /// A non-negative integer setting.
    pub fn usize(&self, key: &str, default: usize) -> Result<usize, AnalysisError> {
        let value = self.int(key, i64::try_from(default).unwrap_or(i64::MAX))?;
        usize::try_from(value).map_err(|_| {
            AnalysisError::illegal_argument(format!("[{key}] must be a non-negative integer, got [{value}]"))
        })
    }

    /// A list setting (an array, or a comma-separated string).
    pub fn list(&self, key: &str) -> Option<Vec<String>> {
        match self.get(key)? {
            Value::Array(items) => {
                Some(items.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).collect())
            }
            Value::String(s) => Some(s.split(',').map(|p| p.trim().to_owned()).filter(|p| !p.is_empty()).collect()),
            other => Some(vec![other.to_string()]),
        }
    }

    /// A list of strings where a single string is one item (rules may contain commas).
    pub fn rules(&self, key: &str) -> Option<Vec<String>> {
        match self.get(key)? {
            Value::Array(items) => {
                Some(items.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).collect())
            }
            Value::String(s) => Some(vec![s.clone()]),
            other => Some(vec![other.to_string()]),
        }
    }
}
