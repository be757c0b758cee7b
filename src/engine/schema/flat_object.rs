//! `flat_object` fields (OpenSearch's `FlatObjectFieldMapper`): a whole JSON object indexed as
//! keyword values without mapping its keys. For a field `f` and a leaf value `v` at key path
//! `a.b` inside it, a document gets
//! - `f`: every key path in the object, in full (`f.a`, `f.a.b`) — what `exists` on `f.a.b` reads;
//! - `f._value`: `v` — what queries on `f` itself read;
//! - `f._valueAndPath`: `f.a.b=v` — what queries on `f.a.b` read (the value prefixed by the path);
//!
//! all three as keyword postings and (with `doc_values`) sorted-set doc values. Values are the
//! JSON text of strings, numbers and booleans; arrays index each element; `null` is skipped;
//! values longer than `ignore_above` are skipped; objects deeper than `depth_limit` are rejected.
//!
//! `similarity` is kept and printed but not acted on (as on keyword fields).

use crate::error::ErrorKind;
use serde_json::Value;

use super::types::{FieldType, KeywordParams};
use super::{FieldKind, FieldValue, MappingError};

/// The sub-field of the values.
pub const VALUE_SUFFIX: &str = "_value";
/// The sub-field of the `path=value` strings.
pub const VALUE_AND_PATH_SUFFIX: &str = "_valueAndPath";

/// The parameters of a `flat_object` field (`index`, `doc_values` are the common ones).
#[derive(Debug, Clone, PartialEq)]
pub struct FlatObjectParams {
    /// Values longer than this (UTF-16 units) are not indexed. Default: 2147483647.
    pub ignore_above: Option<u32>,
    /// Deepest nesting of objects accepted. Default: 2147483647.
    pub depth_limit: Option<u32>,
    /// The keyword field type of the `_value` and `_valueAndPath` sub-fields (what queries on
    /// them use).
    pub keyword: Box<FieldType>,
}

impl Default for FlatObjectParams {
    fn default() -> Self {
        FlatObjectParams {
            ignore_above: None,
            depth_limit: None,
            keyword: Box::new(FieldType::new(FieldKind::Keyword(KeywordParams::default()))),
        }
    }
}

