//! Converting one JSON value to the indexed value of one field type, with OpenSearch's coercion
//! rules and messages (these become the `caused_by` of "failed to parse field [...]").

use crate::error::ErrorKind;
use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use serde_json::Value;

use super::types::{FieldKind, FieldType, KeywordParams, NumberType, TextIndexOptions, TextParams};
use super::{date, geo, ip, FieldValue, MappingError};

/// What one value becomes.
#[derive(Debug)]
pub(super) enum Converted {
    Value(FieldValue),
    /// Treated as `null` (empty string for numbers and booleans): `null_value` applies.
    Null,
    /// Valid but not indexed (keyword longer than `ignore_above`).
    Skip,
}

type Res = Result<Converted, MappingError>;

/// Converts a scalar or object `v` (never an array or null: the caller handles those).
pub(super) fn convert(ft: &FieldType, v: &Value) -> Res {
    match &ft.kind {
        FieldKind::Text(p) => Ok(Converted::Value(text_value(p, scalar_text(v)?))),
        FieldKind::Keyword(p) => Ok(keyword_value(p, Cow::Owned(scalar_text(v)?))),
        // The document walker converts these with the field's name (`ConstantKeywordParams::convert`).
        FieldKind::ConstantKeyword(c) => c.convert("", v),
        FieldKind::Alias { .. } => Err(illegal("Cannot write to a field alias.".into())),
        // The document walker flattens these (`FlatObjectParams::flatten`).
        FieldKind::FlatObject(_) => Err(illegal("a flat_object value is an object".into())),
        FieldKind::Number(n) => number(*n, ft.effective_coerce(), v),
        FieldKind::ScaledFloat { scaling_factor } => {
            let d = match float_input(v, ft.effective_coerce(), "Double")? {
                Some(d) => d,
                None => return Ok(Converted::Null),
            };
            if !d.is_finite() {
                return Err(illegal(format!(
                    "[scaled_float] only supports finite values, but got [{}]",
                    java_double(d)
                )));
            }
            // Java's Math.round: floor(x + 0.5), saturating.
            Ok(Converted::Value(FieldValue::Long((d * scaling_factor + 0.5).floor() as i64)))
        }
        FieldKind::Date { nanos, .. } => {
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                other => return Err(not_a_value(other)),
            };
            parse_date(ft, *nanos, &s).map(|t| Converted::Value(FieldValue::Long(t))).map_err(illegal)
        }
        FieldKind::Boolean => match v {
            Value::Bool(b) => Ok(Converted::Value(FieldValue::Bool(*b))),
            Value::String(s) if s.is_empty() => Ok(Converted::Null),
            Value::String(s) if s == "true" => Ok(Converted::Value(FieldValue::Bool(true))),
            Value::String(s) if s == "false" => Ok(Converted::Value(FieldValue::Bool(false))),
            Value::String(s) => {
                Err(illegal(format!("Failed to parse value [{s}] as only [true] or [false] are allowed.")))
            }
            Value::Number(n) => Err(MappingError::new(
                ErrorKind::JsonParse,
                format!(
                    "Current token ({}) not of boolean type",
                    if n.is_f64() { "VALUE_NUMBER_FLOAT" } else { "VALUE_NUMBER_INT" }
                ),
            )),
            other => Err(not_a_value(other)),
        },
        FieldKind::Ip => {
            let s = match v {
                Value::String(s) => s.as_str(),
                other => return Err(not_a_value(other)),
            };
            ip::parse_ip(s).map(|a| Converted::Value(FieldValue::Ip(a))).ok_or_else(|| illegal(ip::not_an_ip(s)))
        }
        FieldKind::GeoPoint { ignore_z_value } => {
            // One point in a single-point form; the document walker passes whole field values
            // (arrays included) to `geo::parse_field_value` instead.
            let p = geo::parse_point(v, ignore_z_value.unwrap_or(true))?;
            let p = if ft.effective_ignore_malformed() { geo::normalize(p)? } else { p };
            geo::doc_value(p).map(|l| Converted::Value(FieldValue::Long(l)))
        }
        FieldKind::Range { kind, .. } => super::range::convert_range(*kind, ft, v).map(Converted::Value),
        FieldKind::TokenCount { analyzer, enable_position_increments } => {
            Ok(Converted::Value(FieldValue::TokenCount {
                text: scalar_text(v)?,
                analyzer: analyzer.clone(),
                position_increments: enable_position_increments.unwrap_or(true),
            }))
        }
        FieldKind::Binary => {
            let s = match v {
                Value::String(s) => s,
                other => return Err(not_a_value(other)),
            };
            let engine = base64::engine::GeneralPurpose::new(
                &base64::alphabet::STANDARD,
                base64::engine::GeneralPurposeConfig::new()
                    .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
            );
            engine.decode(s.as_bytes()).map(|b| Converted::Value(FieldValue::Binary(b))).map_err(|e| {
                MappingError::new(
                    ErrorKind::JsonParse,
                    format!("Failed to decode VALUE_STRING as base64 (MIME-NO-LINEFEEDS): {e}"),
                )
            })
        }
    }
}

