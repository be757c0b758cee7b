//! `histogram`: numeric values in buckets of `interval` (shifted by `offset`), with empty buckets
//! filled at the final reduce when `min_doc_count` is 0 (to `extended_bounds`, within
//! `hard_bounds`). The collector and the reduce serve `date_histogram` too, through a
//! [`Rounder`].

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::bucket_order::{self, BucketOrder};
use super::fmt::{double, java_double, Fmt};
use super::ords::BucketOrds;
use super::range_histogram::{range_field, range_histo_collector};
use super::result::{AggResult, Bucket, Buckets, Key, KeyIdent, KeyKind};
use super::source::{resolve, token, Config, NumKind, SegValues, SourceSpec};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::engine::query::SegmentView;
use crate::engine::schema::date;
use crate::engine::schema::range::RangeType;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// How values become bucket keys, and the key after a key (empty buckets).
pub trait Rounder: std::fmt::Debug + Send + Sync {
    /// The key of a value (as a double: histogram keys; dates use exact longs inside).
    fn key_of(&self, v: f64, raw: i64) -> Key;
    /// The key after `k`.
    fn next(&self, k: &Key) -> Key;
    /// Rounds a bound (extended/hard bounds) to its key.
    fn round_bound(&self, v: f64) -> Key;
    /// The values (in the column's units) that round to `k`: `[lo, hi)`.
    fn value_range(&self, k: &Key) -> (f64, f64) {
        (k.as_f64(), self.next(k).as_f64())
    }
}

/// A numeric histogram's rounding.
#[derive(Debug, Clone, Copy)]
pub struct NumRounder {
    pub interval: f64,
    pub offset: f64,
}

impl NumRounder {
    fn round(&self, v: f64) -> f64 {
        ((v - self.offset) / self.interval).floor() * self.interval + self.offset
    }
}

impl Rounder for NumRounder {
    fn key_of(&self, v: f64, _raw: i64) -> Key {
        Key::Double(self.round(v))
    }
    fn next(&self, k: &Key) -> Key {
        Key::Double(self.round(k.as_f64() + self.interval + self.interval / 2.0))
    }
    fn round_bound(&self, v: f64) -> Key {
        Key::Double(self.round(v))
    }
}

/// `min`/`max` bounds (extended or hard); strings for dates are resolved by the date histogram.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bounds {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Bounds {
    pub fn parse(agg: &str, key: &str, v: &Value, num: &dyn Fn(&Value) -> OsResult<f64>) -> OsResult<Bounds> {
        let Value::Object(m) = v else {
            return Err(OsError::parsing(format!("[{agg}] {key} doesn't support values of type: {}", token(v))));
        };
        let mut b = Bounds::default();
        for (k, x) in m {
            match k.as_str() {
                "min" => b.min = if x.is_null() { None } else { Some(num(x)?) },
                "max" => b.max = if x.is_null() { None } else { Some(num(x)?) },
                _ => return Err(OsError::parsing(format!("Unknown key for a {} in [{key}]: [{k}].", token(x)))),
            }
        }
        if let (Some(lo), Some(hi)) = (b.min, b.max) {
            if lo > hi {
                return Err(OsError::illegal(format!(
                    "[{key}.min][{}] cannot be greater than [{key}.max][{}].",
                    java_double(lo),
                    java_double(hi)
                )));
            }
        }
        Ok(b)
    }

    fn contains(&self, v: f64) -> bool {
        self.min.is_none_or(|m| m <= v) && self.max.is_none_or(|m| m >= v)
    }
}

/// What histograms share: their parameters beyond the rounding.
#[derive(Debug, Clone)]
pub struct HistoCommon {
    pub source: SourceSpec,
    pub min_doc_count: u64,
    pub order: BucketOrder,
    pub keyed: bool,
    pub extended: Option<Bounds>,
    pub hard: Option<Bounds>,
}

impl HistoCommon {
    pub fn new() -> HistoCommon {
        HistoCommon {
            source: SourceSpec::default(),
            min_doc_count: 0,
            order: BucketOrder::key_asc(),
            keyed: false,
            extended: None,
            hard: None,
        }
    }

