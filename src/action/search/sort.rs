//! `sort`: parsing the body and `sort=` parameter forms, resolving each field against an index's
//! mapping into an engine [`SortField`], and rendering sort values as OpenSearch prints them.

use serde_json::{json, Value};

use super::dsl::perr;
use crate::engine::query::{Missing, NumMode, NumericSort, SortBy, SortField, SortOrder, SortValue};
use crate::engine::schema::{date, ip, FieldKind, Mapping, NumberType};
use crate::error::{ErrorKind, OsError, OsResult};

/// One requested sort, before the mapping is known.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SortSpec {
    pub field: String,
    pub order: Option<SortOrder>,
    /// `_first`, `_last` (a custom value is taken as `_last`).
    pub missing: Option<Missing>,
    pub unmapped_type: Option<String>,
    /// `min`, `max`, `sum`, `avg`, `median` (numeric fields).
    pub mode: Option<String>,
    /// A custom `missing` value (numeric fields).
    pub missing_value: Option<Value>,
    /// `numeric_type`: `long`, `double`, `date`, `date_nanos`.
    pub numeric_type: Option<String>,
    /// `nested` (or the legacy `nested_path` / `nested_filter`): sort by nested documents' values.
    pub nested: Option<NestedSortSpec>,
}

/// A sort's `nested` option.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct NestedSortSpec {
    pub path: Option<String>,
    pub filter: Option<Value>,
    pub max_children: Option<usize>,
}

/// Reads a sort's `nested` object (`path`, `filter`, `max_children`; a deeper `nested` is not
/// supported).
fn nested_spec(v: &Value) -> OsResult<NestedSortSpec> {
    let m = v.as_object().ok_or_else(|| perr("[nested] must be an object"))?;
    let mut out = NestedSortSpec::default();
    for (k, v) in m {
        match k.as_str() {
            "path" => out.path = Some(v.as_str().ok_or_else(|| perr("[nested] [path] must be a string"))?.to_string()),
            "filter" => out.filter = Some(v.clone()),
            "max_children" => {
                let n = v.as_i64().ok_or_else(|| perr("[nested] [max_children] must be an integer"))?;
                out.max_children = Some(if n < 0 { usize::MAX } else { n as usize });
            }
            "nested" => {
                return Err(OsError::illegal("sorting on multiple levels of nested documents is not supported"))
            }
            other => return Err(perr(format!("[nested] unknown field [{other}]"))),
        }
    }
    Ok(out)
}

fn order_of(s: &str) -> OsResult<SortOrder> {
    match s.to_ascii_lowercase().as_str() {
        "asc" => Ok(SortOrder::Asc),
        "desc" => Ok(SortOrder::Desc),
        other => Err(OsError::illegal(format!("Unknown SortOrder [{other}]"))),
    }
}

fn spec(field: &str) -> SortSpec {
    SortSpec {
        field: field.to_string(),
        order: None,
        missing: None,
        unmapped_type: None,
        mode: None,
        missing_value: None,
        numeric_type: None,
        nested: None,
    }
}

fn one(v: &Value) -> OsResult<SortSpec> {
    match v {
        Value::String(s) => Ok(spec(s)),
        Value::Object(m) => {
            let mut it = m.iter();
            let Some((field, opts)) = it.next() else { return Err(perr("[sort] empty sort object")) };
            if it.next().is_some() {
                return Err(perr("[sort] expected a single field name, but found multiple".to_string()));
            }
            let mut s = spec(field);
            match opts {
                Value::String(o) => s.order = Some(order_of(o)?),
                Value::Object(om) => {
                    for (k, v) in om {
                        let text =
                            || v.as_str().map(str::to_string).ok_or_else(|| perr(format!("[{k}] must be a string")));
                        match k.as_str() {
                            "order" => s.order = Some(order_of(&text()?)?),
                            "missing" => {
                                s.missing = Some(match v.as_str() {
                                    Some("_first") => Missing::First,
                                    Some("_last") => Missing::Last,
                                    _ => {
                                        s.missing_value = Some(v.clone());
                                        Missing::Last
                                    }
                                })
                            }
                            "unmapped_type" => s.unmapped_type = Some(text()?),
                            "mode" => {
                                let m = text()?;
                                if !matches!(m.as_str(), "min" | "max" | "sum" | "avg" | "median") {
                                    return Err(OsError::illegal(format!("Unknown SortMode [{m}]")));
                                }
                                s.mode = Some(m);
                            }
                            "numeric_type" => {
                                let t = text()?;
                                if !matches!(t.as_str(), "long" | "double" | "date" | "date_nanos") {
                                    return Err(OsError::illegal(format!("Unsupported numeric type: {t}")));
                                }
                                s.numeric_type = Some(t);
                            }
                            "nested" => s.nested = Some(nested_spec(v)?),
                            "nested_path" => {
                                s.nested.get_or_insert_with(Default::default).path = Some(text()?);
                            }
                            "nested_filter" => {
                                s.nested.get_or_insert_with(Default::default).filter = Some(v.clone());
                            }
                            "format" => {}
                            other => {
                                return Err(perr(crate::error::unknown_field(
                                    "field_sort",
                                    other,
                                    &[
                                        "format",
                                        "missing",
                                        "mode",
                                        "nested",
                                        "nested_filter",
                                        "nested_path",
                                        "numeric_type",
                                        "order",
                                        "unmapped_type",
                                    ],
                                )))
                            }
                        }
                    }
                }
                _ => return Err(perr(format!("[sort] malformed sort for [{field}]"))),
            }
            Ok(s)
        }
        _ => Err(perr("[sort] must be a string, object or array")),
    }
}

