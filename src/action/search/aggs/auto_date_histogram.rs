//! `auto_date_histogram`: a date histogram that picks its interval so that at most `buckets`
//! buckets come back (OpenSearch's `AutoDateHistogramAggregator` and the reduce of
//! `InternalAutoDateHistogram`). A shard records its matches, picks the finest rounding whose
//! bucket count and time span fit, then replays the matches into the sub-aggregations; the
//! reduce re-rounds to the coarsest shard rounding, fills empty buckets, coarsens while too many,
//! and finally merges runs of consecutive buckets (`7d`, `3M`, ...).

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value};

use super::fmt::Fmt;
use super::histogram::render_histo;
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::{resolve, token, NumKind, SegValues, SourceSpec, VType};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, Subs};
use crate::action::search::rounding::{CalendarUnit, Interval, Rounding};
use crate::clock::tz::Zone;
use crate::engine::query::{Searcher, SegmentView};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// OpenSearch's `RoundingInfo`s: unit, rough duration, abbreviation, inner intervals.
const INFOS: [(CalendarUnit, i64, &str, &[i64]); 6] = [
    (CalendarUnit::Second, 1000, "s", &[1, 5, 10, 30]),
    (CalendarUnit::Minute, 60_000, "m", &[1, 5, 10, 30]),
    (CalendarUnit::Hour, 3_600_000, "h", &[1, 3, 12]),
    (CalendarUnit::Day, 86_400_000, "d", &[1, 7]),
    (CalendarUnit::Month, 30 * 86_400_000, "M", &[1, 3]),
    (CalendarUnit::Year, 365 * 86_400_000, "y", &[1, 5, 10, 20, 50, 100]),
];

fn max_inner(idx: usize) -> i64 {
    INFOS[idx].3.last().copied().unwrap_or(1)
}

#[derive(Debug, Clone)]
pub struct AutoDateHistogramSpec {
    pub source: SourceSpec,
    pub target: usize,
    pub min_idx: usize,
    pub zone: Zone,
}

impl AutoDateHistogramSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<AutoDateHistogramSpec> {
        let mut s = AutoDateHistogramSpec { source: SourceSpec::default(), target: 10, min_idx: 0, zone: Zone::utc() };
        for (k, v) in body {
            if s.source.take("auto_date_histogram", k, v)? {
                continue;
            }
            match k.as_str() {
                "buckets" => {
                    let n = v.as_i64().ok_or_else(|| {
                        OsError::parsing(format!(
                            "[auto_date_histogram] buckets doesn't support values of type: {}",
                            token(v)
                        ))
                    })?;
                    if n <= 0 {
                        return Err(OsError::illegal(format!(
                            "[buckets] must be greater than 0. Found [{n}] in [{name}]"
                        )));
                    }
                    s.target = n as usize;
                }
                "minimum_interval" => {
                    let m = super::source::string("auto_date_histogram", k, v)?;
                    s.min_idx = match m.as_str() {
                        "second" => 0,
                        "minute" => 1,
                        "hour" => 2,
                        "day" => 3,
                        "month" => 4,
                        "year" => 5,
                        _ => {
                            return Err(OsError::illegal(format!(
                                "minimum_interval must be one of [second, minute, hour, day, month, year] but was [{m}]"
                            )))
                        }
                    };
                }
                "time_zone" => {
                    s.zone = match v.as_i64() {
                        Some(h) => Zone::of_hours(h).map_err(OsError::illegal)?,
                        None => Zone::parse(&super::source::string("auto_date_histogram", k, v)?)
                            .map_err(OsError::illegal)?,
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "auto_date_histogram",
                        k,
                        &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "buckets",
                            "minimum_interval",
                            "time_zone",
                        ],
                    )))
                }
            }
        }
        s.source.require("auto_date_histogram", name)?;
        Ok(s)
    }

    fn rounding(&self, idx: usize) -> Rounding {
        Rounding::new(Interval::Calendar(INFOS[idx].0), self.zone.clone(), 0)
    }

    fn zone_id(&self) -> Option<String> {
        (self.zone.id() != "UTC" && self.zone.id() != "Z").then(|| self.zone.id().to_string())
    }
}

