//! Values sources: what a field-based aggregation reads (OpenSearch's `ValuesSourceConfig`). The
//! request names a `field` (or a `script`), a `missing` value, a `format` and a `value_type`; on
//! a shard the field's mapping decides how its doc values decode and print. Per segment, a
//! [`SegValues`] reads the column itself (no name lookup per document).

use serde_json::Value;

use std::sync::Arc;

use super::fmt::Fmt;
use super::script_source::{script_out, ScriptOut, ScriptReader, ScriptTerms, ValueScript};
use crate::action::search::dsl::QueryContext;
use crate::engine::query::sort::{double_to_sortable_long, sortable_long_to_double};
use crate::engine::query::SegmentView;
use crate::engine::schema::{date, ip, FieldKind, FieldType, Mapping, NumberType};
use crate::engine::segment::doc_values::{NumericColumn, SortedSetColumn};
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

/// The value-source part of an aggregation's request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceSpec {
    pub field: Option<String>,
    pub script: Option<Value>,
    pub missing: Option<Value>,
    pub format: Option<String>,
    pub value_type: Option<String>,
}

impl SourceSpec {
    /// Takes `key` if it is a value-source key; `Ok(false)` leaves it to the aggregation.
    pub fn take(&mut self, agg: &str, key: &str, v: &Value) -> OsResult<bool> {
        match key {
            "field" => self.field = Some(string(agg, key, v)?),
            "script" => self.script = Some(v.clone()),
            "missing" => self.missing = if v.is_null() { None } else { Some(v.clone()) },
            "format" => self.format = Some(string(agg, key, v)?),
            "value_type" | "valueType" => self.value_type = Some(string(agg, key, v)?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The aggregation needs a field or a script.
    pub fn require(&self, agg_type: &str, name: &str) -> OsResult<()> {
        if self.field.is_none() && self.script.is_none() {
            return Err(OsError::illegal("Required one of fields [field, script], but none were specified. ")
                .with("agg", name)
                .with("type", agg_type));
        }
        Ok(())
    }
}

/// A string parameter.
pub fn string(agg: &str, key: &str, v: &Value) -> OsResult<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(OsError::parsing(format!("[{agg}] {key} doesn't support values of type: {}", token(v)))),
    }
}

/// The parser token name of a JSON value (for OpenSearch's messages).
pub fn token(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        Value::String(_) => "VALUE_STRING",
        Value::Number(_) => "VALUE_NUMBER",
        Value::Bool(_) => "VALUE_BOOLEAN",
        Value::Null => "VALUE_NULL",
    }
}

/// How a numeric column's raw `i64` decodes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NumKind {
    Long,
    /// Sortable-long encoded doubles (double, float, half_float).
    Double,
    /// Sign-flipped `unsigned_long`.
    Unsigned,
    /// Millis (or nanos).
    Date {
        nanos: bool,
    },
    Bool,
    /// `round(value * factor)`.
    Scaled(f64),
}

impl NumKind {
    /// The raw column value as a double.
    #[inline]
    pub fn to_f64(self, raw: i64) -> f64 {
        match self {
            NumKind::Long | NumKind::Date { .. } | NumKind::Bool => raw as f64,
            NumKind::Double => sortable_long_to_double(raw),
            NumKind::Unsigned => ((raw as u64) ^ (1u64 << 63)) as f64,
            NumKind::Scaled(f) => raw as f64 / f,
        }
    }
}

/// What a resolved source reads.
#[derive(Debug, Clone, PartialEq)]
pub enum VType {
    Num(NumKind),
    /// Keyword terms (`ip`: 16-byte addresses).
    Bytes {
        ip: bool,
    },
    GeoPoint,
}

/// A `missing` value in the source's domain.
#[derive(Debug, Clone, PartialEq)]
pub enum MissingValue {
    /// Raw column encoding.
    Num(i64),
    Bytes(Vec<u8>),
}

/// A source resolved against one shard's mapping.
#[derive(Debug, Clone)]
pub struct Config {
    /// The field read (`None`: unmapped, only the missing value if any).
    pub field: Option<String>,
    pub vt: Option<VType>,
    pub missing: Option<MissingValue>,
    pub fmt: Fmt,
    pub type_name: String,
    /// A `script` source: its values replace the field's.
    pub script: Option<Arc<ValueScript>>,
}

