//! `geo_bounds` and `geo_centroid` (OpenSearch's geo module `InternalGeoBounds` and
//! `InternalGeoCentroid`): the bounding box of a geo_point field's values (keeping positive and
//! negative longitudes apart so that `wrap_longitude` can pick the box across the dateline), and
//! their mean point.

use serde_json::{json, Map, Value};

use super::geo_distance::GeoReader;
use super::result::{AggResult, KahanSum};
use super::source::{resolve, token, SourceSpec, VType};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv};
use crate::engine::query::SegmentView;
use crate::engine::schema::geo::GeoPoint;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// `[top, bottom, pos_left, pos_right, neg_left, neg_right]` with nothing seen.
const EMPTY_BOUNDS: [f64; 6] =
    [f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY];

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GeoMetric {
    Bounds { wrap_longitude: bool },
    Centroid,
}

#[derive(Debug, Clone)]
pub struct GeoMetricSpec {
    pub metric: GeoMetric,
    pub source: SourceSpec,
}

impl GeoMetricSpec {
    pub fn parse(centroid: bool, name: &str, body: &Map<String, Value>) -> OsResult<GeoMetricSpec> {
        let t = if centroid { "geo_centroid" } else { "geo_bounds" };
        let mut source = SourceSpec::default();
        let mut wrap = true;
        for (k, v) in body {
            if source.take(t, k, v)? {
                continue;
            }
            match k.as_str() {
                "wrap_longitude" if !centroid => {
                    wrap = v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[{t}] wrap_longitude doesn't support values of type: {}", token(v)))
                    })?
                }
                _ => {
                    let mut known = vec!["field", "script", "missing", "format", "value_type"];
                    if !centroid {
                        known.push("wrap_longitude");
                    }
                    return Err(OsError::parsing(crate::error::unknown_field(t, k, &known)));
                }
            }
        }
        source.require(t, name)?;
        let metric = if centroid { GeoMetric::Centroid } else { GeoMetric::Bounds { wrap_longitude: wrap } };
        Ok(GeoMetricSpec { metric, source })
    }
}

/// `InternalGeoBounds.resolveGeoBoundingBox`: (top, left, bottom, right), `None` when empty.
pub fn resolve_bounds(b: &[f64; 6], wrap: bool) -> Option<(f64, f64, f64, f64)> {
    let [top, bottom, pos_left, pos_right, neg_left, neg_right] = *b;
    if top.is_infinite() {
        None
    } else if pos_left.is_infinite() {
        Some((top, neg_left, bottom, neg_right))
    } else if neg_left.is_infinite() {
        Some((top, pos_left, bottom, pos_right))
    } else if wrap {
        let unwrapped = pos_right - neg_left;
        let wrapped = (180.0 - pos_left) - (-180.0 - neg_right);
        if unwrapped <= wrapped {
            Some((top, neg_left, bottom, pos_right))
        } else {
            Some((top, pos_left, bottom, neg_right))
        }
    } else {
        Some((top, neg_left, bottom, pos_right))
    }
}

fn add_point(b: &mut [f64; 6], p: GeoPoint) {
    b[0] = b[0].max(p.lat);
    b[1] = b[1].min(p.lat);
    if p.lon >= 0.0 {
        b[2] = b[2].min(p.lon);
        b[3] = b[3].max(p.lon);
    } else {
        b[4] = b[4].min(p.lon);
        b[5] = b[5].max(p.lon);
    }
}

fn merge_bounds(a: &mut [f64; 6], o: &[f64; 6]) {
    a[0] = a[0].max(o[0]);
    a[1] = a[1].min(o[1]);
    a[2] = a[2].min(o[2]);
    a[3] = a[3].max(o[3]);
    a[4] = a[4].min(o[4]);
    a[5] = a[5].max(o[5]);
}

