//! `variable_width_histogram`: numeric values clustered into about `buckets` buckets, as
//! OpenSearch's `VariableWidthHistogramAggregator`. Each shard buffers its first
//! `initial_buffer` values, splits them (sorted) into `shard_size * 3 / 4` equal-count clusters,
//! then puts each later value in the nearest cluster, or in a new cluster when it is further
//! than twice the average distance between clusters (up to `shard_size` clusters). The reduce
//! merges buckets with equal centroids, then repeatedly the two closest centroids until
//! `buckets` remain; the final reduce also merges buckets with the same `min` and splits
//! overlapping bounds at their midpoint (`InternalVariableWidthHistogram`). A bucket's `key`
//! is its centroid.
//!
//! Sub-aggregations are deferred, as OpenSearch's `MergingBucketsDeferringCollector`: each
//! collected value is recorded with its document and the cluster it went to (a buffer slot
//! before the buffer is clustered, then a stable cluster id that survives the clusters moving in
//! their sorted arrays); once collection ends the clusters get their bucket ordinals and the
//! records are replayed, segment by segment in collection order, into the sub-aggregations. A
//! document is fed to the cluster its value joined, so a bucket's sub-aggregations see exactly
//! the documents counted in it. (OpenSearch 3.3 maps the clustered buffer with the inverse
//! permutation, so its sub-aggregations can see documents of another bucket: its issue 16708;
//! this node gives the documents of the bucket.)

use serde_json::{json, Map, Value};

use super::fmt::{double, Fmt};
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::{resolve, token, NumKind, SegValues, SourceSpec, VType};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, Subs};
use crate::engine::query::{Searcher, SegmentView};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

const TYPE: &str = "variable_width_histogram";

#[derive(Debug, Clone)]
pub struct VariableWidthSpec {
    pub source: SourceSpec,
    pub buckets: usize,
    pub shard_size: usize,
    pub initial_buffer: usize,
}

fn int(k: &str, v: &Value) -> OsResult<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .filter(|n| i32::try_from(*n).is_ok())
        .ok_or_else(|| OsError::parsing(format!("[{TYPE}] {k} doesn't support values of type: {}", token(v))))
}

impl VariableWidthSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<VariableWidthSpec> {
        let mut source = SourceSpec::default();
        let (mut buckets, mut shard_size, mut initial_buffer) = (10i64, None, None);
        for (k, v) in body {
            if source.take(TYPE, k, v)? {
                continue;
            }
            match k.as_str() {
                "buckets" => buckets = int(k, v)?,
                "shard_size" => shard_size = Some(int(k, v)?),
                "initial_buffer" => initial_buffer = Some(int(k, v)?),
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        TYPE,
                        k,
                        &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "buckets",
                            "shard_size",
                            "initial_buffer",
                        ],
                    )))
                }
            }
        }
        // The builder's setters, then `innerBuild`'s checks.
        let at_least = |n: i64, min: i64, what: &str| {
            if n < min {
                Err(OsError::illegal(format!("{what} must be greater than [{}] for [{name}]", min - 1)))
            } else {
                Ok(n as usize)
            }
        };
        let buckets = at_least(buckets, 1, "buckets")?;
        let shard_size = at_least(shard_size.unwrap_or(buckets as i64 * 50), 2, "shard_size")?;
        let initial_buffer =
            at_least(initial_buffer.unwrap_or_else(|| (shard_size as i64 * 10).min(50_000)), 1, "initial_buffer")?;
        if initial_buffer < buckets {
            return Err(OsError::illegal(format!(
                "initial_buffer must be at least buckets but was [{initial_buffer}<{buckets}] for [{name}]"
            )));
        }
        if shard_size * 3 / 4 < buckets {
            return Err(OsError::illegal(format!(
                "3/4 of shard_size must be at least buckets but was [{}<{buckets}] for [{name}]",
                shard_size * 3 / 4
            )));
        }
        source.require(TYPE, name)?;
        Ok(VariableWidthSpec { source, buckets, shard_size, initial_buffer })
    }
}