impl Config {
    /// The numeric kind, or OpenSearch's error for a field this aggregation cannot read.
    pub fn numeric(&self, agg_type: &str) -> OsResult<Option<NumKind>> {
        match &self.vt {
            None => Ok(None),
            Some(VType::Num(k)) => Ok(Some(*k)),
            Some(_) => Err(unsupported(self, agg_type)),
        }
    }

    /// Whether the source reads a text field's fielddata (only a text field with
    /// `fielddata: true` resolves to a field source of type `text`).
    pub fn is_fielddata(&self) -> bool {
        self.field.is_some() && self.type_name == "text"
    }

    /// Opens the source on one segment.
    pub fn open<'a>(&'a self, seg: &'a dyn SegmentView) -> SegValues<'a> {
        if let Some(vs) = &self.script {
            return match vs.out {
                ScriptOut::Num(_) => SegValues::Num(NumReader {
                    col: None,
                    view: seg,
                    field: "",
                    missing: match &self.missing {
                        Some(MissingValue::Num(v)) => Some(*v),
                        _ => None,
                    },
                    buf: Vec::new(),
                    script: Some(Box::new(ScriptReader::new(vs, seg))),
                }),
                ScriptOut::Bytes => SegValues::Bytes(OrdReader {
                    col: None,
                    view: seg,
                    field: "",
                    missing: match &self.missing {
                        Some(MissingValue::Bytes(b)) => Some(b.clone()),
                        _ => None,
                    },
                    buf: Vec::new(),
                    script: Some(Box::new(ScriptTerms::new(vs, seg))),
                    fielddata: None,
                }),
            };
        }
        let Some(field) = self.field.as_deref() else {
            return match &self.missing {
                Some(MissingValue::Num(v)) => SegValues::Num(NumReader::constant(*v, seg)),
                Some(MissingValue::Bytes(b)) => SegValues::Bytes(OrdReader::constant(b.clone(), seg)),
                None => SegValues::None,
            };
        };
        match &self.vt {
            Some(VType::Num(_)) => SegValues::Num(NumReader {
                col: seg.numeric_column(field),
                view: seg,
                field,
                missing: match &self.missing {
                    Some(MissingValue::Num(v)) => Some(*v),
                    _ => None,
                },
                buf: Vec::new(),
                script: None,
            }),
            Some(VType::Bytes { .. }) => SegValues::Bytes(OrdReader {
                col: seg.sorted_set_column(field),
                view: seg,
                field,
                missing: match &self.missing {
                    Some(MissingValue::Bytes(b)) => Some(b.clone()),
                    _ => None,
                },
                buf: Vec::new(),
                script: None,
                fielddata: if self.is_fielddata() { super::fielddata::load(seg, field) } else { None },
            }),
            _ => SegValues::None,
        }
    }
}

/// `Field [x] of type [t] is not supported for aggregation [a]`.
pub fn unsupported(c: &Config, agg_type: &str) -> OsError {
    OsError::illegal(format!(
        "Field [{}] of type [{}] is not supported for aggregation [{agg_type}]",
        // A metadata field (`_index`) is named by its type.
        c.field.as_deref().unwrap_or(if c.type_name.starts_with('_') { c.type_name.as_str() } else { "" }),
        c.type_name
    ))
}

/// One segment's values of a source.
pub enum SegValues<'a> {
    Num(NumReader<'a>),
    Bytes(OrdReader<'a>),
    None,
}

/// A numeric column on one segment.
pub struct NumReader<'a> {
    col: Option<NumericColumn<'a>>,
    view: &'a dyn SegmentView,
    field: &'a str,
    missing: Option<i64>,
    buf: Vec<i64>,
    script: Option<Box<ScriptReader<'a>>>,
}

