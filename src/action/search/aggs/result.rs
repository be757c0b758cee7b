//! Shard-level aggregation results: plain serializable values (OpenSearch's `InternalAggregation`
//! without the names, which the request's definitions carry). A shard on another node sends them
//! as they are; [`super::reduce`] merges them and [`super::render`] writes the response JSON.
//!
//! The result tree is parallel to the definition tree: `subs[i]` is the result of the bucket's
//! `i`-th sub-aggregation.

use serde::{Deserialize, Serialize};

use super::fmt::Fmt;
use super::sketch::hdr::Hdr;
use super::sketch::hll::Hll;
use super::sketch::tdigest::TDigest;

/// A bucket key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Key {
    /// Longs, dates (millis or nanos), booleans (0/1).
    Long(i64),
    /// `unsigned_long` values.
    Unsigned(u64),
    /// Doubles (and histogram keys).
    Double(f64),
    /// Keyword terms and ips (16 bytes).
    Bytes(Vec<u8>),
    /// A composite key or a multi_terms key.
    Multi(Vec<Option<Key>>),
    /// A string key (filters, ranges).
    Str(String),
}

impl Key {
    /// The key as a number (pipelines, histogram bounds); `NaN` for byte keys.
    pub fn as_f64(&self) -> f64 {
        match self {
            Key::Long(v) => *v as f64,
            Key::Unsigned(v) => *v as f64,
            Key::Double(v) => *v,
            _ => f64::NAN,
        }
    }

    /// Key order (`_key`): numbers numerically, bytes bytewise.
    pub fn cmp_key(&self, other: &Key) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self, other) {
            (Key::Long(a), Key::Long(b)) => a.cmp(b),
            (Key::Unsigned(a), Key::Unsigned(b)) => a.cmp(b),
            (Key::Bytes(a), Key::Bytes(b)) => a.cmp(b),
            (Key::Str(a), Key::Str(b)) => a.cmp(b),
            (Key::Multi(a), Key::Multi(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let o = match (x, y) {
                        (None, None) => Ordering::Equal,
                        (None, Some(_)) => Ordering::Less,
                        (Some(_), None) => Ordering::Greater,
                        (Some(x), Some(y)) => x.cmp_key(y),
                    };
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            (a, b) => a.as_f64().total_cmp(&b.as_f64()),
        }
    }

    /// A hashable identity of the key (for merging buckets across shards).
    pub fn ident(&self) -> KeyIdent {
        match self {
            Key::Long(v) => KeyIdent::Long(*v),
            Key::Unsigned(v) => KeyIdent::Long(*v as i64 ^ i64::MIN),
            Key::Double(v) => KeyIdent::Double(if *v == 0.0 { 0 } else { v.to_bits() }),
            Key::Bytes(b) => KeyIdent::Bytes(b.clone()),
            Key::Str(s) => KeyIdent::Bytes(s.as_bytes().to_vec()),
            Key::Multi(ks) => KeyIdent::Multi(ks.iter().map(|k| k.as_ref().map(Key::ident)).collect()),
        }
    }
}

/// See [`Key::ident`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeyIdent {
    Long(i64),
    Double(u64),
    Bytes(Vec<u8>),
    Multi(Vec<Option<KeyIdent>>),
}

/// OpenSearch's `CompensatedSum` (Kahan summation), as its sum, avg and stats aggregations add.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct KahanSum {
    pub value: f64,
    pub delta: f64,
}

impl KahanSum {
    /// Adds `value` with its own compensation `delta`.
    pub fn add_with(&mut self, value: f64, delta: f64) {
        if !value.is_finite() {
            self.value += value;
        }
        if self.value.is_finite() {
            let corrected = value + (self.delta + delta);
            let updated = self.value + corrected;
            self.delta = corrected - (updated - self.value);
            self.value = updated;
        }
    }

    pub fn add(&mut self, value: f64) {
        self.add_with(value, 0.0)
    }
}

/// The state of min, max, sum, avg, value_count, stats and extended_stats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub count: u64,
    pub sum: KahanSum,
    #[serde(with = "nonfinite")]
    pub min: f64,
    #[serde(with = "nonfinite")]
    pub max: f64,
    /// Sum of squares (extended_stats only).
    pub sum_sq: KahanSum,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            count: 0,
            sum: KahanSum::default(),
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            sum_sq: KahanSum::default(),
        }
    }
}

impl Stats {
    #[inline]
    pub fn add(&mut self, v: f64) {
        self.count += 1;
        self.sum.add(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn merge(&mut self, o: &Stats) {
        self.count += o.count;
        self.sum.add_with(o.sum.value, 0.0);
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.sum_sq.add_with(o.sum_sq.value, 0.0);
    }
}

/// Non-finite doubles as JSON strings (`"Infinity"`, `"-Infinity"`, `"NaN"`), as JSON has none.
pub mod nonfinite {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else if v.is_nan() {
            s.serialize_str("NaN")
        } else if *v > 0.0 {
            s.serialize_str("Infinity")
        } else {
            s.serialize_str("-Infinity")
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum F {
            N(f64),
            S(String),
        }
        match F::deserialize(d)? {
            F::N(x) => Ok(x),
            F::S(s) => match s.as_str() {
                "NaN" => Ok(f64::NAN),
                "Infinity" => Ok(f64::INFINITY),
                "-Infinity" => Ok(f64::NEG_INFINITY),
                _ => Err(serde::de::Error::custom(format!("not a double: {s}"))),
            },
        }
    }
}

/// The state of weighted_avg.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WeightedAvg {
    pub sum: KahanSum,
    pub weights: KahanSum,
}

/// One bucket of a multi-bucket aggregation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bucket {
    pub key: Key,
    pub doc_count: u64,
    /// terms: this bucket's doc count error (`-1`: unbounded); ranges: `from`/`to`.
    pub error: i64,
    pub from: Option<f64>,
    pub to: Option<f64>,
    pub subs: Vec<AggResult>,
}

