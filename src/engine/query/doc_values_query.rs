//! Queries answered from doc values, for fields mapped `index: false, doc_values: true`
//! (OpenSearch 3's "slow" queries: Lucene's `SortedNumericDocValuesField.newSlowRangeQuery`,
//! `SortedSetDocValuesField.newSlowRangeQuery` and friends): every document of the segment is
//! visited and its values tested, so they cost a pass over the column.

use std::collections::HashMap;
use std::fmt;

use super::multi_term::{wildcard_matches, WildcardToken};
use super::view::SegmentView;
use crate::engine::segment::DocId;
use crate::engine::Result;

/// What a document's values must satisfy (any one value is enough).
#[derive(Debug, Clone, PartialEq)]
pub enum DvFilter {
    /// A numeric column value within one of these inclusive ranges, in the column's encoding
    /// (longs and dates as they are, doubles as sortable longs, unsigned longs sign-flipped).
    Numeric(Vec<(i64, i64)>),
    /// A sorted-set term matching one of these.
    Bytes(Vec<BytesMatch>),
    /// geo_point fields: a numeric doc value (Lucene's `LatLonDocValuesField` encoding) whose
    /// point lies in the shape.
    Geo(GeoShape),
    /// Range fields: a sorted-set term `lo ++ hi` (inclusive fixed-width keys) related to the
    /// query interval `[lo, hi]` as `relation` says.
    Interval { lo: Vec<u8>, hi: Vec<u8>, relation: IntervalRelation },
}

/// An area for geo_point queries (degrees; distances in meters).
#[derive(Debug, Clone, PartialEq)]
pub enum GeoShape {
    /// Within `meters` of the center (haversine on Lucene's mean earth radius).
    Distance { lat: f64, lon: f64, meters: f64 },
    /// Inside the box; `left > right` crosses the dateline.
    BBox { top: f64, bottom: f64, left: f64, right: f64 },
    /// Inside the polygon (`(lat, lon)` vertices, closed or not).
    Polygon(Vec<(f64, f64)>),
}

/// Lucene's `GeoUtils.EARTH_MEAN_RADIUS`.
pub const EARTH_MEAN_RADIUS_METERS: f64 = 6_371_008.771_4;

/// Haversine distance in meters.
pub fn haversine_meters(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = (lat2 - lat1).to_radians();
    let dl = (lon2 - lon1).to_radians();
    let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * EARTH_MEAN_RADIUS_METERS * h.sqrt().min(1.0).asin()
}

impl GeoShape {
    /// Whether the point is in the shape.
    pub fn contains(&self, lat: f64, lon: f64) -> bool {
        match self {
            GeoShape::Distance { lat: clat, lon: clon, meters } => haversine_meters(*clat, *clon, lat, lon) <= *meters,
            GeoShape::BBox { top, bottom, left, right } => {
                let lon_ok = if left <= right { lon >= *left && lon <= *right } else { lon >= *left || lon <= *right };
                lat >= *bottom && lat <= *top && lon_ok
            }
            GeoShape::Polygon(v) => {
                // Ray casting (even-odd rule) along the latitude of the point.
                let mut inside = false;
                let n = v.len();
                for i in 0..n {
                    let (la1, lo1) = v[i];
                    let (la2, lo2) = v[(i + 1) % n];
                    if (la1 > lat) != (la2 > lat) && lon < (lo2 - lo1) * (lat - la1) / (la2 - la1) + lo1 {
                        inside = !inside;
                    }
                }
                inside
            }
        }
    }
}

/// How a document's interval must relate to the query's (OpenSearch's `ShapeRelation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalRelation {
    /// They share a point (the default).
    Intersects,
    /// The document's interval lies within the query's.
    Within,
    /// The document's interval contains the query's.
    Contains,
}

impl IntervalRelation {
    /// Whether the document interval `[dlo, dhi]` relates to `[qlo, qhi]`.
    pub fn holds(self, dlo: &[u8], dhi: &[u8], qlo: &[u8], qhi: &[u8]) -> bool {
        match self {
            IntervalRelation::Intersects => dlo <= qhi && dhi >= qlo,
            IntervalRelation::Within => dlo >= qlo && dhi <= qhi,
            IntervalRelation::Contains => dlo <= qlo && dhi >= qhi,
        }
    }
}

