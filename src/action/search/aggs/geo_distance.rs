//! `geo_distance` (OpenSearch's `GeoDistanceAggregationBuilder`): a range aggregation over the
//! distance of each geo_point value from an `origin`, in `unit`s, by `arc` (haversine) or `plane`
//! distance. Results are range results (`InternalGeoDistance` extends `InternalRange`): reduce
//! and render are the `range` aggregation's.

use serde_json::{Map, Value};

use super::range::RangeSpec;
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::{resolve, token, SourceSpec, VType};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::engine::query::distance_feature::haversin_meters;
use crate::engine::query::SegmentView;
use crate::engine::schema::geo::{self, GeoPoint};
use crate::engine::segment::doc_values::NumericColumn;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

const T: &str = "geo_distance";

/// Lucene's `GeoUtils.EARTH_MEAN_RADIUS`.
const EARTH_MEAN_RADIUS: f64 = 6_371_008.771_4;

/// `GeoDistance`: how a distance is computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DistanceType {
    Arc,
    Plane,
}

impl DistanceType {
    pub fn parse(s: &str) -> OsResult<DistanceType> {
        match s.to_ascii_lowercase().as_str() {
            "arc" => Ok(DistanceType::Arc),
            "plane" => Ok(DistanceType::Plane),
            _ => Err(OsError::illegal(format!("No geo distance for [{s}]"))),
        }
    }

    /// Meters between two points (`GeoUtils.arcDistance` / `GeoUtils.planeDistance`).
    pub fn meters(self, lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
        match self {
            DistanceType::Arc => haversin_meters(lat1, lon1, lat2, lon2),
            DistanceType::Plane => {
                let x = (lon2 - lon1).to_radians() * ((lat2 + lat1) / 2.0).to_radians().cos();
                let y = (lat2 - lat1).to_radians();
                (x * x + y * y).sqrt() * EARTH_MEAN_RADIUS
            }
        }
    }
}

/// `DistanceUnit.fromString`: meters per unit.
pub fn unit_meters(s: &str) -> OsResult<f64> {
    Ok(match s {
        "in" | "inch" => 0.0254,
        "yd" | "yards" => 0.9144,
        "ft" | "feet" => 0.3048,
        "km" | "kilometers" => 1000.0,
        "NM" | "nmi" | "nauticalmiles" => 1852.0,
        "mm" | "millimeters" => 0.001,
        "cm" | "centimeters" => 0.01,
        "mi" | "miles" => 1609.344,
        "m" | "meters" => 1.0,
        _ => return Err(OsError::illegal(format!("No distance unit match [{s}]"))),
    })
}

#[derive(Debug, Clone)]
pub struct GeoDistanceSpec {
    pub source: SourceSpec,
    pub origin: GeoPoint,
    pub unit: f64,
    pub distance_type: DistanceType,
    /// (key, from, to) sorted by (from, to); `from` defaults to 0, `to` to infinity.
    pub ranges: Vec<(String, f64, f64)>,
    /// Renders and reduces as a range aggregation.
    range: RangeSpec,
}

fn bound(v: &Value, what: &str) -> OsResult<Option<f64>> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => Ok(n.as_f64()),
        Value::String(s) => s.trim().parse::<f64>().map(Some).map_err(|_| {
            OsError::new(crate::error::ErrorKind::NumberFormat, format!("For input string: \"{s}\"")).status(400)
        }),
        other => Err(OsError::parsing(format!("[{what}] doesn't support values of type: {}", token(other)))),
    }
}

/// `GeoDistanceAggregationBuilder.Range.key`: `*` for a zero `from` or an infinite `to`.
fn generated_key(from: f64, to: f64) -> String {
    let f = if from == 0.0 { "*".to_string() } else { super::fmt::java_double(from) };
    let t = if to.is_infinite() { "*".to_string() } else { super::fmt::java_double(to) };
    format!("{f}-{t}")
}

