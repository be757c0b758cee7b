//! `constant_keyword` fields (OpenSearch's `ConstantKeywordFieldMapper`): the mapping fixes the
//! value (`value`) or the few values (`values`, at most 127, kept sorted) a document may have.
//!
//! A document whose value is not one of them is rejected. With one value nothing is indexed
//! (every document has it); with several, a document's value is indexed as its ordinal in the
//! sorted values, one byte (`0..=126`), as a keyword term and sorted-set doc value, as
//! OpenSearch does. Queries are answered from the mapping (`dsl_constant.rs`).
//!
//! Indexing difference: with `index: false` and `doc_values: true` the ordinal still gets
//! postings (OpenSearch answers those queries from the doc values; Fathom's term queries read
//! postings), so the results are the same.

use crate::error::ErrorKind;
use serde_json::{Map, Value};

use super::types::str_param;
use super::values::Converted;
use super::{FieldValue, MappingError};

/// Most values a `constant_keyword` field may have.
pub const MAX_VALUES: usize = 127;

/// The parameters of a `constant_keyword` field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConstantKeywordParams {
    /// `value`: the one value of every document.
    pub value: Option<String>,
    /// `values`: the allowed values, sorted (Java string order).
    pub values: Option<Vec<String>>,
}

impl ConstantKeywordParams {
    /// The allowed values, sorted.
    pub fn keys(&self) -> &[String] {
        match (&self.value, &self.values) {
            (Some(v), _) => std::slice::from_ref(v),
            (None, Some(vs)) => vs,
            (None, None) => &[],
        }
    }

    /// The ordinal of `value` among the keys (its position in the sorted values).
    pub fn ordinal(&self, value: &str) -> Option<usize> {
        self.keys().iter().position(|k| k == value)
    }

    /// The indexed term of ordinal `ord` (one byte).
    pub fn term_of(ord: usize) -> String {
        char::from(ord.min(MAX_VALUES) as u8).to_string()
    }

    pub(super) fn parse_param(&mut self, name: &str, key: &str, v: &Value) -> Result<(), MappingError> {
        match key {
            "value" => self.value = Some(str_param(name, key, v)?),
            "values" => {
                // XContentMapValues.nodeStringArrayValue: a list, or a comma-separated string.
                let mut vs: Vec<String> = match v {
                    Value::Array(a) => a.iter().map(|x| str_param(name, key, x)).collect::<Result<_, _>>()?,
                    other => str_param(name, key, other)?
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect(),
                };
                if vs.len() > MAX_VALUES {
                    return Err(MappingError::illegal(format!(
                        "the values of constant_keyword field [{name}] must be small than 127 values"
                    )));
                }
                // Java's String order (UTF-16 code units).
                vs.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
                vs.dedup();
                self.values = Some(vs);
            }
            _ => {}
        }
        Ok(())
    }

    /// Exactly one of `value` and `values` must be given.
    pub(super) fn validate(&self, name: &str) -> Result<(), MappingError> {
        if self.value.is_some() == self.values.is_some() {
            return Err(MappingError::parsing(format!(
                "Field [{name}] is missing required parameter [value or values]"
            )));
        }
        Ok(())
    }

    pub(super) fn to_json(&self, m: &mut Map<String, Value>) {
        if let Some(v) = &self.value {
            m.insert("value".into(), Value::String(v.clone()));
        }
        if let Some(vs) = &self.values {
            m.insert("values".into(), Value::Array(vs.iter().cloned().map(Value::String).collect()));
        }
    }

    /// The indexed value of `v` for field `name`: nothing with a single value, the ordinal with
    /// several; an error when the value is missing or not one of the keys.
    pub(super) fn convert(&self, name: &str, v: &Value) -> Result<Converted, MappingError> {
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => {
                return Err(MappingError::illegal(format!("constant keyword field [{name}] must have a value")))
            }
            Value::Object(_) => {
                return Err(MappingError::new(ErrorKind::IllegalState, "Can't get text on a START_OBJECT"))
            }
            Value::Array(_) => {
                return Err(MappingError::new(ErrorKind::IllegalState, "Can't get text on a START_ARRAY"))
            }
        };
        let Some(ord) = self.ordinal(&s) else {
            return Err(MappingError::illegal(format!(
                "constant keyword field [{name}] must have a value of [[{}]]",
                self.keys().join(", ")
            )));
        };
        if self.keys().len() == 1 {
            return Ok(Converted::Skip);
        }
        Ok(Converted::Value(FieldValue::Keyword(Self::term_of(ord))))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::engine::schema::{FieldValue, Mapping};

    #[test]
    fn mapping_parses_and_prints() {
        let m = Mapping::from_json(&json!({"properties": {
            "one": {"type": "constant_keyword", "value": 1},
            "many": {"type": "constant_keyword", "values": ["xyz", "abcde", "xYy", "fgh"], "index": false},
        }}))
        .unwrap();
        let out = m.to_json();
        assert_eq!(out["properties"]["one"], json!({"type": "constant_keyword", "value": "1"}));
        assert_eq!(
            out["properties"]["many"],
            json!({"type": "constant_keyword", "values": ["abcde", "fgh", "xYy", "xyz"], "index": false})
        );
        assert_eq!(Mapping::from_json(&out).unwrap(), m);
        for bad in
            [json!({"type": "constant_keyword"}), json!({"type": "constant_keyword", "value": "a", "values": ["a"]})]
        {
            let e = Mapping::from_json(&json!({"properties": {"f": bad}})).unwrap_err();
            assert!(e.to_string().contains("Field [f] is missing required parameter [value or values]"), "{e}");
        }
        let e = Mapping::from_json(
            &json!({"properties": {"f": {"type": "constant_keyword", "value": "a", "store": true}}}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown parameter [store]"), "{e}");
        let many: Vec<String> = (0..128).map(|i| i.to_string()).collect();
        assert!(
            Mapping::from_json(&json!({"properties": {"f": {"type": "constant_keyword", "values": many}}})).is_err()
        );
    }

    #[test]
    fn documents_must_have_one_of_the_values() {
        let m = Mapping::from_json(&json!({"properties": {
            "one": {"type": "constant_keyword", "value": "1"},
            "many": {"type": "constant_keyword", "values": ["b", "a", "c"]},
        }}))
        .unwrap();
        let fields = |src: &str| -> Vec<(String, FieldValue)> {
            m.parse("1", src.as_bytes())
                .unwrap()
                .fields
                .into_iter()
                .filter(|f| f.name == "one" || f.name == "many")
                .map(|f| (f.name, f.value))
                .collect()
        };
        assert_eq!(fields(r#"{"one": 1}"#), vec![]);
        assert_eq!(fields(r#"{"one": "1", "many": "c"}"#), vec![("many".into(), FieldValue::Keyword("\u{2}".into()))]);
        let e = m.parse("7", br#"{"one": "2"}"#).unwrap_err();
        assert_eq!(e.reason, "failed to parse field [one] of type [constant_keyword] in document with id '7'. Preview of field's value: '2'");
        assert_eq!(e.root_cause().reason, "constant keyword field [one] must have a value of [[1]]");
        let e = m.parse("7", br#"{"many": "d"}"#).unwrap_err();
        assert_eq!(e.root_cause().reason, "constant keyword field [many] must have a value of [[a, b, c]]");
        let e = m.parse("7", br#"{"one": null}"#).unwrap_err();
        assert_eq!(e.root_cause().reason, "constant keyword field [one] must have a value");
    }
}