    /// Takes a parameter histograms share; `Ok(false)` for others.
    pub fn take(&mut self, agg: &str, name: &str, k: &str, v: &Value) -> OsResult<bool> {
        if self.source.take(agg, k, v)? {
            return Ok(true);
        }
        match k {
            "min_doc_count" => {
                let n = v.as_i64().ok_or_else(|| {
                    OsError::parsing(format!("[{agg}] {k} doesn't support values of type: {}", token(v)))
                })?;
                if n < 0 {
                    return Err(OsError::illegal(format!(
                        "[minDocCount] must be greater than or equal to 0. Found [{n}] in [{name}]"
                    )));
                }
                self.min_doc_count = n as u64;
            }
            "order" => self.order = bucket_order::parse(v, name, true)?,
            "keyed" => {
                self.keyed = v.as_bool().ok_or_else(|| {
                    OsError::parsing(format!("[{agg}] {k} doesn't support values of type: {}", token(v)))
                })?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl Default for HistoCommon {
    fn default() -> Self {
        HistoCommon::new()
    }
}

#[derive(Debug, Clone)]
pub struct HistogramSpec {
    pub common: HistoCommon,
    pub rounder: NumRounder,
}

fn number(agg: &'static str) -> impl Fn(&Value) -> OsResult<f64> {
    move |v: &Value| {
        v.as_f64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .ok_or_else(|| OsError::parsing(format!("[{agg}] doesn't support values of type: {}", token(v))))
    }
}

impl HistogramSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<HistogramSpec> {
        let mut c = HistoCommon::new();
        let mut interval = None;
        let mut offset = 0.0;
        let num = number("histogram");
        for (k, v) in body {
            if c.take("histogram", name, k, v)? {
                continue;
            }
            match k.as_str() {
                "interval" => interval = Some(num(v)?),
                "offset" => offset = num(v)?,
                "extended_bounds" => c.extended = Some(Bounds::parse("histogram", k, v, &num)?),
                "hard_bounds" => c.hard = Some(Bounds::parse("histogram", k, v, &num)?),
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "histogram",
                        k,
                        &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "interval",
                            "offset",
                            "order",
                            "keyed",
                            "min_doc_count",
                            "extended_bounds",
                            "hard_bounds",
                        ],
                    )))
                }
            }
        }
        let interval = interval
            .ok_or_else(|| OsError::illegal(format!("[interval] must be >0 for histogram aggregation [{name}]")))?;
        if interval <= 0.0 || !interval.is_finite() {
            return Err(OsError::illegal(format!("[interval] must be >0 for histogram aggregation [{name}]")));
        }
        c.source.require("histogram", name)?;
        Ok(HistogramSpec { common: c, rounder: NumRounder { interval, offset } })
    }
}

impl AggSpec for HistogramSpec {
    fn type_name(&self) -> &'static str {
        "histogram"
    }

    fn histogram_min_doc_count(&self) -> Option<u64> {
        Some(self.common.min_doc_count)
    }

    fn next_key(&self, key: &Key, _interval: Option<&str>) -> Option<Key> {
        Some(self.rounder.next(key))
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        if let Some(rf) = range_field(&self.common.source, env.qc.mapping) {
            if rf.rt == RangeType::Ip {
                return Err(OsError::illegal(format!(
                    "Expected numeric range type but found non-numeric range [{}]",
                    rf.rt.type_name()
                )));
            }
            let fmt = match (&self.common.source.format, rf.rt) {
                (f, RangeType::Date) => Fmt::Date {
                    format: f.clone().or(rf.format.clone()).unwrap_or_else(|| date::DEFAULT_FORMAT.to_string()),
                    nanos: false,
                    zone: None,
                },
                (Some(p), _) => Fmt::Decimal(p.clone()),
                (None, _) => Fmt::Raw,
            };
            return range_histo_collector(def, env, rf, fmt, &self.common, Arc::new(self.rounder));
        }
        let cfg = resolve(&self.common.source, env.qc, "histogram")?;
        histo_collector(def, env, cfg, "histogram", &self.common, Arc::new(self.rounder))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::Double, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        reduce_histo(def, &self.common, &self.rounder, parts, rc)
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        render_histo(def, self.common.keyed, r, rc)
    }
}

/// The collector of a histogram over `cfg` (numeric values only).
pub fn histo_collector(
    def: &AggDef,
    env: &ShardEnv<'_>,
    cfg: Config,
    agg: &str,
    common: &HistoCommon,
    rounder: Arc<dyn Rounder>,
) -> OsResult<Box<dyn Collector>> {
    common.order.validate(&def.subs)?;
    let num = cfg.numeric(agg)?;
    // Counting from points: date histograms (OpenSearch's filter rewrite), no hard bounds.
    let points = if agg == "date_histogram" && common.hard.is_none() {
        super::points_count::Plan::of(def, env, &cfg, true).filter(|p| p.kind != NumKind::Double)
    } else {
        None
    };
    Ok(Box::new(HistoCollector {
        points,
        rewrite: super::points_count::RewriteStats::default(),
        cfg,
        num,
        rounder,
        hard: common.hard,
        keys: Vec::new(),
        index: HashMap::new(),
        ords: BucketOrds::default(),
        subs: Subs::new(def, env)?,
    }))
}