/// Parses the body's `sort`.
pub fn parse_sort(v: &Value) -> OsResult<Vec<SortSpec>> {
    match v {
        Value::Array(a) => a.iter().map(one).collect(),
        other => Ok(vec![one(other)?]),
    }
}

/// Parses `sort=title:desc,year`.
pub fn parse_sort_param(s: &str) -> OsResult<Vec<SortSpec>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.rsplit_once(':') {
            Some((f, o)) => out.push(SortSpec { order: Some(order_of(o)?), ..spec(f) }),
            None => out.push(spec(part)),
        }
    }
    Ok(out)
}

/// How a sort value prints (and how a `search_after` value is read): OpenSearch's
/// `DocValueFormat` of the sort field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueFormat {
    Plain,
    Ip,
    Bool,
    /// `unsigned_long`: the column holds the value with its sign bit flipped.
    Unsigned,
    /// `date`/`date_nanos`: values print as numbers; `search_after` strings parse with `format`.
    Date {
        format: String,
        nanos: bool,
    },
}

/// Adds the `nested` part of sorts resolved by [`resolve`] (their filters parse in the nested
/// scope); a sort on a field inside a nested object needs one (OpenSearch's
/// `validateMissingNestedPath`).
pub fn resolve_nested(
    specs: &[SortSpec],
    fields: &mut [(SortField, ValueFormat)],
    qc: &super::dsl::QueryContext<'_>,
) -> OsResult<()> {
    use crate::engine::query::sort_nested::{NestedSort, NestedSortRef};
    let shard_err = |reason: String| OsError::new(ErrorKind::QueryShard, reason).status(400);
    for (s, (f, _)) in specs.iter().zip(fields.iter_mut()) {
        if matches!(f.by, SortBy::Score | SortBy::Doc) {
            continue;
        }
        let field = qc.mapping.resolve_alias(&s.field);
        let Some(n) = &s.nested else {
            if qc.mapping.field_type(field).is_some() && nested_parent(qc.mapping, field).is_some() {
                return Err(shard_err(format!(
                    "it is mandatory to set the [nested] context on the nested sort field: [{}].",
                    s.field
                )));
            }
            continue;
        };
        let Some(path) = &n.path else {
            return Err(OsError::illegal("[nested] requires 'path' field"));
        };
        match qc.mapping.object(path).filter(|_| !path.is_empty()) {
            None => return Err(shard_err(format!("[nested] failed to find nested object under path [{path}]"))),
            Some(o) if !o.nested => {
                return Err(shard_err(format!("[nested] nested object under path [{path}] is not of nested type")))
            }
            Some(_) => {}
        }
        let inner = super::dsl::QueryContext { nested_scope: Some(path), ..*qc };
        let filter = match &n.filter {
            Some(v) => Some(super::dsl::parse(v, &inner)?),
            None => None,
        };
        f.nested = Some(NestedSortRef(std::sync::Arc::new(NestedSort {
            path: path.clone(),
            filter,
            max_children: n.max_children,
        })));
    }
    Ok(())
}

/// The innermost nested object holding `field`, if any.
fn nested_parent<'m>(mapping: &Mapping, field: &'m str) -> Option<&'m str> {
    let mut best = None;
    for (i, _) in field.match_indices('.') {
        let prefix = &field[..i];
        if mapping.object(prefix).is_some_and(|o| o.nested) {
            best = Some(prefix);
        }
    }
    best
}