impl<'a> NumReader<'a> {
    fn constant(v: i64, seg: &'a dyn SegmentView) -> NumReader<'a> {
        NumReader { col: None, view: seg, field: "", missing: Some(v), buf: Vec::new(), script: None }
    }

    /// The doc's raw values, ascending (the missing value when it has none and one is set).
    #[inline]
    pub fn values(&mut self, doc: DocId) -> &[i64] {
        if let Some(s) = &mut self.script {
            s.values(doc, &mut self.buf);
        } else {
            match &self.col {
                Some(c) => c.values(doc, &mut self.buf),
                None => {
                    if self.field.is_empty() || !self.view.numeric_values(self.field, doc, &mut self.buf) {
                        self.buf.clear();
                    }
                }
            }
        }
        if self.buf.is_empty() {
            if let Some(m) = self.missing {
                self.buf.push(m);
            }
        }
        &self.buf
    }

    /// The single value of a single-valued column without copying (`None`: use `values`).
    #[inline]
    pub fn single(&self) -> Option<&NumericColumn<'a>> {
        self.col.as_ref().filter(|c| c.is_single_valued() && self.missing.is_none())
    }
}

/// Calls `f(doc, raw)` for the docs of a block that have a value in a single-valued column:
/// a run of consecutive docs over a dense column is unpacked in batches, others read one by one.
#[inline]
pub fn for_block_values(col: &NumericColumn<'_>, docs: &[DocId], mut f: impl FnMut(DocId, i64)) {
    if let (Some(&first), Some(&last)) = (docs.first(), docs.last()) {
        if (last - first) as usize + 1 == docs.len() {
            let mut d = first;
            if col.for_dense_range(first, last + 1, |v| {
                f(d, v);
                d += 1;
            }) {
                return;
            }
        }
    }
    for &d in docs {
        if let Some(v) = col.first(d) {
            f(d, v);
        }
    }
}

/// A sorted-set column on one segment.
pub struct OrdReader<'a> {
    col: Option<SortedSetColumn<'a>>,
    view: &'a dyn SegmentView,
    field: &'a str,
    /// The `missing` term: docs without values count under it (not an ordinal of the segment).
    pub missing: Option<Vec<u8>>,
    buf: Vec<u64>,
    /// A bytes script source: ordinals of this reader's own dictionary.
    script: Option<Box<ScriptTerms<'a>>>,
    /// A text field's fielddata: its terms uninverted on the segment.
    fielddata: Option<Arc<crate::engine::query::uninverted::Uninverted>>,
}

