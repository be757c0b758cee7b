//! Range field types (`integer_range`, `long_range`, `float_range`, `double_range`,
//! `date_range`, `ip_range`): a value is an interval, given as an object of bounds
//! (`gte`/`gt`/`lte`/`lt`, or `from`/`to` with `include_lower`/`include_upper`) or, for
//! `ip_range`, a CIDR string. Missing bounds are the type's minimum and maximum.
//!
//! Indexed form: one sorted-set doc value per interval, the inclusive bounds' sortable keys
//! (the same fixed-width keys as the element type's points: 8 bytes for integers, longs, dates
//! and doubles, 16 for addresses) concatenated `lo ++ hi`. Range queries test every document's
//! intervals against the query's (relation `intersects`, `within` or `contains`).

use serde_json::{json, Map, Value};

use super::types::{FieldKind, FieldType, NumberType};
use super::values::{convert, Converted};
use super::{date, ip, FieldValue, MappingError};
use crate::engine::segment::points::sortable;

/// The element type of a range field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeType {
    Integer,
    Long,
    Float,
    Double,
    Date,
    Ip,
}

impl RangeType {
    /// From a mapping type name (`integer_range`, ...).
    pub fn from_type_name(t: &str) -> Option<RangeType> {
        Some(match t {
            "integer_range" => RangeType::Integer,
            "long_range" => RangeType::Long,
            "float_range" => RangeType::Float,
            "double_range" => RangeType::Double,
            "date_range" => RangeType::Date,
            "ip_range" => RangeType::Ip,
            _ => return None,
        })
    }
    /// The mapping type name.
    pub fn type_name(self) -> &'static str {
        match self {
            RangeType::Integer => "integer_range",
            RangeType::Long => "long_range",
            RangeType::Float => "float_range",
            RangeType::Double => "double_range",
            RangeType::Date => "date_range",
            RangeType::Ip => "ip_range",
        }
    }
    /// Width of one bound's key.
    pub fn width(self) -> usize {
        if self == RangeType::Ip {
            16
        } else {
            8
        }
    }
    /// A field of the element type (`format` for dates, coercion as the range field's).
    pub fn element(self, format: Option<&str>, coerce: Option<bool>) -> FieldType {
        let kind = match self {
            RangeType::Integer => FieldKind::Number(NumberType::Integer),
            RangeType::Long => FieldKind::Number(NumberType::Long),
            RangeType::Float => FieldKind::Number(NumberType::Float),
            RangeType::Double => FieldKind::Number(NumberType::Double),
            RangeType::Date => FieldKind::Date { nanos: false, format: format.map(str::to_string) },
            RangeType::Ip => FieldKind::Ip,
        };
        let mut ft = FieldType::new(kind);
        ft.coerce = coerce;
        ft
    }
    fn min_key(self) -> Vec<u8> {
        match self {
            RangeType::Integer => sortable::encode_i64(i64::from(i32::MIN)).to_vec(),
            RangeType::Long | RangeType::Date => sortable::encode_i64(i64::MIN).to_vec(),
            RangeType::Float | RangeType::Double => sortable::encode_f64(f64::NEG_INFINITY).to_vec(),
            RangeType::Ip => vec![0u8; 16],
        }
    }
    fn max_key(self) -> Vec<u8> {
        match self {
            RangeType::Integer => sortable::encode_i64(i64::from(i32::MAX)).to_vec(),
            RangeType::Long | RangeType::Date => sortable::encode_i64(i64::MAX).to_vec(),
            RangeType::Float | RangeType::Double => sortable::encode_f64(f64::INFINITY).to_vec(),
            RangeType::Ip => vec![0xFFu8; 16],
        }
    }
}

/// Adds one to a fixed-width big-endian key (`None` on overflow).
fn succ(key: &[u8]) -> Option<Vec<u8>> {
    let mut k = key.to_vec();
    for b in k.iter_mut().rev() {
        if *b == 0xFF {
            *b = 0;
        } else {
            *b += 1;
            return Some(k);
        }
    }
    None
}

