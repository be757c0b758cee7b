//! geo_point queries: `geo_distance`, `geo_bounding_box`, `geo_polygon` and `geo_shape` (with
//! GeoJSON `envelope`, `polygon`, `multipolygon` and `circle` shapes), answered from the field's
//! doc values (Fathom keeps no points index for geo_point: every document's points are
//! tested, as Lucene's `LatLonDocValuesField` slow queries do).

use serde_json::{Map, Value};

use super::dsl::{body, f32_of, perr, QueryContext};
use crate::engine::query::{DvFilter, GeoShape, Query};
use crate::engine::schema::geo::{self, GeoPoint};
use crate::engine::schema::FieldKind;
use crate::error::{ErrorKind, OsError, OsResult};

/// `validation_method` (OpenSearch's `GeoValidationMethod`, default `STRICT`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Validation {
    /// Out-of-range coordinates are rejected.
    Strict,
    /// Out-of-range coordinates are wrapped into range.
    Coerce,
    /// Not validated: out-of-range coordinates then fail building Lucene's query.
    IgnoreMalformed,
}

impl Validation {
    fn parse(v: &Value) -> OsResult<Validation> {
        let s = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
        match s.to_ascii_uppercase().as_str() {
            "STRICT" => Ok(Validation::Strict),
            "COERCE" => Ok(Validation::Coerce),
            "IGNORE_MALFORMED" => Ok(Validation::IgnoreMalformed),
            _ => Err(OsError::illegal(format!(
                "operator needs to be either [COERCE, IGNORE_MALFORMED, STRICT], but not [{s}]"
            ))),
        }
    }
}

fn valid_lat(lat: f64) -> bool {
    (-90.0..=90.0).contains(&lat)
}

fn valid_lon(lon: f64) -> bool {
    (-180.0..=180.0).contains(&lon)
}

/// `QueryShardException("couldn't validate latitude/ longitude values", QueryValidationException)`.
fn validation_error(errors: &[String]) -> OsError {
    let mut reason = String::from("Validation Failed: ");
    for (i, e) in errors.iter().enumerate() {
        reason.push_str(&format!("{}: {};", i + 1, e));
    }
    OsError::new(ErrorKind::QueryShard, "couldn't validate latitude/ longitude values")
        .status(400)
        .caused_by(OsError::new(ErrorKind::QueryValidation, reason).status(400))
}

/// Lucene's `GeoUtils.checkLatitude`/`checkLongitude` when the query is built from unvalidated
/// coordinates (`IGNORE_MALFORMED`), as `QueryShardContext` reports it.
fn lucene_check(lat: f64, lon: f64) -> OsResult<()> {
    let fail = |what: &str, v: f64, lim: &str| {
        OsError::new(
            ErrorKind::QueryShard,
            format!(
                "failed to create query: invalid {what} {}; must be between -{lim} and {lim}",
                geo::java_double_of(v)
            ),
        )
        .status(400)
    };
    if !valid_lat(lat) {
        return Err(fail("latitude", lat, "90.0"));
    }
    if !valid_lon(lon) {
        return Err(fail("longitude", lon, "180.0"));
    }
    Ok(())
}

/// `GeoUtils.normalizePoint(point, true, true)`.
fn coerce(lat: f64, lon: f64) -> OsResult<(f64, f64)> {
    let p = geo::normalize(GeoPoint { lat, lon }).map_err(|e| OsError::illegal(e.reason))?;
    Ok((p.lat, p.lon))
}

