//! `distance_feature` (OpenSearch's `DistanceFeatureQueryBuilder`): `field`, `origin`, `pivot`
//! on `date`, `date_nanos` (origin a date or date math, pivot a time value) and `geo_point`
//! (origin a point, pivot a distance) fields.

use serde_json::Value;

use super::dsl::{body, f32_of, str_of, QueryContext};
use crate::engine::query::distance_feature::Origin;
use crate::engine::query::Query;
use crate::engine::schema::FieldKind;
use crate::error::{ErrorKind, OsError, OsResult};

const NAME: &str = "distance_feature";

fn xparse(reason: impl Into<String>) -> OsError {
    OsError::new(ErrorKind::XContentParse, reason).status(400)
}

/// Parses a `distance_feature` query.
pub fn parse(v: &Value, ctx: &QueryContext<'_>) -> OsResult<Query> {
    let m = body(NAME, v)?;
    let (mut field, mut origin, mut pivot, mut boost) = (None, None, None, 1.0f32);
    for (k, v) in m {
        match k.as_str() {
            "field" => field = Some(str_of(NAME, k, v)?),
            "origin" => origin = Some(v.clone()),
            "pivot" => pivot = Some(str_of(NAME, k, v)?),
            "boost" => boost = f32_of(NAME, k, v)?,
            "_name" => {}
            other => {
                return Err(xparse(crate::error::unknown_field(
                    NAME,
                    other,
                    &["_name", "boost", "field", "origin", "pivot"],
                )))
            }
        }
    }
    let field = field.ok_or_else(|| xparse("Required [field]"))?;
    let origin = origin.ok_or_else(|| xparse("Required [origin]"))?;
    let pivot = pivot.ok_or_else(|| xparse("Required [pivot]"))?;
    let ft = ctx
        .mapping
        .field_type(&field)
        .ok_or_else(|| OsError::illegal(format!("Can't run [{NAME}] query on unmapped fields!")))?;
    let (origin, pivot) = match &ft.kind {
        FieldKind::Date { nanos, .. } => {
            let fmt = ft.date_format();
            let s = match &origin {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                other => {
                    return Err(OsError::illegal(format!("failed to parse date field [{other}] with format [{fmt}]")))
                }
            };
            let o = if *nanos && !s.starts_with("now") && !s.contains("||") {
                crate::engine::schema::date::parse_date_nanos(&s, fmt).map_err(|e| {
                    OsError::illegal(format!("failed to parse date field [{s}] with format [{fmt}]: [{e}]"))
                })?
            } else {
                let ms = super::date_math::eval(&s, fmt, &crate::clock::Zone::utc(), ctx.now_millis, false).map_err(
                    |e| OsError::illegal(format!("failed to parse date field [{s}] with format [{fmt}]: [{e}]")),
                )?;
                if *nanos {
                    ms.saturating_mul(1_000_000)
                } else {
                    ms
                }
            };
            let p = time_value_nanos(&pivot)?;
            (Origin::Long(o), if *nanos { p as f64 } else { (p / 1_000_000) as f64 })
        }
        FieldKind::GeoPoint { .. } => {
            let p = crate::engine::schema::geo::parse_point(&origin, true)
                .map_err(|e| OsError::new(ErrorKind::Parse, e.reason).status(400))?;
            (Origin::Geo { lat: p.lat, lon: p.lon }, distance_meters(&pivot)?)
        }
        _ => {
            return Err(OsError::illegal(format!(
            "Illegal data type of [{}]![{NAME}] query can only be run on a date, date_nanos or geo_point field type!",
            ft.type_name()
        )))
        }
    };
    Ok(Query::DistanceFeature { field, origin, pivot, boost })
}

/// OpenSearch's `TimeValue.parseTimeValue`, in nanoseconds.
fn time_value_nanos(s: &str) -> OsResult<i64> {
    let t = s.trim().to_ascii_lowercase();
    let units: [(&str, f64); 7] =
        [("nanos", 1.0), ("micros", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9), ("d", 86400e9)];
    for (u, mult) in units {
        if let Some(n) = t.strip_suffix(u) {
            // "ms" before "s", "nanos"/"micros" before "s"; "m" must not take "ms".
            if u == "s" && (n.ends_with('m') || n.ends_with("nano") || n.ends_with("micro")) {
                continue;
            }
            let v: f64 = n.trim().parse().map_err(|_| OsError::illegal(format!("failed to parse [{s}]")))?;
            return Ok((v * mult) as i64);
        }
    }
    Err(OsError::illegal(format!(
        "failed to parse setting [distance_feature.pivot] with value [{s}] as a time value: unit is missing or unrecognized"
    )))
}

/// OpenSearch's `DistanceUnit.DEFAULT.parse` (meters when no unit is given).
fn distance_meters(s: &str) -> OsResult<f64> {
    let t = s.trim();
    let units: [(&[&str], f64); 9] = [
        (&["nmi", "NM", "nauticalmiles"], 1852.0),
        (&["mm", "millimeters"], 0.001),
        (&["cm", "centimeters"], 0.01),
        (&["km", "kilometers"], 1000.0),
        (&["mi", "miles"], 1609.344),
        (&["yd", "yards"], 0.9144),
        (&["ft", "feet"], 0.3048),
        (&["in", "inch"], 0.0254),
        (&["m", "meters"], 1.0),
    ];
    for (names, mult) in units {
        for n in names {
            if let Some(num) = t.strip_suffix(n) {
                if let Ok(v) = num.trim().parse::<f64>() {
                    return Ok(v * mult);
                }
            }
        }
    }
    t.parse::<f64>().map_err(|_| OsError::illegal(format!("failed to parse [{s}] as a distance")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pivots_parse() {
        assert_eq!(time_value_nanos("1h").unwrap(), 3_600_000_000_000);
        assert_eq!(time_value_nanos("100000000nanos").unwrap(), 100_000_000);
        assert_eq!(time_value_nanos("5ms").unwrap(), 5_000_000);
        assert_eq!(time_value_nanos("2m").unwrap(), 120_000_000_000);
        assert!(time_value_nanos("5").is_err());
        assert_eq!(distance_meters("1km").unwrap(), 1000.0);
        assert_eq!(distance_meters("12").unwrap(), 12.0);
        assert_eq!(distance_meters("3m").unwrap(), 3.0);
    }
}