impl<'a> OrdReader<'a> {
    fn constant(b: Vec<u8>, seg: &'a dyn SegmentView) -> OrdReader<'a> {
        OrdReader { col: None, view: seg, field: "", missing: Some(b), buf: Vec::new(), script: None, fielddata: None }
    }

    /// The doc's ordinals, ascending (empty: none; the caller applies `missing`).
    #[inline]
    pub fn ords(&mut self, doc: DocId) -> &[u64] {
        if let Some(t) = &mut self.script {
            t.ords(doc, &mut self.buf);
            return &self.buf;
        }
        if let Some(fd) = &self.fielddata {
            self.buf.clear();
            self.buf.extend(fd.ords(doc).iter().map(|&o| u64::from(o)));
            return &self.buf;
        }
        match &self.col {
            Some(c) => c.ords(doc, &mut self.buf),
            None => {
                if self.field.is_empty() || !self.view.sorted_set_ords(self.field, doc, &mut self.buf) {
                    self.buf.clear();
                }
            }
        }
        &self.buf
    }

    /// The number of distinct terms of the segment (ordinals are `0..count`).
    pub fn value_count(&self) -> u64 {
        if let Some(fd) = &self.fielddata {
            return fd.value_count();
        }
        match &self.col {
            Some(c) => c.value_count(),
            None => 0,
        }
    }

    /// How many values the document has, duplicates included (a script may repeat a value;
    /// a column's values are distinct).
    pub fn value_len(&mut self, doc: DocId) -> usize {
        let n = self.ords(doc).len();
        self.script.as_ref().map_or(n, |t| t.raw_len)
    }

    /// Whether the terms come from a script (ordinals are the reader's own, none up front).
    pub fn is_script(&self) -> bool {
        self.script.is_some()
    }

    /// The term of an ordinal.
    pub fn term(&self, ord: u64) -> OsResult<Vec<u8>> {
        if let Some(t) = &self.script {
            return Ok(t.term(ord));
        }
        if let Some(fd) = &self.fielddata {
            return Ok(fd.term(ord).to_vec());
        }
        match &self.col {
            Some(c) => Ok(c.lookup_ord(ord)?.to_vec()),
            None => Ok(self.view.sorted_set_term(self.field, ord)?),
        }
    }

    /// Whether the segment's column holds at most one ordinal per document (`None`: not a
    /// column).
    pub fn single_valued(&self) -> Option<bool> {
        self.col.as_ref().map(|c| c.is_single_valued())
    }

    /// Whether every ordinal is readable through the column (the fast paths need it).
    pub fn has_column(&self) -> bool {
        self.col.is_some()
    }
}

/// Resolves a source on a shard (OpenSearch's `ValuesSourceConfig.resolve`): the mapping's
/// fields, and the `_index` metadata field, whose one value in every document is the shard's
/// index name (OpenSearch's `ConstantIndexFieldData`).
pub fn resolve(spec: &SourceSpec, qc: &QueryContext<'_>, agg_type: &str) -> OsResult<Config> {
    if spec.script.is_none() && spec.field.as_deref() == Some("_index") && qc.mapping.field_type("_index").is_none() {
        return Ok(index_name_source(qc.index));
    }
    resolve_mapping(spec, qc.mapping, agg_type)
}

/// The `_index` field of a shard of `index`: a keyword value shared by every document.
fn index_name_source(index: &str) -> Config {
    Config {
        field: None,
        vt: Some(VType::Bytes { ip: false }),
        missing: Some(MissingValue::Bytes(index.as_bytes().to_vec())),
        fmt: Fmt::Raw,
        type_name: "_index".into(),
        script: None,
    }
}

/// Resolves a source against a shard's mapping alone.
pub fn resolve_mapping(spec: &SourceSpec, mapping: &Mapping, agg_type: &str) -> OsResult<Config> {
    if let Some(script) = &spec.script {
        match spec.field.as_deref() {
            None => return script_config(spec, script, mapping, agg_type),
            Some(f) if mapping.field_type(f).is_some() => return value_script_config(spec, script, mapping, agg_type),
            // OpenSearch runs no value script on an unmapped field (it is still compiled).
            Some(_) => {
                ValueScript::compile(script, mapping, ScriptOut::Num(NumKind::Double), None)?;
            }
        }
    }
    let field = spec.field.clone().unwrap_or_default();
    let ft = mapping.field_type(&field).map(|ft| resolve_alias(mapping, ft));
    let Some(ft) = ft else {
        // Unmapped: the `missing` value stands for every document, typed by `value_type` or
        // by the JSON type of the value.
        let (vt, missing, fmt) = match &spec.missing {
            None => (None, None, Fmt::Raw),
            // `value_type` says what the missing value is: a date in the default format, a boolean.
            Some(v) if spec.value_type.as_deref() == Some("date") => {
                let format = spec.format.clone().unwrap_or_else(|| "strict_date_optional_time||epoch_millis".into());
                let ms = match v {
                    Value::Number(n) => {
                        n.as_i64().ok_or_else(|| OsError::illegal(format!("Unsupported missing value [{v}]")))?
                    }
                    Value::String(t) => date::parse_date(t, &format).map_err(OsError::illegal)?,
                    _ => return Err(OsError::illegal(format!("Unsupported missing value [{v}]"))),
                };
                (
                    Some(VType::Num(NumKind::Date { nanos: false })),
                    Some(MissingValue::Num(ms)),
                    Fmt::Date { format, nanos: false, zone: None },
                )
            }
            Some(v) if spec.value_type.as_deref() == Some("boolean") => {
                let b = match v {
                    Value::Bool(b) => *b,
                    Value::String(t) if t == "true" || t == "false" => t == "true",
                    _ => {
                        return Err(OsError::illegal(format!(
                            "Can't parse boolean value [{v}], expected [true] or [false]"
                        )))
                    }
                };
                (Some(VType::Num(NumKind::Bool)), Some(MissingValue::Num(b as i64)), Fmt::Bool)
            }
            Some(Value::String(s)) if !hint_numeric(spec.value_type.as_deref()) => {
                (Some(VType::Bytes { ip: false }), Some(MissingValue::Bytes(s.as_bytes().to_vec())), Fmt::Raw)
            }
            Some(v) => {
                let x = v
                    .as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                    .or_else(|| v.as_bool().map(|b| b as i64 as f64))
                    .ok_or_else(|| OsError::illegal(format!("Unsupported missing value [{v}]")))?;
                if x.fract() == 0.0 && x.abs() < 9.0e15 {
                    (Some(VType::Num(NumKind::Long)), Some(MissingValue::Num(x as i64)), Fmt::Raw)
                } else {
                    (Some(VType::Num(NumKind::Double)), Some(MissingValue::Num(double_to_sortable_long(x))), Fmt::Raw)
                }
            }
        };
        let fmt = match &spec.format {
            Some(p) if matches!(vt, Some(VType::Num(_))) => Fmt::Decimal(p.clone()),
            _ => fmt,
        };
        return Ok(Config { field: None, vt, missing, fmt, type_name: String::new(), script: None });
    };
    let name = field.clone();
    let (vt, fmt) = match &ft.kind {
        FieldKind::Number(nt) => {
            let k = match nt {
                NumberType::Double | NumberType::Float | NumberType::HalfFloat => NumKind::Double,
                NumberType::UnsignedLong => NumKind::Unsigned,
                _ => NumKind::Long,
            };
            let fmt = match &spec.format {
                Some(p) => Fmt::Decimal(p.clone()),
                None if k == NumKind::Unsigned => Fmt::Unsigned,
                None => Fmt::Raw,
            };
            (VType::Num(k), fmt)
        }
        FieldKind::TokenCount { .. } => (VType::Num(NumKind::Long), Fmt::Raw),
        FieldKind::ScaledFloat { scaling_factor } => {
            (VType::Num(NumKind::Scaled(*scaling_factor)), spec.format.clone().map_or(Fmt::Raw, Fmt::Decimal))
        }
        FieldKind::Date { nanos, .. } => {
            let f = spec.format.clone().unwrap_or_else(|| ft.date_format().to_string());
            date::validate_format(&f).map_err(OsError::illegal)?;
            (VType::Num(NumKind::Date { nanos: *nanos }), Fmt::Date { format: f, nanos: *nanos, zone: None })
        }
        FieldKind::Boolean => (VType::Num(NumKind::Bool), Fmt::Bool),
        FieldKind::Keyword(_) | FieldKind::ConstantKeyword(_) | FieldKind::FlatObject(_) => {
            (VType::Bytes { ip: false }, Fmt::Raw)
        }
        FieldKind::Ip => (VType::Bytes { ip: true }, Fmt::Ip),
        FieldKind::GeoPoint { .. } => (VType::GeoPoint, Fmt::Raw),
        // A text field with `fielddata: true`: its terms uninverted per segment (see
        // [`super::fielddata`]), read as ordinals like a keyword's.
        FieldKind::Text(p) if !p.match_only && fielddata_enabled(ft) => (VType::Bytes { ip: false }, Fmt::Raw),
        FieldKind::Text(_) => return Err(text_fielddata(&name)),
        _ => {
            return Err(OsError::illegal(format!(
                "Field [{name}] of type [{}] is not supported for aggregation [{agg_type}]",
                ft.type_name()
            )))
        }
    };
    if !ft.effective_doc_values() && !matches!(ft.kind, FieldKind::ConstantKeyword(_) | FieldKind::Text(_)) {
        return Err(OsError::illegal(format!(
            "Can't load fielddata on [{name}] because fielddata is unsupported on fields of type [{}]. Use doc values instead.",
            ft.type_name()
        )));
    }
    let missing = match &spec.missing {
        None => None,
        Some(m) => Some(missing_value(&vt, ft, m)?),
    };
    Ok(Config { field: Some(name), vt: Some(vt), missing, fmt, type_name: ft.type_name().to_string(), script: None })
}

/// A script without a field (`ValuesSourceType.getScript`): numbers by `value_type` (doubles by
/// default), or strings for a bytes source; `missing` stands for documents it gives no value.
fn script_config(spec: &SourceSpec, script: &Value, mapping: &Mapping, agg_type: &str) -> OsResult<Config> {
    let out = script_out(spec.value_type.as_deref(), agg_type)?;
    let vs = Arc::new(ValueScript::compile(script, mapping, out, None)?);
    let kind = match out {
        ScriptOut::Bytes => {
            let missing = spec.missing.as_ref().map(|m| {
                MissingValue::Bytes(match m {
                    Value::String(s) => s.clone().into_bytes(),
                    other => other.to_string().into_bytes(),
                })
            });
            return Ok(Config {
                field: None,
                vt: Some(VType::Bytes { ip: false }),
                missing,
                fmt: Fmt::Raw,
                type_name: "script".into(),
                script: Some(vs),
            });
        }
        ScriptOut::Num(k) => k,
    };
    let fmt = match (&spec.format, kind) {
        (f, NumKind::Date { .. }) => {
            let f = f.clone().unwrap_or_else(|| "strict_date_optional_time||epoch_millis".to_string());
            date::validate_format(&f).map_err(OsError::illegal)?;
            Fmt::Date { format: f, nanos: false, zone: None }
        }
        (_, NumKind::Bool) => Fmt::Bool,
        (Some(p), _) => Fmt::Decimal(p.clone()),
        (None, _) => Fmt::Raw,
    };
    let missing = match &spec.missing {
        None => None,
        Some(m) => Some(script_missing(kind, &fmt, m)?),
    };
    Ok(Config { field: None, vt: Some(VType::Num(kind)), missing, fmt, type_name: "script".into(), script: Some(vs) })
}

/// A numeric `missing` value for a script source in `kind`'s raw encoding (dates parse with the
/// source's format).
fn script_missing(kind: NumKind, fmt: &Fmt, m: &Value) -> OsResult<MissingValue> {
    let text = match m {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let bad = || OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{text}\"")).status(400);
    let num = || m.as_f64().or_else(|| text.parse().ok()).ok_or_else(bad);
    Ok(MissingValue::Num(match kind {
        NumKind::Date { .. } => match (m, fmt) {
            (Value::Number(n), _) => n.as_i64().ok_or_else(bad)?,
            (_, Fmt::Date { format, .. }) => date::parse_date(&text, format).map_err(OsError::illegal)?,
            _ => return Err(bad()),
        },
        NumKind::Bool => match text.as_str() {
            "true" => 1,
            "false" => 0,
            _ => {
                return Err(OsError::illegal(format!("Can't parse boolean value [{text}], expected [true] or [false]")))
            }
        },
        NumKind::Double => double_to_sortable_long(num()?),
        _ => num()? as i64,
    }))
}