/// Parses one geo query (`name` is `geo_distance`, `geo_bounding_box` or `geo_polygon`).
pub fn parse(name: &str, v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let m = body(name, v)?;
    let mut boost = 1.0;
    let mut ignore_unmapped = false;
    let mut distance: Option<&Value> = None;
    let mut unit = 1.0;
    let mut validation = Validation::Strict;
    let mut field: Option<(&str, &Value)> = None;
    for (k, val) in m {
        match k.as_str() {
            "boost" => boost = f32_of(name, k, val)?,
            "_name" => {}
            "validation_method" => validation = Validation::parse(val)?,
            // `memory` or `indexed`: how OpenSearch once ran it; both answer the same.
            "type" if name == "geo_bounding_box" => {
                let t = val.as_str().map(str::to_string).unwrap_or_else(|| val.to_string());
                if !t.eq_ignore_ascii_case("memory") && !t.eq_ignore_ascii_case("indexed") {
                    return Err(OsError::illegal(format!("no type can be parsed from [{t}]")));
                }
            }
            "ignore_unmapped" => {
                ignore_unmapped =
                    val.as_bool().ok_or_else(|| perr(format!("[{name}] [ignore_unmapped] must be a boolean")))?
            }
            "distance" if name == "geo_distance" => distance = Some(val),
            "unit" if name == "geo_distance" => {
                unit = meters(&Value::String(format!("1{}", val.as_str().unwrap_or("?")))).map_err(|_| {
                    OsError::illegal(format!("No distance unit match [{}]", val.as_str().unwrap_or_default()))
                })?
            }
            // Parsed as OpenSearch does (`GeoDistance.fromString`) but, as there, not used: the
            // distance query is Lucene's `LatLonPoint` circle (haversine) for both.
            "distance_type" if name == "geo_distance" => {
                let t = val.as_str().map(str::to_ascii_lowercase).unwrap_or_else(|| val.to_string());
                if t != "arc" && t != "plane" {
                    return Err(OsError::illegal(format!("No geo distance for [{t}]")));
                }
            }
            _ => {
                if let Some((prev, _)) = field {
                    return Err(perr(format!(
                        "[{name}] query doesn't support multiple fields, found [{prev}] and [{k}]"
                    )));
                }
                field = Some((k.as_str(), val));
            }
        }
    }
    let (f, spec) = field.ok_or_else(|| perr(format!("[{name}] query malformed, no field specified")))?;
    let shape = match name {
        "geo_distance" => {
            let c = raw_point(name, spec)?;
            let d = distance.ok_or_else(|| perr("geo_distance requires 'distance' to be specified"))?;
            let meters = match d {
                // A bare number is in `unit`.
                Value::Number(n) => n.as_f64().unwrap_or(f64::NAN) * unit,
                Value::String(s) if s.trim().parse::<f64>().is_ok() => s.trim().parse::<f64>().unwrap_or(0.0) * unit,
                other => meters(other)?,
            };
            if meters.is_nan() || meters <= 0.0 {
                return Err(OsError::illegal("distance must be greater than zero"));
            }
            GeoShape::Distance { lat: c.lat, lon: c.lon, meters }
        }
        "geo_bounding_box" => bbox(name, spec)?,
        _ => polygon(name, spec)?,
    };
    match ctx.mapping.field_type(f) {
        Some(ft) if matches!(ft.kind, FieldKind::GeoPoint { .. }) => {
            if !ft.effective_doc_values() {
                return Err(OsError::illegal(format!(
                    "Can't search on field [{f}]: geo_point queries need doc values"
                )));
            }
        }
        Some(_) => {
            return Err(OsError::new(ErrorKind::QueryShard, format!("field [{f}] is not a geo_point field")).status(400))
        }
        None if ignore_unmapped => return Ok(Query::MatchNone),
        None => {
            return Err(OsError::new(ErrorKind::QueryShard, format!("failed to find geo_point field [{f}]")).status(400))
        }
    }
    let shape = validate(name, shape, validation)?;
    Ok(Query::DocValues { field: f.into(), filter: DvFilter::Geo(shape), boost })
}