struct HistoCollector {
    /// How segments may be counted from points (top-level, no subs, match_all or a range).
    points: Option<super::points_count::Plan>,
    rewrite: super::points_count::RewriteStats,
    cfg: Config,
    num: Option<NumKind>,
    rounder: Arc<dyn Rounder>,
    hard: Option<Bounds>,
    /// Keys by their ordinal in `index` (the bucket ords key on it).
    keys: Vec<Key>,
    index: HashMap<KeyIdent, i64>,
    ords: BucketOrds,
    subs: Subs,
}

impl HistoCollector {
    /// Counts segment `seg` from its points when it qualifies; whether it did.
    fn count_points(&mut self, seg: &dyn SegmentView) -> OsResult<bool> {
        use super::points_count::{count, points, Class};
        self.rewrite.segments += 1;
        let Some(plan) = &self.points else { return Ok(false) };
        let Some(p) = points(seg, plan) else { return Ok(false) };
        let (rounder, keys, index, ords) = (self.rounder.as_ref(), &mut self.keys, &mut self.index, &mut self.ords);
        let mut classify = |key: &[u8]| -> Class {
            if let Some(c) = plan.clip(key) {
                return c;
            }
            let k = rounder.key_of(plan.value(key), plan.raw(key));
            Class::Bucket(intern_key(keys, index, &k))
        };
        let mut counts: Vec<(i64, u64)> = Vec::new();
        count(&p, &mut self.rewrite, &mut classify, &mut |ki, n| counts.push((ki, n)))?;
        for (ki, n) in counts {
            let b = ords.ord_long(0, ki);
            ords.counts[b as usize] += n;
        }
        self.rewrite.optimized += 1;
        Ok(true)
    }
}

impl Collector for HistoCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        if self.count_points(seg)? {
            return Ok(Box::new(super::points_count::Counted));
        }
        Ok(Box::new(HistoLeaf {
            values: self.cfg.open(seg),
            num: self.num,
            rounder: self.rounder.as_ref(),
            hard: self.hard,
            keys: &mut self.keys,
            index: &mut self.index,
            ords: &mut self.ords,
            subs: self.subs.leaves(seg, si)?,
            last: None,
            scratch: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        histo_result(&self.ords, &self.keys, &mut self.subs, owner, &self.cfg.fmt)
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.ords.mem_bytes() + self.keys.capacity() * 32 + self.subs.mem_bytes()
    }

    fn debug(&self, add: &mut dyn FnMut(&'static str, Value)) {
        self.rewrite.debug(add)
    }
}

/// The index of `key` in `keys`, added if new (the histograms' bucket ords key on it).
pub fn intern_key(keys: &mut Vec<Key>, index: &mut HashMap<KeyIdent, i64>, key: &Key) -> i64 {
    *index.entry(key.ident()).or_insert_with(|| {
        keys.push(key.clone());
        keys.len() as i64 - 1
    })
}

/// The buckets of `owner` in key order: `ords` key on indexes into `keys`.
pub fn histo_result(ords: &BucketOrds, keys: &[Key], subs: &mut Subs, owner: u32, fmt: &Fmt) -> OsResult<AggResult> {
    let mut buckets = Vec::new();
    for &o in ords.of_owner(owner) {
        let super::ords::RawKey::L(ki) = ords.keys[o as usize].1 else { continue };
        let key = keys[ki as usize].clone();
        buckets.push(Bucket::new(key, ords.counts[o as usize], subs.results(o)?));
    }
    buckets.sort_by(|a, b| a.key.cmp_key(&b.key));
    let kind =
        if buckets.first().is_some_and(|b| matches!(b.key, Key::Long(_))) { KeyKind::Long } else { KeyKind::Double };
    Ok(AggResult::Buckets(Buckets { fmt: fmt.clone(), ..Buckets::of(kind, buckets) }))
}

impl HistoLeaf<'_> {
    /// The bucket of a value outside the cached range (`None`: outside the hard bounds); caches
    /// the value range of its key.
    fn bucket_of(&mut self, owner: u32, v: f64, raw: i64) -> Option<u32> {
        let key = self.rounder.key_of(v, raw);
        if let Some(h) = &self.hard {
            if !h.contains(key.as_f64()) {
                return None;
            }
        }
        let (lo, hi) = self.rounder.value_range(&key);
        let ki = intern_key(self.keys, self.index, &key);
        let b = self.ords.ord_long(owner, ki);
        // Only a value range that rounds to this key (and nothing else) is cached.
        if lo <= v && v < hi {
            self.last = Some((owner, lo, hi, ki, b));
        }
        Some(b)
    }
}

struct HistoLeaf<'a> {
    values: SegValues<'a>,
    num: Option<NumKind>,
    rounder: &'a dyn Rounder,
    hard: Option<Bounds>,
    keys: &'a mut Vec<Key>,
    index: &'a mut HashMap<KeyIdent, i64>,
    ords: &'a mut BucketOrds,
    subs: SubLeaves<'a>,
    /// The last bucket: (owner, its value range, key index, bucket ordinal); sorted or
    /// clustered values fall in it again without a map lookup.
    last: Option<(u32, f64, f64, i64, u32)>,
    scratch: Vec<i64>,
}

