//! `geotile_grid` sources of the `composite` aggregation (OpenSearch's geo module
//! `GeoTileGridValuesSourceBuilder` and `GeoTileValuesSource`): the tile of each geo_point value
//! at `precision` (only points inside `bounds` when given), keyed by the tile's long encoding
//! (`zoom << 58 | x << 29 | y`, see `geo_grid.rs`) so that a source orders by it, and printed
//! as `"zoom/x/y"`. An `after` value is that string (or the long itself).

use serde_json::Value;

use super::geo_distance::GeoReader;
use super::geo_grid::geotile_long;
use super::result::Key;
use super::source::token;
use crate::action::search::dsl_geo;
use crate::engine::query::GeoShape;
use crate::engine::schema::geo::GeoPoint;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

const T: &str = "geotile_grid";

/// OpenSearch's `GeoTileUtils.MAX_ZOOM`.
const MAX_ZOOM: i64 = 29;

/// The options of a `geotile_grid` source.
#[derive(Debug, Clone)]
pub struct TileOpts {
    pub precision: u32,
    /// `bounds`: only the points inside the box have a tile.
    pub bounds: Option<GeoShape>,
}

impl Default for TileOpts {
    fn default() -> Self {
        // `GeoTileGridAggregationBuilder.DEFAULT_PRECISION`.
        TileOpts { precision: 7, bounds: None }
    }
}

impl TileOpts {
    /// Takes `k` when it is one of the source's own options (`Ok(false)` for others).
    pub fn take(&mut self, k: &str, v: &Value) -> OsResult<bool> {
        match k {
            "precision" => {
                let p = v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())).ok_or_else(|| {
                    OsError::parsing(format!("[{T}] precision doesn't support values of type: {}", token(v)))
                })?;
                if !(0..=MAX_ZOOM).contains(&p) {
                    return Err(OsError::illegal(format!(
                        "Invalid geotile_grid precision of {p}. Must be between 0 and {MAX_ZOOM}."
                    )));
                }
                self.precision = p as u32;
            }
            "bounds" => self.bounds = Some(dsl_geo::bbox("bounds", v)?),
            "format" => {
                return Err(OsError::parsing(format!("[{T}] failed to parse field [format]"))
                    .caused_by(OsError::illegal(format!("[format] is not supported for [{T}]"))))
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Appends the distinct tiles of `doc`'s points to `out`, ascending.
    pub fn doc_cells(&self, reader: &mut GeoReader<'_>, doc: DocId, points: &mut Vec<GeoPoint>, out: &mut Vec<Key>) {
        reader.points(doc, points);
        let mut cells: Vec<i64> = points
            .iter()
            .filter(|p| self.bounds.as_ref().is_none_or(|b| b.contains(p.lat, p.lon)))
            .map(|p| geotile_long(*p, self.precision))
            .collect();
        cells.sort_unstable();
        cells.dedup();
        out.extend(cells.into_iter().map(Key::Long));
    }
}

/// The long encoding of an `after` value: a number as it is, or a `"zoom/x/y"` string
/// (OpenSearch's `GeoTileUtils.longEncode(String)`).
pub fn after_cell(v: &Value) -> OsResult<i64> {
    if let Value::Number(n) = v {
        return n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)).ok_or_else(|| bad_hash(&n.to_string()));
    }
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let parts: Vec<&str> = s.splitn(4, '/').collect();
    let ints: Vec<i32> = parts.iter().map(|p| p.parse::<i32>()).collect::<Result<_, _>>().map_err(|_| bad_hash(&s))?;
    let [z, x, y] = ints[..] else { return Err(bad_hash(&s)) };
    Ok((i64::from(z) << (2 * MAX_ZOOM)) | (i64::from(x) << MAX_ZOOM) | i64::from(y))
}

fn bad_hash(s: &str) -> OsError {
    OsError::illegal(format!("Invalid geotile_grid hash string of {s}. Must be three integers in a form \"zoom/x/y\"."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::search::aggs::geo_grid::Grid;
    use serde_json::json;

    #[test]
    fn after_values_round_trip_through_the_key() {
        let p = GeoPoint { lat: 52.374081, lon: 4.912350 };
        for zoom in [0, 1, 8, 29] {
            let cell = geotile_long(p, zoom);
            assert_eq!(after_cell(&json!(Grid::Geotile.key(cell))).unwrap(), cell);
            assert_eq!(after_cell(&json!(cell)).unwrap(), cell);
        }
        for bad in ["1/2", "a/b/c", "1/2/3/4", ""] {
            let e = after_cell(&json!(bad)).unwrap_err();
            assert!(e.reason.starts_with("Invalid geotile_grid hash string of"), "{bad}: {}", e.reason);
        }
    }

    #[test]
    fn options_and_their_errors() {
        let mut t = TileOpts::default();
        assert!(t.take("precision", &json!(3)).unwrap());
        assert_eq!(t.precision, 3);
        assert!(t.take("precision", &json!("12")).unwrap());
        assert_eq!(t.precision, 12);
        let e = t.take("precision", &json!(30)).unwrap_err();
        assert_eq!(e.reason, "Invalid geotile_grid precision of 30. Must be between 0 and 29.");
        assert!(t.take("format", &json!("x")).is_err());
        assert!(!t.take("field", &json!("x")).unwrap());
        assert!(t.take("bounds", &json!({"top_left": "10,0", "bottom_right": "0,10"})).unwrap());
        assert!(t.bounds.as_ref().unwrap().contains(5.0, 5.0));
    }

    /// Longs order tiles by zoom, then column, then row (the order composite keys follow).
    #[test]
    fn cells_order_by_column_then_row() {
        let a = after_cell(&json!("2/1/3")).unwrap();
        let b = after_cell(&json!("2/2/0")).unwrap();
        let c = after_cell(&json!("3/0/0")).unwrap();
        assert!(a < b && b < c);
    }
}