/// A text field's value.
fn text_value(p: &TextParams, text: String) -> FieldValue {
    let default = if p.match_only { TextIndexOptions::Docs } else { TextIndexOptions::Positions };
    let opts = p.index_options.unwrap_or(default);
    FieldValue::Text {
        text,
        analyzer: p.analyzer.clone().unwrap_or_else(|| "default".into()),
        freqs: opts >= TextIndexOptions::Freqs,
        positions: opts >= TextIndexOptions::Positions,
        offsets: opts == TextIndexOptions::Offsets,
        norms: p.norms.unwrap_or(!p.match_only),
        position_increment_gap: p.position_increment_gap.unwrap_or(100),
    }
}

/// A keyword field's value, or `Skip` when longer than `ignore_above` (in UTF-16 units).
fn keyword_value(p: &KeywordParams, s: Cow<'_, str>) -> Converted {
    let limit = p.ignore_above.unwrap_or(i32::MAX as u32) as usize;
    if s.len() > limit && s.encode_utf16().count() > limit {
        return Converted::Skip;
    }
    Converted::Value(FieldValue::Keyword(s.into_owned()))
}

fn parse_date(ft: &FieldType, nanos: bool, s: &str) -> Result<i64, String> {
    let format = ft.date_format();
    if nanos {
        date::parse_date_nanos(s, format)
    } else {
        date::parse_date(s, format)
    }
}

/// [`convert`] of a JSON string, for the kinds whose string form converts without a `Value`
/// (text, keyword, date, ip, boolean) and only when it converts to a value or `Skip`; otherwise
/// gives the string back (the caller then goes through [`convert`], which also builds the
/// error or applies `null_value`). The streaming parse uses it so a string is copied once.
pub(super) fn convert_str<'s>(ft: &FieldType, s: Cow<'s, str>) -> Result<Converted, Cow<'s, str>> {
    let value = match &ft.kind {
        FieldKind::Text(p) => return Ok(Converted::Value(text_value(p, s.into_owned()))),
        FieldKind::Keyword(p) => return Ok(keyword_value(p, s)),
        FieldKind::Date { nanos, .. } => parse_date(ft, *nanos, &s).ok().map(FieldValue::Long),
        FieldKind::Ip => ip::parse_ip(&s).map(FieldValue::Ip),
        FieldKind::Boolean => match s.as_ref() {
            "true" => Some(FieldValue::Bool(true)),
            "false" => Some(FieldValue::Bool(false)),
            _ => None,
        },
        _ => None,
    };
    value.map(Converted::Value).ok_or(s)
}