/// A field with a script (a value script, `ValuesSourceType.getField` with a script): numeric
/// fields give doubles (`ValuesSource.Numeric.WithScript`), keyword fields strings
/// (`ValuesSource.Bytes.WithScript`); the field's format and `missing` stay.
fn value_script_config(spec: &SourceSpec, script: &Value, mapping: &Mapping, agg_type: &str) -> OsResult<Config> {
    let plain = SourceSpec { script: None, ..spec.clone() };
    let mut cfg = resolve_mapping(&plain, mapping, agg_type)?;
    let name = cfg.field.clone().unwrap_or_default();
    let hint = spec.value_type.as_deref();
    match cfg.vt.clone() {
        Some(VType::Num(k)) if k != (NumKind::Date { nanos: true }) && hint.is_none_or(|h| hint_numeric(Some(h))) => {
            let vs = ValueScript::compile(script, mapping, ScriptOut::Num(NumKind::Double), Some((name, Some(k))))?;
            cfg.missing = cfg.missing.map(|m| match m {
                MissingValue::Num(raw) => MissingValue::Num(double_to_sortable_long(k.to_f64(raw))),
                other => other,
            });
            cfg.vt = Some(VType::Num(NumKind::Double));
            if cfg.fmt == Fmt::Unsigned {
                cfg.fmt = Fmt::Raw;
            }
            cfg.script = Some(Arc::new(vs));
        }
        Some(VType::Bytes { ip: false }) if hint.is_none_or(|h| h == "string") => {
            let vs = ValueScript::compile(script, mapping, ScriptOut::Bytes, Some((name, None)))?;
            cfg.script = Some(Arc::new(vs));
        }
        _ => {
            return Err(OsError::illegal(format!(
                "[script] with [field] of type [{}]{} (a value script) in aggregation [{agg_type}] is not supported by this node",
                cfg.type_name,
                hint.map(|h| format!(" and [value_type] [{h}]")).unwrap_or_default()
            )))
        }
    }
    Ok(cfg)
}