/// `doToQuery`'s checks of the coordinates under `validation`, then coercion.
fn validate(name: &str, shape: GeoShape, validation: Validation) -> OsResult<GeoShape> {
    Ok(match shape {
        GeoShape::Distance { lat, lon, meters } => {
            match validation {
                Validation::Strict => {
                    let mut errors = Vec::new();
                    if !valid_lat(lat) {
                        errors.push(format!("center point latitude is invalid: {}", geo::java_double_of(lat)));
                    }
                    if !valid_lon(lon) {
                        errors.push(format!("center point longitude is invalid: {}", geo::java_double_of(lon)));
                    }
                    if !errors.is_empty() {
                        return Err(validation_error(&errors));
                    }
                }
                Validation::IgnoreMalformed => lucene_check(lat, lon)?,
                Validation::Coerce => {}
            }
            let (lat, lon) = if validation == Validation::Coerce { coerce(lat, lon)? } else { (lat, lon) };
            GeoShape::Distance { lat, lon, meters }
        }
        GeoShape::BBox { top, bottom, left, right } => {
            match validation {
                Validation::Strict => {
                    let mut errors = Vec::new();
                    let d = geo::java_double_of;
                    if !valid_lat(top) {
                        errors.push(format!("top latitude is invalid: {}", d(top)));
                    }
                    if !valid_lon(left) {
                        errors.push(format!("left longitude is invalid: {}", d(left)));
                    }
                    if !valid_lat(bottom) {
                        errors.push(format!("bottom latitude is invalid: {}", d(bottom)));
                    }
                    if !valid_lon(right) {
                        errors.push(format!("right longitude is invalid: {}", d(right)));
                    }
                    if !errors.is_empty() {
                        return Err(validation_error(&errors));
                    }
                    GeoShape::BBox { top, bottom, left, right }
                }
                Validation::IgnoreMalformed => {
                    lucene_check(top, left)?;
                    lucene_check(bottom, right)?;
                    GeoShape::BBox { top, bottom, left, right }
                }
                Validation::Coerce => {
                    // Right minus left a positive multiple of 360: the whole longitude range.
                    let complete = (right - left) % 360.0 == 0.0 && right > left;
                    if complete {
                        let (top, _) = coerce(top, 0.0)?;
                        let (bottom, _) = coerce(bottom, 0.0)?;
                        GeoShape::BBox { top, bottom, left: -180.0, right: 180.0 }
                    } else {
                        let (top, left) = coerce(top, left)?;
                        let (bottom, right) = coerce(bottom, right)?;
                        GeoShape::BBox { top, bottom, left, right }
                    }
                }
            }
        }
        GeoShape::Polygon(pts) => match validation {
            Validation::Strict => {
                for &(lat, lon) in &pts {
                    let err = |what: &str, v: f64| {
                        OsError::new(
                            ErrorKind::QueryShard,
                            format!("illegal {what} value [{}] for [{name}]", geo::java_double_of(v)),
                        )
                        .status(400)
                    };
                    if !valid_lat(lat) {
                        return Err(err("latitude", lat));
                    }
                    if !valid_lon(lon) {
                        return Err(err("longitude", lon));
                    }
                }
                GeoShape::Polygon(pts)
            }
            Validation::IgnoreMalformed => {
                for &(lat, lon) in &pts {
                    lucene_check(lat, lon)?;
                }
                GeoShape::Polygon(pts)
            }
            Validation::Coerce => {
                GeoShape::Polygon(pts.into_iter().map(|(a, o)| coerce(a, o)).collect::<OsResult<_>>()?)
            }
        },
    })
}