/// One test of a sorted-set term.
#[derive(Debug, Clone, PartialEq)]
pub enum BytesMatch {
    Exact(Vec<u8>),
    Prefix(Vec<u8>),
    /// `None`: unbounded.
    Range {
        lo: Option<Vec<u8>>,
        hi: Option<Vec<u8>>,
        include_lo: bool,
        include_hi: bool,
    },
    Wildcard(Vec<WildcardToken>),
}

impl BytesMatch {
    /// Whether term `t` matches.
    pub fn matches(&self, t: &[u8]) -> bool {
        match self {
            BytesMatch::Exact(e) => t == e.as_slice(),
            BytesMatch::Prefix(p) => t.starts_with(p),
            BytesMatch::Range { lo, hi, include_lo, include_hi } => {
                let lo_ok = lo.as_deref().is_none_or(|l| t > l || (*include_lo && t == l));
                let hi_ok = hi.as_deref().is_none_or(|h| t < h || (*include_hi && t == h));
                lo_ok && hi_ok
            }
            BytesMatch::Wildcard(p) => wildcard_matches(p, &String::from_utf8_lossy(t)),
        }
    }
}

impl DvFilter {
    /// Whether a numeric value matches.
    pub fn matches_numeric(&self, v: i64) -> bool {
        match self {
            DvFilter::Numeric(ranges) => ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&v)),
            DvFilter::Geo(shape) => {
                let p = crate::engine::schema::geo::decode_doc_value(v);
                shape.contains(p.lat, p.lon)
            }
            DvFilter::Bytes(_) | DvFilter::Interval { .. } => false,
        }
    }
    /// Whether a term matches.
    pub fn matches_bytes(&self, t: &[u8]) -> bool {
        match self {
            DvFilter::Bytes(ms) => ms.iter().any(|m| m.matches(t)),
            DvFilter::Interval { lo, hi, relation } => {
                let w = lo.len();
                t.len() == 2 * w && relation.holds(&t[..w], &t[w..], lo, hi)
            }
            DvFilter::Numeric(_) | DvFilter::Geo(_) => false,
        }
    }
}

impl fmt::Display for DvFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DvFilter::Numeric(r) => {
                let parts: Vec<String> = r.iter().map(|(l, h)| format!("[{l} TO {h}]")).collect();
                write!(f, "{}", parts.join(" "))
            }
            DvFilter::Interval { relation, .. } => write!(f, "range {relation:?}"),
            DvFilter::Geo(shape) => write!(f, "{shape:?}"),
            DvFilter::Bytes(ms) => {
                let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                let parts: Vec<String> = ms
                    .iter()
                    .map(|m| match m {
                        BytesMatch::Exact(e) => s(e),
                        BytesMatch::Prefix(p) => format!("{}*", s(p)),
                        BytesMatch::Range { lo, hi, include_lo, include_hi } => format!(
                            "{}{} TO {}{}",
                            if *include_lo { '[' } else { '{' },
                            lo.as_deref().map(s).unwrap_or_else(|| "*".into()),
                            hi.as_deref().map(s).unwrap_or_else(|| "*".into()),
                            if *include_hi { ']' } else { '}' }
                        ),
                        BytesMatch::Wildcard(_) => "wildcard".into(),
                    })
                    .collect();
                write!(f, "{}", parts.join(" "))
            }
        }
    }
}

