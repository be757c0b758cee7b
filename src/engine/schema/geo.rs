//! `geo_point` values: every form OpenSearch 3.3 accepts, its validation and messages, and the
//! Lucene encoding of a point (`GeoEncodingUtils`).
//!
//! Value forms (`GeoUtils.parseGeoPoint`; messages are OpenSearch's `parse_exception`s):
//!
//! | form | example |
//! |---|---|
//! | object | `{"lat": 41.12, "lon": -71.34}` (numbers or numeric strings) |
//! | GeoJSON object | `{"type": "Point", "coordinates": [-71.34, 41.12]}` |
//! | geohash object | `{"geohash": "drm3btev3e86"}` |
//! | array | `[-71.34, 41.12]` (lon first; a third value is a Z value) |
//! | string | `"41.12,-71.34"` (lat first; a third value is a Z value) |
//! | geohash | `"drm3btev3e86"` (the bottom-left corner of the cell; at most 12 characters are read) |
//! | WKT | `"POINT (-71.34 41.12)"` |
//!
//! A field value that is an array whose first element is a number is one point; any other array is
//! a list of points, each in one of the forms above. Z values are dropped when `ignore_z_value` is
//! true (the default) and rejected otherwise. Each point is then validated (latitude in [-90, 90],
//! longitude in [-180, 180]), or, with `ignore_malformed`, normalized into those ranges (wrapping
//! around the globe as `GeoUtils.normalizePoint` does).
//!
//! Indexing: the doc value is Lucene's `LatLonDocValuesField` long,
//! `(encode_latitude(lat) << 32) | (encode_longitude(lon) & 0xFFFF_FFFF)`, a sorted-numeric doc
//! value. Not supported yet: the points index (`LatLonPoint`), hence geo queries
//! (`geo_distance`, `geo_bounding_box`, `geo_shape` on points) and geo aggregations.

use crate::error::ErrorKind;
use serde_json::{json, Map, Value};

use super::values::{java_double, parse_java_double};
use super::MappingError;

/// A point in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    pub lat: f64,
    pub lon: f64,
}

impl GeoPoint {
    /// As `GET _mapping` prints a geo_point `null_value`: `{"lat": .., "lon": ..}`.
    pub fn to_json(self) -> Value {
        json!({"lat": self.lat, "lon": self.lon})
    }
}

/// `(1 << 32) / 180`, Lucene's `LAT_SCALE`.
const LAT_SCALE: f64 = (1u64 << 32) as f64 / 180.0;
const LAT_DECODE: f64 = 1.0 / LAT_SCALE;
/// `(1 << 32) / 360`, Lucene's `LON_SCALE`.
const LON_SCALE: f64 = (1u64 << 32) as f64 / 360.0;
const LON_DECODE: f64 = 1.0 / LON_SCALE;

/// Lucene's `GeoEncodingUtils.encodeLatitude` for a latitude in [-90, 90] (90 maps to the last
/// cell). Out-of-range input saturates (callers validate first).
pub fn encode_latitude(lat: f64) -> i32 {
    let lat = if lat == 90.0 { next_down(lat) } else { lat };
    (lat / LAT_DECODE).floor() as i32
}

/// Lucene's `GeoEncodingUtils.encodeLongitude` for a longitude in [-180, 180].
pub fn encode_longitude(lon: f64) -> i32 {
    let lon = if lon == 180.0 { next_down(lon) } else { lon };
    (lon / LON_DECODE).floor() as i32
}

/// Lucene's `GeoEncodingUtils.decodeLatitude`: the lower edge of the cell.
pub fn decode_latitude(encoded: i32) -> f64 {
    f64::from(encoded) * LAT_DECODE
}

/// Lucene's `GeoEncodingUtils.decodeLongitude`: the lower edge of the cell.
pub fn decode_longitude(encoded: i32) -> f64 {
    f64::from(encoded) * LON_DECODE
}