impl GeoDistanceSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<GeoDistanceSpec> {
        let mut source = SourceSpec::default();
        let (mut origin, mut unit, mut dt, mut keyed) = (None, 1.0, DistanceType::Arc, false);
        let mut ranges = Vec::new();
        for (k, v) in body {
            if source.take(T, k, v)? {
                continue;
            }
            match k.as_str() {
                "origin" | "center" | "point" | "por" => {
                    if !matches!(v, Value::String(_) | Value::Array(_) | Value::Object(_)) {
                        return Err(OsError::parsing(format!(
                            "[{T}] {k} doesn't support values of type: {}",
                            token(v)
                        )));
                    }
                    let p = geo::parse_point(v, true).map_err(|e| OsError::parsing(e.reason))?;
                    origin = Some(p);
                }
                "unit" => unit = unit_meters(&super::source::string(T, k, v)?)?,
                "distance_type" => dt = DistanceType::parse(&super::source::string(T, k, v)?)?,
                "keyed" => {
                    keyed = v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[{T}] keyed doesn't support values of type: {}", token(v)))
                    })?
                }
                "ranges" => {
                    let Value::Array(a) = v else {
                        return Err(OsError::parsing(format!(
                            "[{T}] ranges doesn't support values of type: {}",
                            token(v)
                        )));
                    };
                    for r in a {
                        let Value::Object(m) = r else {
                            return Err(OsError::parsing(format!(
                                "[ranges] doesn't support values of type: {}",
                                token(r)
                            )));
                        };
                        let (mut key, mut from, mut to) = (None, 0.0, f64::INFINITY);
                        for (rk, rv) in m {
                            match rk.as_str() {
                                "key" => {
                                    key =
                                        if rv.is_null() { None } else { Some(super::source::string("range", rk, rv)?) }
                                }
                                "from" => from = bound(rv, "from")?.unwrap_or(0.0),
                                "to" => to = bound(rv, "to")?.unwrap_or(f64::INFINITY),
                                _ => return Err(OsError::parsing(format!("[{T}] unknown field [{rk}]"))),
                            }
                        }
                        ranges.push((key.unwrap_or_else(|| generated_key(from, to)), from, to));
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        T,
                        k,
                        &[
                            "field",
                            "missing",
                            "format",
                            "value_type",
                            "origin",
                            "unit",
                            "distance_type",
                            "ranges",
                            "keyed",
                        ],
                    )))
                }
            }
        }
        let Some(origin) = origin else {
            return Err(OsError::illegal(format!("Aggregation [{name}] must define an [origin].")));
        };
        source.require(T, name)?;
        if ranges.is_empty() {
            return Err(OsError::illegal(format!("No [ranges] specified for the [{name}] aggregation")));
        }
        ranges.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)));
        let range = RangeSpec { date: false, source: source.clone(), ranges: Vec::new(), keyed, time_zone: None };
        Ok(GeoDistanceSpec { source, origin, unit, distance_type: dt, ranges, range })
    }

    fn bucket(&self, i: usize, doc_count: u64, subs: Vec<AggResult>) -> Bucket {
        let (key, from, to) = &self.ranges[i];
        let mut b = Bucket::new(Key::Str(key.clone()), doc_count, subs);
        b.from = Some(*from).filter(|f| f.is_finite());
        b.to = Some(*to).filter(|t| t.is_finite());
        b
    }
}

impl AggSpec for GeoDistanceSpec {
    fn type_name(&self) -> &'static str {
        T
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, T)?;
        let field = match (&cfg.vt, &cfg.field) {
            (Some(VType::GeoPoint), Some(f)) => Some(f.clone()),
            (None, _) => None,
            _ => return Err(super::source::unsupported(&cfg, T)),
        };
        Ok(Box::new(GeoDistanceCollector { spec: self.clone(), field, counts: Vec::new(), subs: Subs::new(def, env)? }))
    }

    fn empty(&self, def: &AggDef) -> AggResult {
        let buckets = (0..self.ranges.len()).map(|i| self.bucket(i, 0, def.empty_subs())).collect();
        AggResult::Buckets(Buckets::of(KeyKind::Double, buckets))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        self.range.reduce(def, parts, rc)
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        self.range.render(def, r, rc)
    }
}

/// Reads a geo_point field's encoded values on one segment.
pub struct GeoReader<'a> {
    col: Option<NumericColumn<'a>>,
    seg: &'a dyn SegmentView,
    field: Option<&'a str>,
    buf: Vec<i64>,
}

