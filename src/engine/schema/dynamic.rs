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

use crate::error::ErrorKind;
use std::collections::BTreeMap;

use serde_json::Value;

use super::date;
use super::dynamic_templates;
use super::mapping::{Dynamic, Mapper, Mapping, ObjectMapping};
use super::types::{FieldKind, FieldType, KeywordParams, NumberType, TextParams};
use super::MappingError;

/// The second default dynamic date format, as OpenSearch applies it.
pub(super) const SLASH_DATE_FORMAT: &str = "yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis";

/// The mapper a new field at `path` named `name` gets from `v` (a scalar or object, never an
/// array) under `dynamic`: the first matching dynamic template's, else (with `dynamic: true`)
/// the default. `Ok(None)`: no field (null, or no template under `false_allow_templates`);
/// an error under `strict_allow_templates` without a template.
pub(super) fn infer_at(
    mapping: &Mapping,
    path: &str,
    name: &str,
    parent: &str,
    v: &Value,
    dynamic: Dynamic,
) -> Result<Option<Mapper>, MappingError> {
    if v.is_null() || v.is_array() {
        return Ok(None);
    }
    let templates = mapping.dynamic_templates.as_deref().unwrap_or(&[]);
    if !templates.is_empty() {
        let (kind, date_format) = detected_kind(mapping, v);
        if let Some(t) = dynamic_templates::find(templates, path, name, kind) {
            let mut m = t.build(name, kind)?;
            if let (Mapper::Field(f), Some(df)) = (&mut m, date_format) {
                // A date without a `format` in the template takes the one that detected it.
                if let FieldKind::Date { format: format @ None, .. } = &mut f.kind {
                    if df != date::DEFAULT_FORMAT {
                        *format = Some(df);
                    }
                }
            }
            return Ok(Some(m));
        }
    }
    match dynamic {
        Dynamic::True => Ok(infer(mapping, v)),
        Dynamic::StrictAllowTemplates | Dynamic::Strict => Err(strict_error(dynamic, name, parent)),
        Dynamic::False | Dynamic::FalseAllowTemplates => Ok(None),
    }
}

/// OpenSearch's `StrictDynamicMappingException` for a new field `name` under object `parent`.
pub(super) fn strict_error(dynamic: Dynamic, name: &str, parent: &str) -> MappingError {
    let within = if parent.is_empty() { "_doc" } else { parent };
    MappingError::new(
        ErrorKind::StrictDynamicMapping,
        format!("mapping set to {}, dynamic introduction of [{name}] within [{within}] is not allowed", dynamic.name()),
    )
}

/// The type a value is detected as for template matching (`string` values may be `date`, or
/// `long`/`double` with `numeric_detection`), and for a date the format that parsed it.
fn detected_kind(mapping: &Mapping, v: &Value) -> (&'static str, Option<String>) {
    match v {
        Value::Bool(_) => ("boolean", None),
        Value::Number(n) if n.is_f64() => ("double", None),
        Value::Number(_) => ("long", None),
        Value::Object(_) => ("object", None),
        Value::String(s) => match string_field(mapping, s).kind {
            FieldKind::Date { format, .. } => {
                ("date", Some(format.unwrap_or_else(|| date::DEFAULT_FORMAT.to_string())))
            }
            FieldKind::Number(NumberType::Long) => ("long", None),
            FieldKind::Number(_) => ("double", None),
            _ => ("string", None),
        },
        Value::Null | Value::Array(_) => ("object", None),
    }
}

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
    let keyword = FieldType::new(FieldKind::Keyword(KeywordParams {
        ignore_above: Some(256),
        normalizer: None,
        wildcard: false,
    }));
    text.fields = BTreeMap::from([("keyword".to_string(), keyword)]);
    text
}