fn hint_numeric(value_type: Option<&str>) -> bool {
    matches!(value_type, Some("long" | "double" | "number" | "numeric" | "date" | "boolean" | "integer" | "float"))
}

pub(super) fn resolve_alias<'a>(mapping: &'a Mapping, ft: &'a FieldType) -> &'a FieldType {
    match &ft.kind {
        FieldKind::Alias { path } => mapping.field_type(path).unwrap_or(ft),
        _ => ft,
    }
}

/// Whether a text field has `fielddata: true`.
pub fn fielddata_enabled(ft: &FieldType) -> bool {
    ft.extra.get("fielddata").and_then(Value::as_bool).unwrap_or(false)
}

/// OpenSearch's refusal to aggregate on a text field.
pub fn text_fielddata(name: &str) -> OsError {
    OsError::illegal(format!("Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{name}] in order to load field data by uninverting the inverted index. Note that this can use significant memory."))
}

/// The `missing` value in the column's encoding.
fn missing_value(vt: &VType, ft: &FieldType, m: &Value) -> OsResult<MissingValue> {
    let text = match m {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let bad = || OsError::new(ErrorKind::NumberFormat, format!("For input string: \"{text}\"")).status(400);
    Ok(match vt {
        VType::Num(k) => MissingValue::Num(match k {
            NumKind::Long => match m {
                Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)).ok_or_else(bad)?,
                _ => text.parse::<f64>().map_err(|_| bad())? as i64,
            },
            NumKind::Double => double_to_sortable_long(m.as_f64().or_else(|| text.parse().ok()).ok_or_else(bad)?),
            NumKind::Scaled(f) => (m.as_f64().or_else(|| text.parse().ok()).ok_or_else(bad)? * f).round() as i64,
            NumKind::Unsigned => {
                let u: u64 = m.as_u64().or_else(|| text.parse().ok()).ok_or_else(bad)?;
                (u ^ (1u64 << 63)) as i64
            }
            NumKind::Bool => match m {
                Value::Bool(b) => *b as i64,
                _ => match text.as_str() {
                    "true" => 1,
                    "false" => 0,
                    _ => {
                        return Err(OsError::illegal(format!(
                            "Can't parse boolean value [{text}], expected [true] or [false]"
                        )))
                    }
                },
            },
            NumKind::Date { nanos } => match m {
                Value::Number(n) => n.as_i64().ok_or_else(bad)?,
                _ => {
                    let ms = date::parse_date(&text, ft.date_format()).map_err(OsError::illegal)?;
                    if *nanos {
                        ms.saturating_mul(1_000_000)
                    } else {
                        ms
                    }
                }
            },
        }),
        VType::Bytes { ip: true } => {
            let a = ip::parse_ip(&text)
                .ok_or_else(|| OsError::illegal(format!("'{text}' is not an IP string literal.")))?;
            MissingValue::Bytes(a.to_be_bytes().to_vec())
        }
        VType::Bytes { ip: false } => MissingValue::Bytes(text.into_bytes()),
        VType::GeoPoint => return Err(OsError::illegal("[missing] is not supported on geo_point fields")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(field: &str) -> SourceSpec {
        SourceSpec { field: Some(field.into()), ..SourceSpec::default() }
    }

    #[test]
    fn index_field_is_the_index_name_in_every_document() {
        let m = Mapping::from_json(&json!({"properties": {"k": {"type": "keyword"}}})).unwrap();
        let qc = QueryContext::for_tests(&m, &[]);
        let c = resolve(&spec("_index"), &qc, "terms").unwrap();
        assert_eq!(c.vt, Some(VType::Bytes { ip: false }));
        assert_eq!(c.missing, Some(MissingValue::Bytes(qc.index.as_bytes().to_vec())));
        let e = c.numeric("avg").unwrap_err();
        assert_eq!(e.reason, "Field [_index] of type [_index] is not supported for aggregation [avg]");
        // Other fields resolve against the mapping.
        let k = resolve(&spec("k"), &qc, "terms").unwrap();
        assert_eq!(k.field.as_deref(), Some("k"));
        assert!(resolve(&spec("_id"), &qc, "terms").unwrap().vt.is_none());
    }
}