/// The clusters of one owning bucket, sorted by centroid. `ids` are the clusters' stable ids
/// (their creation order), moved along with them.
#[derive(Debug, Default, Clone, PartialEq)]
struct Clusters {
    mins: Vec<f64>,
    maxes: Vec<f64>,
    centroids: Vec<f64>,
    sizes: Vec<f64>,
    ids: Vec<u32>,
    avg_distance: f64,
}

impl Clusters {
    /// `MergeBucketsPhase`'s start: the buffered values, sorted (stably), in clusters of
    /// `ceil(len / count)` values. Also gives each buffer slot's cluster id.
    fn from_buffer(buffer: &[f64], count: usize) -> (Clusters, Vec<u32>) {
        let mut c = Clusters::default();
        let mut order: Vec<usize> = (0..buffer.len()).collect();
        order.sort_by(|&a, &b| buffer[a].total_cmp(&buffer[b]));
        let per =
            if count == 0 { i32::MAX as usize } else { ((buffer.len() as f64 / count as f64).ceil() as usize).max(1) };
        let mut slots = vec![0u32; buffer.len()];
        let mut ord = 0;
        for (i, &slot) in order.iter().enumerate() {
            let v = buffer[slot];
            if ord == c.centroids.len() {
                c.push(v);
            } else {
                c.add(ord, v);
            }
            slots[slot] = c.ids[ord];
            if (i + 1) % per == 0 {
                ord += 1;
            }
        }
        if buffer.len() > 1 {
            c.update_avg();
        }
        (c, slots)
    }

    fn push(&mut self, v: f64) {
        self.mins.push(v);
        self.maxes.push(v);
        self.centroids.push(v);
        self.sizes.push(1.0);
        self.ids.push(self.ids.len() as u32);
    }
    fn add(&mut self, i: usize, v: f64) {
        self.maxes[i] = self.maxes[i].max(v);
        self.mins[i] = self.mins[i].min(v);
        let size = self.sizes[i];
        self.centroids[i] = (self.centroids[i] * size + v) / (size + 1.0);
        self.sizes[i] += 1.0;
    }

    fn update_avg(&mut self) {
        let n = self.centroids.len();
        self.avg_distance = (self.centroids[n - 1] - self.centroids[0]) / (n as f64 - 1.0);
    }

    /// `BinarySearcher.search`: the index of the centroid closest to `v`.
    fn nearest(&self, v: f64) -> usize {
        let c = &self.centroids;
        let cmp = |i: usize| c[i].partial_cmp(&v).unwrap_or(std::cmp::Ordering::Equal);
        let closest = |a: usize, b: usize| if (c[a] - v).abs() < (c[b] - v).abs() { a } else { b };
        let (mut from, mut to) = (0i64, c.len() as i64 - 1);
        while from < to {
            let mid = ((from + to) / 2) as usize;
            match cmp(mid) {
                std::cmp::Ordering::Equal => return mid,
                std::cmp::Ordering::Less => {
                    if (mid as i64) < to {
                        if cmp(mid + 1) == std::cmp::Ordering::Greater {
                            return closest(mid, mid + 1);
                        }
                    } else {
                        return mid;
                    }
                    from = mid as i64 + 1;
                }
                std::cmp::Ordering::Greater => {
                    if (mid as i64) > from {
                        if cmp(mid - 1) == std::cmp::Ordering::Less {
                            return closest(mid, mid - 1);
                        }
                    } else if mid == 0 {
                        return mid;
                    }
                    to = mid as i64 - 1;
                }
            }
        }
        from.max(0) as usize
    }

    /// `MergeBucketsPhase.collectValue`: the id of the cluster `v` joins.
    fn collect(&mut self, v: f64, shard_size: usize) -> u32 {
        let mut b = self.nearest(v);
        let distance = (self.centroids[b] - v).abs();
        if distance > 2.0 * self.avg_distance && self.centroids.len() < shard_size {
            let bigger = v > self.centroids[b];
            self.push(v);
            if bigger {
                b += 1;
            }
            // Move the new (last) cluster to `b`.
            for vec in [&mut self.mins, &mut self.maxes, &mut self.centroids, &mut self.sizes] {
                let last = vec.pop().unwrap_or(v);
                vec.insert(b, last);
            }
            let id = self.ids.pop().unwrap_or_default();
            self.ids.insert(b, id);
            self.update_avg();
        } else {
            self.add(b, v);
            if b == 0 || b == self.centroids.len() - 1 {
                self.update_avg();
            }
        }
        self.ids[b]
    }
}

