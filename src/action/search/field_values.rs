//! Field values of a hit beside `_source`: `docvalue_fields` (read from the doc-values columns and
//! printed as OpenSearch's `DocValueFormat`), the `fields` API (values from `_source` parsed
//! through the mapping, as `FieldFetcher`) and `stored_fields` (fields mapped `store: true`; the
//! engine keeps `_source`, so their values come from it like the fields API's).

use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::fetch::{f32_json, values_at};
use crate::engine::query::sort::sortable_long_to_double;
use crate::engine::query::SegmentView;
use crate::engine::schema::{date, ip, FieldKind, FieldType, FieldValue, Mapping, NumberType};
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

/// One `docvalue_fields` or `fields` entry: a field name or pattern and an optional `format`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldAndFormat {
    pub field: String,
    pub format: Option<String>,
}

/// OpenSearch's special format meaning "the mapping's" (deprecated since 7.x).
pub const USE_FIELD_MAPPING: &str = "use_field_mapping";

fn xparse(reason: String) -> OsError {
    OsError::new(ErrorKind::XContentParse, reason).status(400)
}

/// Parses a list of `"name"` or `{"field": "name", "format": "..."}` (a single string too).
pub fn parse_list(key: &str, v: &Value) -> OsResult<Vec<FieldAndFormat>> {
    let one = |x: &Value| -> OsResult<FieldAndFormat> {
        match x {
            Value::String(s) => Ok(FieldAndFormat { field: s.clone(), format: None }),
            Value::Number(_) | Value::Bool(_) => Ok(FieldAndFormat { field: x.to_string(), format: None }),
            Value::Object(m) => {
                let mut field = None;
                let mut format = None;
                for (k, v) in m {
                    match (k.as_str(), v) {
                        ("field", Value::String(s)) => field = Some(s.clone()),
                        ("format", Value::String(s)) => format = Some(s.clone()),
                        ("format", Value::Null) => {}
                        ("field" | "format", _) => {
                            return Err(xparse(format!(
                                "[docvalues_field] {k} doesn't support values of type: {}",
                                token(v)
                            )))
                        }
                        _ => {
                            return Err(xparse(crate::error::unknown_field("docvalues_field", k, &["field", "format"])))
                        }
                    }
                }
                let field = field.ok_or_else(|| OsError::illegal("Required [field]"))?;
                Ok(FieldAndFormat { field, format })
            }
            _ => Err(OsError::parsing(format!(
                "Expected [VALUE_STRING] or [START_OBJECT] in [{key}] but found [{}]",
                token(x)
            ))),
        }
    };
    match v {
        Value::Array(a) => a.iter().map(one).collect(),
        Value::String(_) => Ok(vec![one(v)?]),
        other => Err(OsError::parsing(format!("Expected [START_ARRAY] in [{key}] but found [{}]", token(other)))),
    }
}

fn token(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        Value::String(_) => "VALUE_STRING",
        Value::Number(_) => "VALUE_NUMBER",
        Value::Bool(_) => "VALUE_BOOLEAN",
        Value::Null => "VALUE_NULL",
    }
}

/// The mapped fields (multi-fields included) a name or `*` pattern stands for, in request order
/// then path order. Unmapped names and object paths give nothing.
pub fn expand<'a>(mapping: &'a Mapping, pattern: &str) -> Vec<(String, &'a FieldType)> {
    if pattern.contains('*') {
        mapping.leaf_fields().into_iter().filter(|(p, _)| crate::cluster::resolve::glob(pattern, p)).collect()
    } else {
        mapping.field_type(pattern).map(|ft| vec![(pattern.to_string(), ft)]).unwrap_or_default()
    }
}

fn no_formats(name: &str, ft: &FieldType) -> OsError {
    OsError::illegal(format!("Field [{name}] of type [{}] does not support custom formats", ft.type_name()))
}

/// The `format` to print `ft` with (`None`: the type's default). Errors as `docValueFormat` does.
fn doc_value_format(name: &str, ft: &FieldType, format: Option<&str>) -> OsResult<Option<String>> {
    let format = format.filter(|f| *f != USE_FIELD_MAPPING);
    match (&ft.kind, format) {
        (_, None) => Ok(None),
        (FieldKind::Date { .. }, Some(f)) => {
            date::validate_format(f).map_err(OsError::illegal)?;
            Ok(Some(f.to_string()))
        }
        (FieldKind::Number(_) | FieldKind::ScaledFloat { .. }, Some(f)) => Ok(Some(f.to_string())),
        (_, Some(_)) => Err(no_formats(name, ft)),
    }
}