/// `geo_shape` on a geo_point field: `{"field": {"shape": {...}, "relation": "intersects"}}`.
/// For points, `intersects` and `within` are the same test; `disjoint` is documents with the
/// field and no point in the shape.
pub fn parse_shape_query(v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let name = "geo_shape";
    let m = body(name, v)?;
    let (mut boost, mut ignore_unmapped) = (1.0, false);
    let mut field: Option<(&str, &Value)> = None;
    for (k, val) in m {
        match k.as_str() {
            "boost" => boost = f32_of(name, k, val)?,
            "_name" => {}
            "ignore_unmapped" => {
                ignore_unmapped =
                    val.as_bool().ok_or_else(|| perr("[geo_shape] [ignore_unmapped] must be a boolean"))?
            }
            _ => {
                if let Some((prev, _)) = field {
                    return Err(perr(format!(
                        "[geo_shape] query doesn't support multiple fields, found [{prev}] and [{k}]"
                    )));
                }
                field = Some((k.as_str(), val));
            }
        }
    }
    let (f, spec) = field.ok_or_else(|| perr("[geo_shape] query malformed, no field specified"))?;
    let spec = spec.as_object().ok_or_else(|| perr("[geo_shape] field must be an object"))?;
    let mut relation = "intersects".to_string();
    let mut shape = None;
    for (k, val) in spec {
        match k.as_str() {
            "shape" => shape = Some(val),
            "relation" => relation = val.as_str().unwrap_or_default().to_ascii_lowercase(),
            "indexed_shape" => return Err(OsError::illegal("[geo_shape] indexed_shape is not supported")),
            other => return Err(perr(format!("[geo_shape] query does not support [{other}]"))),
        }
    }
    let shape = shape.ok_or_else(|| perr("either [shape] or [indexed_shape] is required for [geo_shape] query"))?;
    match ctx.mapping.field_type(f) {
        Some(ft) if matches!(ft.kind, FieldKind::GeoPoint { .. }) => {}
        Some(ft) => {
            return Err(OsError::new(
                ErrorKind::QueryShard,
                format!("Field [{f}] is of unsupported type [{}]. [geo_shape] query supports the following types [geo_shape, geo_point]", ft.type_name()),
            )
            .status(400))
        }
        None if ignore_unmapped => return Ok(Query::MatchNone),
        None => return Err(OsError::new(ErrorKind::QueryShard, format!("failed to find type for field [{f}]")).status(400)),
    }
    let shapes = geojson(shape)?;
    let any = Query::or(
        shapes
            .into_iter()
            .map(|s| Query::DocValues { field: f.into(), filter: DvFilter::Geo(s), boost: 1.0 })
            .collect(),
    );
    let q = match relation.as_str() {
        "intersects" | "within" => any,
        "disjoint" => Query::Bool {
            must: vec![Query::Exists { field: f.into(), boost: 1.0 }],
            should: vec![],
            must_not: vec![any],
            filter: vec![],
            minimum_should_match: 0,
            boost: 1.0,
        },
        other => return Err(OsError::illegal(format!("[{other}] relation is not supported for [geo_point] fields"))),
    };
    Ok(Query::ConstantScore { query: Box::new(q), boost })
}

/// `[lon, lat]` of a GeoJSON position.
fn position(v: &Value) -> OsResult<(f64, f64)> {
    let p = point("geo_shape", v)?;
    Ok((p.lat, p.lon))
}

/// The areas of a GeoJSON shape (`envelope`, `polygon` without holes, `multipolygon`,
/// `circle`).
fn geojson(v: &Value) -> OsResult<Vec<GeoShape>> {
    let t = v
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| perr("[geo_shape] shape type not included"))?
        .to_ascii_lowercase();
    let coords = v.get("coordinates");
    let ring = |r: &Value| -> OsResult<GeoShape> {
        let pts = r.as_array().ok_or_else(|| perr("[geo_shape] malformed polygon ring"))?;
        let mut out: Vec<(f64, f64)> = pts.iter().map(position).collect::<OsResult<_>>()?;
        if out.len() > 1 && out.first() == out.last() {
            out.pop();
        }
        if out.len() < 3 {
            return Err(perr("[geo_shape] a polygon ring needs at least three distinct points"));
        }
        Ok(GeoShape::Polygon(out))
    };
    let polygon = |p: &Value| -> OsResult<GeoShape> {
        let rings = p.as_array().ok_or_else(|| perr("[geo_shape] malformed polygon"))?;
        match rings.as_slice() {
            [outer] => ring(outer),
            [] => Err(perr("[geo_shape] a polygon needs a ring")),
            _ => Err(OsError::illegal("[geo_shape] polygons with holes are not supported on geo_point fields")),
        }
    };
    Ok(match t.as_str() {
        "envelope" => {
            let c = coords
                .and_then(Value::as_array)
                .filter(|c| c.len() == 2)
                .ok_or_else(|| perr("[geo_shape] an envelope needs two corners"))?;
            let (top, left) = position(&c[0])?;
            let (bottom, right) = position(&c[1])?;
            if top < bottom {
                return Err(OsError::illegal(format!("top is below bottom corner: {top} vs. {bottom}")));
            }
            vec![GeoShape::BBox { top, bottom, left, right }]
        }
        "polygon" => vec![polygon(coords.ok_or_else(|| perr("[geo_shape] coordinates missing"))?)?],
        "multipolygon" => {
            let ps = coords.and_then(Value::as_array).ok_or_else(|| perr("[geo_shape] coordinates missing"))?;
            ps.iter().map(polygon).collect::<OsResult<_>>()?
        }
        "circle" => {
            let (lat, lon) = position(coords.ok_or_else(|| perr("[geo_shape] coordinates missing"))?)?;
            let meters = meters(v.get("radius").ok_or_else(|| perr("[geo_shape] a circle needs a radius"))?)?;
            vec![GeoShape::Distance { lat, lon, meters }]
        }
        other => {
            return Err(OsError::illegal(format!(
                "[geo_shape] shape type [{other}] is not supported on geo_point fields"
            )))
        }
    })
}

