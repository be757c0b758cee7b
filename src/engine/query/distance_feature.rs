//! `distance_feature`: Lucene's `LongDistanceFeatureQuery` (dates, date_nanos) and
//! `LatLonPointDistanceFeatureQuery` (geo points). Every document with a value matches; its
//! score is `boost * pivot / (pivot + distance)` (in double, cast to float), the distance taken
//! from the value closest to the origin (read from the field's doc values).

use super::scorer::Scorer;
use super::view::SegmentView;
use crate::engine::segment::{DocId, NO_MORE_DOCS};

/// Where distances are measured from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Origin {
    /// A long (epoch millis or nanos, as the field stores them); the pivot in the same unit.
    Long(i64),
    /// A point; the pivot in meters.
    Geo { lat: f64, lon: f64 },
}

/// Lucene's `GeoUtils.EARTH_MEAN_RADIUS`-based `SloppyMath.TO_METERS`.
const TO_METERS: f64 = 6_371_008.771_4;

/// The haversine distance in meters (Lucene's `SloppyMath.haversinMeters`, with exact
/// trigonometry).
pub fn haversin_meters(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (x1, x2) = (lat1.to_radians(), lat2.to_radians());
    let h1 = 1.0 - (x1 - x2).cos();
    let h2 = 1.0 - (lon1 - lon2).to_radians().cos();
    let h = h1 + x1.cos() * x2.cos() * h2;
    let key = h.min(1.0);
    TO_METERS * 2.0 * (key * 0.5).sqrt().min(1.0).asin()
}

/// The distance of a doc value from the origin (longs: saturating at `i64::MAX` on overflow).
pub fn distance(origin: Origin, value: i64) -> f64 {
    match origin {
        Origin::Long(o) => {
            let d = value.wrapping_sub(o).max(o.wrapping_sub(value));
            (if d < 0 { i64::MAX } else { d }) as f64
        }
        Origin::Geo { lat, lon } => {
            let p = crate::engine::schema::geo::decode_doc_value(value);
            haversin_meters(lat, lon, p.lat, p.lon)
        }
    }
}

/// The score for a distance.
pub fn score(boost: f32, pivot: f64, distance: f64) -> f32 {
    (boost as f64 * (pivot / (pivot + distance))) as f32
}

/// Scores the documents of a segment with a value in `field`.
pub struct DistanceFeatureScorer<'a> {
    seg: &'a dyn SegmentView,
    field: String,
    origin: Origin,
    pivot: f64,
    boost: f32,
    constant: Option<f32>,
    doc: DocId,
    dist: f64,
    vals: Vec<i64>,
}

impl std::fmt::Debug for DistanceFeatureScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistanceFeatureScorer")
            .field("field", &self.field)
            .field("doc", &self.doc)
            .finish_non_exhaustive()
    }
}

impl<'a> DistanceFeatureScorer<'a> {
    /// The scorer positioned on its first document; `None` when the segment has no such column.
    pub fn new(
        seg: &'a dyn SegmentView,
        field: &str,
        origin: Origin,
        pivot: f64,
        boost: f32,
        constant: Option<f32>,
    ) -> Option<Self> {
        let mut s = DistanceFeatureScorer {
            seg,
            field: field.to_string(),
            origin,
            pivot,
            boost,
            constant,
            doc: 0,
            dist: 0.0,
            vals: Vec::new(),
        };
        s.doc = s.find(0);
        (s.doc != NO_MORE_DOCS).then_some(s)
    }

    /// The least distance of the current document's values.
    pub fn distance(&self) -> f64 {
        self.dist
    }

    fn find(&mut self, from: DocId) -> DocId {
        let max = self.seg.max_doc();
        let mut d = from;
        while d < max {
            if self.seg.numeric_values(&self.field, d, &mut self.vals) && !self.vals.is_empty() {
                self.dist = self.vals.iter().map(|&v| distance(self.origin, v)).fold(f64::INFINITY, f64::min);
                return d;
            }
            d += 1;
        }
        NO_MORE_DOCS
    }
}

impl Scorer for DistanceFeatureScorer<'_> {
    fn doc(&self) -> DocId {
        self.doc
    }
    fn next(&mut self) -> DocId {
        if self.doc != NO_MORE_DOCS {
            self.doc = self.find(self.doc + 1);
        }
        self.doc
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target > self.doc {
            self.doc = self.find(target);
        }
        self.doc
    }
    fn score(&mut self) -> f32 {
        self.constant.unwrap_or_else(|| score(self.boost, self.pivot, self.dist))
    }
    fn cost(&self) -> u64 {
        self.seg.max_doc() as u64
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        self.constant.unwrap_or(self.boost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_distances_saturate_and_score_by_pivot() {
        assert_eq!(distance(Origin::Long(10), 4), 6.0);
        assert_eq!(distance(Origin::Long(0), i64::MIN), i64::MAX as f64);
        assert_eq!(score(2.0, 10.0, 10.0), 1.0);
        assert_eq!(score(1.0, 5.0, 0.0), 1.0);
    }

    #[test]
    fn haversine_is_symmetric_and_about_right() {
        // One degree of latitude is about 111.2 km.
        let d = haversin_meters(41.0, -71.0, 42.0, -71.0);
        assert!((d - 111_195.0).abs() < 50.0, "{d}");
        assert_eq!(haversin_meters(1.0, 2.0, 3.0, 4.0), haversin_meters(3.0, 4.0, 1.0, 2.0));
        assert_eq!(haversin_meters(5.0, 5.0, 5.0, 5.0), 0.0);
    }
}