/// Where one collected value went: a buffer slot, or (past the buffer) a cluster id.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tag {
    Slot(u32),
    Cluster(u32),
}

/// A value collected for the sub-aggregations, replayed once the clusters are final.
#[derive(Debug, Clone, Copy)]
struct Event {
    doc: DocId,
    owner: u32,
    tag: Tag,
    score: f32,
}

/// The collection phase of one owning bucket; once clustered, the buffer slots' cluster ids.
#[derive(Debug)]
enum Phase {
    Buffer(Vec<f64>),
    Merge(Clusters, Vec<u32>),
}

impl Phase {
    fn collect(&mut self, v: f64, spec: &VariableWidthSpec) -> Tag {
        match self {
            Phase::Buffer(buf) => {
                let slot = buf.len() as u32;
                if buf.len() < spec.initial_buffer {
                    buf.push(v);
                }
                if buf.len() == spec.initial_buffer {
                    let (c, slots) = Clusters::from_buffer(buf, spec.shard_size * 3 / 4);
                    *self = Phase::Merge(c, slots);
                }
                Tag::Slot(slot)
            }
            Phase::Merge(c, _) => Tag::Cluster(c.collect(v, spec.shard_size)),
        }
    }

    /// The final clusters and the buffer slots' cluster ids.
    fn finish(&self, spec: &VariableWidthSpec) -> (Clusters, Vec<u32>) {
        match self {
            Phase::Buffer(buf) => Clusters::from_buffer(buf, spec.shard_size * 3 / 4),
            Phase::Merge(c, slots) => (c.clone(), slots.clone()),
        }
    }
}

impl AggSpec for VariableWidthSpec {
    fn type_name(&self) -> &'static str {
        TYPE
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, TYPE)?;
        let kind = match &cfg.vt {
            Some(VType::Num(k @ (NumKind::Long | NumKind::Double | NumKind::Scaled(_) | NumKind::Unsigned))) => {
                Some(*k)
            }
            None => None,
            _ => return Err(super::source::unsupported(&cfg, TYPE)),
        };
        Ok(Box::new(VwCollector {
            spec: self.clone(),
            cfg,
            kind,
            phases: Vec::new(),
            scratch: Vec::new(),
            nested: env.qc.nested_scope.is_some(),
            searcher: env.searcher.clone(),
            events: Vec::new(),
            subs: Subs::new(def, env)?,
            built: None,
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::Double, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut fmt = Fmt::Raw;
        let mut all: Vec<Bucket> = Vec::new();
        for p in parts {
            if let AggResult::Buckets(b) = p {
                if !b.buckets.is_empty() {
                    fmt = b.fmt;
                }
                all.extend(b.buckets);
            }
        }
        let final_reduce = rc.final_reduce;
        let buckets = reduce_buckets(all, self.buckets, final_reduce, &mut |subs| super::reduce_subs(def, subs, rc))?;
        rc.consume(buckets.len())?;
        Ok(AggResult::Buckets(Buckets { fmt, ..Buckets::of(KeyKind::Double, buckets) }))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("histogram result of another kind")) };
        let mut arr = Vec::with_capacity(b.buckets.len());
        for bk in &b.buckets {
            let mut o = Map::new();
            let (min, max) = (bk.from.unwrap_or(f64::NAN), bk.to.unwrap_or(f64::NAN));
            for (name, v) in [("min", min), ("key", bk.key.as_f64()), ("max", max)] {
                o.insert(name.into(), double(v));
                if let Some(s) = b.fmt.number_string(v) {
                    o.insert(format!("{name}_as_string"), json!(s));
                }
            }
            o.insert("doc_count".into(), json!(bk.doc_count));
            arr.push(Value::Object(super::render_into(&def.subs, &bk.subs, rc, o)?));
        }
        let mut m = Map::new();
        m.insert("buckets".into(), Value::Array(arr));
        Ok(m)
    }
}

