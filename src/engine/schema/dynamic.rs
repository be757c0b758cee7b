//! Dynamic mapping: the type a new field gets from its first non-null value, as OpenSearch's
//! `DocumentParser` decides it (https://docs.opensearch.org/latest/mappings/ "Dynamic mapping
//! types"; date detection as in `createBuilderFromDynamicValue`):
//!
//! | JSON value | new field |
//! |---|---|
//! | `null`, `[]` | none |
//! | `true`/`false` | `boolean` |
//! | integer (any size) | `long` |
//! | fraction or exponent | `float` |
//! | object | `object` |
//! | string with more than one `:`, `-` or `/` that parses with a dynamic date format | `date` |
//! | string parsing as a number, when `numeric_detection` is on | `long` or `float` |
//! | other string | `text` with sub-field `keyword` (`ignore_above: 256`) |

use std::collections::BTreeMap;

use serde_json::Value;

use super::date;
use super::mapping::{Mapper, Mapping, ObjectMapping};
use super::types::{FieldKind, FieldType, KeywordParams, NumberType, TextParams};

/// The second default dynamic date format, as OpenSearch applies it.
pub(super) const SLASH_DATE_FORMAT: &str = "yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis";

/// The mapper a new field gets from `v` (a scalar or object, never an array); `None` for null.
pub(super) fn infer(mapping: &Mapping, v: &Value) -> Option<Mapper> {
    let field = |kind| Some(Mapper::Field(FieldType::new(kind)));
    match v {
        Value::Null | Value::Array(_) => None,
        Value::Bool(_) => field(FieldKind::Boolean),
        Value::Number(n) if n.is_f64() => field(FieldKind::Number(NumberType::Float)),
        Value::Number(_) => field(FieldKind::Number(NumberType::Long)),
        Value::Object(_) => Some(Mapper::Object(ObjectMapping::default())),
        Value::String(s) => Some(Mapper::Field(string_field(mapping, s))),
    }
}

fn string_field(mapping: &Mapping, s: &str) -> FieldType {
    if mapping.date_detection.unwrap_or(true) {
        let count = |c: char| s.chars().filter(|x| *x == c).count();
        if count(':') > 1 || count('-') > 1 || count('/') > 1 {
            let defaults = [date::DEFAULT_FORMAT.to_string(), SLASH_DATE_FORMAT.to_string()];
            let formats: &[String] = match &mapping.dynamic_date_formats {
                Some(f) => f,
                None => &defaults,
            };
            for f in formats {
                if date::parse_date(s, f).is_ok() {
                    let format = if f == date::DEFAULT_FORMAT { None } else { Some(f.clone()) };
                    return FieldType::new(FieldKind::Date { nanos: false, format });
                }
            }
        }
    }
    if mapping.numeric_detection.unwrap_or(false) {
        if s.trim().parse::<i64>().is_ok() {
            return FieldType::new(FieldKind::Number(NumberType::Long));
        }
        if s.trim().parse::<f64>().is_ok() {
            return FieldType::new(FieldKind::Number(NumberType::Float));
        }
    }
    let mut text = FieldType::new(FieldKind::Text(TextParams::default()));
    let keyword = FieldType::new(FieldKind::Keyword(KeywordParams { ignore_above: Some(256), normalizer: None, wildcard: false }));
    text.fields = BTreeMap::from([("keyword".to_string(), keyword)]);
    text
}