/// Text of a scalar for text/keyword fields (numbers and booleans as written).
fn scalar_text(v: &Value) -> Result<String, MappingError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        // OpenSearch appends the position ("at 1:12"); serde_json values carry none.
        Value::Object(_) => Err(MappingError::new(ErrorKind::IllegalState, "Can't get text on a START_OBJECT")),
        other => Err(not_a_value(other)),
    }
}

fn illegal(reason: String) -> MappingError {
    MappingError::illegal(reason)
}

fn nfe(s: &str) -> MappingError {
    MappingError::new(ErrorKind::NumberFormat, format!("For input string: \"{s}\""))
}

fn not_a_value(v: &Value) -> MappingError {
    let token = match v {
        Value::Object(_) => "START_OBJECT",
        Value::Array(_) => "START_ARRAY",
        Value::Bool(true) => "VALUE_TRUE",
        Value::Bool(false) => "VALUE_FALSE",
        Value::Null => "VALUE_NULL",
        Value::Number(_) => "VALUE_NUMBER",
        Value::String(_) => "VALUE_STRING",
    };
    MappingError::illegal(format!("Current token ({token}) not numeric, can not use numeric value accessors"))
}

/// A float input: JSON number, or (when coercing) a string. `Ok(None)`: empty string.
fn float_input(v: &Value, coerce: bool, class: &str) -> Result<Option<f64>, MappingError> {
    match v {
        Value::Number(n) => Ok(Some(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) if coerce && s.is_empty() => Ok(None),
        Value::String(_) if !coerce => Err(illegal(format!("{class} value passed as String"))),
        Value::String(s) => parse_java_double(s).map(Some).ok_or_else(|| nfe(s)),
        other => Err(not_a_value(other)),
    }
}

/// Java's `Double.parseDouble`: surrounding whitespace allowed, `NaN`, `Infinity`, `d`/`f` suffix.
pub(super) fn parse_java_double(s: &str) -> Option<f64> {
    let t = s.trim();
    let t = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
    match t {
        "NaN" | "+NaN" | "-NaN" => return Some(f64::NAN),
        "Infinity" | "+Infinity" => return Some(f64::INFINITY),
        "-Infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    if t.chars().any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') {
        return None;
    }
    t.parse().ok()
}

/// How Java prints a double (`12.5`, `3.0E9`, `1.0E-4`).
pub(super) fn java_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let a = d.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        let s = format!("{d:?}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    let s = format!("{d:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mant = if mant.contains('.') { mant.to_string() } else { format!("{mant}.0") };
    format!("{mant}E{exp}")
}

fn number(n: NumberType, coerce: bool, v: &Value) -> Res {
    use NumberType::*;
    match n {
        Double | Float | HalfFloat => {
            let class = if n == Double { "Double" } else { "Float" };
            let Some(d) = float_input(v, coerce, class)? else { return Ok(Converted::Null) };
            let rounded = match n {
                Double => d,
                Float => f64::from(d as f32),
                _ => f64::from(f16_round(d as f32)),
            };
            // OpenSearch validates the parsed double or float; half_float rounding may then
            // overflow to infinity, which it stores as such.
            let parsed = if n == Double { d } else { f64::from(d as f32) };
            if !parsed.is_finite() {
                return Err(illegal(format!(
                    "[{}] supports only finite values, but got [{}]",
                    n.name(),
                    java_double(parsed)
                )));
            }
            Ok(Converted::Value(FieldValue::Double(rounded)))
        }
        Long | Integer | Short | Byte => {
            let (min, max, what) = match n {
                Long => (i64::MIN as i128, i64::MAX as i128, "a long"),
                Integer => (i32::MIN as i128, i32::MAX as i128, "an integer"),
                Short => (i16::MIN as i128, i16::MAX as i128, "a short"),
                _ => (i8::MIN as i128, i8::MAX as i128, "a byte"),
            };
            let class = if n == Long { "Long" } else { "Integer" };
            let x = integer_input(v, coerce, class)?;
            let Some((x, shown)) = x else { return Ok(Converted::Null) };
            if x < min || x > max {
                return Err(illegal(format!("Value [{shown}] is out of range for {what}")));
            }
            Ok(Converted::Value(FieldValue::Long(x as i64)))
        }
        UnsignedLong => {
            let x = integer_input(v, coerce, "BigInteger")?;
            let Some((x, shown)) = x else { return Ok(Converted::Null) };
            u64::try_from(x)
                .map(|u| Converted::Value(FieldValue::UnsignedLong(u)))
                .map_err(|_| illegal(format!("Value [{shown}] is out of range for an unsigned long")))
        }
    }
}

/// How an integer input is shown in an out-of-range message: as written for a string, Java's
/// printing for a float, the integer otherwise (built only when the message is).
enum Shown<'v> {
    Int(i128),
    Double(f64),
    Str(&'v str),
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shown::Int(i) => write!(f, "{i}"),
            Shown::Double(d) => f.write_str(&java_double(*d)),
            Shown::Str(s) => f.write_str(s),
        }
    }
}

