//! `range` and `date_range`: a bucket per requested range (`from` inclusive, `to` exclusive),
//! sorted by (from, to) as OpenSearch's `RangeAggregator` sorts them; a document counts once in
//! each range one of its values falls in. `date_range` bounds are dates or date math in the
//! field's (or the aggregation's) format.

use serde_json::{json, Map, Value};

use super::fmt::{double, java_double, Fmt};
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::{resolve, token, NumKind, SegValues, SourceSpec};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::action::search::date_math;
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

#[derive(Debug, Clone, PartialEq)]
pub struct RangeDef {
    pub key: Option<String>,
    pub from: Option<Value>,
    pub to: Option<Value>,
}

#[derive(Debug, Clone)]
pub struct RangeSpec {
    pub date: bool,
    pub source: SourceSpec,
    pub ranges: Vec<RangeDef>,
    pub keyed: bool,
    pub time_zone: Option<String>,
}

impl RangeSpec {
    pub fn parse(date: bool, name: &str, body: &Map<String, Value>) -> OsResult<RangeSpec> {
        let t = if date { "date_range" } else { "range" };
        let mut s =
            RangeSpec { date, source: SourceSpec::default(), ranges: Vec::new(), keyed: false, time_zone: None };
        for (k, v) in body {
            if s.source.take(t, k, v)? {
                continue;
            }
            match k.as_str() {
                "keyed" => {
                    s.keyed = v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[{t}] keyed doesn't support values of type: {}", token(v)))
                    })?
                }
                "time_zone" if date => s.time_zone = Some(super::source::string(t, k, v)?),
                "ranges" => {
                    let Value::Array(a) = v else {
                        return Err(OsError::parsing(format!(
                            "[{t}] ranges doesn't support values of type: {}",
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
                        let mut d = RangeDef { key: None, from: None, to: None };
                        for (rk, rv) in m {
                            match rk.as_str() {
                                "key" => d.key = Some(super::source::string("range", rk, rv)?),
                                "from" => d.from = Some(rv.clone()).filter(|x| !x.is_null()),
                                "to" => d.to = Some(rv.clone()).filter(|x| !x.is_null()),
                                _ => {
                                    return Err(OsError::parsing(crate::error::unknown_field(
                                        "range",
                                        rk,
                                        &["key", "from", "to"],
                                    )))
                                }
                            }
                        }
                        s.ranges.push(d);
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        t,
                        k,
                        &["field", "script", "missing", "format", "value_type", "ranges", "keyed", "time_zone"],
                    )))
                }
            }
        }
        s.source.require(t, name)?;
        if s.ranges.is_empty() {
            return Err(OsError::illegal(format!("No [ranges] specified for the [{name}] aggregation")));
        }
        Ok(s)
    }
}

/// A range resolved on a shard: bounds in the column's units, and how it prints.
#[derive(Debug, Clone)]
struct Resolved {
    key: Option<String>,
    from: f64,
    to: f64,
}

impl RangeSpec {
    fn resolve_bound(&self, v: &Value, fmt: &Fmt, kind: Option<NumKind>, now: i64, round_up: bool) -> OsResult<f64> {
        if let (Some(NumKind::Date { nanos }), Fmt::Date { format, .. }) = (kind, fmt) {
            let offset = match &self.time_zone {
                Some(z) => date_math::parse_time_zone(z).map_err(OsError::illegal)?,
                None => crate::clock::tz::Zone::utc(),
            };
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let ms = date_math::eval(&text, format, &offset, now, round_up).map_err(|e| {
                OsError::new(
                    crate::error::ErrorKind::Parse,
                    format!("failed to parse date field [{text}] with format [{format}]: [{e}]"),
                )
                .status(400)
            })?;
            return Ok(if nanos { ms as f64 * 1e6 } else { ms as f64 });
        }
        match v {
            Value::Number(n) => n.as_f64().ok_or_else(|| OsError::illegal(format!("bad range bound [{v}]"))),
            Value::String(s) => s.parse::<f64>().map_err(|_| {
                OsError::new(crate::error::ErrorKind::NumberFormat, format!("For input string: \"{s}\"")).status(400)
            }),
            other => Err(OsError::parsing(format!("[range] from/to doesn't support values of type: {}", token(other)))),
        }
    }
}