fn centroid(b: &Bucket) -> f64 {
    b.key.as_f64()
}

/// Reduces the sub-aggregations of buckets merged into one.
type SubReduce<'a> = dyn FnMut(Vec<Vec<AggResult>>) -> OsResult<Vec<AggResult>> + 'a;

/// `reduceBucket`: counts add, bounds widen, the centroid is the count-weighted mean, the
/// sub-aggregations reduce.
fn merge(group: &[Bucket], subs: &mut SubReduce<'_>) -> OsResult<Bucket> {
    let (mut count, mut min, mut max, mut sum) = (0u64, f64::INFINITY, f64::NEG_INFINITY, 0.0);
    for b in group {
        count += b.doc_count;
        min = min.min(b.from.unwrap_or(f64::INFINITY));
        max = max.max(b.to.unwrap_or(f64::NEG_INFINITY));
        sum += b.doc_count as f64 * centroid(b);
    }
    let subs = subs(group.iter().map(|b| b.subs.clone()).collect())?;
    Ok(Bucket { from: Some(min), to: Some(max), ..Bucket::new(Key::Double(sum / count as f64), count, subs) })
}

/// Merges each range of `plan` (inclusive start and end indices) into one bucket.
fn apply_plan(buckets: Vec<Bucket>, plan: &[(usize, usize)], subs: &mut SubReduce<'_>) -> OsResult<Vec<Bucket>> {
    plan.iter().map(|&(s, e)| if s == e { Ok(buckets[s].clone()) } else { merge(&buckets[s..=e], subs) }).collect()
}

/// `InternalVariableWidthHistogram.reduce`.
fn reduce_buckets(
    mut all: Vec<Bucket>,
    target: usize,
    final_reduce: bool,
    subs: &mut SubReduce<'_>,
) -> OsResult<Vec<Bucket>> {
    // Buckets with equal centroids (from different shards) merge.
    all.sort_by(|a, b| centroid(a).total_cmp(&centroid(b)));
    let mut reduced: Vec<Bucket> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let mut j = i + 1;
        while j < all.len() && centroid(&all[j]) == centroid(&all[i]) {
            j += 1;
        }
        reduced.push(if j == i + 1 { all[i].clone() } else { merge(&all[i..j], subs)? });
        i = j;
    }
    // Then the two closest centroids, until `target` remain.
    let mut ranges: Vec<(usize, usize, f64, u64)> =
        reduced.iter().enumerate().map(|(i, b)| (i, i, centroid(b), b.doc_count)).collect();
    while ranges.len() > target {
        let mut closest = 0;
        let mut smallest = f64::INFINITY;
        for i in 0..ranges.len() - 1 {
            let d = ranges[i + 1].2 - ranges[i].2;
            if d < smallest {
                closest = i;
                smallest = d;
            }
        }
        let next = ranges.remove(closest + 1);
        let r = &mut ranges[closest];
        r.0 = r.0.min(next.0);
        r.1 = r.1.max(next.1);
        if r.3 + next.3 > 0 {
            r.2 = (r.2 * r.3 as f64 + next.2 * next.3 as f64) / (r.3 + next.3) as f64;
            r.3 += next.3;
        }
    }
    let plan: Vec<(usize, usize)> = ranges.iter().map(|r| (r.0, r.1)).collect();
    let mut buckets = apply_plan(reduced, &plan, subs)?;
    if final_reduce {
        // Buckets with the same min merge; overlapping bounds meet at their midpoint.
        let mut plan: Vec<(usize, usize)> = Vec::new();
        for (i, b) in buckets.iter().enumerate() {
            match plan.last_mut() {
                Some(last) if buckets[last.0].from == b.from => last.1 = i,
                _ => plan.push((i, i)),
            }
        }
        buckets = apply_plan(buckets, &plan, subs)?;
        for i in 1..buckets.len() {
            let (prev_max, cur_min) = (buckets[i - 1].to.unwrap_or(f64::NAN), buckets[i].from.unwrap_or(f64::NAN));
            if cur_min < prev_max {
                let mid = (prev_max + cur_min) / 2.0;
                buckets[i].from = Some(mid);
                buckets[i - 1].to = Some(mid);
            }
        }
    }
    Ok(buckets)
}