impl FlatObjectParams {
    pub(super) fn parse_param(&mut self, name: &str, key: &str, v: &Value) -> Result<(), MappingError> {
        let int = |what: &str| -> Result<u32, MappingError> {
            let i = v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())).ok_or_else(|| {
                MappingError::parsing(format!(
                    "Failed to parse mapping [{key}] of field [{name}]: expected an integer, got {v}"
                ))
            })?;
            u32::try_from(i).map_err(|_| MappingError::illegal(format!("[{what}] must be positive, got {i}")))
        };
        match key {
            "ignore_above" => self.ignore_above = Some(int("ignore_above")?),
            "depth_limit" => self.depth_limit = Some(int("depth_limit")?),
            "normalizer" => {
                let n = super::types::str_param(name, key, v)?;
                if let FieldKind::Keyword(k) = &mut self.keyword.kind {
                    k.normalizer = Some(n);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The `normalizer`: applied to `_value` and `_valueAndPath` values (the whole `path=value`
    /// string, as OpenSearch does) when indexing and to query values on them.
    pub fn normalizer(&self) -> Option<&str> {
        match &self.keyword.kind {
            FieldKind::Keyword(k) => k.normalizer.as_deref(),
            _ => None,
        }
    }

    pub(super) fn to_json(&self, m: &mut serde_json::Map<String, Value>) {
        if let Some(n) = self.normalizer() {
            m.insert("normalizer".into(), Value::from(n));
        }
        if let Some(i) = self.ignore_above {
            m.insert("ignore_above".into(), Value::from(i));
        }
        if let Some(d) = self.depth_limit {
            m.insert("depth_limit".into(), Value::from(d));
        }
    }

    /// The fields of one value of flat_object field `name`: `(field name, value)` pairs.
    pub(super) fn flatten(&self, name: &str, v: &Value) -> Result<Vec<(String, FieldValue)>, MappingError> {
        let Value::Object(map) = v else {
            let token = match v {
                Value::Array(_) => "START_ARRAY",
                Value::String(_) => "VALUE_STRING",
                Value::Number(_) => "VALUE_NUMBER",
                Value::Bool(_) => "VALUE_BOOLEAN",
                _ => "VALUE_NULL",
            };
            return Err(MappingError::new(
                ErrorKind::Parsing,
                format!("[{name}] unexpected token [{token}] in flat_object field value"),
            ));
        };
        let mut out = Vec::new();
        self.walk(name, name, map, 1, &mut out)?;
        Ok(out)
    }

    fn walk(
        &self,
        root: &str,
        path: &str,
        map: &serde_json::Map<String, Value>,
        depth: u32,
        out: &mut Vec<(String, FieldValue)>,
    ) -> Result<(), MappingError> {
        let limit = self.depth_limit.unwrap_or(i32::MAX as u32);
        if depth > limit {
            return Err(MappingError::parsing(format!(
                "the depth of flat_object field path [{path}] is bigger than maximum depth [{limit}]"
            )));
        }
        for (k, v) in map {
            let p = format!("{path}.{k}");
            // The root field holds each key name under the root (`root.key`, whatever its depth;
            // a dotted key gives each of its parts), as OpenSearch's `JsonToStringXContentParser`
            // key list: `exists` on `root.key` finds a key at any depth.
            for part in k.split('.').filter(|x| !x.is_empty()) {
                out.push((root.to_string(), FieldValue::Keyword(format!("{root}.{part}"))));
            }
            self.leaf(root, &p, v, depth, out)?;
        }
        Ok(())
    }

    fn leaf(
        &self,
        root: &str,
        path: &str,
        v: &Value,
        depth: u32,
        out: &mut Vec<(String, FieldValue)>,
    ) -> Result<(), MappingError> {
        let s = match v {
            Value::Null => return Ok(()),
            Value::Object(m) => return self.walk(root, path, m, depth + 1, out),
            Value::Array(a) => {
                for x in a {
                    self.leaf(root, path, x, depth, out)?;
                }
                return Ok(());
            }
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
        };
        let limit = self.ignore_above.unwrap_or(i32::MAX as u32) as usize;
        if s.len() > limit && s.encode_utf16().count() > limit {
            return Ok(());
        }
        out.push((format!("{root}.{VALUE_AND_PATH_SUFFIX}"), FieldValue::Keyword(format!("{path}={s}"))));
        out.push((format!("{root}.{VALUE_SUFFIX}"), FieldValue::Keyword(s)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::engine::schema::{FieldKind, FieldValue, Mapping};

    #[test]
    fn mapping_prints_only_what_was_given() {
        let m = Mapping::from_json(&json!({"properties": {
            "a": {"type": "flat_object"},
            "b": {"type": "flat_object", "ignore_above": 3, "depth_limit": 2, "doc_values": false, "index": false},
        }}))
        .unwrap();
        let out = m.to_json();
        assert_eq!(out["properties"]["a"], json!({"type": "flat_object"}));
        assert_eq!(
            out["properties"]["b"],
            json!({"type": "flat_object", "ignore_above": 3, "depth_limit": 2, "doc_values": false, "index": false})
        );
        assert_eq!(Mapping::from_json(&out).unwrap(), m);
        assert!(matches!(m.field_type("a._value").map(|f| &f.kind), Some(FieldKind::Keyword(_))));
        assert!(matches!(m.field_type("a._valueAndPath").map(|f| &f.kind), Some(FieldKind::Keyword(_))));
        assert!(m.field_type("a.title").is_none());
        for bad in ["store", "fields", "copy_to"] {
            assert!(
                Mapping::from_json(&json!({"properties": {"a": {"type": "flat_object", bad: "x"}}})).is_err(),
                "{bad}"
            );
        }
        let n = Mapping::from_json(
            &json!({"properties": {"a": {"type": "flat_object", "normalizer": "lowercase", "similarity": "boolean"}}}),
        )
        .unwrap();
        assert_eq!(
            n.to_json()["properties"]["a"],
            json!({"type": "flat_object", "normalizer": "lowercase", "similarity": "boolean"})
        );
        match n.field_type("a._valueAndPath").map(|f| &f.kind) {
            Some(FieldKind::Keyword(k)) => assert_eq!(k.normalizer.as_deref(), Some("lowercase")),
            other => panic!("{other:?}"),
        }
    }

    /// Flattening against a naive model of the three fields.
    #[test]
    fn documents_flatten_to_keys_values_and_paths() {
        let m = Mapping::from_json(
            &json!({"properties": {"c": {"type": "flat_object", "ignore_above": 4, "depth_limit": 3}}}),
        )
        .unwrap();
        let doc = json!({"c": {"t": "Lucene", "a": {"s": "Mc", "g": ["Mi", 5, true, null]}, "n": 1.5}});
        let fields: Vec<(String, String)> = m
            .parse("1", doc.to_string().as_bytes())
            .unwrap()
            .fields
            .into_iter()
            .filter(|f| f.name.starts_with('c'))
            .map(|f| match f.value {
                FieldValue::Keyword(s) => (f.name, s),
                other => panic!("{other:?}"),
            })
            .collect();
        let mut want: Vec<(String, String)> = Vec::new();
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        for key in ["c.a", "c.g", "c.s", "c.n", "c.t"] {
            want.push(kv("c", key));
        }
        for (path, v) in [("c.a.g", "Mi"), ("c.a.g", "5"), ("c.a.g", "true"), ("c.a.s", "Mc"), ("c.n", "1.5")] {
            want.push(kv("c._value", v));
            want.push(kv("c._valueAndPath", &format!("{path}={v}")));
        }
        let (mut got, mut want) = (fields, want);
        got.sort();
        want.sort();
        assert_eq!(got, want, "\"Lucene\" is over ignore_above");
        let e = m.parse("1", br#"{"c": {"a": {"b": {"c": {"d": 1}}}}}"#).unwrap_err();
        assert!(e.to_string().contains("maximum depth [3]"), "{e}");
        let e = m.parse("1", br#"{"c": "x"}"#).unwrap_err();
        assert!(e.to_string().contains("[c] unexpected token [VALUE_STRING] in flat_object field value"), "{e}");
    }
}