impl AggSpec for RangeSpec {
    fn type_name(&self) -> &'static str {
        if self.date {
            "date_range"
        } else {
            "range"
        }
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, self.type_name())?;
        let kind = cfg.numeric(self.type_name())?;
        let mut fmt = cfg.fmt.clone();
        if self.date && !matches!(fmt, Fmt::Date { .. }) {
            fmt = Fmt::Date {
                format: self.source.format.clone().unwrap_or_else(|| "strict_date_optional_time||epoch_millis".into()),
                nanos: false,
                zone: None,
            };
        }
        let kind_for_bounds = kind.or(if self.date { Some(NumKind::Date { nanos: false }) } else { None });
        let mut ranges = Vec::with_capacity(self.ranges.len());
        for r in &self.ranges {
            let from = match &r.from {
                None => f64::NEG_INFINITY,
                Some(v) => self.resolve_bound(v, &fmt, kind_for_bounds, env.qc.now_millis, false)?,
            };
            let to = match &r.to {
                None => f64::INFINITY,
                Some(v) => self.resolve_bound(v, &fmt, kind_for_bounds, env.qc.now_millis, false)?,
            };
            ranges.push(Resolved { key: r.key.clone(), from, to });
        }
        ranges.sort_by(|a, b| a.from.total_cmp(&b.from).then(a.to.total_cmp(&b.to)));
        // Counting from points (OpenSearch's filter rewrite): plain `range` over a match_all,
        // ranges that do not overlap.
        let disjoint = ranges.windows(2).all(|w| w[0].to <= w[1].from);
        let points =
            if disjoint && !ranges.is_empty() { super::points_count::Plan::of(def, env, &cfg, false) } else { None };
        Ok(Box::new(RangeCollector {
            points,
            rewrite: super::points_count::RewriteStats::default(),
            cfg_fmt: fmt,
            kind,
            cfg: cfg.clone(),
            ranges,
            counts: Vec::new(),
            subs: Subs::new(def, env)?,
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::Double, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut first: Option<Buckets> = None;
        let mut subs: Vec<Vec<Vec<AggResult>>> = Vec::new();
        for p in parts {
            let AggResult::Buckets(mut b) = p else { continue };
            match &mut first {
                None => {
                    subs = b.buckets.iter_mut().map(|x| vec![std::mem::take(&mut x.subs)]).collect();
                    first = Some(b);
                }
                Some(f) => {
                    for (i, x) in b.buckets.iter_mut().enumerate() {
                        if let (Some(t), Some(s)) = (f.buckets.get_mut(i), subs.get_mut(i)) {
                            t.doc_count += x.doc_count;
                            s.push(std::mem::take(&mut x.subs));
                        }
                    }
                }
            }
        }
        let Some(mut out) = first else { return Ok(self.empty(def)) };
        for (b, s) in out.buckets.iter_mut().zip(subs) {
            b.subs = super::reduce_subs(def, s, rc)?;
        }
        rc.consume(out.buckets.len())?;
        Ok(AggResult::Buckets(out))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("range result of another kind")) };
        let mut arr = Vec::new();
        let mut obj = Map::new();
        // Raw formats (unsigned_long too) print bounds as Java doubles (`*-50.0`).
        let show = |v: f64| -> String {
            if b.fmt.is_raw() {
                java_double(v)
            } else {
                b.fmt.number_string(v).unwrap_or_else(|| java_double(v))
            }
        };
        for bk in &b.buckets {
            let from = bk.from.unwrap_or(f64::NEG_INFINITY);
            let to = bk.to.unwrap_or(f64::INFINITY);
            let key = match &bk.key {
                Key::Str(s) => s.clone(),
                _ => format!(
                    "{}-{}",
                    if from.is_infinite() { "*".into() } else { show(from) },
                    if to.is_infinite() { "*".into() } else { show(to) }
                ),
            };
            let mut o = Map::new();
            if !self.keyed {
                o.insert("key".into(), json!(key));
            }
            let raw = b.fmt.is_raw();
            if from.is_finite() {
                o.insert("from".into(), double(from));
                if !raw {
                    o.insert("from_as_string".into(), json!(show(from)));
                }
            }
            if to.is_finite() {
                o.insert("to".into(), double(to));
                if !raw {
                    o.insert("to_as_string".into(), json!(show(to)));
                }
            }
            o.insert("doc_count".into(), json!(bk.doc_count));
            let o = render_into(&def.subs, &bk.subs, rc, o)?;
            if self.keyed {
                obj.insert(key, Value::Object(o));
            } else {
                arr.push(Value::Object(o));
            }
        }
        let mut m = Map::new();
        m.insert("buckets".into(), if self.keyed { Value::Object(obj) } else { Value::Array(arr) });
        Ok(m)
    }
}

struct RangeCollector {
    /// How segments may be counted from points (top-level, no subs, match_all).
    points: Option<super::points_count::Plan>,
    rewrite: super::points_count::RewriteStats,
    cfg: super::source::Config,
    cfg_fmt: Fmt,
    kind: Option<NumKind>,
    ranges: Vec<Resolved>,
    /// Per (owner, range): `counts[owner * n + i]`.
    counts: Vec<u64>,
    subs: Subs,
}