struct VwCollector {
    spec: VariableWidthSpec,
    cfg: super::source::Config,
    kind: Option<NumKind>,
    phases: Vec<Phase>,
    scratch: Vec<i64>,
    /// The documents are nested documents (the segments' nested views are replayed).
    nested: bool,
    searcher: Searcher,
    /// Per segment, the collected values in order (only with sub-aggregations).
    events: Vec<Vec<Event>>,
    subs: Subs,
    /// Per owner: its final clusters and the bucket ordinal of its first one.
    built: Option<Vec<(Clusters, u32)>>,
}

/// The bucket ordinals (`base` + the cluster's position) of each buffer slot and cluster id.
fn ord_maps(c: &Clusters, slots: &[u32], base: u32) -> (Vec<u32>, Vec<u32>) {
    let mut by_id = vec![base; c.ids.len()];
    for (pos, &id) in c.ids.iter().enumerate() {
        if let Some(o) = by_id.get_mut(id as usize) {
            *o = base + pos as u32;
        }
    }
    let slots = slots.iter().map(|&id| by_id.get(id as usize).copied().unwrap_or(base)).collect();
    (slots, by_id)
}

impl VwCollector {
    /// Fixes every owner's clusters and bucket ordinals, then replays the recorded values into
    /// the sub-aggregations.
    fn build(&mut self) -> OsResult<()> {
        let mut built = Vec::with_capacity(self.phases.len());
        // Per owner: buffer slot -> bucket ordinal, cluster id -> bucket ordinal.
        let mut maps: Vec<(Vec<u32>, Vec<u32>)> = Vec::with_capacity(self.phases.len());
        let mut base = 0u32;
        for p in &self.phases {
            let (c, slots) = p.finish(&self.spec);
            let n = c.ids.len() as u32;
            maps.push(ord_maps(&c, &slots, base));
            built.push((c, base));
            base += n;
        }
        let events = std::mem::take(&mut self.events);
        let segs = self.searcher.segments.clone();
        for (si, evs) in events.iter().enumerate() {
            if evs.is_empty() {
                continue;
            }
            let top: &dyn SegmentView =
                segs.get(si).ok_or_else(|| OsError::internal(format!("no segment {si}")))?.as_ref();
            let seg = if self.nested { top.with_nested().unwrap_or(top) } else { top };
            let mut leaves = self.subs.leaves(seg, si)?;
            for e in evs {
                let Some((slots, by_id)) = maps.get(e.owner as usize) else { continue };
                let ord = match e.tag {
                    Tag::Slot(i) => slots.get(i as usize),
                    Tag::Cluster(id) => by_id.get(id as usize),
                };
                if let Some(&ord) = ord {
                    leaves.collect(e.doc, ord, e.score)?;
                }
            }
        }
        self.built = Some(built);
        Ok(())
    }
}