impl AggSpec for AutoDateHistogramSpec {
    fn type_name(&self) -> &'static str {
        "auto_date_histogram"
    }

    fn histogram_min_doc_count(&self) -> Option<u64> {
        Some(0)
    }

    /// The next value of the result's rounding unit (`7d` buckets: the next day), as
    /// `InternalAutoDateHistogram.nextKey`.
    fn next_key(&self, key: &Key, interval: Option<&str>) -> Option<Key> {
        let unit = interval.and_then(|i| i.chars().last())?;
        let idx = INFOS.iter().position(|info| info.2.starts_with(unit))?;
        Some(Key::Long(self.rounding(idx).next_rounding_value(key.as_f64() as i64)))
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let mut cfg = resolve(&self.source, env.qc, "auto_date_histogram")?;
        let nanos = matches!(cfg.vt, Some(VType::Num(NumKind::Date { nanos: true })));
        let num = cfg.numeric("auto_date_histogram")?;
        cfg.fmt = match cfg.fmt {
            Fmt::Date { format, .. } => Fmt::Date { format, nanos: false, zone: self.zone_id() },
            _ => Fmt::Date {
                format: self.source.format.clone().unwrap_or_else(|| "strict_date_optional_time".into()),
                nanos: false,
                zone: self.zone_id(),
            },
        };
        let points = super::points_count::Plan::of(def, env, &cfg, false).filter(|p| p.kind != NumKind::Double);
        Ok(Box::new(AutoCollector {
            points,
            rewrite: super::points_count::RewriteStats::default(),
            counted: Vec::new(),
            single: env.top_query.is_some(),
            surviving: 0,
            spec: self.clone(),
            cfg,
            num,
            nanos,
            searcher: env.searcher.clone(),
            docs: Vec::new(),
            subs: Subs::new(def, env)?,
            built: None,
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets {
            interval: Some(self.min_idx.to_string()),
            ..Buckets::of(KeyKind::Long, Vec::new())
        })
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut idx = self.min_idx;
        let mut fmt = None;
        let mut all = Vec::new();
        for p in parts {
            let AggResult::Buckets(b) = p else { continue };
            if let Some(i) = b.interval.as_deref().and_then(|s| s.parse::<usize>().ok()) {
                idx = idx.max(i.min(INFOS.len() - 1));
            }
            fmt.get_or_insert(b.fmt);
            all.extend(b.buckets);
        }
        let mut buckets = rebucket(def, &self.rounding(idx), all, rc)?;
        let mut label = format!("{}", idx);
        if rc.final_reduce {
            // Empty buckets between the first and the last key.
            if let (Some(first), Some(last)) =
                (buckets.first().map(|b| b.key.as_f64() as i64), buckets.last().map(|b| b.key.as_f64() as i64))
            {
                let r = self.rounding(idx);
                let have: std::collections::HashSet<i64> = buckets.iter().map(|b| b.key.as_f64() as i64).collect();
                let mut k = r.next_rounding_value(first);
                let mut n = 0;
                while k < last && n < 1_000_000 {
                    if !have.contains(&k) {
                        buckets.push(Bucket::new(Key::Long(k), 0, def.empty_subs()));
                    }
                    k = r.next_rounding_value(k);
                    n += 1;
                }
                buckets.sort_by(|a, b| a.key.cmp_key(&b.key));
            }
            while buckets.len() as i64 > self.target as i64 * max_inner(idx) && idx < INFOS.len() - 1 {
                idx += 1;
                buckets = rebucket(def, &self.rounding(idx), buckets, rc)?;
            }
            let mut inner = 1;
            if buckets.len() > self.target {
                for &i in INFOS[idx].3 {
                    let n = buckets.len().div_ceil(i as usize);
                    if n <= self.target {
                        inner = i;
                        buckets = merge_consecutive(def, buckets, i as usize, rc)?;
                        break;
                    }
                }
            }
            label = format!("{}{}", inner, INFOS[idx].2);
            rc.consume(buckets.len())?;
        }
        Ok(AggResult::Buckets(Buckets {
            interval: Some(label),
            fmt: fmt.unwrap_or(Fmt::Raw),
            ..Buckets::of(KeyKind::Long, buckets)
        }))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let mut m = render_histo(def, false, r, rc)?;
        if let AggResult::Buckets(b) = r {
            m.insert("interval".into(), json!(b.interval.clone().unwrap_or_default()));
        }
        Ok(m)
    }
}

/// Re-rounds bucket keys with `r`, merging equal keys (sub-aggregations reduced).
fn rebucket(def: &AggDef, r: &Rounding, buckets: Vec<Bucket>, rc: &mut ReduceCtx) -> OsResult<Vec<Bucket>> {
    let mut by: BTreeMap<i64, (u64, Vec<Vec<AggResult>>)> = BTreeMap::new();
    for b in buckets {
        let k = r.round(b.key.as_f64() as i64);
        let e = by.entry(k).or_default();
        e.0 += b.doc_count;
        e.1.push(b.subs);
    }
    let mut out = Vec::with_capacity(by.len());
    for (k, (n, subs)) in by {
        let subs = if subs.len() == 1 {
            subs.into_iter().next().unwrap_or_default()
        } else {
            super::reduce_subs(def, subs, rc)?
        };
        out.push(Bucket::new(Key::Long(k), n, subs));
    }
    Ok(out)
}

/// Merges runs of `n` consecutive buckets (keyed by the first of each run).
fn merge_consecutive(def: &AggDef, buckets: Vec<Bucket>, n: usize, rc: &mut ReduceCtx) -> OsResult<Vec<Bucket>> {
    let mut out = Vec::new();
    let mut it = buckets.into_iter().peekable();
    while it.peek().is_some() {
        let run: Vec<Bucket> = it.by_ref().take(n).collect();
        let key = run[0].key.clone();
        let count = run.iter().map(|b| b.doc_count).sum();
        let subs = super::reduce_subs(def, run.into_iter().map(|b| b.subs).collect(), rc)?;
        out.push(Bucket::new(key, count, subs));
    }
    Ok(out)
}

struct AutoCollector {
    /// How segments may be counted from points (top-level, no subs, match_all).
    points: Option<super::points_count::Plan>,
    rewrite: super::points_count::RewriteStats,
    /// Owner 0's values (millis) counted from points, with their document counts.
    counted: Vec<(i64, u64)>,
    /// A top-level aggregation (OpenSearch's `FromSingle`: one owning bucket).
    single: bool,
    /// The buckets the shard's result kept (the profile's `surviving_buckets`).
    surviving: u64,
    spec: AutoDateHistogramSpec,
    cfg: super::source::Config,
    num: Option<NumKind>,
    nanos: bool,
    searcher: Searcher,
    /// Per segment: the matches in order, with their owner and first value (millis).
    docs: Vec<Vec<(DocId, u32, Vec<i64>)>>,
    subs: Subs,
    /// Per owner: (rounding index, key -> (bucket ordinal, count)), once replayed.
    built: Option<HashMap<u32, (usize, BTreeMap<i64, (u32, u64)>)>>,
}

impl AutoCollector {
    /// Picks each owner's rounding and replays the matches into the sub-aggregations.
    fn build(&mut self) -> OsResult<()> {
        let mut span: HashMap<u32, (i64, i64)> = HashMap::new();
        for &(v, _) in &self.counted {
            let e = span.entry(0).or_insert((v, v));
            e.0 = e.0.min(v);
            e.1 = e.1.max(v);
        }
        for seg in &self.docs {
            for (_, owner, vals) in seg {
                for &v in vals {
                    let e = span.entry(*owner).or_insert((v, v));
                    e.0 = e.0.min(v);
                    e.1 = e.1.max(v);
                }
            }
        }
        let mut built: HashMap<u32, (usize, BTreeMap<i64, (u32, u64)>)> = HashMap::new();
        for (&owner, &(lo, hi)) in &span {
            let mut idx = self.spec.min_idx;
            loop {
                let fits_span = (hi - lo) <= self.spec.target as i64 * INFOS[idx].1 * max_inner(idx);
                let r = self.spec.rounding(idx);
                let mut keys = std::collections::BTreeSet::new();
                if fits_span || idx == INFOS.len() - 1 {
                    if owner == 0 {
                        keys.extend(self.counted.iter().map(|&(v, _)| r.round(v)));
                    }
                    for seg in &self.docs {
                        for (_, o, vals) in seg {
                            if *o == owner {
                                keys.extend(vals.iter().map(|&v| r.round(v)));
                            }
                        }
                    }
                }
                let fits = fits_span && keys.len() as i64 <= self.spec.target as i64 * max_inner(idx);
                if fits || idx == INFOS.len() - 1 {
                    built.insert(owner, (idx, keys.into_iter().map(|k| (k, (0, 0))).collect()));
                    break;
                }
                idx += 1;
            }
        }
        // Bucket ordinals, then the replay in document order.
        let mut next = 0u32;
        let mut owners: Vec<u32> = built.keys().copied().collect();
        owners.sort_unstable();
        for o in &owners {
            if let Some((_, keys)) = built.get_mut(o) {
                for slot in keys.values_mut() {
                    slot.0 = next;
                    next += 1;
                }
            }
        }
        let roundings: HashMap<u32, Rounding> = built.iter().map(|(o, (i, _))| (*o, self.spec.rounding(*i))).collect();
        if let (Some(r), Some((_, keys))) = (roundings.get(&0), built.get_mut(&0)) {
            for &(v, n) in &self.counted {
                if let Some(slot) = keys.get_mut(&r.round(v)) {
                    slot.1 += n;
                }
            }
        }
        self.counted.clear();
        self.surviving = built.values().map(|(_, keys)| keys.len() as u64).sum();
        let segments = self.searcher.segments.clone();
        for (si, seg) in segments.iter().enumerate() {
            let Some(docs) = self.docs.get(si) else { continue };
            if docs.is_empty() {
                continue;
            }
            let mut leaves = self.subs.leaves(seg.as_ref(), si)?;
            for (doc, owner, vals) in docs {
                let (Some(r), Some((_, keys))) = (roundings.get(owner), built.get_mut(owner)) else { continue };
                let mut prev = None;
                for &v in vals {
                    let k = r.round(v);
                    if prev == Some(k) {
                        continue;
                    }
                    prev = Some(k);
                    if let Some(slot) = keys.get_mut(&k) {
                        slot.1 += 1;
                        leaves.collect(*doc, slot.0, f32::NAN)?;
                    }
                }
            }
        }
        self.docs.clear();
        self.built = Some(built);
        Ok(())
    }
}

impl AutoCollector {
    /// Reads segment `seg`'s values from its points when it qualifies (each distinct value
    /// once, with its count); whether it did.
    fn count_points(&mut self, seg: &dyn SegmentView) -> OsResult<bool> {
        use super::points_count::{count, points, Class};
        self.rewrite.segments += 1;
        let Some(plan) = &self.points else { return Ok(false) };
        let Some(p) = points(seg, plan) else { return Ok(false) };
        let counted = &mut self.counted;
        count(&p, &mut self.rewrite, &mut |key| Class::Bucket(plan.raw(key)), &mut |v, n| counted.push((v, n)))?;
        self.rewrite.optimized += 1;
        Ok(true)
    }
}

impl Collector for AutoCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        if self.count_points(seg)? {
            return Ok(Box::new(super::points_count::Counted));
        }
        if self.docs.len() <= si {
            self.docs.resize_with(si + 1, Vec::new);
        }
        Ok(Box::new(AutoLeaf { values: self.cfg.open(seg), num: self.num, nanos: self.nanos, out: &mut self.docs[si] }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        if self.built.is_none() {
            self.build()?;
        }
        let entry = self.built.as_ref().and_then(|b| b.get(&owner)).cloned();
        let Some((idx, keys)) = entry else {
            return Ok(AggResult::Buckets(Buckets {
                interval: Some(self.spec.min_idx.to_string()),
                fmt: self.cfg.fmt.clone(),
                ..Buckets::of(KeyKind::Long, Vec::new())
            }));
        };
        let mut buckets = Vec::with_capacity(keys.len());
        for (k, (ord, count)) in keys {
            buckets.push(Bucket::new(Key::Long(k), count, self.subs.results(ord)?));
        }
        Ok(AggResult::Buckets(Buckets {
            interval: Some(idx.to_string()),
            fmt: self.cfg.fmt.clone(),
            ..Buckets::of(KeyKind::Long, buckets)
        }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.docs.iter().map(|d| d.capacity() * 40).sum::<usize>()
            + self.counted.capacity() * 16
            + self.subs.mem_bytes()
    }

    fn debug(&self, add: &mut dyn FnMut(&'static str, Value)) {
        add("surviving_buckets", serde_json::json!(self.surviving));
        self.rewrite.debug(add)
    }

    fn profile_type(&self) -> Option<&'static str> {
        Some(if self.single {
            "AutoDateHistogramAggregator.FromSingle"
        } else {
            "AutoDateHistogramAggregator.FromMany"
        })
    }
}

struct AutoLeaf<'a> {
    values: SegValues<'a>,
    num: Option<NumKind>,
    nanos: bool,
    out: &'a mut Vec<(DocId, u32, Vec<i64>)>,
}

impl LeafCollector for AutoLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, _score: f32) -> OsResult<()> {
        let (SegValues::Num(r), Some(_)) = (&mut self.values, self.num) else { return Ok(()) };
        let vals: Vec<i64> =
            r.values(doc).iter().map(|&v| if self.nanos { v.div_euclid(1_000_000) } else { v }).collect();
        if !vals.is_empty() {
            self.out.push((doc, owner, vals));
        }
        Ok(())
    }
}