/// Resolves specs against a mapping.
pub fn resolve(specs: &[SortSpec], mapping: &Mapping) -> OsResult<Vec<(SortField, ValueFormat)>> {
    specs.iter().map(|s| resolve_one(s, mapping)).collect()
}

fn resolve_one(s: &SortSpec, mapping: &Mapping) -> OsResult<(SortField, ValueFormat)> {
    let order = |default: SortOrder| match (&s.mode, s.order) {
        (_, Some(o)) => o,
        _ => default,
    };
    let missing = s.missing.unwrap_or(Missing::Last);
    match s.field.as_str() {
        "_score" => {
            return Ok((
                SortField { by: SortBy::Score, order: order(SortOrder::Desc), missing, nested: None },
                ValueFormat::Plain,
            ))
        }
        "_doc" | "_shard_doc" => {
            return Ok((
                SortField { by: SortBy::Doc, order: order(SortOrder::Asc), missing, nested: None },
                ValueFormat::Plain,
            ))
        }
        _ => {}
    }
    let by_kind = |kind: &FieldKind, name: &str, date_format: &str| -> OsResult<(SortBy, ValueFormat)> {
        Ok(match kind {
            FieldKind::Number(NumberType::UnsignedLong) => (SortBy::Long(name.into()), ValueFormat::Unsigned),
            FieldKind::Date { nanos, .. } => (SortBy::Long(name.into()), ValueFormat::Date { format: date_format.to_string(), nanos: *nanos }),
            FieldKind::Keyword(_) => (SortBy::Keyword(name.into()), ValueFormat::Plain),
            FieldKind::Ip => (SortBy::Keyword(name.into()), ValueFormat::Ip),
            FieldKind::Number(NumberType::Double | NumberType::Float | NumberType::HalfFloat) => (SortBy::Double(name.into()), ValueFormat::Plain),
            FieldKind::Boolean => (SortBy::Long(name.into()), ValueFormat::Bool),
            FieldKind::Number(_) | FieldKind::ScaledFloat { .. } | FieldKind::TokenCount { .. } => (SortBy::Long(name.into()), ValueFormat::Plain),
            FieldKind::Text(_) => {
                return Err(OsError::illegal(format!("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{name}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.")))
            }
            FieldKind::Binary => return Err(OsError::illegal(format!("Field [{name}] of type [binary] does not support sorting"))),
            FieldKind::Range { kind, .. } => return Err(OsError::illegal(format!("Field [{name}] of type [{}] does not support sorting", kind.type_name()))),
            FieldKind::GeoPoint { .. } => return Err(OsError::illegal("can't sort on geo_point field without using specific sorting feature, like geo_distance")),
            FieldKind::ConstantKeyword(_) => return Err(OsError::illegal(format!("Sorting on field [{name}] of type [constant_keyword] is not supported"))),
            // Unreachable: aliases are resolved below (an alias never targets an alias).
            FieldKind::FlatObject(_) => (SortBy::Keyword(name.into()), ValueFormat::Plain),
            FieldKind::Alias { path } => return Err(OsError::illegal(format!("No mapping found for alias target [{path}] in order to sort on"))),
        })
    };
    let field = mapping.resolve_alias(&s.field);
    let (by, fmt) = match mapping.field_type(field) {
        Some(ft) => {
            if !ft.effective_doc_values() && !matches!(ft.kind, FieldKind::Text(_)) {
                return Err(OsError::illegal(format!("Can't load fielddata on [{}] because fielddata is unsupported on fields of type [{}]. Use doc values instead.", s.field, ft.type_name())));
            }
            by_kind(&ft.kind, field, ft.date_format())?
        }
        None => match &s.unmapped_type {
            Some(t) => {
                let kind = match t.as_str() {
                    "keyword" | "string" => FieldKind::Keyword(Default::default()),
                    "double" | "float" | "half_float" => FieldKind::Number(NumberType::Double),
                    "boolean" => FieldKind::Boolean,
                    "ip" => FieldKind::Ip,
                    _ => FieldKind::Number(NumberType::Long),
                };
                by_kind(&kind, &s.field, "")?
            }
            None => {
                return Err(OsError::new(
                    ErrorKind::QueryShard,
                    format!("No mapping found for [{}] in order to sort on", s.field),
                )
                .status(400))
            }
        },
    };
    let scale = match mapping.field_type(&s.field).map(|f| &f.kind) {
        Some(FieldKind::ScaledFloat { scaling_factor }) => Some(*scaling_factor),
        _ => None,
    };
    let by = numeric(s, by, fmt == ValueFormat::Unsigned, scale)?;
    Ok((SortField { by, order: order(SortOrder::Asc), missing, nested: None }, fmt))
}