/// A point in any of geo_point's forms, its range not checked (queries check it by their
/// `validation_method`).
fn raw_point(name: &str, v: &Value) -> OsResult<GeoPoint> {
    geo::parse_point(v, true).map_err(|e| perr(format!("[{name}] {}", e.reason)))
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
    m.get(key).map(|v| raw_point(name, v)).transpose()
}

fn number(name: &str, m: &Map<String, Value>, key: &str) -> OsResult<Option<f64>> {
    m.get(key).map(|v| v.as_f64().ok_or_else(|| perr(format!("[{name}] [{key}] must be a number")))).transpose()
}

/// `top_left`/`bottom_right`, `top_right`/`bottom_left` or `top`/`left`/`bottom`/`right`.
pub fn bbox(name: &str, spec: &Value) -> OsResult<GeoShape> {
    let m = spec.as_object().ok_or_else(|| perr(format!("[{name}] field must be an object")))?;
    for k in m.keys() {
        if !["top_left", "bottom_right", "top_right", "bottom_left", "top", "left", "bottom", "right"]
            .contains(&k.as_str())
        {
            return Err(perr(format!("[{name}] unexpected field [{k}]")));
        }
    }
    let (mut top, mut bottom, mut left, mut right) =
        (number(name, m, "top")?, number(name, m, "bottom")?, number(name, m, "left")?, number(name, m, "right")?);
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
            // `setCorners` (run before the validation method is set, so always).
            let d = geo::java_double_of;
            if top < bottom {
                return Err(OsError::illegal(format!("top is below bottom corner: {} vs. {}", d(top), d(bottom))));
            } else if top == bottom {
                return Err(OsError::illegal(format!("top cannot be the same as bottom: {} == {}", d(top), d(bottom))));
            } else if left == right {
                return Err(OsError::illegal(format!("left cannot be the same as right: {} == {}", d(left), d(right))));
            }
            Ok(GeoShape::BBox { top, bottom, left, right })
        }
        _ => Err(perr(format!("[{name}] requires top, bottom, left and right (or two opposite corners)"))),
    }
}