/// Subtracts one from a fixed-width big-endian key (`None` on underflow).
fn pred(key: &[u8]) -> Option<Vec<u8>> {
    let mut k = key.to_vec();
    for b in k.iter_mut().rev() {
        if *b == 0 {
            *b = 0xFF;
        } else {
            *b -= 1;
            return Some(k);
        }
    }
    None
}

/// The key of one bound value of the element type.
fn bound_key(rt: RangeType, element: &FieldType, v: &Value) -> Result<Vec<u8>, MappingError> {
    let value = match convert(element, v)? {
        Converted::Value(x) => x,
        _ => return Err(MappingError::illegal(format!("failed to parse range bound [{v}]"))),
    };
    Ok(match (rt, value) {
        (_, FieldValue::Long(x)) => sortable::encode_i64(x).to_vec(),
        (_, FieldValue::Double(d)) => sortable::encode_f64(d).to_vec(),
        (_, FieldValue::Ip(a)) => sortable::encode_u128(a).to_vec(),
        (rt, other) => return Err(MappingError::illegal(format!("unexpected [{}] bound {other:?}", rt.type_name()))),
    })
}

/// Converts one range value (an object of bounds, or a CIDR string for `ip_range`) into its
/// indexed form `lo ++ hi` (inclusive keys).
pub fn convert_range(rt: RangeType, ft: &FieldType, v: &Value) -> Result<FieldValue, MappingError> {
    let format = match &ft.kind {
        FieldKind::Range { format, .. } => format.as_deref(),
        _ => None,
    };
    let element = rt.element(format, ft.coerce);
    let (lo, hi) = match v {
        Value::String(s) if rt == RangeType::Ip => {
            let (a, b) = cidr(s).ok_or_else(|| MappingError::illegal(format!("invalid IP address or CIDR [{s}]")))?;
            (sortable::encode_u128(a).to_vec(), sortable::encode_u128(b).to_vec())
        }
        Value::Object(m) => object_bounds(rt, &element, m)?,
        other => {
            return Err(MappingError::parsing(format!(
                "error parsing field [{}], expected an object but got {}",
                rt.type_name(),
                token(other)
            )))
        }
    };
    if lo > hi {
        return Err(MappingError::illegal(format!(
            "min value ({}) is greater than max value ({})",
            display_key(rt, format, &lo),
            display_key(rt, format, &hi)
        )));
    }
    Ok(FieldValue::Range([lo, hi].concat()))
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

fn object_bounds(
    rt: RangeType,
    element: &FieldType,
    m: &Map<String, Value>,
) -> Result<(Vec<u8>, Vec<u8>), MappingError> {
    let (mut lo, mut hi) = (None, None);
    let (mut inc_lo, mut inc_hi) = (true, true);
    for (k, v) in m {
        match k.as_str() {
            "gte" | "from" | "gt" => {
                if !v.is_null() {
                    lo = Some(bound_key(rt, element, v)?);
                }
                if k == "gt" {
                    inc_lo = false;
                }
            }
            "lte" | "to" | "lt" => {
                if !v.is_null() {
                    hi = Some(bound_key(rt, element, v)?);
                }
                if k == "lt" {
                    inc_hi = false;
                }
            }
            "include_lower" => inc_lo = v.as_bool().unwrap_or(true),
            "include_upper" => inc_hi = v.as_bool().unwrap_or(true),
            other => {
                return Err(MappingError::parsing(format!(
                    "error parsing field [{}], with unknown parameter [{other}]",
                    rt.type_name()
                )))
            }
        }
    }
    let lo = match lo {
        None => rt.min_key(),
        Some(k) if inc_lo => k,
        Some(k) => succ(&k).unwrap_or(k),
    };
    let hi = match hi {
        None => rt.max_key(),
        Some(k) if inc_hi => k,
        Some(k) => pred(&k).unwrap_or(k),
    };
    Ok((lo, hi))
}

/// `a.b.c.d/n` or `a::b/n`: the first and last address.
fn cidr(s: &str) -> Option<(u128, u128)> {
    let (addr, bits) = s.split_once('/')?;
    let a = ip::parse_ip(addr)?;
    let mut bits: u32 = bits.parse().ok()?;
    if !addr.contains(':') {
        bits = bits.checked_add(96)?;
    }
    if bits > 128 {
        return None;
    }
    let mask = if bits == 0 { 0 } else { u128::MAX << (128 - bits) };
    Some((a & mask, (a & mask) | !mask))
}

/// One bound key as a JSON value of the element type (dates with `format`).
fn display_key(rt: RangeType, format: Option<&str>, k: &[u8]) -> Value {
    match rt {
        RangeType::Integer | RangeType::Long => json!(sortable::decode_i64(k)),
        // The shortest decimal of the float (as Java prints a float).
        RangeType::Float => format!("{}", sortable::decode_f64(k) as f32)
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        RangeType::Double => serde_json::Number::from_f64(sortable::decode_f64(k)).map_or(Value::Null, Value::Number),
        RangeType::Date => json!(date::format_date(sortable::decode_i64(k), format.unwrap_or(date::DEFAULT_FORMAT))),
        RangeType::Ip => {
            let mut a = [0u8; 16];
            a.copy_from_slice(&k[..16.min(k.len())]);
            json!(ip::format_ip(u128::from_be_bytes(a)))
        }
    }
}

/// An indexed range as the fields API prints it: `{"gte": lo, "lte": hi}`.
pub fn display(rt: RangeType, format: Option<&str>, encoded: &[u8]) -> Option<Value> {
    let w = rt.width();
    if encoded.len() != 2 * w {
        return None;
    }
    Some(json!({"gte": display_key(rt, format, &encoded[..w]), "lte": display_key(rt, format, &encoded[w..])}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ft(t: &str) -> FieldType {
        FieldType::from_json("r", json!({"type": t}).as_object().unwrap()).unwrap()
    }

    fn conv(t: &str, v: Value) -> Result<Value, MappingError> {
        let f = ft(t);
        let FieldKind::Range { kind, format } = &f.kind else { panic!("not a range") };
        match convert_range(*kind, &f, &v)? {
            FieldValue::Range(b) => Ok(display(*kind, format.as_deref(), &b).unwrap()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bounds_are_inclusive_keys() {
        assert_eq!(conv("integer_range", json!({"gte": 0, "lte": 42})).unwrap(), json!({"gte": 0, "lte": 42}));
        assert_eq!(conv("integer_range", json!({"gt": 0, "lt": 42})).unwrap(), json!({"gte": 1, "lte": 41}));
        assert_eq!(conv("long_range", json!({"gte": 5})).unwrap(), json!({"gte": 5, "lte": i64::MAX}));
        assert_eq!(
            conv("integer_range", json!({"from": -3, "to": 3, "include_upper": false})).unwrap(),
            json!({"gte": -3, "lte": 2})
        );
        assert_eq!(conv("double_range", json!({"gte": 1.5, "lte": 2.5})).unwrap(), json!({"gte": 1.5, "lte": 2.5}));
        assert_eq!(
            conv("ip_range", json!("192.168.0.0/16")).unwrap(),
            json!({"gte": "192.168.0.0", "lte": "192.168.255.255"})
        );
        assert_eq!(
            conv("date_range", json!({"gte": "2019-01-01", "lt": "2019-01-02"})).unwrap(),
            json!({"gte": "2019-01-01T00:00:00.000Z", "lte": "2019-01-01T23:59:59.999Z"})
        );
        assert_eq!(
            conv("integer_range", json!({"gte": 5, "lte": 1})).unwrap_err().reason,
            "min value (5) is greater than max value (1)"
        );
        assert!(conv("integer_range", json!({"gte": 1, "nope": 2}))
            .unwrap_err()
            .reason
            .contains("unknown parameter [nope]"));
        assert!(conv("integer_range", json!(5)).is_err());
    }
}
