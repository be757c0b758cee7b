//! The action/metadata line of a bulk item (`{"index": {"_index": ..., "_id": ...}}`).
//!
//! The common line (string ids, indices and routings, numeric versions) is read by a borrowed
//! `serde` struct without building a `serde_json::Value` (no allocation unless a string has
//! escapes). Anything that struct refuses (another value type, an unknown or duplicate key, a
//! second action, malformed JSON) is parsed again through a `Value`, which decides exactly as
//! before and produces OpenSearch's error messages.

use std::borrow::Cow;

use serde::de::{Deserializer, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{OsError, OsResult};

/// The four bulk actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpType {
    Index,
    Create,
    Update,
    Delete,
}

impl OpType {
    /// The action's name (the key of its response item).
    pub fn name(self) -> &'static str {
        match self {
            OpType::Index => "index",
            OpType::Create => "create",
            OpType::Update => "update",
            OpType::Delete => "delete",
        }
    }
}

/// One action/metadata line. Strings borrow from the request body where they can.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemMeta<'a> {
    #[serde(rename = "_index", borrow, default, deserialize_with = "cow")]
    pub index: Option<Cow<'a, str>>,
    #[serde(rename = "_id", borrow, default, deserialize_with = "cow")]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "cow")]
    pub routing: Option<Cow<'a, str>>,
    #[serde(rename = "_routing", borrow, default, deserialize_with = "cow")]
    pub routing_alt: Option<Cow<'a, str>>,
    #[serde(default)]
    pub if_seq_no: Option<i64>,
    #[serde(default)]
    pub if_primary_term: Option<u64>,
    #[serde(default)]
    pub version: Option<i64>,
    #[serde(borrow, default, deserialize_with = "cow")]
    pub version_type: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "cow")]
    pub pipeline: Option<Cow<'a, str>>,
    #[serde(default)]
    pub require_alias: Option<bool>,
    #[serde(default)]
    pub retry_on_conflict: Option<u64>,
    #[serde(borrow, default, deserialize_with = "cow")]
    pub op_type: Option<Cow<'a, str>>,
    /// `_source` of an update item (only through the `Value` path).
    #[serde(skip)]
    pub source_filter: Option<Value>,
}

impl ItemMeta<'_> {
    /// `routing`, else `_routing`.
    pub fn routing(&self) -> Option<&str> {
        self.routing.as_deref().or(self.routing_alt.as_deref())
    }
}

/// An optional string that borrows from the input unless it has escapes (serde's own
/// `Option<Cow<str>>` always copies). Any other value type is an error (→ the `Value` path).
fn cow<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<Cow<'de, str>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string or null")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(self)
        }
        fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Borrowed(v)))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v)))
        }
    }
    d.deserialize_option(V)
}

/// The fast shape: exactly one of the four actions.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line<'a> {
    #[serde(borrow, default)]
    index: Option<ItemMeta<'a>>,
    #[serde(borrow, default)]
    create: Option<ItemMeta<'a>>,
    #[serde(borrow, default)]
    update: Option<ItemMeta<'a>>,
    #[serde(borrow, default)]
    delete: Option<ItemMeta<'a>>,
}

/// Parses line `line_no` into its action (with `op_type` applied) and metadata.
pub fn parse(line: &[u8], line_no: usize) -> OsResult<(OpType, ItemMeta<'_>)> {
    if let Ok(l) = serde_json::from_slice::<Line>(line) {
        let found = match (l.index, l.create, l.update, l.delete) {
            (Some(m), None, None, None) => Some((OpType::Index, m)),
            (None, Some(m), None, None) => Some((OpType::Create, m)),
            (None, None, Some(m), None) => Some((OpType::Update, m)),
            (None, None, None, Some(m)) => Some((OpType::Delete, m)),
            _ => None,
        };
        if let Some((op, m)) = found {
            return Ok((apply_op_type(op, m.op_type.as_deref())?, m));
        }
    }
    parse_slow(line, line_no)
}

fn apply_op_type(op: OpType, op_type: Option<&str>) -> OsResult<OpType> {
    match (op, op_type) {
        (OpType::Index, Some("create")) => Ok(OpType::Create),
        (OpType::Index, Some(other)) if other != "index" => {
            Err(OsError::illegal(format!("opType must be 'create' or 'index', found: [{other}]")))
        }
        (op, _) => Ok(op),
    }
}

