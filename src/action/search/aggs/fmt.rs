//! How aggregation keys and values print (OpenSearch's `DocValueFormat`): `key_as_string` and
//! `value_as_string` beside the raw number when the format is not `RAW`.

use serde_json::{json, Value};

use super::result::Key;
use crate::action::search::field_values::decimal_format;
use crate::engine::schema::{date, ip};

/// A value format (shard results carry theirs, as OpenSearch's `DocValueFormat`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Fmt {
    Raw,
    /// A `DecimalFormat` pattern.
    Decimal(String),
    Date {
        format: String,
        nanos: bool,
        /// The `time_zone` id keys print in, when not UTC.
        zone: Option<String>,
    },
    Bool,
    Ip,
    Unsigned,
    /// Geotile cells (`zoom/x/y`) of their long encoding.
    GeoTile,
}

impl Fmt {
    /// The string form of a numeric value, `None` for the raw format.
    pub fn number_string(&self, v: f64) -> Option<String> {
        match self {
            // Cells print from their exact long (`key`), never from a double.
            Fmt::Raw | Fmt::Ip | Fmt::GeoTile => None,
            Fmt::Unsigned => Some(format!("{}", v as u64)),
            Fmt::Decimal(p) => Some(decimal_format(v, p)),
            Fmt::Date { format, nanos, zone } => {
                if !v.is_finite() {
                    return Some(java_double(v));
                }
                let t = v as i64;
                let zone = zone.as_deref().and_then(|z| crate::clock::tz::Zone::parse(z).ok());
                Some(match (zone, nanos) {
                    (None, true) => date::format_date_nanos(t, format),
                    (None, false) => date::format_date(t, format),
                    (Some(z), true) => {
                        let ms = t.div_euclid(1_000_000);
                        date::format_date_at_offset(ms, format, z.offset_at(ms))
                    }
                    (Some(z), false) => date::format_date_at_offset(t, format, z.offset_at(t)),
                })
            }
            Fmt::Bool => Some(if v != 0.0 { "true" } else { "false" }.to_string()),
        }
    }

    /// Whether keys and values get a `*_as_string` beside them.
    pub fn is_raw(&self) -> bool {
        matches!(self, Fmt::Raw | Fmt::Unsigned)
    }

    /// The JSON `key` and the optional `key_as_string` of a bucket key.
    pub fn key(&self, k: &Key) -> (Value, Option<String>) {
        match k {
            Key::Bytes(b) => match self {
                Fmt::Ip => {
                    let s = <[u8; 16]>::try_from(b.as_slice())
                        .map(|a| ip::format_ip(u128::from_be_bytes(a)))
                        .unwrap_or_else(|_| String::from_utf8_lossy(b).into_owned());
                    (json!(s), None)
                }
                _ => (json!(String::from_utf8_lossy(b)), None),
            },
            Key::Str(s) => (json!(s), None),
            Key::Long(v) if *self == Fmt::GeoTile => (json!(super::geo_grid::Grid::Geotile.key(*v)), None),
            Key::Long(v) => (json!(v), if self.is_raw() { None } else { self.number_string(*v as f64) }),
            Key::Unsigned(v) => (json!(v), None),
            Key::Double(v) => (double(*v), if self.is_raw() { None } else { self.number_string(*v) }),
            Key::Multi(_) => (Value::Null, None),
        }
    }

    /// The key as a string (keyed responses, range keys).
    pub fn key_string(&self, k: &Key) -> String {
        match self.key(k) {
            (_, Some(s)) => s,
            (Value::String(s), None) => s,
            (v, None) => v.to_string(),
        }
    }
}

/// A double as JSON (non-finite values are `null`: JSON has no infinity).
pub fn double(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// A double as Java's `Double.toString` prints it in the keys OpenSearch builds (`1.0`, `NaN`,
/// `Infinity`, `1.0E10`).
pub fn java_double(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e7).contains(&a) {
        // Scientific: shortest digits, mantissa with at least one decimal.
        let s = format!("{v:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') { m.to_string() } else { format!("{m}.0") };
        return format!("{m}E{e}");
    }
    let s = format!("{v}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_doubles() {
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_double(-2.5), "-2.5");
        assert_eq!(java_double(1e10), "1.0E10");
        assert_eq!(java_double(1.5e-5), "1.5E-5");
        assert_eq!(java_double(100.0), "100.0");
        assert_eq!(java_double(f64::INFINITY), "Infinity");
    }

    #[test]
    fn keys_print_by_format() {
        assert_eq!(Fmt::Bool.key(&Key::Long(1)), (json!(1), Some("true".into())));
        assert_eq!(Fmt::Raw.key(&Key::Long(7)), (json!(7), None));
        let ip = 0xffff_0a00_0001u128.to_be_bytes().to_vec();
        assert_eq!(Fmt::Ip.key(&Key::Bytes(ip)).0, json!("10.0.0.1"));
        let d = Fmt::Date { format: "strict_date_optional_time".into(), nanos: false, zone: None };
        assert_eq!(d.key(&Key::Long(0)).1.as_deref(), Some("1970-01-01T00:00:00.000Z"));
    }
}