impl LeafCollector for HistoLeaf<'_> {
    fn collect_block(&mut self, docs: &[DocId], owner: u32) -> OsResult<()> {
        let col = match (&self.values, self.num) {
            (SegValues::Num(r), Some(_)) => r.single().copied(),
            _ => None,
        };
        let (Some(col), Some(k)) = (col, self.num) else {
            for &d in docs {
                self.collect(d, owner, f32::NAN)?;
            }
            return Ok(());
        };
        let mut runs = super::Runs::default();
        let mut err = None;
        let with_subs = !self.subs.is_empty();
        super::source::for_block_values(&col, docs, |d, raw| {
            let v = k.to_f64(raw);
            let b = match self.last {
                Some((o, lo, hi, _, b)) if o == owner && v >= lo && v < hi => b,
                _ => match self.bucket_of(owner, v, raw) {
                    Some(b) => b,
                    None => return,
                },
            };
            self.ords.counts[b as usize] += 1;
            if with_subs && err.is_none() {
                if let Err(e) = runs.push(&mut self.subs, d, b) {
                    err = Some(e);
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        runs.flush(&mut self.subs)
    }

    #[inline]
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let (SegValues::Num(r), Some(k)) = (&mut self.values, self.num) else { return Ok(()) };
        self.scratch.clear();
        self.scratch.extend_from_slice(r.values(doc));
        let mut prev_key: Option<i64> = None;
        for i in 0..self.scratch.len() {
            let raw = self.scratch[i];
            let v = k.to_f64(raw);
            let (ki, b) = match self.last {
                Some((lo_owner, lo, hi, ki, b)) if lo_owner == owner && v >= lo && v < hi => (ki, b),
                _ => {
                    let key = self.rounder.key_of(v, raw);
                    if let Some(h) = &self.hard {
                        if !h.contains(key.as_f64()) {
                            continue;
                        }
                    }
                    let (lo, hi) = self.rounder.value_range(&key);
                    let id = key.ident();
                    let ki = match self.index.get(&id) {
                        Some(&ki) => ki,
                        None => {
                            let ki = self.keys.len() as i64;
                            self.keys.push(key);
                            self.index.insert(id, ki);
                            ki
                        }
                    };
                    let b = self.ords.ord_long(owner, ki);
                    // Only a value range that rounds to this key (and nothing else) is cached.
                    if lo <= v && v < hi {
                        self.last = Some((owner, lo, hi, ki, b));
                    }
                    (ki, b)
                }
            };
            if prev_key == Some(ki) {
                continue;
            }
            prev_key = Some(ki);
            self.ords.counts[b as usize] += 1;
            self.subs.collect(doc, b, score)?;
        }
        Ok(())
    }
}

/// Merges histogram parts; the final reduce fills empty buckets, applies `min_doc_count` and the
/// order.
pub fn reduce_histo(
    def: &AggDef,
    common: &HistoCommon,
    rounder: &dyn Rounder,
    parts: Vec<AggResult>,
    rc: &mut ReduceCtx,
) -> OsResult<AggResult> {
    let mut kind = KeyKind::Double;
    let mut fmt = None;
    let mut index: HashMap<KeyIdent, usize> = HashMap::new();
    let mut merged: Vec<(Bucket, Vec<Vec<AggResult>>)> = Vec::new();
    for p in parts {
        let AggResult::Buckets(b) = p else { continue };
        if fmt.is_none() || b.kind != KeyKind::Double {
            kind = b.kind;
        }
        fmt.get_or_insert(b.fmt);
        for mut bk in b.buckets {
            let subs = std::mem::take(&mut bk.subs);
            match index.get(&bk.key.ident()) {
                Some(&i) => {
                    merged[i].0.doc_count += bk.doc_count;
                    merged[i].1.push(subs);
                }
                None => {
                    index.insert(bk.key.ident(), merged.len());
                    merged.push((bk, vec![subs]));
                }
            }
        }
    }
    let mut buckets = Vec::with_capacity(merged.len());
    for (mut b, subs) in merged {
        b.subs = super::reduce_subs(def, subs, rc)?;
        buckets.push(b);
    }
    buckets.sort_by(|a, b| a.key.cmp_key(&b.key));
    if rc.final_reduce {
        if common.min_doc_count == 0 {
            buckets = fill_empty(def, common, rounder, buckets)?;
        }
        buckets.retain(|b| b.doc_count >= common.min_doc_count);
        if common.order != BucketOrder::key_asc() {
            common.order.sort(&mut buckets, &def.subs)?;
        }
        rc.consume(buckets.len())?;
    }
    Ok(AggResult::Buckets(Buckets { fmt: fmt.unwrap_or(Fmt::Raw), ..Buckets::of(kind, buckets) }))
}

/// The most empty buckets one histogram may add (a guard before `search.max_buckets` counts).
const MAX_EMPTY: usize = 10_000_000;

fn fill_empty(
    def: &AggDef,
    common: &HistoCommon,
    rounder: &dyn Rounder,
    buckets: Vec<Bucket>,
) -> OsResult<Vec<Bucket>> {
    let mut lo = buckets.first().map(|b| b.key.clone());
    let mut hi = buckets.last().map(|b| b.key.clone());
    if let Some(e) = &common.extended {
        if let Some(m) = e.min {
            let k = rounder.round_bound(m);
            if lo.as_ref().is_none_or(|l| k.cmp_key(l).is_lt()) {
                lo = Some(k);
            }
        }
        if let Some(m) = e.max {
            let k = rounder.round_bound(m);
            if hi.as_ref().is_none_or(|h| k.cmp_key(h).is_gt()) {
                hi = Some(k);
            }
        }
    }
    if let Some(h) = &common.hard {
        if let (Some(m), Some(l)) = (h.min, &lo) {
            let k = rounder.round_bound(m);
            if l.cmp_key(&k).is_lt() {
                lo = Some(k);
            }
        }
        if let (Some(m), Some(x)) = (h.max, &hi) {
            let k = rounder.round_bound(m);
            if x.cmp_key(&k).is_gt() {
                hi = Some(k);
            }
        }
    }
    let (Some(lo), Some(hi)) = (lo, hi) else { return Ok(buckets) };
    let mut out = Vec::with_capacity(buckets.len());
    let mut it = buckets.into_iter().peekable();
    let mut k = lo;
    let mut n = 0usize;
    while k.cmp_key(&hi).is_le() {
        while it.peek().is_some_and(|b| b.key.cmp_key(&k).is_lt()) {
            out.extend(it.next());
        }
        match it.peek() {
            Some(b) if b.key.cmp_key(&k).is_eq() => out.extend(it.next()),
            _ => out.push(Bucket::new(k.clone(), 0, def.empty_subs())),
        }
        let next = rounder.next(&k);
        n += 1;
        if n > MAX_EMPTY || !next.cmp_key(&k).is_gt() {
            break;
        }
        k = next;
    }
    out.extend(it);
    Ok(out)
}

/// Renders histogram buckets (an array, or an object keyed by the key string).
pub fn render_histo(def: &AggDef, keyed: bool, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
    let AggResult::Buckets(b) = r else { return Err(OsError::internal("histogram result of another kind")) };
    let mut arr = Vec::new();
    let mut obj = Map::new();
    for bk in &b.buckets {
        let mut o = Map::new();
        let (k, ks) = b.fmt.key(&bk.key);
        let name = ks.clone().unwrap_or_else(|| match &bk.key {
            Key::Double(d) => java_double(*d),
            other => b.fmt.key_string(other),
        });
        if let Some(s) = ks {
            o.insert("key_as_string".into(), json!(s));
        }
        o.insert("key".into(), if let Key::Double(d) = bk.key { double(d) } else { k });
        o.insert("doc_count".into(), json!(bk.doc_count));
        let o = render_into(&def.subs, &bk.subs, rc, o)?;
        if keyed {
            obj.insert(name, Value::Object(o));
        } else {
            arr.push(Value::Object(o));
        }
    }
    let mut m = Map::new();
    m.insert("buckets".into(), if keyed { Value::Object(obj) } else { Value::Array(arr) });
    Ok(m)
}
