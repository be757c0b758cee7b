//! geo_point queries: `geo_distance`, `geo_bounding_box` and `geo_polygon`, answered from the
//! field's doc values (Fathom keeps no points index for geo_point: every document's points are
//! tested, as Lucene's `LatLonDocValuesField` slow queries do).

use serde_json::{Map, Value};

use super::dsl::{body, f32_of, perr, QueryContext};
use crate::engine::query::{DvFilter, GeoShape, Query};
use crate::engine::schema::geo::{self, GeoPoint};
use crate::engine::schema::FieldKind;
use crate::error::{OsError, OsResult};

/// Parses one geo query (`name` is `geo_distance`, `geo_bounding_box` or `geo_polygon`).
pub fn parse(name: &str, v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let m = body(name, v)?;
    let mut boost = 1.0;
    let mut ignore_unmapped = false;
    let mut distance = None;
    let mut field: Option<(&str, &Value)> = None;
    for (k, val) in m {
        match k.as_str() {
            "boost" => boost = f32_of(name, k, val)?,
            "_name" | "validation_method" | "type" => {}
            "ignore_unmapped" => ignore_unmapped = val.as_bool().ok_or_else(|| perr(format!("[{name}] [ignore_unmapped] must be a boolean")))?,
            "distance" if name == "geo_distance" => distance = Some(meters(val)?),
            "distance_type" if name == "geo_distance" => match val.as_str() {
                Some("arc" | "plane") => {}
                _ => return Err(perr(format!("[{name}] unknown distance_type [{val}]"))),
            },
            _ => {
                if let Some((prev, _)) = field {
                    return Err(perr(format!("[{name}] query doesn't support multiple fields, found [{prev}] and [{k}]")));
                }
                field = Some((k.as_str(), val));
            }
        }
    }
    let (f, spec) = field.ok_or_else(|| perr(format!("[{name}] query malformed, no field specified")))?;
    let shape = match name {
        "geo_distance" => {
            let c = point(name, spec)?;
            let meters = distance.ok_or_else(|| perr("geo_distance requires 'distance' to be specified"))?;
            GeoShape::Distance { lat: c.lat, lon: c.lon, meters }
        }
        "geo_bounding_box" => bbox(name, spec)?,
        _ => polygon(name, spec)?,
    };
    match ctx.mapping.field_type(f) {
        Some(ft) if matches!(ft.kind, FieldKind::GeoPoint { .. }) => {
            if !ft.effective_doc_values() {
                return Err(OsError::illegal(format!("Can't search on field [{f}]: geo_point queries need doc values")));
            }
            Ok(Query::DocValues { field: f.into(), filter: DvFilter::Geo(shape), boost })
        }
        Some(_) => Err(OsError::new("query_shard_exception", format!("field [{f}] is not a geo_point field")).status(400)),
        None if ignore_unmapped => Ok(Query::MatchNone),
        None => Err(OsError::new("query_shard_exception", format!("failed to find geo_point field [{f}]")).status(400)),
    }
}

/// A validated point in any of geo_point's forms.
fn point(name: &str, v: &Value) -> OsResult<GeoPoint> {
    let p = geo::parse_point(v, true).map_err(|e| perr(format!("[{name}] {}", e.reason)))?;
    geo::doc_value(p).map_err(|e| perr(format!("[{name}] {}", e.reason)))?;
    Ok(p)
}

/// A distance (`12km`, `5mi`, `100`: meters) in meters, as OpenSearch's `DistanceUnit.parse`.
pub fn meters(v: &Value) -> OsResult<f64> {
    let s = match v {
        Value::Number(n) => return n.as_f64().ok_or_else(|| perr(format!("failed to parse distance [{v}]"))),
        Value::String(s) => s.trim(),
        other => return Err(perr(format!("failed to parse distance [{other}]"))),
    };
    const UNITS: [(&str, f64); 20] = [
        ("nauticalmiles", 1852.0),
        ("millimeters", 0.001),
        ("centimeters", 0.01),
        ("kilometers", 1000.0),
        ("meters", 1.0),
        ("miles", 1609.344),
        ("yards", 0.9144),
        ("inch", 0.0254),
        ("feet", 0.3048),
        ("nmi", 1852.0),
        ("NM", 1852.0),
        ("km", 1000.0),
        ("mm", 0.001),
        ("cm", 0.01),
        ("mi", 1609.344),
        ("yd", 0.9144),
        ("ft", 0.3048),
        ("in", 0.0254),
        ("m", 1.0),
        ("", 1.0),
    ];
    for (suffix, factor) in UNITS {
        if let Some(num) = s.strip_suffix(suffix) {
            if let Ok(x) = num.trim().parse::<f64>() {
                return Ok(x * factor);
            }
        }
    }
    Err(perr(format!("failed to parse distance [{s}]")))
}

fn corner(name: &str, m: &Map<String, Value>, key: &str) -> OsResult<Option<GeoPoint>> {
    m.get(key).map(|v| point(name, v)).transpose()
}