/// `Math.nextDown` for positive finite values.
fn next_down(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

/// The sorted-numeric doc value of a point (`LatLonDocValuesField`), with Lucene's range checks.
pub fn doc_value(p: GeoPoint) -> Result<i64, MappingError> {
    if p.lat.is_nan() || !(-90.0..=90.0).contains(&p.lat) {
        return Err(MappingError::illegal(format!(
            "invalid latitude {}; must be between -90.0 and 90.0",
            java_double(p.lat)
        )));
    }
    if p.lon.is_nan() || !(-180.0..=180.0).contains(&p.lon) {
        return Err(MappingError::illegal(format!(
            "invalid longitude {}; must be between -180.0 and 180.0",
            java_double(p.lon)
        )));
    }
    let lat = i64::from(encode_latitude(p.lat));
    let lon = i64::from(encode_longitude(p.lon)) & 0xFFFF_FFFF;
    Ok((lat << 32) | lon)
}

/// The point a doc value stands for (the lower-left corner of its cell).
pub fn decode_doc_value(v: i64) -> GeoPoint {
    // Truncating casts pick the two 32-bit halves.
    GeoPoint { lat: decode_latitude((v >> 32) as i32), lon: decode_longitude(v as i32) }
}

fn pe(reason: impl Into<String>) -> MappingError {
    MappingError::new(ErrorKind::Parse, reason)
}

const INVALID_FIELDS: &str = "field must be either [lon|lat], [type|coordinates], or [geohash]";

/// Parses one field value (the whole JSON value, arrays included; not `null`) into its points,
/// each validated (or normalized when `ignore_malformed`). `field` is the field's simple name, used
/// in range messages as OpenSearch does.
pub fn parse_field_value(
    v: &Value,
    field: &str,
    ignore_z: bool,
    ignore_malformed: bool,
) -> Result<Vec<GeoPoint>, MappingError> {
    let process = |p: GeoPoint| if ignore_malformed { normalize(p) } else { validate(p, Some(field)).map(|_| p) };
    match v {
        Value::Array(items) => match items.first() {
            Some(Value::Number(x)) => {
                let x = x.as_f64().unwrap_or(f64::NAN);
                let y = match items.get(1) {
                    Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
                    Some(Value::String(s)) => parse_java_double(s).ok_or_else(|| nfe(s))?,
                    other => {
                        return Err(MappingError::new(
                            ErrorKind::JsonParse,
                            format!(
                                "Current token ({}) not numeric, can not use numeric value accessors",
                                token(other)
                            ),
                        ))
                    }
                };
                match items.get(2) {
                    None => {}
                    Some(Value::Number(z)) if items.len() == 3 => {
                        assert_z(ignore_z, z.as_f64().unwrap_or(f64::NAN))?;
                    }
                    Some(_) => return Err(pe("field type does not accept > 3 dimensions")),
                }
                Ok(vec![process(GeoPoint { lat: y, lon: x })?])
            }
            _ => items.iter().map(|item| process(parse_point(item, ignore_z)?)).collect(),
        },
        other => Ok(vec![process(parse_point(other, ignore_z)?)?]),
    }
}

/// A `null_value` as OpenSearch's `parseNullValue` reads it: one point, validated (messages
/// without the field name) or normalized.
pub fn parse_null_value(v: &Value, ignore_z: bool, ignore_malformed: bool) -> Result<GeoPoint, MappingError> {
    let p = parse_point(v, ignore_z)?;
    if ignore_malformed {
        normalize(p)
    } else {
        validate(p, None).map(|_| p)
    }
}

/// Java's `Double.toString` of a coordinate (for messages about it).
pub fn java_double_of(d: f64) -> String {
    java_double(d)
}

/// One point in any single-point form (`GeoUtils.parseGeoPoint`), not validated.
pub fn parse_point(v: &Value, ignore_z: bool) -> Result<GeoPoint, MappingError> {
    match v {
        Value::Object(m) => parse_object(m, ignore_z),
        Value::Array(a) => parse_coordinates(a, ignore_z),
        Value::String(s) => parse_string(s, ignore_z),
        _ => Err(pe("geo_point expected")),
    }
}

fn parse_object(m: &Map<String, Value>, ignore_z: bool) -> Result<GeoPoint, MappingError> {
    let Some(first) = m.keys().next() else { return Err(pe("token [END_OBJECT] not allowed")) };
    let only = |allowed: &[&str]| m.keys().all(|k| allowed.contains(&k.as_str()));
    if m.contains_key("lat") || m.contains_key("lon") {
        if !only(&["lat", "lon"]) {
            return Err(pe(INVALID_FIELDS));
        }
        let coord = |name: &str| -> Result<Option<f64>, MappingError> {
            match m.get(name) {
                None => Ok(None),
                Some(Value::Number(n)) => Ok(Some(n.as_f64().unwrap_or(f64::NAN))),
                Some(Value::String(s)) => parse_java_double(s)
                    .map(Some)
                    .ok_or_else(|| pe("[lon] and [lat] must be valid double values").caused_by(nfe(s))),
                Some(_) => Err(pe(format!("{name} must be a number"))),
            }
        };
        let lat = coord("lat")?;
        let lon = coord("lon")?;
        let lon = lon.ok_or_else(|| pe("field [lon] missing"))?;
        let lat = lat.ok_or_else(|| pe("field [lat] missing"))?;
        return Ok(GeoPoint { lat, lon });
    }
    match first.as_str() {
        "geohash" => {
            if m.len() != 1 {
                return Err(pe(INVALID_FIELDS));
            }
            match m.get("geohash") {
                Some(Value::String(h)) => geohash_decode(h),
                _ => Err(pe("geohash must be a string")),
            }
        }
        "type" | "coordinates" => {
            if !only(&["type", "coordinates"]) {
                return Err(pe(INVALID_FIELDS));
            }
            match m.get("type") {
                None => return Err(pe("field [type] missing")),
                Some(Value::String(t)) if t.eq_ignore_ascii_case("point") => {}
                Some(Value::String(_)) => return Err(pe("type must be Point")),
                Some(_) => return Err(pe("type must be a string")),
            }
            match m.get("coordinates") {
                None => Err(pe("field [coordinates] missing")),
                Some(Value::Array(a)) => parse_coordinates(a, ignore_z),
                Some(_) => Err(pe("coordinates must be an array")),
            }
        }
        _ => Err(pe(INVALID_FIELDS)),
    }
}

/// `[lon, lat]` or `[lon, lat, z]` (numbers only).
fn parse_coordinates(a: &[Value], ignore_z: bool) -> Result<GeoPoint, MappingError> {
    let (mut x, mut y) = (f64::NAN, f64::NAN);
    for (i, e) in a.iter().enumerate() {
        let Value::Number(n) = e else { return Err(pe("numeric value expected")) };
        let d = n.as_f64().unwrap_or(f64::NAN);
        match i {
            0 => x = d,
            1 => y = d,
            2 => {
                assert_z(ignore_z, d)?;
            }
            _ => return Err(pe("[geo_point] field type does not accept more than 3 values")),
        }
    }
    if a.len() < 2 {
        return Err(pe("[geo_point] field type should have at least two dimensions"));
    }
    Ok(GeoPoint { lat: y, lon: x })
}

fn parse_string(s: &str, ignore_z: bool) -> Result<GeoPoint, MappingError> {
    if s.to_lowercase().contains("point") {
        return parse_wkt(s, ignore_z);
    }
    if !s.contains(',') {
        return geohash_decode(s);
    }
    // Java's String.split drops trailing empty strings.
    let mut vals: Vec<&str> = s.split(',').collect();
    while vals.last().is_some_and(|v| v.is_empty()) {
        vals.pop();
    }
    if vals.len() > 3 {
        return Err(pe(format!("failed to parse [{}], expected 2 or 3 coordinates but found: [{{}}]", vals.len())));
    }
    let get = |i: usize| {
        vals.get(i).copied().ok_or_else(|| {
            MappingError::new(
                ErrorKind::ArrayIndexOutOfBounds,
                format!("Index {i} out of bounds for length {}", vals.len()),
            )
        })
    };
    let lat = parse_java_double(get(0)?.trim()).ok_or_else(|| pe("latitude must be a number"))?;
    let lon = parse_java_double(get(1)?.trim()).ok_or_else(|| pe("longitude must be a number"))?;
    if let Some(z) = vals.get(2) {
        let z = parse_java_double(z.trim()).ok_or_else(|| nfe(z.trim()))?;
        assert_z(ignore_z, z)?;
    }
    Ok(GeoPoint { lat, lon })
}

/// `POINT (lon lat [z])` or `POINT EMPTY` (OpenSearch's empty point is (0, 0)), keywords in any
/// case. Other WKT geometry types are refused as OpenSearch does (their body is not checked).
fn parse_wkt(s: &str, ignore_z: bool) -> Result<GeoPoint, MappingError> {
    let invalid = |cause: MappingError| pe("Invalid WKT format").caused_by(cause);
    let t = s.trim();
    let kw_end = t.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (kw, rest) = t.split_at(kw_end);
    let kind = kw.to_ascii_uppercase();
    let found = match kind.as_str() {
        "POINT" => None,
        "BBOX" => Some("ENVELOPE"),
        "MULTIPOINT" | "LINESTRING" | "MULTILINESTRING" | "POLYGON" | "MULTIPOLYGON" | "GEOMETRYCOLLECTION"
        | "CIRCLE" | "LINEARRING" => Some(kind.as_str()),
        _ => return Err(invalid(MappingError::illegal(format!("Unknown geometry type: {}", kw.to_lowercase())))),
    };
    if let Some(found) = found {
        return Err(pe(format!("[geo_point] supports only POINT among WKT primitives, but found {found}")));
    }
    let rest = rest.trim();
    if rest.eq_ignore_ascii_case("empty") {
        return Ok(GeoPoint { lat: 0.0, lon: 0.0 });
    }
    let syntax = |m: String| invalid(MappingError::new(ErrorKind::Parse, m));
    let Some(body) = rest.strip_prefix('(') else {
        return Err(syntax(format!("expected EMPTY or ( but found: {}", first_token(rest))));
    };
    let Some(close) = body.find(')') else {
        return Err(syntax("expected ) but found: END-OF-STREAM".into()));
    };
    let (inner, after) = body.split_at(close);
    let after = after.get(1..).unwrap_or("").trim();
    let mut nums = Vec::with_capacity(3);
    for tok in inner.split_whitespace() {
        if nums.len() == 3 {
            return Err(syntax(format!("expected ) but found: {tok}")));
        }
        nums.push(parse_java_double(tok).ok_or_else(|| syntax(format!("expected number but found: {tok}")))?);
    }
    let (Some(&x), Some(&y)) = (nums.first(), nums.get(1)) else {
        return Err(syntax("expected number but found: )".into()));
    };
    if !after.is_empty() {
        return Err(syntax(format!("expected end of WKT string but found additional text: {}", first_token(after))));
    }
    // GeographyValidator: latitude, longitude, then altitude.
    if y.is_nan() || !(-90.0..=90.0).contains(&y) {
        return Err(invalid(MappingError::illegal(format!(
            "invalid latitude {}; must be between -90.0 and 90.0",
            java_double(y)
        ))));
    }
    if x.is_nan() || !(-180.0..=180.0).contains(&x) {
        return Err(invalid(MappingError::illegal(format!(
            "invalid longitude {}; must be between -180.0 and 180.0",
            java_double(x)
        ))));
    }
    if let Some(&z) = nums.get(2) {
        if !ignore_z {
            return Err(invalid(MappingError::illegal(format!(
                "found Z value [{}] but [ignore_z_value] parameter is [false]",
                java_double(z)
            ))));
        }
    }
    Ok(GeoPoint { lat: y, lon: x })
}

fn first_token(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or("END-OF-STREAM")
}

fn assert_z(ignore_z: bool, z: f64) -> Result<(), MappingError> {
    if ignore_z {
        return Ok(());
    }
    Err(pe(format!(
        "Exception parsing coordinates: found Z value [{}] but [ignore_z_value] parameter is [false]",
        java_double(z)
    )))
}

fn nfe(s: &str) -> MappingError {
    let reason = if s.trim().is_empty() { "empty String".to_string() } else { format!("For input string: \"{s}\"") };
    MappingError::new(ErrorKind::NumberFormat, reason)
}

fn token(v: Option<&Value>) -> &'static str {
    match v {
        None => "END_ARRAY",
        Some(Value::Null) => "VALUE_NULL",
        Some(Value::Bool(true)) => "VALUE_TRUE",
        Some(Value::Bool(false)) => "VALUE_FALSE",
        Some(Value::Object(_)) => "START_OBJECT",
        Some(Value::Array(_)) => "START_ARRAY",
        Some(Value::Number(_)) => "VALUE_NUMBER_FLOAT",
        Some(Value::String(_)) => "VALUE_STRING",
    }
}