/// The sorted documents of `seg` (deleted ones included) whose `field` doc values match.
pub fn collect_docs(field: &str, filter: &DvFilter, seg: &dyn SegmentView) -> Result<Vec<DocId>> {
    let max_doc = seg.max_doc();
    let mut out = Vec::new();
    match filter {
        DvFilter::Numeric(_) | DvFilter::Geo(_) => {
            let mut vals = Vec::new();
            for d in 0..max_doc {
                if !seg.numeric_values(field, d, &mut vals) {
                    return Ok(out);
                }
                if vals.iter().any(|v| filter.matches_numeric(*v)) {
                    out.push(d);
                }
            }
        }
        DvFilter::Bytes(_) | DvFilter::Interval { .. } => {
            // Each ordinal's term is looked up and tested once per segment.
            let mut memo: HashMap<u64, bool> = HashMap::new();
            let mut ords = Vec::new();
            for d in 0..max_doc {
                if !seg.sorted_set_ords(field, d, &mut ords) {
                    return Ok(out);
                }
                let mut hit = false;
                for o in &ords {
                    let m = match memo.get(o) {
                        Some(m) => *m,
                        None => {
                            let m = filter.matches_bytes(&seg.sorted_set_term(field, *o)?);
                            memo.insert(*o, m);
                            m
                        }
                    };
                    if m {
                        hit = true;
                        break;
                    }
                }
                if hit {
                    out.push(d);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::query::model::{MDoc, ModelSegment};

    fn seg() -> ModelSegment {
        let doc = |kw: &[&str], n: &[i64]| MDoc {
            keyword: vec![("k".into(), kw.iter().map(|s| s.to_string()).collect())],
            long: vec![("n".into(), n.to_vec())],
            ..MDoc::default()
        };
        ModelSegment::new(
            vec![doc(&["apple", "pear"], &[1, 50]), doc(&[], &[]), doc(&["banana"], &[-3]), doc(&["apricot"], &[7])],
            &[],
            4,
        )
    }

    #[test]
    fn numeric_ranges_match_any_value() {
        let s = seg();
        assert_eq!(collect_docs("n", &DvFilter::Numeric(vec![(0, 10)]), &s).unwrap(), vec![0, 3]);
        assert_eq!(collect_docs("n", &DvFilter::Numeric(vec![(-3, -3), (50, 60)]), &s).unwrap(), vec![0, 2]);
        assert_eq!(collect_docs("n", &DvFilter::Numeric(vec![(100, 200)]), &s).unwrap(), Vec::<DocId>::new());
        assert_eq!(
            collect_docs("missing", &DvFilter::Numeric(vec![(i64::MIN, i64::MAX)]), &s).unwrap(),
            Vec::<DocId>::new()
        );
    }

    #[test]
    fn geo_shapes() {
        // One degree of latitude is about 111.2 km.
        let d = haversine_meters(0.0, 0.0, 1.0, 0.0);
        assert!((d - 111_195.08).abs() < 1.0, "{d}");
        let near = GeoShape::Distance { lat: 52.0, lon: 4.0, meters: 12_000.0 };
        assert!(near.contains(52.1, 4.0) && !near.contains(52.2, 4.0));
        let bbox = GeoShape::BBox { top: 10.0, bottom: 0.0, left: 170.0, right: -170.0 };
        assert!(
            bbox.contains(5.0, 175.0)
                && bbox.contains(5.0, -175.0)
                && !bbox.contains(5.0, 0.0)
                && !bbox.contains(11.0, 175.0)
        );
        let square = GeoShape::Polygon(vec![(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0)]);
        assert!(square.contains(5.0, 5.0) && !square.contains(5.0, 11.0) && !square.contains(-1.0, 5.0));
    }

    #[test]
    fn interval_relations() {
        let k = |v: u8| vec![v];
        let doc = |lo: u8, hi: u8| [k(lo), k(hi)].concat();
        let f = |r| DvFilter::Interval { lo: k(3), hi: k(6), relation: r };
        use IntervalRelation::*;
        // [1,3] touches [3,6]; [2,2] does not; [4,5] is within; [1,9] contains.
        assert!(f(Intersects).matches_bytes(&doc(1, 3)) && !f(Intersects).matches_bytes(&doc(2, 2)));
        assert!(f(Within).matches_bytes(&doc(4, 5)) && !f(Within).matches_bytes(&doc(1, 5)));
        assert!(f(Contains).matches_bytes(&doc(1, 9)) && !f(Contains).matches_bytes(&doc(4, 9)));
        assert!(!f(Intersects).matches_bytes(&[1, 2, 3]));
    }

    #[test]
    fn byte_tests_match_terms() {
        let s = seg();
        let q = |m: BytesMatch| collect_docs("k", &DvFilter::Bytes(vec![m]), &s).unwrap();
        assert_eq!(q(BytesMatch::Exact(b"pear".to_vec())), vec![0]);
        assert_eq!(q(BytesMatch::Prefix(b"ap".to_vec())), vec![0, 3]);
        assert_eq!(
            q(BytesMatch::Range {
                lo: Some(b"apricot".to_vec()),
                hi: Some(b"banana".to_vec()),
                include_lo: false,
                include_hi: true
            }),
            vec![2]
        );
        assert_eq!(
            q(BytesMatch::Range { lo: None, hi: Some(b"b".to_vec()), include_lo: true, include_hi: false }),
            vec![0, 3]
        );
        assert_eq!(q(BytesMatch::Wildcard(super::super::multi_term::parse_wildcard("*an*"))), vec![2]);
    }
}