impl AggSpec for GeoMetricSpec {
    fn type_name(&self) -> &'static str {
        match self.metric {
            GeoMetric::Bounds { .. } => "geo_bounds",
            GeoMetric::Centroid => "geo_centroid",
        }
    }

    fn takes_subs(&self) -> bool {
        false
    }

    fn collector(&self, _def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, self.type_name())?;
        let field = match (&cfg.vt, &cfg.field) {
            (Some(VType::GeoPoint), Some(f)) => Some(f.clone()),
            (None, _) => None,
            _ => return Err(super::source::unsupported(&cfg, self.type_name())),
        };
        Ok(Box::new(GeoMetricCollector { metric: self.metric, field, bounds: Vec::new(), centroids: Vec::new() }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        match self.metric {
            GeoMetric::Bounds { .. } => AggResult::GeoBounds(EMPTY_BOUNDS),
            GeoMetric::Centroid => {
                AggResult::GeoCentroid { lat: KahanSum::default(), lon: KahanSum::default(), count: 0 }
            }
        }
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, _rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut out = self.empty(def);
        for p in parts {
            match (&mut out, p) {
                (AggResult::GeoBounds(a), AggResult::GeoBounds(o)) => merge_bounds(a, &o),
                (
                    AggResult::GeoCentroid { lat, lon, count },
                    AggResult::GeoCentroid { lat: plat, lon: plon, count: pc },
                ) => {
                    lat.add_with(plat.value, plat.delta);
                    lon.add_with(plon.value, plon.delta);
                    *count += pc;
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn render(&self, _def: &AggDef, r: &AggResult, _rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let mut m = Map::new();
        match (self.metric, r) {
            (GeoMetric::Bounds { wrap_longitude }, AggResult::GeoBounds(b)) => {
                if let Some((top, left, bottom, right)) = resolve_bounds(b, wrap_longitude) {
                    m.insert(
                        "bounds".into(),
                        json!({"top_left": {"lat": top, "lon": left}, "bottom_right": {"lat": bottom, "lon": right}}),
                    );
                }
            }
            (GeoMetric::Centroid, AggResult::GeoCentroid { lat, lon, count }) => {
                if *count > 0 {
                    let n = *count as f64;
                    m.insert("location".into(), json!({"lat": lat.value / n, "lon": lon.value / n}));
                }
                m.insert("count".into(), json!(count));
            }
            _ => return Err(OsError::internal("geo metric result of another kind")),
        }
        Ok(m)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let p = path.first().map(String::as_str);
        let v = match (self.metric, r, p) {
            (GeoMetric::Bounds { wrap_longitude }, AggResult::GeoBounds(b), Some(w)) => {
                let bb = resolve_bounds(b, wrap_longitude);
                match w {
                    "top" => bb.map(|x| x.0),
                    "left" => bb.map(|x| x.1),
                    "bottom" => bb.map(|x| x.2),
                    "right" => bb.map(|x| x.3),
                    _ => return Err(OsError::illegal(format!("Found unknown path element [{w}] in [{}]", def.name))),
                }
                .unwrap_or(f64::NAN)
            }
            (GeoMetric::Centroid, AggResult::GeoCentroid { lat, lon, count }, Some(w)) => {
                let n = *count as f64;
                match w {
                    "lat" if *count > 0 => lat.value / n,
                    "lon" if *count > 0 => lon.value / n,
                    "lat" | "lon" => f64::NAN,
                    "count" => n,
                    _ => return Err(OsError::illegal(format!("Found unknown path element [{w}] in [{}]", def.name))),
                }
            }
            _ => {
                return Err(OsError::illegal(format!(
                    "No aggregation found for path [{}]",
                    std::iter::once(def.name.as_str())
                        .chain(path.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(">")
                )))
            }
        };
        Ok(v)
    }
}

struct GeoMetricCollector {
    metric: GeoMetric,
    field: Option<String>,
    bounds: Vec<[f64; 6]>,
    /// Per owner: lat sum, lon sum, count.
    centroids: Vec<(KahanSum, KahanSum, u64)>,
}

impl Collector for GeoMetricCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(GeoMetricLeaf {
            reader: GeoReader::new(seg, self.field.as_deref()),
            metric: self.metric,
            bounds: &mut self.bounds,
            centroids: &mut self.centroids,
            points: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let o = owner as usize;
        Ok(match self.metric {
            GeoMetric::Bounds { .. } => AggResult::GeoBounds(self.bounds.get(o).copied().unwrap_or(EMPTY_BOUNDS)),
            GeoMetric::Centroid => {
                let (lat, lon, count) = self.centroids.get(o).copied().unwrap_or_default();
                AggResult::GeoCentroid { lat, lon, count }
            }
        })
    }

    fn mem_bytes(&self) -> usize {
        self.bounds.capacity() * 48 + self.centroids.capacity() * 40
    }
}

struct GeoMetricLeaf<'a> {
    reader: GeoReader<'a>,
    metric: GeoMetric,
    bounds: &'a mut Vec<[f64; 6]>,
    centroids: &'a mut Vec<(KahanSum, KahanSum, u64)>,
    points: Vec<GeoPoint>,
}

impl LeafCollector for GeoMetricLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, _score: f32) -> OsResult<()> {
        self.reader.points(doc, &mut self.points);
        if self.points.is_empty() {
            return Ok(());
        }
        let o = owner as usize;
        match self.metric {
            GeoMetric::Bounds { .. } => {
                if self.bounds.len() <= o {
                    self.bounds.resize(o + 1, EMPTY_BOUNDS);
                }
                for p in &self.points {
                    add_point(&mut self.bounds[o], *p);
                }
            }
            GeoMetric::Centroid => {
                if self.centroids.len() <= o {
                    self.centroids.resize(o + 1, Default::default());
                }
                let c = &mut self.centroids[o];
                for p in &self.points {
                    c.0.add(p.lat);
                    c.1.add(p.lon);
                    c.2 += 1;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(points: &[(f64, f64)]) -> [f64; 6] {
        let mut b = EMPTY_BOUNDS;
        for &(lat, lon) in points {
            add_point(&mut b, GeoPoint { lat, lon });
        }
        b
    }

    #[test]
    fn bounds_wrap_across_the_dateline_when_narrower() {
        let b = bounds(&[(10.0, 170.0), (-10.0, -170.0)]);
        assert_eq!(resolve_bounds(&b, true), Some((10.0, 170.0, -10.0, -170.0)));
        assert_eq!(resolve_bounds(&b, false), Some((10.0, -170.0, -10.0, 170.0)));
        let b = bounds(&[(1.0, 10.0), (2.0, -10.0)]);
        assert_eq!(resolve_bounds(&b, true), Some((2.0, -10.0, 1.0, 10.0)));
        assert_eq!(resolve_bounds(&EMPTY_BOUNDS, true), None);
        let mut a = bounds(&[(1.0, 5.0)]);
        merge_bounds(&mut a, &bounds(&[(-3.0, 7.0)]));
        assert_eq!(resolve_bounds(&a, true), Some((1.0, 5.0, -3.0, 7.0)));
    }
}