/// `ParsedGeoPoint.validate` (with the field name) or `parseNullValue`'s check (without).
/// NaN passes here, as in OpenSearch; [`doc_value`] rejects it.
fn validate(p: GeoPoint, field: Option<&str>) -> Result<(), MappingError> {
    let suffix = field.map(|f| format!(" for {f}")).unwrap_or_default();
    if p.lat > 90.0 || p.lat < -90.0 {
        return Err(MappingError::illegal(format!("illegal latitude value [{}]{suffix}", java_double(p.lat))));
    }
    if p.lon > 180.0 || p.lon < -180.0 {
        return Err(MappingError::illegal(format!("illegal longitude value [{}]{suffix}", java_double(p.lon))));
    }
    Ok(())
}

/// `GeoUtils.normalizePoint(point)`: wraps latitude (flipping longitude by 180°) and longitude
/// into range. NaN or infinite coordinates cannot be normalized.
pub fn normalize(p: GeoPoint) -> Result<GeoPoint, MappingError> {
    if !p.lat.is_finite() || !p.lon.is_finite() {
        return Err(pe("cannot normalize the point - not a number"));
    }
    let (mut lat, mut lon) = (p.lat, p.lon);
    let norm_lat = !(-90.0..=90.0).contains(&lat);
    let norm_lon = norm_lat || !(-180.0..=180.0).contains(&lon);
    if norm_lat {
        lat = centered_modulus(lat, 360.0);
        let shift = if lat < -90.0 {
            lat = -180.0 - lat;
            true
        } else if lat > 90.0 {
            lat = 180.0 - lat;
            true
        } else {
            false
        };
        if shift {
            lon += 180.0;
        }
    }
    if norm_lon {
        lon = centered_modulus(lon, 360.0);
    }
    Ok(GeoPoint { lat, lon })
}

