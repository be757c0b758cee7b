//! `geohash_grid` and `geotile_grid` (OpenSearch's geo module `GeoHashGridAggregator`,
//! `GeoTileGridAggregator`, `InternalGeoGrid`): a bucket per grid cell holding a geo_point value,
//! the `size` fullest cells (shards return their `shard_size` fullest). A cell is its
//! `hashAsLong` (`Geohash.longEncode`: the morton bits then the level in the low 4 bits;
//! `GeoTileUtils.longEncode`: zoom << 58 | x << 29 | y), kept as a `Key::Long`; buckets order by
//! doc count descending, then by that long descending (OpenSearch's `BucketPriorityQueue`).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::geo_distance::{unit_meters, GeoReader};
use super::ords::{BucketOrds, RawKey};
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::{resolve, token, SourceSpec, VType};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::engine::query::{GeoShape, SegmentView};
use crate::engine::schema::geo::{self, GeoPoint};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

const BASE32: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    Geohash,
    Geotile,
}

impl Grid {
    fn name(self) -> &'static str {
        match self {
            Grid::Geohash => "geohash_grid",
            Grid::Geotile => "geotile_grid",
        }
    }

    /// The cell of a point at `precision`.
    pub fn cell(self, p: GeoPoint, precision: u32) -> i64 {
        match self {
            Grid::Geohash => geohash_long(p, precision),
            Grid::Geotile => geotile_long(p, precision),
        }
    }

    /// The bucket key of a cell.
    pub fn key(self, cell: i64) -> String {
        match self {
            Grid::Geohash => {
                let level = (cell & 15) as u32;
                let bits = (cell as u64) >> 4;
                (0..level).rev().map(|i| char::from(BASE32[((bits >> (i * 5)) & 31) as usize])).collect()
            }
            Grid::Geotile => {
                let (z, x, y) = (cell >> 58, (cell >> 29) & ((1 << 29) - 1), cell & ((1 << 29) - 1));
                format!("{z}/{x}/{y}")
            }
        }
    }
}

/// `Geohash.longEncode`: the first `level` characters' bits, then the level.
pub fn geohash_long(p: GeoPoint, level: u32) -> i64 {
    let lon = ((geo::encode_longitude(p.lon) as u32) ^ 0x8000_0000) >> 2;
    let lat = ((geo::encode_latitude(p.lat) as u32) ^ 0x8000_0000) >> 2;
    let mut bits: u64 = 0;
    for i in (0..30).rev() {
        bits = (bits << 1) | u64::from((lon >> i) & 1);
        bits = (bits << 1) | u64::from((lat >> i) & 1);
    }
    let bits = bits >> (60 - 5 * level);
    ((bits << 4) | u64::from(level)) as i64
}

/// `GeoTileUtils.longEncode`.
pub fn geotile_long(p: GeoPoint, zoom: u32) -> i64 {
    let tiles = 1i64 << zoom;
    let x = (((p.lon + 180.0) / 360.0 * tiles as f64).floor() as i64).clamp(0, tiles - 1);
    let s = p.lat.to_radians().sin();
    let yf = ((0.5 - ((1.0 + s) / (1.0 - s)).ln() / (4.0 * std::f64::consts::PI)) * tiles as f64).floor();
    let y = if yf.is_nan() { 0 } else { (yf as i64).clamp(0, tiles - 1) };
    (i64::from(zoom) << 58) | (x << 29) | y
}

/// `GeoUtils.geoHashLevelsForPrecision(meters)`.
pub fn geohash_levels_for(meters: f64) -> i64 {
    if meters <= 0.0 {
        return 24;
    }
    let equator = 2.0 * std::f64::consts::PI * 6_378_137.0;
    let polar = std::f64::consts::PI * 6_356_752.314_245;
    let ratio = 1.0 + polar / equator;
    let width = ((meters * meters) / (ratio * ratio)).sqrt();
    let part = (equator / width).ceil().round() as i64;
    let level = 63 - part.leading_zeros() as i64;
    if part <= (1i64 << level) {
        (level + 1) / 2
    } else {
        (level + 2) / 2
    }
}

#[derive(Debug, Clone)]
pub struct GeoGridSpec {
    pub grid: Grid,
    pub source: SourceSpec,
    pub precision: u32,
    pub size: usize,
    pub shard_size: Option<usize>,
    /// `bounds`: only points inside the box count.
    pub bounds: Option<GeoShape>,
}

fn int(t: &str, k: &str, v: &Value) -> OsResult<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .ok_or_else(|| OsError::parsing(format!("[{t}] {k} doesn't support values of type: {}", token(v))))
}