impl Collector for VwCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let VwCollector { spec, cfg, kind, phases, scratch, events, subs, .. } = self;
        let events = if subs.cols.is_empty() {
            None
        } else {
            if events.len() <= si {
                events.resize_with(si + 1, Vec::new);
            }
            Some(&mut events[si])
        };
        Ok(Box::new(VwLeaf { spec, kind: *kind, phases, scratch, values: cfg.open(seg), events }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        if self.built.is_none() {
            self.build()?;
        }
        let (clusters, base) = match self.built.as_ref().and_then(|b| b.get(owner as usize)) {
            Some((c, base)) => (c.clone(), *base),
            None => (Clusters::default(), 0),
        };
        let mut buckets = Vec::with_capacity(clusters.centroids.len());
        for i in 0..clusters.centroids.len() {
            let subs = if self.subs.cols.is_empty() { Vec::new() } else { self.subs.results(base + i as u32)? };
            buckets.push(Bucket {
                from: Some(clusters.mins[i]),
                to: Some(clusters.maxes[i]),
                ..Bucket::new(Key::Double(clusters.centroids[i]), clusters.sizes[i] as u64, subs)
            });
        }
        buckets.sort_by(|a, b| centroid(a).total_cmp(&centroid(b)));
        Ok(AggResult::Buckets(Buckets { fmt: self.cfg.fmt.clone(), ..Buckets::of(KeyKind::Double, buckets) }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        let phases: usize = self
            .phases
            .iter()
            .map(|p| match p {
                Phase::Buffer(b) => b.capacity() * 8,
                Phase::Merge(c, slots) => c.centroids.capacity() * 36 + slots.capacity() * 4,
            })
            .sum();
        phases + self.events.iter().map(|e| e.capacity() * 20).sum::<usize>() + self.subs.mem_bytes()
    }
}

struct VwLeaf<'a> {
    spec: &'a VariableWidthSpec,
    kind: Option<NumKind>,
    phases: &'a mut Vec<Phase>,
    scratch: &'a mut Vec<i64>,
    values: SegValues<'a>,
    events: Option<&'a mut Vec<Event>>,
}

impl LeafCollector for VwLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let (SegValues::Num(r), Some(k)) = (&mut self.values, self.kind) else { return Ok(()) };
        self.scratch.clear();
        self.scratch.extend_from_slice(r.values(doc));
        let ow = owner as usize;
        if self.phases.len() <= ow {
            self.phases.resize_with(ow + 1, || Phase::Buffer(Vec::new()));
        }
        let mut prev = f64::NEG_INFINITY;
        let mut vals: Vec<f64> = self.scratch.iter().map(|&raw| k.to_f64(raw)).collect();
        vals.sort_by(f64::total_cmp);
        for v in vals {
            if v == prev {
                continue;
            }
            prev = v;
            let tag = self.phases[ow].collect(v, self.spec);
            if let Some(ev) = self.events.as_deref_mut() {
                ev.push(Event { doc, owner, tag, score });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(v: Value) -> OsResult<VariableWidthSpec> {
        VariableWidthSpec::parse("h", v.as_object().unwrap())
    }

    fn no_subs(_: Vec<Vec<AggResult>>) -> OsResult<Vec<AggResult>> {
        Ok(Vec::new())
    }

    fn shard(values: &[f64], s: &VariableWidthSpec) -> Vec<Bucket> {
        let mut p = Phase::Buffer(Vec::new());
        for &v in values {
            p.collect(v, s);
        }
        let (c, _) = p.finish(s);
        (0..c.centroids.len())
            .map(|i| Bucket {
                from: Some(c.mins[i]),
                to: Some(c.maxes[i]),
                ..Bucket::new(Key::Double(c.centroids[i]), c.sizes[i] as u64, Vec::new())
            })
            .collect()
    }

    #[test]
    fn parses_with_defaults_and_checks() {
        let s = spec(json!({"field": "n"})).unwrap();
        assert_eq!((s.buckets, s.shard_size, s.initial_buffer), (10, 500, 5000));
        let s = spec(json!({"field": "n", "buckets": 3})).unwrap();
        assert_eq!((s.shard_size, s.initial_buffer), (150, 1500));
        assert!(spec(json!({"field": "n", "buckets": 0})).is_err());
        assert!(spec(json!({"field": "n", "buckets": 5, "shard_size": 2})).is_err());
        assert!(spec(json!({"field": "n", "bogus": 1})).unwrap_err().reason.contains("bogus"));
        assert!(spec(json!({"buckets": 3})).is_err());
    }

    #[test]
    fn three_buckets_of_five_values() {
        let s = spec(json!({"field": "n", "buckets": 3})).unwrap();
        let out = reduce_buckets(shard(&[-3.0, -2.0, 1.0, 4.0, 5.0], &s), 3, true, &mut no_subs).unwrap();
        let got: Vec<(f64, f64, f64, u64)> =
            out.iter().map(|b| (b.from.unwrap(), b.key.as_f64(), b.to.unwrap(), b.doc_count)).collect();
        assert_eq!(got, vec![(-3.0, -2.5, -2.0, 2), (1.0, 1.0, 1.0, 1), (4.0, 4.5, 5.0, 2)]);
    }

    #[test]
    fn clustering_keeps_every_value_and_sorted_disjoint_buckets() {
        // Past the buffer, values go to the nearest cluster or start new ones.
        let s = spec(json!({"field": "n", "buckets": 4, "shard_size": 8, "initial_buffer": 8})).unwrap();
        let mut vals = Vec::new();
        let mut x = 7u64;
        for _ in 0..500 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            vals.push(((x >> 33) % 1000) as f64 / 10.0 + if (x >> 20) % 3 == 0 { 500.0 } else { 0.0 });
        }
        let shards: Vec<Vec<Bucket>> = vals.chunks(170).map(|c| shard(c, &s)).collect();
        for (b, chunk) in shards.iter().zip(vals.chunks(170)) {
            assert!(b.len() <= 8);
            assert_eq!(b.iter().map(|b| b.doc_count).sum::<u64>(), chunk.len() as u64);
            assert!(b.windows(2).all(|w| w[0].key.as_f64() <= w[1].key.as_f64()));
        }
        let out = reduce_buckets(shards.into_iter().flatten().collect(), 4, true, &mut no_subs).unwrap();
        assert!(out.len() <= 4 && !out.is_empty());
        assert_eq!(out.iter().map(|b| b.doc_count).sum::<u64>(), 500);
        for w in out.windows(2) {
            assert!(w[0].key.as_f64() < w[1].key.as_f64());
            assert!(w[0].to.unwrap() <= w[1].from.unwrap());
        }
        let (lo, hi) = vals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
        assert_eq!((out[0].from.unwrap(), out.last().unwrap().to.unwrap()), (lo, hi));
    }

    #[test]
    fn nearest_is_the_closest_centroid() {
        let c = Clusters { centroids: vec![1.0, 4.0, 10.0, 11.0, 30.0], ..Clusters::default() };
        for v in [-5.0, 1.0, 2.4, 2.6, 7.0, 7.5, 10.4, 10.6, 20.0, 21.0, 99.0] {
            let want =
                (0..5).min_by(|&a, &b| (c.centroids[a] - v).abs().total_cmp(&(c.centroids[b] - v).abs())).unwrap();
            assert_eq!((c.centroids[c.nearest(v)] - v).abs(), (c.centroids[want] - v).abs(), "{v}");
        }
    }

    #[test]
    fn every_value_is_replayed_into_the_cluster_it_joined() {
        // Against the clusters' own bounds and means: the values routed to a bucket ordinal are
        // exactly the values counted in that cluster (count, min, max and sum).
        let mut x = 11u64;
        let mut rnd = |n: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        for (buffer, shard_size, n) in [(7, 8, 60), (40, 12, 300), (5, 40, 400), (1000, 20, 200), (25, 100, 900)] {
            let s = VariableWidthSpec { source: SourceSpec::default(), buckets: 2, shard_size, initial_buffer: buffer };
            let vals: Vec<f64> =
                (0..n).map(|_| (rnd(200) as f64) + if rnd(4) == 0 { 10_000.0 * rnd(3) as f64 } else { 0.0 }).collect();
            let mut p = Phase::Buffer(Vec::new());
            let tags: Vec<Tag> = vals.iter().map(|&v| p.collect(v, &s)).collect();
            let (c, slots) = p.finish(&s);
            let (slot_ords, id_ords) = ord_maps(&c, &slots, 3);
            let k = c.centroids.len();
            let mut got = vec![(0u64, f64::INFINITY, f64::NEG_INFINITY, 0.0); k];
            for (&v, t) in vals.iter().zip(&tags) {
                let ord = match *t {
                    Tag::Slot(i) => slot_ords[i as usize],
                    Tag::Cluster(id) => id_ords[id as usize],
                } as usize
                    - 3;
                let g = &mut got[ord];
                *g = (g.0 + 1, g.1.min(v), g.2.max(v), g.3 + v);
            }
            for i in 0..k {
                let (count, lo, hi, sum) = got[i];
                assert_eq!(count, c.sizes[i] as u64, "{buffer}/{shard_size} cluster {i}");
                assert_eq!((lo, hi), (c.mins[i], c.maxes[i]), "{buffer}/{shard_size} cluster {i}");
                assert!((sum / count as f64 - c.centroids[i]).abs() < 1e-6, "{buffer}/{shard_size} cluster {i}");
            }
        }
    }
}