/// `{"points": [p, ...]}`: at least three distinct points.
fn polygon(name: &str, spec: &Value) -> OsResult<GeoShape> {
    let pts = spec
        .get("points")
        .and_then(Value::as_array)
        .ok_or_else(|| perr(format!("[{name}] no points defined for geo_polygon query")))?;
    let mut v: Vec<(f64, f64)> = Vec::with_capacity(pts.len());
    for p in pts {
        let g = raw_point(name, p)?;
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
    use crate::engine::schema::Mapping;

    #[test]
    fn queries_on_geo_points() {
        let m = Mapping::from_json(&json!({"properties": {"loc": {"type": "geo_point"}, "k": {"type": "keyword"}}}))
            .unwrap();
        let ctx = QueryContext { index: "i", ..QueryContext::for_tests(&m, &[]) };
        let q = |v: Value| super::super::dsl::parse(&v, &ctx);
        assert_eq!(
            q(json!({"geo_distance": {"distance": "12km", "loc": {"lat": 40.0, "lon": -70.0}}})).unwrap(),
            Query::DocValues {
                field: "loc".into(),
                filter: DvFilter::Geo(GeoShape::Distance { lat: 40.0, lon: -70.0, meters: 12_000.0 }),
                boost: 1.0
            }
        );
        assert_eq!(
            q(json!({"geo_bounding_box": {"loc": {"top_left": [-74.1, 40.73], "bottom_right": "40.01,-71.12"}}}))
                .unwrap(),
            Query::DocValues {
                field: "loc".into(),
                filter: DvFilter::Geo(GeoShape::BBox { top: 40.73, bottom: 40.01, left: -74.1, right: -71.12 }),
                boost: 1.0
            }
        );
        assert!(matches!(
            q(json!({"geo_polygon": {"loc": {"points": [[0, 0], [0, 10], [10, 10], [0, 0]]}}})).unwrap(),
            Query::DocValues { filter: DvFilter::Geo(GeoShape::Polygon(ref v)), .. } if v.len() == 3
        ));
        assert_eq!(
            q(json!({"geo_distance": {"distance": 5, "nope": [0, 0], "ignore_unmapped": true}})).unwrap(),
            Query::MatchNone
        );
        assert!(q(json!({"geo_distance": {"distance": 5, "nope": [0, 0]}})).is_err());
        assert!(q(json!({"geo_distance": {"distance": 5, "k": [0, 0]}})).is_err());
        assert!(q(json!({"geo_distance": {"loc": [0, 0]}})).is_err());
        assert!(q(json!({"geo_polygon": {"loc": {"points": [[0, 0], [1, 1]]}}})).is_err());
        assert_eq!(meters(&json!("1.5mi")).unwrap(), 1.5 * 1609.344);
        assert_eq!(meters(&json!("10NM")).unwrap(), 18_520.0);
        assert!(meters(&json!("10 parsecs")).is_err());
        let env = q(json!({"geo_shape": {"loc": {"shape": {"type": "envelope", "coordinates": [[51, 5], [53, 3]]}}}}))
            .unwrap();
        let bbox = Query::DocValues {
            field: "loc".into(),
            filter: DvFilter::Geo(GeoShape::BBox { top: 5.0, bottom: 3.0, left: 51.0, right: 53.0 }),
            boost: 1.0,
        };
        assert_eq!(env, Query::ConstantScore { query: Box::new(Query::or(vec![bbox])), boost: 1.0 });
        assert!(q(json!({"geo_shape": {"loc": {"shape": {"type": "envelope", "coordinates": [[51, 5], [53, 3]]}, "relation": "contains"}}})).is_err());
        assert!(
            q(json!({"geo_shape": {"k": {"shape": {"type": "envelope", "coordinates": [[51, 5], [53, 3]]}}}})).is_err()
        );
        assert!(q(json!({"geo_shape": {"loc": {"shape": {"type": "linestring", "coordinates": [[51, 5], [53, 3]]}}}}))
            .is_err());
    }

    fn ctx_of(m: &Mapping) -> QueryContext<'_> {
        QueryContext { index: "i", ..QueryContext::for_tests(m, &[]) }
    }

    #[test]
    fn validation_methods() {
        let m = Mapping::from_json(&json!({"properties": {"loc": {"type": "geo_point"}}})).unwrap();
        let ctx = ctx_of(&m);
        let q = |v: Value| super::super::dsl::parse(&v, &ctx);
        let geo = |q: Query| match q {
            Query::DocValues { filter: DvFilter::Geo(s), .. } => s,
            other => panic!("{other:?}"),
        };
        // STRICT (the default): OpenSearch's validation errors.
        let e = q(json!({"geo_distance": {"distance": "1km", "loc": {"lat": 100.0, "lon": 200.0}}})).unwrap_err();
        assert_eq!(
            (e.kind.name(), e.reason.as_str()),
            ("query_shard_exception", "couldn't validate latitude/ longitude values")
        );
        assert_eq!(
            e.caused_by.unwrap().reason,
            "Validation Failed: 1: center point latitude is invalid: 100.0;2: center point longitude is invalid: 200.0;"
        );
        let e = q(json!({"geo_bounding_box": {"loc": {"top": 95, "left": 0, "bottom": 10, "right": 20}}})).unwrap_err();
        assert_eq!(e.caused_by.unwrap().reason, "Validation Failed: 1: top latitude is invalid: 95.0;");
        let e = q(json!({"geo_polygon": {"loc": {"points": [[0, 0], [0, 100], [10, 10]]}}})).unwrap_err();
        assert_eq!(e.reason, "illegal latitude value [100.0] for [geo_polygon]");
        // COERCE: wrapped into range.
        let s = geo(q(json!({"geo_distance": {"distance": "1km", "loc": {"lat": 10.0, "lon": 190.0}, "validation_method": "coerce"}})).unwrap());
        assert_eq!(s, GeoShape::Distance { lat: 10.0, lon: -170.0, meters: 1000.0 });
        let s = geo(q(json!({"geo_bounding_box": {"loc": {"top": 10, "left": -200, "bottom": 0, "right": 160}, "validation_method": "COERCE"}})).unwrap());
        assert_eq!(s, GeoShape::BBox { top: 10.0, bottom: 0.0, left: -180.0, right: 180.0 });
        let s = geo(q(json!({"geo_bounding_box": {"loc": {"top": 10, "left": 170, "bottom": 0, "right": 190}, "validation_method": "COERCE"}})).unwrap());
        assert_eq!(s, GeoShape::BBox { top: 10.0, bottom: 0.0, left: 170.0, right: -170.0 });
        // IGNORE_MALFORMED: not validated; Lucene refuses the coordinates when it builds the query.
        let e = q(json!({"geo_distance": {"distance": "1km", "loc": {"lat": 100.0, "lon": 0.0}, "validation_method": "ignore_malformed"}})).unwrap_err();
        assert_eq!(e.reason, "failed to create query: invalid latitude 100.0; must be between -90.0 and 90.0");
        assert!(q(json!({"geo_distance": {"distance": "1km", "loc": [0, 0], "validation_method": "lenient"}})).is_err());
        // `type` memory/indexed accepted; `distance_type` plane parsed (the distance is arc's, as in OpenSearch).
        assert!(q(
            json!({"geo_bounding_box": {"loc": {"top": 10, "left": 0, "bottom": 0, "right": 10}, "type": "indexed"}})
        )
        .is_ok());
        let e =
            q(json!({"geo_bounding_box": {"loc": {"top": 10, "left": 0, "bottom": 0, "right": 10}, "type": "disk"}}))
                .unwrap_err();
        assert_eq!(e.reason, "no type can be parsed from [disk]");
        assert!(q(json!({"geo_distance": {"distance": "1km", "loc": [0, 0], "distance_type": "plane"}})).is_ok());
        let e = q(json!({"geo_distance": {"distance": "1km", "loc": [0, 0], "distance_type": "flat"}})).unwrap_err();
        assert_eq!(e.reason, "No geo distance for [flat]");
        let s = geo(q(json!({"geo_distance": {"distance": 2, "unit": "km", "loc": [0, 0]}})).unwrap());
        assert_eq!(s, GeoShape::Distance { lat: 0.0, lon: 0.0, meters: 2000.0 });
        let e = q(json!({"geo_bounding_box": {"loc": {"top": 10, "left": 5, "bottom": 0, "right": 5}}})).unwrap_err();
        assert_eq!(e.reason, "left cannot be the same as right: 5.0 == 5.0");
    }
}