impl GeoGridSpec {
    pub fn parse(grid: Grid, name: &str, body: &Map<String, Value>) -> OsResult<GeoGridSpec> {
        let t = grid.name();
        let mut s = GeoGridSpec {
            grid,
            source: SourceSpec::default(),
            precision: if grid == Grid::Geohash { 5 } else { 7 },
            size: 10_000,
            shard_size: None,
            bounds: None,
        };
        for (k, v) in body {
            if s.source.take(t, k, v)? {
                continue;
            }
            match k.as_str() {
                "precision" => {
                    let p = match (grid, v) {
                        (Grid::Geohash, Value::String(d)) if d.trim().parse::<i64>().is_err() => {
                            geohash_levels_for(distance_meters(d)?)
                        }
                        _ => int(t, k, v)?,
                    };
                    let (lo, hi) = if grid == Grid::Geohash { (1, 12) } else { (0, 29) };
                    if p < lo || p > hi {
                        return Err(OsError::illegal(match grid {
                            Grid::Geohash => {
                                format!("Invalid geohash aggregation precision of {p}. Must be between 1 and 12.")
                            }
                            Grid::Geotile => {
                                format!("Invalid geotile_grid precision of {p}. Must be between 0 and 29.")
                            }
                        }));
                    }
                    s.precision = p as u32;
                }
                "size" => {
                    let n = int(t, k, v)?;
                    if n <= 0 {
                        return Err(OsError::illegal(format!(
                            "[size] must be greater than 0. Found [{n}] in [{name}]"
                        )));
                    }
                    s.size = n as usize;
                }
                "shard_size" => {
                    let n = int(t, k, v)?;
                    if n <= 0 {
                        return Err(OsError::illegal(format!(
                            "[shardSize] must be greater than 0. Found [{n}] in [{name}]"
                        )));
                    }
                    s.shard_size = Some(n as usize);
                }
                "bounds" => s.bounds = Some(crate::action::search::dsl_geo::bbox("bounds", v)?),
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        t,
                        k,
                        &["field", "missing", "format", "value_type", "precision", "size", "shard_size", "bounds"],
                    )))
                }
            }
        }
        s.source.require(t, name)?;
        Ok(s)
    }

    /// `BucketUtils.suggestShardSideQueueSize` unless given; never below `size`.
    fn shard_size(&self) -> usize {
        self.shard_size
            .unwrap_or_else(|| {
                if self.size < (i32::MAX as usize * 2) / 3 {
                    self.size * 3 / 2 + 10
                } else {
                    i32::MAX as usize
                }
            })
            .max(self.size)
    }
}

/// `DistanceUnit.METERS.parse`: a number with an optional unit suffix.
fn distance_meters(s: &str) -> OsResult<f64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'));
    let (num, unit) = match split {
        Some(i) => (&s[..i], s[i..].trim()),
        None => (s, ""),
    };
    let x: f64 = num.parse().map_err(|_| {
        OsError::new(crate::error::ErrorKind::NumberFormat, format!("For input string: \"{s}\"")).status(400)
    })?;
    Ok(if unit.is_empty() { x } else { x * unit_meters(unit)? })
}

/// Orders buckets by doc count descending, then cell descending.
fn sort(buckets: &mut [Bucket]) {
    buckets.sort_by(order);
}

fn order(a: &Bucket, b: &Bucket) -> std::cmp::Ordering {
    b.doc_count.cmp(&a.doc_count).then_with(|| match (&a.key, &b.key) {
        (Key::Long(x), Key::Long(y)) => y.cmp(x),
        _ => std::cmp::Ordering::Equal,
    })
}

impl AggSpec for GeoGridSpec {
    fn type_name(&self) -> &'static str {
        self.grid.name()
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, self.type_name())?;
        let field = match (&cfg.vt, &cfg.field) {
            (Some(VType::GeoPoint), Some(f)) => Some(f.clone()),
            (None, _) => None,
            _ => return Err(super::source::unsupported(&cfg, self.type_name())),
        };
        Ok(Box::new(GridCollector {
            spec: self.clone(),
            field,
            ords: BucketOrds::default(),
            subs: Subs::new(def, env)?,
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::Long, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut index: HashMap<i64, usize> = HashMap::new();
        let mut merged: Vec<(Bucket, Vec<Vec<AggResult>>)> = Vec::new();
        for p in parts {
            let AggResult::Buckets(b) = p else { continue };
            for mut x in b.buckets {
                let Key::Long(cell) = x.key else { continue };
                let subs = std::mem::take(&mut x.subs);
                match index.get(&cell) {
                    Some(&i) => {
                        merged[i].0.doc_count += x.doc_count;
                        merged[i].1.push(subs);
                    }
                    None => {
                        index.insert(cell, merged.len());
                        merged.push((x, vec![subs]));
                    }
                }
            }
        }
        let mut buckets = Vec::with_capacity(merged.len());
        for (mut b, subs) in merged {
            b.subs = super::reduce_subs(def, subs, rc)?;
            buckets.push(b);
        }
        sort(&mut buckets);
        if rc.final_reduce {
            buckets.truncate(self.size);
        }
        rc.consume(buckets.len())?;
        Ok(AggResult::Buckets(Buckets::of(KeyKind::Long, buckets)))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("geo grid result of another kind")) };
        let mut out = Vec::with_capacity(b.buckets.len());
        for bk in &b.buckets {
            let Key::Long(cell) = bk.key else { continue };
            let mut o = Map::new();
            o.insert("key".into(), json!(self.grid.key(cell)));
            o.insert("doc_count".into(), json!(bk.doc_count));
            out.push(Value::Object(render_into(&def.subs, &bk.subs, rc, o)?));
        }
        let mut m = Map::new();
        m.insert("buckets".into(), Value::Array(out));
        Ok(m)
    }
}