fn json_token_name(line: &[u8]) -> &'static str {
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => "START_ARRAY",
        Some(b'"') => "VALUE_STRING",
        Some(b'0'..=b'9') | Some(b'-') => "VALUE_NUMBER",
        _ => "VALUE_STRING",
    }
}

fn str_field(m: &Map<String, Value>, k: &str) -> Option<Cow<'static, str>> {
    match m.get(k) {
        Some(Value::String(s)) => Some(Cow::Owned(s.clone())),
        Some(Value::Number(n)) => Some(Cow::Owned(n.to_string())),
        _ => None,
    }
}

/// The general path through a `Value`: every shape the fast struct refuses, with the error
/// messages OpenSearch gives for malformed lines.
fn parse_slow(line: &[u8], line_no: usize) -> OsResult<(OpType, ItemMeta<'static>)> {
    let action: Value = serde_json::from_slice(line).map_err(|_| {
        OsError::illegal(format!(
            "Malformed action/metadata line [{line_no}], expected START_OBJECT but found [{}]",
            json_token_name(line)
        ))
    })?;
    let Some(obj) = action.as_object() else {
        return Err(OsError::illegal(format!(
            "Malformed action/metadata line [{line_no}], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]"
        )));
    };
    if obj.is_empty() {
        return Err(OsError::illegal(format!(
            "Malformed action/metadata line [{line_no}], expected FIELD_NAME but found [END_OBJECT]"
        )));
    }
    if obj.len() != 1 {
        return Err(OsError::illegal(format!(
            "Malformed action/metadata line [{line_no}], expected a simple value for field [{}] but found [START_OBJECT]",
            obj.keys().nth(1).map(String::as_str).unwrap_or("")
        )));
    }
    let Some((name, meta)) = obj.iter().next() else {
        return Err(OsError::illegal(format!(
            "Malformed action/metadata line [{line_no}], expected FIELD_NAME but found [END_OBJECT]"
        )));
    };
    let op = match name.as_str() {
        "index" => OpType::Index,
        "create" => OpType::Create,
        "update" => OpType::Update,
        "delete" => OpType::Delete,
        other => {
            return Err(OsError::illegal(format!(
                "Malformed action/metadata line [{line_no}], expected field [create], [delete], [index] or [update] but found [{other}]"
            )))
        }
    };
    let Some(meta) = meta.as_object() else {
        return Err(OsError::illegal(format!(
            "Malformed action/metadata line [{line_no}], expected START_OBJECT but found [VALUE_STRING]"
        )));
    };
    for k in meta.keys() {
        if !matches!(
            k.as_str(),
            "_index"
                | "_id"
                | "routing"
                | "_routing"
                | "if_seq_no"
                | "if_primary_term"
                | "version"
                | "version_type"
                | "pipeline"
                | "require_alias"
                | "retry_on_conflict"
                | "_source"
                | "op_type"
                | "dynamic_templates"
                | "_type"
        ) {
            return Err(OsError::illegal(format!(
                "Action/metadata line [{line_no}] contains an unknown parameter [{k}]"
            )));
        }
    }
    let text = |k: &str| meta.get(k).and_then(Value::as_str).map(|s| Cow::Owned(s.to_string()));
    let m = ItemMeta {
        index: str_field(meta, "_index"),
        id: str_field(meta, "_id"),
        routing: str_field(meta, "routing"),
        routing_alt: str_field(meta, "_routing"),
        if_seq_no: meta.get("if_seq_no").and_then(Value::as_i64),
        if_primary_term: meta.get("if_primary_term").and_then(Value::as_u64),
        version: meta.get("version").and_then(Value::as_i64),
        version_type: text("version_type"),
        pipeline: text("pipeline"),
        require_alias: meta.get("require_alias").and_then(Value::as_bool),
        retry_on_conflict: meta.get("retry_on_conflict").and_then(Value::as_u64),
        op_type: text("op_type"),
        source_filter: meta.get("_source").cloned(),
    };
    Ok((apply_op_type(op, m.op_type.as_deref())?, m))
}