impl Bucket {
    pub fn new(key: Key, doc_count: u64, subs: Vec<AggResult>) -> Bucket {
        Bucket { key, doc_count, error: 0, from: None, to: None, subs }
    }
}

/// What kind of values a multi-bucket result's keys are (names the terms type: `sterms`,
/// `lterms`, ...; the unmapped kind is dropped by the reduce when another shard has the field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyKind {
    Unmapped,
    String,
    Long,
    Double,
    Unsigned,
}

/// A multi-bucket aggregation's shard result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Buckets {
    pub kind: KeyKind,
    pub buckets: Vec<Bucket>,
    /// terms: the shard's doc count error and the sum of the counts it did not return.
    pub doc_count_error: i64,
    pub other_doc_count: u64,
    /// terms: the shard size the shard used (the error is only known when it returned that many).
    pub shard_size: u64,
    /// histograms: the smallest and largest key seen (for empty buckets), and the interval
    /// chosen (auto_date_histogram, variable_width_histogram).
    pub bounds: Option<(f64, f64)>,
    pub interval: Option<String>,
    /// How keys print.
    pub fmt: Fmt,
    /// composite and multi_terms: how each position of a [`Key::Multi`] prints.
    #[serde(default)]
    pub fmts: Vec<Fmt>,
    /// composite: the key of the last bucket of the page (`after_key`, kept when a pipeline
    /// removes buckets, as OpenSearch).
    #[serde(default)]
    pub after_key: Option<Key>,
    /// rare_terms: the keys some shard counted more than `max_doc_count` times (OpenSearch's
    /// cuckoo filter, kept exact here).
    #[serde(default)]
    pub pruned: Vec<Key>,
}

impl Buckets {
    pub fn of(kind: KeyKind, buckets: Vec<Bucket>) -> Buckets {
        Buckets {
            kind,
            buckets,
            doc_count_error: 0,
            other_doc_count: 0,
            shard_size: 0,
            bounds: None,
            interval: None,
            fmt: Fmt::Raw,
            fmts: Vec::new(),
            after_key: None,
            pruned: Vec::new(),
        }
    }
}

/// One aggregation's shard (or reduced) result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum AggResult {
    Stats(Stats, Fmt),
    WeightedAvg(WeightedAvg),
    Cardinality(Hll),
    TDigest(TDigest, Fmt),
    Hdr(Hdr, Fmt),
    /// A single-bucket aggregation (filter, missing, global, nested, sampler, ...).
    Single {
        doc_count: u64,
        subs: Vec<AggResult>,
    },
    Buckets(Buckets),
    /// top_hits: the matches counted, the best score (when scored) and the shard's best
    /// `from + size` hits in sort order, rendered on the shard.
    TopHits {
        total: u64,
        max_score: Option<f32>,
        hits: Vec<TopHit>,
        /// `rest_total_hits_as_int`: `hits.total` prints as a number.
        total_as_int: bool,
    },
    /// scripted_metric: each shard's `combine_script` result.
    Scripted(Vec<serde_json::Value>),
    /// geo_bounds: top, bottom, positive-longitude left/right, negative-longitude left/right.
    GeoBounds([f64; 6]),
    /// geo_centroid: sums of lat and lon and the count.
    GeoCentroid {
        lat: KahanSum,
        lon: KahanSum,
        count: u64,
    },
    /// A value computed by a pipeline aggregation after the reduce.
    Value {
        value: Option<f64>,
        keys: Vec<String>,
    },
    /// A pipeline's structured result (percentiles_bucket, stats_bucket, ...), rendered as is.
    Json(serde_json::Value),
}

/// One top_hits hit: its sort keys (compared across shards), its place for ties (shard, then
/// shard-wide doc number, as Lucene's `TopDocs.merge`), and its rendered JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopHit {
    pub keys: Vec<SortKey>,
    pub shard: u32,
    pub doc: u64,
    pub hit: serde_json::Value,
}

/// A top_hits sort key across shards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SortKey {
    Score(f32),
    Long(i64),
    #[serde(with = "nonfinite")]
    Double(f64),
    Bytes(Vec<u8>),
    Null,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kahan_sum_keeps_small_addends() {
        let mut k = KahanSum::default();
        k.add(1e16);
        for _ in 0..10 {
            k.add(1.0);
        }
        k.add(-1e16);
        assert_eq!(k.value, 10.0);
        let mut inf = KahanSum::default();
        inf.add(f64::INFINITY);
        inf.add(1.0);
        assert_eq!(inf.value, f64::INFINITY);
    }

    #[test]
    fn results_round_trip_as_plain_values() {
        let r = AggResult::Buckets(Buckets::of(
            KeyKind::String,
            vec![Bucket::new(Key::Bytes(b"a".to_vec()), 3, vec![AggResult::Stats(Stats::default(), Fmt::Raw)])],
        ));
        let s = serde_json::to_string(&r).unwrap();
        let back: AggResult = serde_json::from_str(&s).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), s);
    }

    #[test]
    fn key_order_and_identity() {
        assert!(Key::Long(-1).cmp_key(&Key::Long(2)).is_lt());
        assert!(Key::Bytes(b"b".to_vec()).cmp_key(&Key::Bytes(b"a".to_vec())).is_gt());
        assert_eq!(Key::Double(0.0).ident(), Key::Double(-0.0).ident());
    }
}