/// Checks `docvalue_fields` against a mapping (the errors OpenSearch's shards report): text fields
/// and fields without doc values cannot be loaded, formats must suit the type.
pub fn check_docvalue_fields(mapping: &Mapping, specs: &[FieldAndFormat]) -> OsResult<()> {
    for s in specs {
        for (name, ft) in expand(mapping, &s.field) {
            if matches!(ft.kind, FieldKind::Text(_)) {
                return Err(OsError::illegal(format!("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{name}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.")));
            }
            if !ft.effective_doc_values() {
                return Err(OsError::illegal(format!("Can't load fielddata on [{name}] because fielddata is unsupported on fields of type [{}]. Use doc values instead.", ft.type_name())));
            }
            doc_value_format(&name, ft, s.format.as_deref())?;
        }
    }
    Ok(())
}

/// Checks `fields` formats against a mapping: only dates take a `format`.
pub fn check_fields(mapping: &Mapping, specs: &[FieldAndFormat]) -> OsResult<()> {
    for s in specs {
        let Some(f) = s.format.as_deref() else { continue };
        for (name, ft) in expand(mapping, &s.field) {
            match ft.kind {
                FieldKind::Date { .. } => date::validate_format(f).map_err(OsError::illegal)?,
                _ => {
                    return Err(OsError::illegal(format!(
                        "Field [{name}] of type [{}] doesn't support formats.",
                        ft.type_name()
                    )))
                }
            }
        }
    }
    Ok(())
}

/// Java's `DecimalFormat` for the common patterns (`0.00`, `#.#`, `#,##0.0`): HALF_EVEN rounding
/// to the maximum fraction digits, at least the minimum, grouping by thousands when the pattern
/// has a `,`.
pub fn decimal_format(x: f64, pattern: &str) -> String {
    let pat = pattern.split(';').next().unwrap_or(pattern);
    let (int_pat, frac_pat) = pat.split_once('.').unwrap_or((pat, ""));
    let min_frac = frac_pat.chars().filter(|c| *c == '0').count();
    let max_frac = frac_pat.chars().filter(|c| *c == '0' || *c == '#').count().min(17);
    let min_int = int_pat.chars().filter(|c| *c == '0').count();
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "∞".into()
        } else {
            "-∞".into()
        };
    }
    let scale = 10f64.powi(max_frac as i32);
    let scaled = x.abs() * scale;
    let mut r = scaled.round();
    if (scaled - scaled.trunc() - 0.5).abs() < 1e-9 && r % 2.0 != 0.0 {
        r -= 1.0; // half even
    }
    let s = format!("{:.*}", max_frac, r / scale);
    let (ip, fp) = s.split_once('.').unwrap_or((&s, ""));
    let fp = fp.trim_end_matches('0');
    let fp = if fp.len() < min_frac { format!("{fp:0<min_frac$}") } else { fp.to_string() };
    let ip = if ip == "0" && min_int == 0 && !fp.is_empty() { String::new() } else { format!("{ip:0>min_int$}") };
    let ip = if int_pat.contains(',') {
        let b = ip.as_bytes();
        let mut out = String::new();
        for (i, c) in b.iter().enumerate() {
            if i > 0 && (b.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(*c as char);
        }
        out
    } else {
        ip
    };
    let sign = if x < 0.0 && r != 0.0 { "-" } else { "" };
    if fp.is_empty() {
        format!("{sign}{ip}")
    } else {
        format!("{sign}{ip}.{fp}")
    }
}

/// A number as `DocValueFormat` prints it: as is, or a string with a decimal pattern.
fn number(v: Value, format: Option<&str>) -> Value {
    match (format, v.as_f64()) {
        (Some(p), Some(x)) => json!(decimal_format(x, p)),
        _ => v,
    }
}

fn date_string(t: i64, nanos: bool, format: &str) -> Value {
    json!(if nanos { date::format_date_nanos(t, format) } else { date::format_date(t, format) })
}