fn number(name: &str, m: &Map<String, Value>, key: &str) -> OsResult<Option<f64>> {
    m.get(key).map(|v| v.as_f64().ok_or_else(|| perr(format!("[{name}] [{key}] must be a number")))).transpose()
}

/// `top_left`/`bottom_right`, `top_right`/`bottom_left` or `top`/`left`/`bottom`/`right`.
fn bbox(name: &str, spec: &Value) -> OsResult<GeoShape> {
    let m = spec.as_object().ok_or_else(|| perr(format!("[{name}] field must be an object")))?;
    for k in m.keys() {
        if !["top_left", "bottom_right", "top_right", "bottom_left", "top", "left", "bottom", "right"].contains(&k.as_str()) {
            return Err(perr(format!("[{name}] unexpected field [{k}]")));
        }
    }
    let (mut top, mut bottom, mut left, mut right) = (number(name, m, "top")?, number(name, m, "bottom")?, number(name, m, "left")?, number(name, m, "right")?);
    if let Some(p) = corner(name, m, "top_left")? {
        (top, left) = (Some(p.lat), Some(p.lon));
    }
    if let Some(p) = corner(name, m, "bottom_right")? {
        (bottom, right) = (Some(p.lat), Some(p.lon));
    }
    if let Some(p) = corner(name, m, "top_right")? {
        (top, right) = (Some(p.lat), Some(p.lon));
    }
    if let Some(p) = corner(name, m, "bottom_left")? {
        (bottom, left) = (Some(p.lat), Some(p.lon));
    }
    match (top, bottom, left, right) {
        (Some(top), Some(bottom), Some(left), Some(right)) => {
            if top < bottom {
                return Err(OsError::illegal(format!("top is below bottom corner: {top} vs. {bottom}")));
            }
            Ok(GeoShape::BBox { top, bottom, left, right })
        }
        _ => Err(perr(format!("[{name}] requires top, bottom, left and right (or two opposite corners)"))),
    }
}

/// `{"points": [p, ...]}`: at least three distinct points.
fn polygon(name: &str, spec: &Value) -> OsResult<GeoShape> {
    let pts = spec.get("points").and_then(Value::as_array).ok_or_else(|| perr(format!("[{name}] no points defined for geo_polygon query")))?;
    let mut v: Vec<(f64, f64)> = Vec::with_capacity(pts.len());
    for p in pts {
        let g = point(name, p)?;
        v.push((g.lat, g.lon));
    }
    if v.len() > 1 && v.first() == v.last() {
        v.pop();
    }
    if v.len() < 3 {
        return Err(perr("too few points defined for geo_polygon query"));
    }
    Ok(GeoShape::Polygon(v))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::action::search::execute::analyzers;
    use crate::engine::schema::Mapping;

    #[test]
    fn queries_on_geo_points() {
        let m = Mapping::from_json(&json!({"properties": {"loc": {"type": "geo_point"}, "k": {"type": "keyword"}}})).unwrap();
        let ctx = QueryContext { mapping: &m, analyzers: analyzers(), segments: &[], index: "i", now_millis: 0, analysis: None };
        let q = |v: Value| super::super::dsl::parse(&v, &ctx);
        assert_eq!(
            q(json!({"geo_distance": {"distance": "12km", "loc": {"lat": 40.0, "lon": -70.0}}})).unwrap(),
            Query::DocValues { field: "loc".into(), filter: DvFilter::Geo(GeoShape::Distance { lat: 40.0, lon: -70.0, meters: 12_000.0 }), boost: 1.0 }
        );
        assert_eq!(
            q(json!({"geo_bounding_box": {"loc": {"top_left": [-74.1, 40.73], "bottom_right": "40.01,-71.12"}}})).unwrap(),
            Query::DocValues { field: "loc".into(), filter: DvFilter::Geo(GeoShape::BBox { top: 40.73, bottom: 40.01, left: -74.1, right: -71.12 }), boost: 1.0 }
        );
        assert!(matches!(
            q(json!({"geo_polygon": {"loc": {"points": [[0, 0], [0, 10], [10, 10], [0, 0]]}}})).unwrap(),
            Query::DocValues { filter: DvFilter::Geo(GeoShape::Polygon(ref v)), .. } if v.len() == 3
        ));
        assert_eq!(q(json!({"geo_distance": {"distance": 5, "nope": [0, 0], "ignore_unmapped": true}})).unwrap(), Query::MatchNone);
        assert!(q(json!({"geo_distance": {"distance": 5, "nope": [0, 0]}})).is_err());
        assert!(q(json!({"geo_distance": {"distance": 5, "k": [0, 0]}})).is_err());
        assert!(q(json!({"geo_distance": {"loc": [0, 0]}})).is_err());
        assert!(q(json!({"geo_polygon": {"loc": {"points": [[0, 0], [1, 1]]}}})).is_err());
        assert_eq!(meters(&json!("1.5mi")).unwrap(), 1.5 * 1609.344);
        assert_eq!(meters(&json!("10NM")).unwrap(), 18_520.0);
        assert!(meters(&json!("10 parsecs")).is_err());
    }
}