/// The column form of an `unsigned_long` (sign bit flipped, so it orders as a signed long).
fn unsigned_key(u: u64) -> i64 {
    (u ^ (1 << 63)) as i64
}

/// An `unsigned_long` from a JSON number or string (a fraction is truncated; out of range: `None`).
fn unsigned_of(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|d| *d >= 0.0 && *d < 18_446_744_073_709_551_616.0).map(|d| d as u64)),
        Value::String(s) => {
            s.trim().parse::<u64>().ok().or_else(|| unsigned_of(&Value::from(s.trim().parse::<f64>().ok()?)))
        }
        _ => None,
    }
}

/// A numeric sort with a `mode`, custom `missing` or `numeric_type` becomes [`SortBy::Numeric`].
/// `unsigned`: the field is an `unsigned_long`; `scale`: a `scaled_float`'s factor (its sorts are
/// always numeric sorts, whose values are the unscaled doubles).
fn numeric(s: &SortSpec, by: SortBy, unsigned: bool, scale: Option<f64>) -> OsResult<SortBy> {
    let (field, stored_double) = match &by {
        SortBy::Long(f) => (f.clone(), false),
        SortBy::Double(f) => (f.clone(), true),
        SortBy::Keyword(_) if matches!(s.mode.as_deref(), Some("sum" | "avg" | "median")) => {
            return Err(OsError::illegal(format!(
                "only sorting on numeric fields supports [{}] mode",
                s.mode.as_deref().unwrap_or("")
            )));
        }
        _ => return Ok(by),
    };
    if s.mode.is_none() && s.missing_value.is_none() && s.numeric_type.is_none() && scale.is_none() {
        return Ok(by);
    }
    let mode = match s.mode.as_deref() {
        Some("min") => NumMode::Min,
        Some("max") => NumMode::Max,
        Some("sum") => NumMode::Sum,
        Some("avg") => NumMode::Avg,
        Some("median") => NumMode::Median,
        _ => NumMode::Auto,
    };
    let missing = match &s.missing_value {
        None => None,
        Some(v) => {
            let bad = || {
                OsError::new(
                    ErrorKind::NumberFormat,
                    format!("For input string: \"{}\"", v.as_str().map_or_else(|| v.to_string(), str::to_string)),
                )
                .status(400)
            };
            if unsigned {
                return Ok(SortBy::Numeric(NumericSort {
                    field,
                    stored_double,
                    out_double: false,
                    mode,
                    missing: Some(unsigned_key(unsigned_of(v).ok_or_else(bad)?)),
                    unsigned,
                    scale: None,
                }));
            }
            let d = match v {
                Value::Number(n) => n.as_f64().ok_or_else(bad)?,
                Value::String(t) => t.trim().parse::<f64>().map_err(|_| bad())?,
                _ => return Err(bad()),
            };
            Some(match scale {
                // Java's Math.round, as the column's values.
                Some(f) => (d * f + 0.5).floor() as i64,
                None if stored_double => crate::engine::query::sort::double_to_sortable_long(d),
                None => d as i64,
            })
        }
    };
    let out_double = match s.numeric_type.as_deref() {
        Some("double") => true,
        Some(_) => false,
        None => stored_double,
    };
    let out_double = (out_double || scale.is_some()) && !unsigned;
    Ok(SortBy::Numeric(NumericSort {
        field,
        stored_double,
        out_double,
        mode,
        missing,
        unsigned,
        scale: scale.map(f64::to_bits),
    }))
}