/// An integer input, truncated toward zero when coercing. Returns the value (saturated to i128
/// range) and how to show it in an out-of-range message; `Ok(None)`: empty string.
fn integer_input<'v>(v: &'v Value, coerce: bool, class: &str) -> Result<Option<(i128, Shown<'v>)>, MappingError> {
    match v {
        Value::Number(num) => {
            if let Some(i) = num.as_i64() {
                return Ok(Some((i128::from(i), Shown::Int(i128::from(i)))));
            }
            if let Some(u) = num.as_u64() {
                return Ok(Some((i128::from(u), Shown::Int(i128::from(u)))));
            }
            let d = num.as_f64().unwrap_or(f64::NAN);
            if !coerce && d.fract() != 0.0 {
                return Err(illegal(format!("{} cannot be converted to {class} without data loss", java_double(d))));
            }
            Ok(Some((d.trunc() as i128, Shown::Double(d))))
        }
        Value::String(s) if coerce && s.is_empty() => Ok(None),
        Value::String(_) if !coerce => Err(illegal(format!("{class} value passed as String"))),
        Value::String(s) => {
            let t = s.trim();
            if let Some(i) = t.parse::<i128>().ok().or_else(|| truncated_decimal(t)) {
                return Ok(Some((i, Shown::Str(s))));
            }
            let d = parse_java_double(s).ok_or_else(|| nfe(s))?;
            if !d.is_finite() {
                return Err(nfe(s));
            }
            Ok(Some((d.trunc() as i128, Shown::Str(s))))
        }
        other => Err(not_a_value(other)),
    }
}

/// A plain decimal string (`[+-]digits.digits`, no exponent) truncated toward zero exactly, as
/// OpenSearch's `BigDecimal` coercion does (a double would round `10223372036854775807.23`).
fn truncated_decimal(t: &str) -> Option<i128> {
    let (int, frac) = t.split_once('.')?;
    let digits = int.strip_prefix(['+', '-']).unwrap_or(int);
    if digits.is_empty() && frac.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    if digits.is_empty() {
        return Some(0);
    }
    let v: i128 = digits.parse().ok()?;
    Some(if int.starts_with('-') { -v } else { v })
}

/// Rounds an f32 to the nearest IEEE half-precision value (ties to even), as Lucene's
/// `HalfFloatPoint` stores it.
pub(super) fn f16_round(x: f32) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return f32::INFINITY.copysign(x);
    }
    // Spacing of half floats around `a`: 2^(e-10) for normal, 2^-24 for subnormal.
    let e = a.log2().floor().max(-14.0);
    let ulp = (e - 10.0).exp2();
    let q = a / ulp;
    // `q` is exact (division by a power of two), so a tie is exactly .5.
    let r = if q - q.trunc() == 0.5 {
        if q.trunc() % 2.0 == 0.0 {
            q.trunc()
        } else {
            q.trunc() + 1.0
        }
    } else {
        q.round()
    };
    (r * ulp).copysign(x)
}