fn centered_modulus(dividend: f64, divisor: f64) -> f64 {
    // Java's `%` on doubles is fmod, as Rust's.
    let mut r = dividend % divisor;
    if r <= 0.0 {
        r += divisor;
    }
    if r > divisor / 2.0 {
        r -= divisor;
    }
    r
}

const BASE32: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";

/// The bottom-left corner of a geohash cell (`Geohash.mortonEncode` then decode): at most 12
/// characters are read; longitude bits come first.
pub fn geohash_decode(hash: &str) -> Result<GeoPoint, MappingError> {
    if hash.is_empty() {
        return Err(pe("empty geohash"));
    }
    let (mut lon, mut lat, mut nlon, mut nlat) = (0u32, 0u32, 0u32, 0u32);
    let mut lon_turn = true;
    for c in hash.chars().take(12) {
        let Some(b) = BASE32.iter().position(|x| char::from(*x) == c) else {
            return Err(pe(format!("unsupported symbol [{c}] in geohash [{hash}]")));
        };
        for k in (0..5).rev() {
            let bit = ((b >> k) & 1) as u32;
            if lon_turn {
                lon = (lon << 1) | bit;
                nlon += 1;
            } else {
                lat = (lat << 1) | bit;
                nlat += 1;
            }
            lon_turn = !lon_turn;
        }
    }
    // One character gives 3 longitude and 2 latitude bits; twelve give 30 and 30.
    let lon_enc = ((lon << (32 - nlon)) ^ 0x8000_0000) as i32;
    let lat_enc = ((lat << (32 - nlat)) ^ 0x8000_0000) as i32;
    Ok(GeoPoint { lat: decode_latitude(lat_enc), lon: decode_longitude(lon_enc) })
}

/// The 12-character geohash of a valid point (`GeoPoint.geohash()`): what a geo_point's
/// multi-fields receive.
pub fn geohash_encode(p: GeoPoint) -> String {
    let lon = ((encode_longitude(p.lon) as u32) ^ 0x8000_0000) >> 2;
    let lat = ((encode_latitude(p.lat) as u32) ^ 0x8000_0000) >> 2;
    let mut bits: u64 = 0;
    for i in (0..30).rev() {
        bits = (bits << 1) | u64::from((lon >> i) & 1);
        bits = (bits << 1) | u64::from((lat >> i) & 1);
    }
    (0..12).rev().map(|i| char::from(BASE32[((bits >> (i * 5)) & 31) as usize])).collect()
}

#[cfg(test)]
#[path = "geo_tests.rs"]
mod tests;