/// A sort value as JSON. Missing numeric values print as OpenSearch's substitutes
/// (`Long.MAX_VALUE` when sorting last ascending, ...); missing keywords as `null`.
pub fn render(v: &SortValue, f: &SortField, fmt: &ValueFormat) -> Value {
    match v {
        SortValue::Float(x) => super::fetch::f32_json(*x),
        SortValue::Long(x) if *fmt == ValueFormat::Unsigned && !matches!(f.by, SortBy::Score | SortBy::Doc) => {
            json!((*x as u64) ^ (1 << 63))
        }
        SortValue::Long(x) if *fmt == ValueFormat::Bool => json!(x),
        SortValue::Long(x) => json!(x),
        SortValue::Double(x) if x.is_finite() => json!(x),
        SortValue::Double(_) => Value::Null,
        SortValue::Bytes(b) if *fmt == ValueFormat::Ip => {
            let mut a = [0u8; 16];
            if b.len() == 16 {
                a.copy_from_slice(b);
                json!(ip::format_ip(u128::from_be_bytes(a)))
            } else {
                json!(String::from_utf8_lossy(b))
            }
        }
        SortValue::Bytes(b) => json!(String::from_utf8_lossy(b)),
        SortValue::Null => match &f.by {
            SortBy::Long(_) | SortBy::Numeric(NumericSort { out_double: false, .. }) => {
                let high = (f.order == SortOrder::Asc) == (f.missing == Missing::Last);
                match (fmt, high) {
                    (ValueFormat::Unsigned, true) => json!(u64::MAX),
                    (ValueFormat::Unsigned, false) => json!(0),
                    (_, true) => json!(i64::MAX),
                    (_, false) => json!(i64::MIN),
                }
            }
            _ => Value::Null,
        },
    }
}

/// A `search_after` value converted to the engine's sort value for `f`.
pub fn after_value(v: &Value, f: &SortField, fmt: &ValueFormat) -> OsResult<SortValue> {
    let bad = || OsError::illegal(format!("Failed to parse search_after value [{v}] for sort field"));
    let numeric_field = matches!(f.by, SortBy::Long(_) | SortBy::Numeric(NumericSort { out_double: false, .. }));
    Ok(match (&f.by, v) {
        (_, Value::Null) => SortValue::Null,
        (SortBy::Score, _) => SortValue::Float(v.as_f64().ok_or_else(bad)? as f32),
        (_, Value::Number(_) | Value::String(_)) if numeric_field && *fmt == ValueFormat::Unsigned => {
            SortValue::Long(unsigned_key(unsigned_of(v).ok_or_else(bad)?))
        }
        (_, Value::String(s)) if numeric_field && matches!(fmt, ValueFormat::Date { .. }) => {
            let ValueFormat::Date { format, nanos } = fmt else { return Err(bad()) };
            // Formatted like the field (OpenSearch's `DocValueFormat.DateTime.parseLong`); a
            // plain number is taken as the raw value.
            let parsed = if *nanos { date::parse_date_nanos(s, format) } else { date::parse_date(s, format) };
            SortValue::Long(parsed.or_else(|_| s.trim().parse::<i64>()).map_err(|_| bad())?)
        }
        (SortBy::Doc | SortBy::Long(_), Value::Number(n)) => {
            SortValue::Long(n.as_i64().or_else(|| n.as_f64().map(|x| x as i64)).ok_or_else(bad)?)
        }
        (SortBy::Doc | SortBy::Long(_), Value::String(s)) => SortValue::Long(s.parse().map_err(|_| bad())?),
        (SortBy::Long(_), Value::Bool(b)) => SortValue::Long(*b as i64),
        (SortBy::Double(_), Value::Number(n)) => SortValue::Double(n.as_f64().ok_or_else(bad)?),
        (SortBy::Double(_), Value::String(s)) => SortValue::Double(s.parse().map_err(|_| bad())?),
        (SortBy::Numeric(ns), Value::Number(n)) if !ns.out_double => {
            SortValue::Long(n.as_i64().or_else(|| n.as_f64().map(|x| x as i64)).ok_or_else(bad)?)
        }
        (SortBy::Numeric(ns), Value::String(s)) if !ns.out_double => SortValue::Long(s.parse().map_err(|_| bad())?),
        (SortBy::Numeric(_), Value::Number(n)) => SortValue::Double(n.as_f64().ok_or_else(bad)?),
        (SortBy::Numeric(_), Value::String(s)) => SortValue::Double(s.parse().map_err(|_| bad())?),
        (SortBy::Keyword(_), Value::String(s)) if *fmt == ValueFormat::Ip => {
            SortValue::Bytes(ip::parse_ip(s).ok_or_else(bad)?.to_be_bytes().to_vec())
        }
        (SortBy::Keyword(_), Value::String(s)) => SortValue::Bytes(s.as_bytes().to_vec()),
        (SortBy::Keyword(_), other) => SortValue::Bytes(other.to_string().into_bytes()),
        _ => return Err(bad()),
    })
}