impl RangeCollector {
    /// Counts segment `seg` from its points when it qualifies; whether it did.
    fn count_points(&mut self, seg: &dyn SegmentView) -> OsResult<bool> {
        use super::points_count::{count, points, Class};
        self.rewrite.segments += 1;
        let Some(plan) = &self.points else { return Ok(false) };
        let Some(p) = points(seg, plan) else { return Ok(false) };
        let ranges = &self.ranges;
        let mut classify = |key: &[u8]| -> Class {
            let v = plan.value(key);
            match ranges.iter().position(|r| v < r.to) {
                None => Class::After,
                Some(i) if v >= ranges[i].from => Class::Bucket(i as i64),
                Some(0) => Class::Before,
                Some(_) => Class::Gap,
            }
        };
        let n = ranges.len();
        if self.counts.len() < n {
            self.counts.resize(n, 0);
        }
        let counts = &mut self.counts;
        count(&p, &mut self.rewrite, &mut classify, &mut |i, c| counts[i as usize] += c)?;
        self.rewrite.optimized += 1;
        Ok(true)
    }
}

impl Collector for RangeCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        if self.count_points(seg)? {
            return Ok(Box::new(super::points_count::Counted));
        }
        Ok(Box::new(RangeLeaf {
            values: self.cfg.open(seg),
            kind: self.kind,
            ranges: &self.ranges,
            counts: &mut self.counts,
            subs: self.subs.leaves(seg, si)?,
            hit: Vec::new(),
            vals: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let n = self.ranges.len();
        let mut buckets = Vec::with_capacity(n);
        for (i, r) in self.ranges.iter().enumerate() {
            let o = owner as usize * n + i;
            let mut b = Bucket::new(
                r.key.clone().map_or(Key::Double(r.from), Key::Str),
                self.counts.get(o).copied().unwrap_or(0),
                self.subs.results(o as u32)?,
            );
            b.from = Some(r.from).filter(|f| f.is_finite());
            b.to = Some(r.to).filter(|t| t.is_finite());
            buckets.push(b);
        }
        Ok(AggResult::Buckets(Buckets { fmt: self.cfg_fmt.clone(), ..Buckets::of(KeyKind::Double, buckets) }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.counts.capacity() * 8 + self.subs.mem_bytes()
    }

    fn debug(&self, add: &mut dyn FnMut(&'static str, Value)) {
        self.rewrite.debug(add)
    }
}

/// A double bound as the smallest integer at or above it (saturating at the long range).
fn int_bound(b: f64) -> i64 {
    if b.is_nan() {
        i64::MAX
    } else if b >= 9.2e18 {
        i64::MAX
    } else if b <= -9.2e18 {
        i64::MIN
    } else {
        b.ceil() as i64
    }
}

struct RangeLeaf<'a> {
    values: SegValues<'a>,
    kind: Option<NumKind>,
    ranges: &'a [Resolved],
    counts: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
    hit: Vec<bool>,
    vals: Vec<i64>,
}

impl LeafCollector for RangeLeaf<'_> {
    fn collect_block(&mut self, docs: &[DocId], owner: u32) -> OsResult<()> {
        let col = match (&self.values, self.kind) {
            (SegValues::Num(r), Some(_)) if self.subs.is_empty() => r.single().copied(),
            _ => None,
        };
        let (Some(col), Some(k)) = (col, self.kind) else {
            for &d in docs {
                self.collect(d, owner, f32::NAN)?;
            }
            return Ok(());
        };
        let n = self.ranges.len();
        let base = owner as usize * n;
        if self.counts.len() < base + n {
            self.counts.resize(base + n, 0);
        }
        let counts = &mut self.counts[base..base + n];
        let ranges = self.ranges;
        if matches!(k, NumKind::Long | NumKind::Date { .. } | NumKind::Bool) {
            // Integer values: the bounds as integers, `[ceil(from), ceil(to))`, branch-free.
            let bounds: Vec<(i64, i64)> = ranges.iter().map(|r| (int_bound(r.from), int_bound(r.to))).collect();
            // The block's values first, then one counting pass per range (each count stays in
            // a register and the comparisons vectorize).
            let vals = &mut self.vals;
            vals.clear();
            super::source::for_block_values(&col, docs, |_, v| vals.push(v));
            for (c, (lo, hi)) in counts.iter_mut().zip(&bounds) {
                *c += vals.iter().filter(|&&v| v >= *lo && v < *hi).count() as u64;
            }
            return Ok(());
        }
        super::source::for_block_values(&col, docs, |_, raw| {
            let v = k.to_f64(raw);
            for (c, rg) in counts.iter_mut().zip(ranges) {
                *c += u64::from(v >= rg.from && v < rg.to);
            }
        });
        Ok(())
    }

    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let (SegValues::Num(r), Some(k)) = (&mut self.values, self.kind) else { return Ok(()) };
        let n = self.ranges.len();
        self.hit.clear();
        self.hit.resize(n, false);
        for &raw in r.values(doc) {
            let v = k.to_f64(raw);
            for (i, rg) in self.ranges.iter().enumerate() {
                if v >= rg.from && v < rg.to {
                    self.hit[i] = true;
                }
            }
        }
        for i in 0..n {
            if self.hit[i] {
                let o = owner as usize * n + i;
                if self.counts.len() <= o {
                    self.counts.resize(o + 1, 0);
                }
                self.counts[o] += 1;
                self.subs.collect(doc, o as u32, score)?;
            }
        }
        Ok(())
    }
}