/// The doc values of one field of one document, printed as OpenSearch's `DocValueFormat`.
pub fn doc_values(
    seg: &dyn SegmentView,
    doc: DocId,
    name: &str,
    ft: &FieldType,
    format: Option<&str>,
) -> OsResult<Vec<Value>> {
    let format = doc_value_format(name, ft, format)?;
    let fmt = format.as_deref();
    let mut out = Vec::new();
    let mut nums = Vec::new();
    let mut ords = Vec::new();
    match &ft.kind {
        FieldKind::Range { kind, format: mf } => {
            if seg.sorted_set_ords(name, doc, &mut ords) {
                for o in &ords {
                    let b = seg.sorted_set_term(name, *o)?;
                    out.extend(crate::engine::schema::range::display(*kind, fmt.or(mf.as_deref()), &b));
                }
            }
        }
        FieldKind::Keyword(_) | FieldKind::Ip => {
            if seg.sorted_set_ords(name, doc, &mut ords) {
                for o in &ords {
                    let b = seg.sorted_set_term(name, *o)?;
                    if matches!(ft.kind, FieldKind::Ip) {
                        let a: [u8; 16] = b
                            .as_slice()
                            .try_into()
                            .map_err(|_| OsError::internal(format!("bad ip doc value in [{name}]")))?;
                        out.push(json!(ip::format_ip(u128::from_be_bytes(a))));
                    } else {
                        out.push(json!(String::from_utf8_lossy(&b)));
                    }
                }
            }
        }
        kind => {
            if seg.numeric_values(name, doc, &mut nums) {
                for v in &nums {
                    out.push(match kind {
                        FieldKind::Number(NumberType::Double | NumberType::Float | NumberType::HalfFloat) => number(
                            serde_json::Number::from_f64(sortable_long_to_double(*v))
                                .map_or(Value::Null, Value::Number),
                            fmt,
                        ),
                        // The column holds the sign-flipped value (`unsigned_to_sortable_long`).
                        FieldKind::Number(NumberType::UnsignedLong) => number(json!((*v as u64) ^ (1u64 << 63)), fmt),
                        FieldKind::ScaledFloat { scaling_factor } => number(json!(*v as f64 / scaling_factor), fmt),
                        FieldKind::Date { nanos, .. } => date_string(*v, *nanos, fmt.unwrap_or(ft.date_format())),
                        FieldKind::Boolean => json!(*v != 0),
                        _ => number(json!(v), fmt),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// `docvalue_fields` of one hit, in request order (a field asked twice gets its values twice).
pub fn docvalue_fields(
    mapping: &Mapping,
    seg: &dyn SegmentView,
    doc: DocId,
    specs: &[FieldAndFormat],
    out: &mut Map<String, Value>,
) -> OsResult<()> {
    for s in specs {
        if s.field == "_seq_no" {
            // The sequence number's doc values (root documents only).
            let mut vals = Vec::new();
            if seg.numeric_values("_seq_no", doc, &mut vals) && !vals.is_empty() {
                let vals = vals.into_iter().map(Value::from);
                match out.get_mut("_seq_no") {
                    Some(Value::Array(a)) => a.extend(vals),
                    _ => {
                        out.insert("_seq_no".into(), Value::Array(vals.collect()));
                    }
                }
            }
            continue;
        }
        for (name, ft) in expand(mapping, &s.field) {
            let vals = doc_values(seg, doc, &name, ft, s.format.as_deref())?;
            match out.get_mut(&name) {
                Some(Value::Array(a)) => a.extend(vals),
                _ => {
                    if !vals.is_empty() {
                        out.insert(name, Value::Array(vals));
                    }
                }
            }
        }
    }
    Ok(())
}

/// One parsed value as the fields API prints it.
fn display(v: &FieldValue, ft: &FieldType, format: Option<&str>) -> Option<Value> {
    Some(match (v, &ft.kind) {
        (FieldValue::Text { text, .. }, _) => json!(text),
        (FieldValue::Keyword(s), _) => json!(s),
        (FieldValue::Long(t), FieldKind::Date { nanos, .. }) => {
            date_string(*t, *nanos, format.unwrap_or(ft.date_format()))
        }
        (FieldValue::Long(x), FieldKind::ScaledFloat { scaling_factor }) => json!(*x as f64 / scaling_factor),
        (FieldValue::Long(_), FieldKind::GeoPoint { .. }) => return None,
        (FieldValue::Long(x), _) => json!(x),
        (FieldValue::Double(d), FieldKind::Number(NumberType::Float | NumberType::HalfFloat)) => f32_json(*d as f32),
        (FieldValue::Double(d), _) => serde_json::Number::from_f64(*d).map_or(Value::Null, Value::Number),
        (FieldValue::UnsignedLong(u), _) => json!(u),
        (FieldValue::Bool(b), _) => json!(b),
        (FieldValue::Ip(a), _) => json!(ip::format_ip(*a)),
        (FieldValue::Binary(b), _) => json!(base64::engine::general_purpose::STANDARD.encode(b)),
        (FieldValue::Range(b), FieldKind::Range { kind, format: mf }) => {
            return crate::engine::schema::range::display(*kind, format.or(mf.as_deref()), b)
        }
        (FieldValue::Range(_), _) => return None,
        // Read from doc values (OpenSearch's fetcher for token_count), see `fields_api`.
        (FieldValue::TokenCount { .. }, _) => return None,
    })
}

/// A hit's `_source` parsed through the mapping: per field path, its values in source order.
#[derive(Debug)]
pub struct ParsedSource {
    values: Vec<(String, FieldValue)>,
    ok: bool,
}

impl ParsedSource {
    /// Parses `source` (a document the index accepted; on failure values come raw from `_source`).
    pub fn new(mapping: &Mapping, id: &str, source: &[u8]) -> ParsedSource {
        match mapping.parse(id, source) {
            Ok(p) => ParsedSource { values: p.fields.into_iter().map(|f| (f.name, f.value)).collect(), ok: true },
            Err(_) => ParsedSource { values: Vec::new(), ok: false },
        }
    }
}

/// The values of mapped `fields` (`specs`) from a parsed source (`src` for what the mapping
/// cannot rebuild, like geo points), always arrays; fields without values are left out.
pub fn fields_api(
    mapping: &Mapping,
    parsed: &ParsedSource,
    src: &Value,
    specs: &[FieldAndFormat],
    out: &mut Map<String, Value>,
) {
    let mut nested: Vec<super::nested_fields::Requested<'_>> = Vec::new();
    for s in specs {
        for (name, ft) in expand(mapping, &s.field) {
            if super::nested_fields::outer_nested(mapping, &name, "").is_some() {
                if !nested.iter().any(|r| r.0 == name) {
                    nested.push((name, ft, s.format.clone()));
                }
                continue;
            }
            let mut vals = Vec::new();
            if parsed.ok && !matches!(ft.kind, FieldKind::GeoPoint { .. }) {
                for (n, v) in &parsed.values {
                    if *n == name {
                        if let Some(x) = display(v, ft, s.format.as_deref()) {
                            vals.push(x);
                        }
                    }
                }
            } else {
                values_at(src, &name, &mut vals);
            }
            if !vals.is_empty() {
                out.insert(name, Value::Array(vals));
            }
        }
    }
    if !nested.is_empty() {
        out.extend(super::nested_fields::groups(mapping, "", src, &nested, &display));
    }
}

/// The `fields` of `token_count` type, from their doc values (as OpenSearch's fetcher; a count
/// without doc values is not returned).
pub fn token_count_fields(
    mapping: &Mapping,
    seg: &dyn SegmentView,
    doc: DocId,
    specs: &[FieldAndFormat],
    out: &mut Map<String, Value>,
) -> OsResult<()> {
    for s in specs {
        for (name, ft) in expand(mapping, &s.field) {
            if matches!(ft.kind, FieldKind::TokenCount { .. }) && ft.effective_doc_values() {
                let vals = doc_values(seg, doc, &name, ft, None)?;
                if !vals.is_empty() {
                    out.insert(name, Value::Array(vals));
                }
            }
        }
    }
    Ok(())
}

/// `stored_fields` of one hit: the fields mapped `store: true` among `names` (patterns allowed),
/// values as the fields API prints them with the mapping's formats.
pub fn stored_fields(
    mapping: &Mapping,
    parsed: &ParsedSource,
    src: &Value,
    names: &[String],
    out: &mut Map<String, Value>,
) {
    let specs: Vec<FieldAndFormat> = names
        .iter()
        .filter(|n| !n.starts_with('_') || n.contains('*'))
        .flat_map(|n| expand(mapping, n))
        .filter(|(_, ft)| ft.store == Some(true))
        .map(|(p, _)| FieldAndFormat { field: p, format: None })
        .collect();
    fields_api(mapping, parsed, src, &specs, out);
}

#[cfg(test)]
#[path = "field_values_tests.rs"]
mod tests;