impl<'a> GeoReader<'a> {
    pub fn new(seg: &'a dyn SegmentView, field: Option<&'a str>) -> GeoReader<'a> {
        GeoReader { col: field.and_then(|f| seg.numeric_column(f)), seg, field, buf: Vec::new() }
    }

    /// The doc's points (decoded as their cells' lower-left corners).
    pub fn points(&mut self, doc: DocId, out: &mut Vec<GeoPoint>) {
        out.clear();
        match (&self.col, self.field) {
            (Some(c), _) => {
                c.values(doc, &mut self.buf);
            }
            (None, Some(f)) => {
                if !self.seg.numeric_values(f, doc, &mut self.buf) {
                    self.buf.clear();
                }
            }
            (None, None) => self.buf.clear(),
        }
        out.extend(self.buf.iter().map(|&v| geo::decode_doc_value(v)));
    }
}

struct GeoDistanceCollector {
    spec: GeoDistanceSpec,
    field: Option<String>,
    /// Per (owner, range): `counts[owner * n + i]`.
    counts: Vec<u64>,
    subs: Subs,
}

impl Collector for GeoDistanceCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(GeoDistanceLeaf {
            reader: GeoReader::new(seg, self.field.as_deref()),
            spec: &self.spec,
            counts: &mut self.counts,
            subs: self.subs.leaves(seg, si)?,
            hit: Vec::new(),
            points: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let n = self.spec.ranges.len();
        let mut buckets = Vec::with_capacity(n);
        for i in 0..n {
            let o = owner as usize * n + i;
            buckets.push(self.spec.bucket(i, self.counts.get(o).copied().unwrap_or(0), self.subs.results(o as u32)?));
        }
        Ok(AggResult::Buckets(Buckets::of(KeyKind::Double, buckets)))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.counts.capacity() * 8 + self.subs.mem_bytes()
    }
}

struct GeoDistanceLeaf<'a> {
    reader: GeoReader<'a>,
    spec: &'a GeoDistanceSpec,
    counts: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
    hit: Vec<bool>,
    points: Vec<GeoPoint>,
}

impl LeafCollector for GeoDistanceLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        self.reader.points(doc, &mut self.points);
        if self.points.is_empty() {
            return Ok(());
        }
        let n = self.spec.ranges.len();
        self.hit.clear();
        self.hit.resize(n, false);
        let o = self.spec.origin;
        for p in &self.points {
            let d = self.spec.distance_type.meters(o.lat, o.lon, p.lat, p.lon) / self.spec.unit;
            for (i, (_, from, to)) in self.spec.ranges.iter().enumerate() {
                if d >= *from && d < *to {
                    self.hit[i] = true;
                }
            }
        }
        for i in 0..n {
            if self.hit[i] {
                let slot = owner as usize * n + i;
                if self.counts.len() <= slot {
                    self.counts.resize(slot + 1, 0);
                }
                self.counts[slot] += 1;
                self.subs.collect(doc, slot as u32, score)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_origin_forms_and_generates_keys() {
        for origin in [json!("35.7796, -78.6382"), json!([-78.6382, 35.7796]), json!({"lat": 35.7796, "lon": -78.6382})]
        {
            let b = json!({"field": "l", "origin": origin, "ranges": [{"from": 5e6}, {"to": 1e6}, {"from": 1e6, "to": 5e6}]});
            let s = GeoDistanceSpec::parse("d", b.as_object().unwrap()).unwrap();
            assert!((s.origin.lat - 35.7796).abs() < 1e-9);
            let keys: Vec<&str> = s.ranges.iter().map(|r| r.0.as_str()).collect();
            assert_eq!(keys, ["*-1000000.0", "1000000.0-5000000.0", "5000000.0-*"]);
        }
        let b = json!({"field": "l", "ranges": [{"to": 1}]});
        assert!(GeoDistanceSpec::parse("d", b.as_object().unwrap())
            .unwrap_err()
            .to_string()
            .contains("must define an [origin]"));
        let b = json!({"field": "l", "origin": "1,1", "unit": "parsecs", "ranges": [{"to": 1}]});
        assert!(GeoDistanceSpec::parse("d", b.as_object().unwrap()).is_err());
    }

    #[test]
    fn distances() {
        let arc = DistanceType::Arc.meters(40.7128, -74.0060, 34.0522, -118.2437);
        assert!((arc - 3_935_746.0).abs() < 5_000.0, "{arc}");
        let plane = DistanceType::Plane.meters(0.0, 0.0, 0.0, 1.0);
        assert!((plane - 111_195.08).abs() < 1.0, "{plane}");
        assert_eq!(unit_meters("km").unwrap(), 1000.0);
    }
}