struct GridCollector {
    spec: GeoGridSpec,
    field: Option<String>,
    ords: BucketOrds,
    subs: Subs,
}

impl Collector for GridCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(GridLeaf {
            reader: GeoReader::new(seg, self.field.as_deref()),
            grid: self.spec.grid,
            precision: self.spec.precision,
            bounds: self.spec.bounds.as_ref(),
            ords: &mut self.ords,
            subs: self.subs.leaves(seg, si)?,
            points: Vec::new(),
            cells: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let mut cands: Vec<(u32, Bucket)> = self
            .ords
            .of_owner(owner)
            .iter()
            .filter_map(|&o| match &self.ords.keys[o as usize].1 {
                RawKey::L(cell) => Some((o, Bucket::new(Key::Long(*cell), self.ords.counts[o as usize], Vec::new()))),
                RawKey::B(_) => None,
            })
            .collect();
        cands.sort_by(|(_, a), (_, b)| order(a, b));
        cands.truncate(self.spec.shard_size());
        let mut buckets = Vec::with_capacity(cands.len());
        for (o, mut b) in cands {
            b.subs = self.subs.results(o)?;
            buckets.push(b);
        }
        Ok(AggResult::Buckets(Buckets::of(KeyKind::Long, buckets)))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.ords.mem_bytes() + self.subs.mem_bytes()
    }
}

struct GridLeaf<'a> {
    reader: GeoReader<'a>,
    grid: Grid,
    precision: u32,
    bounds: Option<&'a GeoShape>,
    ords: &'a mut BucketOrds,
    subs: SubLeaves<'a>,
    points: Vec<GeoPoint>,
    cells: Vec<i64>,
}

impl LeafCollector for GridLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        self.reader.points(doc, &mut self.points);
        self.cells.clear();
        let bounds = self.bounds;
        self.cells.extend(
            self.points
                .iter()
                .filter(|p| bounds.is_none_or(|b| b.contains(p.lat, p.lon)))
                .map(|p| self.grid.cell(*p, self.precision)),
        );
        self.cells.sort_unstable();
        self.cells.dedup();
        for &c in &self.cells {
            let b = self.ords.ord_long(owner, c);
            self.ords.counts[b as usize] += 1;
            self.subs.collect(doc, b, score)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geohash_cells_match_the_point_geohash() {
        let p = GeoPoint { lat: 41.12, lon: -71.34 };
        let full = geo::geohash_encode(p);
        for level in 1..=12 {
            assert_eq!(Grid::Geohash.key(geohash_long(p, level)), full[..level as usize]);
        }
        assert_eq!(Grid::Geohash.key(geohash_long(GeoPoint { lat: 52.374081, lon: 4.912350 }, 3)), "u17");
    }

    #[test]
    fn geotiles() {
        let p = GeoPoint { lat: 52.374081, lon: 4.912350 };
        assert_eq!(Grid::Geotile.key(geotile_long(p, 0)), "0/0/0");
        assert_eq!(Grid::Geotile.key(geotile_long(p, 8)), "8/131/84");
        assert_eq!(Grid::Geotile.key(geotile_long(GeoPoint { lat: 90.0, lon: 180.0 }, 2)), "2/3/0");
    }

    #[test]
    fn precision_from_distance() {
        // ratio 1.4983: a 5km cell is 3337m wide, 12010 per equator, 2^13 < 12010: level 7.
        assert_eq!(geohash_levels_for(5000.0), 7);
        assert_eq!(geohash_levels_for(1.0), 13);
        let b = serde_json::json!({"field": "l", "precision": "5km"});
        assert_eq!(GeoGridSpec::parse(Grid::Geohash, "g", b.as_object().unwrap()).unwrap().precision, 7);
        let b = serde_json::json!({"field": "l", "precision": "1m"});
        assert!(GeoGridSpec::parse(Grid::Geohash, "g", b.as_object().unwrap()).is_err());
        let b = serde_json::json!({"field": "l", "bounds": {"top_left": "10,0", "bottom_right": "0,10"}});
        let s = GeoGridSpec::parse(Grid::Geotile, "g", b.as_object().unwrap()).unwrap();
        assert!(s.bounds.unwrap().contains(5.0, 5.0));
        let b = serde_json::json!({"field": "l", "bounds": {"top_left": "0,0"}});
        assert!(GeoGridSpec::parse(Grid::Geotile, "g", b.as_object().unwrap()).is_err());
        let b = serde_json::json!({"field": "l", "precision": 13});
        assert!(GeoGridSpec::parse(Grid::Geohash, "g", b.as_object().unwrap()).is_err());
    }
}
