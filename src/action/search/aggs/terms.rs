//! The `terms` aggregation: a bucket per distinct value, the top `size` by `order`. Shards return
//! their top `shard_size` with the counts they left out; the reduce merges them and computes
//! OpenSearch's `doc_count_error_upper_bound` (per aggregation and, with
//! `show_term_doc_count_error`, per bucket) and `sum_other_doc_count` exactly as `InternalTerms`.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::bucket_order::{self, BucketOrder};
use super::include_exclude::IncludeExclude;
use super::ords::{BucketOrds, RawKey};
use super::result::{AggResult, Bucket, Buckets, Key, KeyIdent, KeyKind};
use super::source::{resolve, token, Config, NumKind, SegValues, SourceSpec, VType};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::engine::query::global_ords::GlobalOrdinals;
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

#[derive(Debug, Clone)]
pub struct TermsSpec {
    pub source: SourceSpec,
    pub counts: Thresholds,
    pub order: BucketOrder,
    pub inc_exc: IncludeExclude,
    pub show_error: bool,
    /// `execution_hint` as given (checked where a bytes source reads it, as OpenSearch does).
    pub hint: Option<String>,
    /// `collect_mode: breadth_first`: sub-aggregations are deferred (see [`super::deferred`]).
    pub breadth_first: bool,
}

fn int(agg: &str, k: &str, v: &Value) -> OsResult<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .ok_or_else(|| OsError::parsing(format!("[{agg}] {k} doesn't support values of type: {}", token(v))))
}

/// The bucket counts of terms and multi_terms (OpenSearch's `BucketCountThresholds`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub size: usize,
    pub shard_size: Option<usize>,
    pub min_doc_count: u64,
    pub shard_min_doc_count: u64,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds { size: 10, shard_size: None, min_doc_count: 1, shard_min_doc_count: 0 }
    }
}

impl Thresholds {
    /// Takes `k` of aggregation `name` (of type `agg`) when it is one of the counts, with
    /// OpenSearch's checks and messages.
    pub fn take(&mut self, agg: &str, name: &str, k: &str, v: &Value) -> OsResult<bool> {
        let (label, positive) = match k {
            "size" => ("size", true),
            "shard_size" => ("shardSize", true),
            "min_doc_count" => ("minDocCount", false),
            "shard_min_doc_count" => ("shardMinDocCount", false),
            _ => return Ok(false),
        };
        let n = int(agg, k, v)?;
        if positive && n <= 0 {
            return Err(OsError::illegal(format!("[{label}] must be greater than 0. Found [{n}] in [{name}]")));
        }
        if n < 0 {
            return Err(OsError::illegal(format!(
                "[{label}] must be greater than or equal to 0. Found [{n}] in [{name}]"
            )));
        }
        match k {
            "size" => self.size = n as usize,
            "shard_size" => self.shard_size = Some(n as usize),
            "min_doc_count" => self.min_doc_count = n as u64,
            _ => self.shard_min_doc_count = n as u64,
        }
        Ok(true)
    }

    /// The shard size: given, or `size * 1.5 + 10` when several shards answer (never below size).
    pub fn shard_size(&self, shards: usize) -> usize {
        let s = match self.shard_size {
            Some(s) => s,
            None if shards <= 1 => self.size,
            None => ((self.size as f64) * 1.5 + 10.0) as usize,
        };
        s.max(self.size)
    }
}

impl TermsSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<TermsSpec> {
        let mut s = TermsSpec {
            source: SourceSpec::default(),
            counts: Thresholds::default(),
            order: BucketOrder::count_desc(),
            inc_exc: IncludeExclude::default(),
            show_error: false,
            hint: None,
            breadth_first: false,
        };
        for (k, v) in body {
            if s.source.take("terms", k, v)? || s.inc_exc.take("terms", k, v)? || s.counts.take("terms", name, k, v)? {
                continue;
            }
            match k.as_str() {
                "order" => s.order = bucket_order::parse(v, name, true)?,
                "show_term_doc_count_error" => {
                    s.show_error = v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[terms] {k} doesn't support values of type: {}", token(v)))
                    })?
                }
                // Both collection modes give the same buckets here.
                "collect_mode" => {
                    let h = super::source::string("terms", k, v)?;
                    if h != "depth_first" && h != "breadth_first" {
                        return Err(OsError::illegal(format!("Unknown collect_mode [{h}]")));
                    }
                    if k == "collect_mode" {
                        s.breadth_first = h == "breadth_first";
                    }
                }
                "execution_hint" => s.hint = Some(super::source::string("terms", k, v)?.to_string()),
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "terms",
                        k,
                        &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "size",
                            "shard_size",
                            "min_doc_count",
                            "shard_min_doc_count",
                            "order",
                            "include",
                            "exclude",
                            "execution_hint",
                            "collect_mode",
                            "show_term_doc_count_error",
                        ],
                    )))
                }
            }
        }
        s.source.require("terms", name)?;
        Ok(s)
    }
}

impl AggSpec for TermsSpec {
    fn type_name(&self) -> &'static str {
        "terms"
    }

    fn typed_name(&self, r: &AggResult) -> &'static str {
        match r {
            AggResult::Buckets(b) => match b.kind {
                KeyKind::String => "sterms",
                KeyKind::Long => "lterms",
                KeyKind::Double => "dterms",
                KeyKind::Unsigned => "ulterms",
                KeyKind::Unmapped => "umterms",
            },
            _ => "sterms",
        }
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        self.order.validate(&def.subs)?;
        let cfg = resolve(&self.source, env.qc, "terms")?;
        let kind = match &cfg.vt {
            None => KeyKind::Unmapped,
            Some(VType::Bytes { ip }) => {
                if *ip {
                    self.inc_exc.check_formatted(&def.name)?;
                }
                KeyKind::String
            }
            Some(VType::Num(k)) => {
                self.inc_exc.check_numeric(&def.name)?;
                match k {
                    NumKind::Double | NumKind::Scaled(_) => KeyKind::Double,
                    NumKind::Unsigned => KeyKind::Unsigned,
                    _ => KeyKind::Long,
                }
            }
            Some(VType::GeoPoint) => return Err(super::source::unsupported(&cfg, "terms")),
        };
        let global = match (&cfg.vt, &cfg.script) {
            (Some(VType::Bytes { .. }), None) => global_ordinals(&cfg, self.hint.as_deref(), env)?,
            _ => None,
        };
        let mut subs = Subs::new(def, env)?;
        // `breadth_first`: the sub-aggregations collect only the kept buckets' documents (a
        // top-level terms ordered by count or key, sub-aggregations without scores, no script
        // reading `_score` compiled).
        let deferred: Vec<String> = if self.breadth_first
            && env.top_query.is_some()
            && !subs.cols.is_empty()
            && self.order.paths().count() == 0
            && !subs.needs_scores()
            && !super::script_source::peek_needs_scores()
        {
            subs.cols =
                subs.cols.into_iter().map(|c| super::deferred::Deferred::wrap(c, env.searcher.clone())).collect();
            def.subs.iter().filter(|d| !d.spec.is_pipeline()).map(|d| d.name.clone()).collect()
        } else {
            Vec::new()
        };
        Ok(Box::new(TermsCollector {
            spec: self.clone(),
            def: def.clone(),
            shard_size: self.counts.shard_size(env.shards),
            kind,
            cfg,
            ords: BucketOrds::default(),
            subs,
            zero_keys: Vec::new(),
            global,
            global_buckets: Vec::new(),
            global_segments: (0, 0),
            deferred,
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::Unmapped, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        reduce_terms(def, &self.order, self.counts.size, self.counts.min_doc_count, parts, rc)
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("terms result of another kind")) };
        let mut m = Map::new();
        m.insert("doc_count_error_upper_bound".into(), json!(b.doc_count_error));
        m.insert("sum_other_doc_count".into(), json!(b.other_doc_count));
        let mut out = Vec::with_capacity(b.buckets.len());
        for bk in &b.buckets {
            let mut o = Map::new();
            let (k, ks) = b.fmt.key(&bk.key);
            o.insert("key".into(), k);
            if let Some(s) = ks {
                o.insert("key_as_string".into(), json!(s));
            }
            o.insert("doc_count".into(), json!(bk.doc_count));
            if self.show_error {
                o.insert("doc_count_error_upper_bound".into(), json!(bk.error));
            }
            out.push(Value::Object(render_into(&def.subs, &bk.subs, rc, o)?));
        }
        m.insert("buckets".into(), Value::Array(out));
        Ok(m)
    }
}

/// The error a shard's (or partial reduce's) terms contribute (`InternalTerms.getDocCountError`).
fn part_error(b: &Buckets, order: &BucketOrder) -> i64 {
    if b.buckets.is_empty() || (b.buckets.len() as u64) < b.shard_size || order.is_key_order() {
        0
    } else if order.is_count_desc() {
        if b.doc_count_error > 0 {
            b.doc_count_error
        } else {
            b.buckets.iter().map(|x| x.doc_count as i64).min().unwrap_or(0)
        }
    } else {
        -1
    }
}

/// OpenSearch's `InternalTerms.reduce` (shared by the terms-like aggregations).
pub fn reduce_terms(
    def: &AggDef,
    order: &BucketOrder,
    size: usize,
    min_doc_count: u64,
    parts: Vec<AggResult>,
    rc: &mut ReduceCtx,
) -> OsResult<AggResult> {
    let mut all: Vec<Buckets> =
        parts.into_iter().filter_map(|p| if let AggResult::Buckets(b) = p { Some(b) } else { None }).collect();
    let nparts = all.len();
    let first_unmapped = all.first().cloned();
    all.retain(|b| b.kind != KeyKind::Unmapped);
    if all.is_empty() {
        return Ok(AggResult::Buckets(first_unmapped.unwrap_or_else(|| Buckets::of(KeyKind::Unmapped, Vec::new()))));
    }
    // Longs meeting doubles (the field is a long in one index, a double in another) become doubles.
    let kind = if all.iter().any(|b| b.kind == KeyKind::Double) { KeyKind::Double } else { all[0].kind };
    let fmt = all[0].fmt.clone();
    let shard_size = all.iter().map(|b| b.shard_size).max().unwrap_or(0);
    let mut sum_err: i64 = 0;
    let mut other: u64 = 0;
    let mut index: HashMap<KeyIdent, usize> = HashMap::new();
    let mut merged: Vec<(Bucket, Vec<Vec<AggResult>>)> = Vec::new();
    for p in all {
        other += p.other_doc_count;
        let e = part_error(&p, order);
        if sum_err != -1 {
            sum_err = if e == -1 { -1 } else { sum_err + e };
        }
        for mut b in p.buckets {
            if kind == KeyKind::Double {
                if let Key::Long(v) = b.key {
                    b.key = Key::Double(v as f64);
                }
            }
            b.error -= e;
            let subs = std::mem::take(&mut b.subs);
            match index.get(&b.key.ident()) {
                Some(&i) => {
                    let m = &mut merged[i].0;
                    m.doc_count += b.doc_count;
                    m.error += b.error;
                    merged[i].1.push(subs);
                }
                None => {
                    index.insert(b.key.ident(), merged.len());
                    merged.push((b, vec![subs]));
                }
            }
        }
    }
    let mut buckets = Vec::with_capacity(merged.len());
    for (mut b, subs) in merged {
        b.subs = super::reduce_subs(def, subs, rc)?;
        b.error = if sum_err == -1 { -1 } else { b.error + sum_err };
        buckets.push(b);
    }
    order.sort(&mut buckets, &def.subs)?;
    if rc.final_reduce {
        let mut kept = Vec::with_capacity(size.min(buckets.len()));
        for b in buckets {
            if b.doc_count < min_doc_count {
                continue;
            }
            if kept.len() < size {
                kept.push(b);
            } else {
                other += b.doc_count;
            }
        }
        rc.consume(kept.len())?;
        buckets = kept;
    }
    let doc_count_error = if sum_err == -1 {
        -1
    } else if nparts == 1 {
        0
    } else {
        sum_err
    };
    Ok(AggResult::Buckets(Buckets {
        doc_count_error,
        other_doc_count: other,
        shard_size,
        fmt,
        ..Buckets::of(kind, buckets)
    }))
}

/// The global ordinals a terms aggregation over a bytes field collects by (OpenSearch's
/// `ExecutionMode`: `global_ordinals` unless the hint is `map`); `None` with `map`. The hint is
/// checked here, where OpenSearch's factory reads it (a numeric field ignores it).
fn global_ordinals(cfg: &Config, hint: Option<&str>, env: &ShardEnv<'_>) -> OsResult<Option<Global>> {
    match hint {
        None | Some("global_ordinals") => {}
        Some("map") => return Ok(None),
        Some(h) => {
            return Err(OsError::illegal(format!(
                "Unknown `execution_hint`: [{h}], expected any of [map, global_ordinals]"
            )))
        }
    }
    let Some(field) = cfg.field.as_deref() else { return Ok(None) };
    let segs: Vec<&dyn SegmentView> = env.searcher.segments.iter().map(|s| &**s).collect();
    let mut readers = Vec::with_capacity(segs.len());
    for seg in &segs {
        match cfg.open(*seg) {
            SegValues::Bytes(r) if !r.is_script() => readers.push(r),
            _ => return Ok(None),
        }
    }
    // A text field's fielddata the breaker refused: the search fails with it, loaded once.
    if let Some(e) = super::script_source::take_failure() {
        return Err(e);
    }
    let counts: Vec<u64> = readers.iter().map(|r| r.value_count()).collect();
    let at = segs.iter().map(|s| seg_addr(*s)).collect();
    if let [only] = counts[..] {
        return Ok(Some(Global { ords: std::sync::Arc::new(GlobalOrdinals::identity(only)), segs: at }));
    }
    let ords = super::fielddata::load_global(&segs, field, || {
        let mut err = None;
        let built = GlobalOrdinals::build(&counts, &mut |s, o| match readers[s].term(o) {
            Ok(t) => Ok(t),
            Err(e) => {
                err = Some(e);
                Ok(Vec::new())
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        built.map_err(OsError::from)
    });
    Ok(ords.map(|ords| Global { ords, segs: at }))
}

/// Global ordinals with the reader segments they were built over.
struct Global {
    ords: std::sync::Arc<GlobalOrdinals>,
    /// The address of each segment (a leaf uses them only on the very segment they map).
    segs: Vec<usize>,
}

fn seg_addr(s: &dyn SegmentView) -> usize {
    s as *const dyn SegmentView as *const () as usize
}

struct TermsCollector {
    spec: TermsSpec,
    def: AggDef,
    shard_size: usize,
    kind: KeyKind,
    cfg: Config,
    ords: BucketOrds,
    subs: Subs,
    /// With `min_doc_count: 0`: every value of the field on the shard.
    zero_keys: Vec<RawKey>,
    /// A bytes field's global ordinals over the shard's segments (not with `map`).
    global: Option<Global>,
    /// Owner 0: global ordinal -> bucket ordinal (`u32::MAX`: not seen yet).
    global_buckets: Vec<u32>,
    /// Segments collected through global ordinals: (single-valued, multi-valued) columns.
    global_segments: (u32, u32),
    /// The sub-aggregations whose collection is deferred (`breadth_first`).
    deferred: Vec<String>,
}

impl TermsCollector {
    fn key(&self, raw: &RawKey) -> Key {
        match (raw, &self.cfg.vt) {
            (RawKey::B(b), _) => Key::Bytes(b.to_vec()),
            (RawKey::L(v), Some(VType::Num(k))) => match k {
                NumKind::Double | NumKind::Scaled(_) => Key::Double(k.to_f64(*v)),
                NumKind::Unsigned => Key::Unsigned((*v as u64) ^ (1u64 << 63)),
                _ => Key::Long(*v),
            },
            (RawKey::L(v), _) => {
                if self.kind == KeyKind::Double {
                    Key::Double(f64::from_bits(*v as u64))
                } else {
                    Key::Long(*v)
                }
            }
        }
    }

    fn accept(&self, raw: &RawKey, key: &Key) -> bool {
        if self.spec.inc_exc.is_empty() {
            return true;
        }
        match raw {
            RawKey::B(b) => self.spec.inc_exc.accept_bytes(b, matches!(self.cfg.vt, Some(VType::Bytes { ip: true }))),
            RawKey::L(v) => {
                // Listed dates parse with the field's format (OpenSearch's `convertToLongFilter`).
                let parse = |s: &str| -> Option<f64> {
                    match &self.cfg.fmt {
                        super::fmt::Fmt::Date { format, nanos, .. } => {
                            crate::engine::schema::date::parse_date(s, format)
                                .ok()
                                .map(|ms| if *nanos { ms.saturating_mul(1_000_000) } else { ms } as f64)
                        }
                        _ => None,
                    }
                };
                self.spec.inc_exc.accept_number_with(key, *v, &parse)
            }
        }
    }
}

impl Collector for TermsCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let values = self.cfg.open(seg);
        if self.spec.counts.min_doc_count == 0 {
            // Every value of the segment may become a zero-count bucket.
            match &values {
                SegValues::Bytes(r) if r.is_script() => {
                    // A script's terms are known only by running it on every document.
                    if let SegValues::Bytes(mut r) = self.cfg.open(seg) {
                        for d in 0..seg.max_doc() {
                            if seg.is_live(d) {
                                let ords = r.ords(d).to_vec();
                                for o in ords {
                                    self.zero_keys.push(RawKey::B(r.term(o)?.into()));
                                }
                            }
                        }
                    }
                }
                SegValues::Bytes(r) => {
                    for o in 0..r.value_count() {
                        self.zero_keys.push(RawKey::B(r.term(o)?.into()));
                    }
                }
                SegValues::Num(_) => {
                    let mut r = self.cfg.open(seg);
                    if let SegValues::Num(n) = &mut r {
                        for d in 0..seg.max_doc() {
                            if seg.is_live(d) {
                                for &v in n.values(d) {
                                    self.zero_keys.push(RawKey::L(v));
                                }
                            }
                        }
                    }
                }
                SegValues::None => {}
            }
        }
        let missing_key = match &values {
            SegValues::Bytes(r) => r.missing.clone().map(|b| RawKey::B(b.into())),
            _ => None,
        };
        let dense = match &values {
            SegValues::Num(n) => n.single().and_then(|c| {
                let (lo, hi) = (c.min_value()?, c.max_value()?);
                let span = hi.checked_sub(lo)?;
                (0..=4096).contains(&span).then(|| (lo, vec![u32::MAX; span as usize + 1]))
            }),
            _ => None,
        };
        let global = match (&self.global, &values) {
            (Some(g), SegValues::Bytes(r)) if !r.is_script() && g.segs.get(si) == Some(&seg_addr(seg)) => {
                if self.global_buckets.is_empty() {
                    self.global_buckets = vec![u32::MAX; g.ords.count() as usize];
                }
                match r.single_valued() {
                    Some(false) => self.global_segments.1 += 1,
                    _ => self.global_segments.0 += 1,
                }
                Some((g.ords.clone(), si))
            }
            _ => None,
        };
        Ok(Box::new(TermsLeaf {
            values,
            global,
            global_buckets: &mut self.global_buckets,
            ords: &mut self.ords,
            subs: self.subs.leaves(seg, si)?,
            seg_ords: Vec::new(),
            dense,
            missing_key,
            scratch: Vec::new(),
            scratch_ords: Vec::new(),
            local: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        if self.spec.counts.min_doc_count == 0 {
            let zero = std::mem::take(&mut self.zero_keys);
            for k in &zero {
                self.ords.ord(owner, k.clone());
            }
            self.zero_keys = zero;
        }
        let mut other: u64 = 0;
        let mut cands: Vec<(u32, Key)> = Vec::new();
        for &o in self.ords.of_owner(owner) {
            let raw = &self.ords.keys[o as usize].1;
            let key = self.key(raw);
            if !self.accept(raw, &key) {
                continue;
            }
            let c = self.ords.counts[o as usize];
            other += c;
            if c < self.spec.counts.shard_min_doc_count {
                continue;
            }
            cands.push((o, key));
        }
        let paths = self.spec.order.paths().count() > 0;
        let mut buckets: Vec<(u32, Bucket)> = Vec::with_capacity(cands.len());
        for (o, key) in cands {
            let subs = if paths { self.subs.results(o)? } else { Vec::new() };
            buckets.push((o, Bucket::new(key, self.ords.counts[o as usize], subs)));
        }
        let mut only: Vec<Bucket> = Vec::with_capacity(buckets.len());
        let mut ord_of: Vec<u32> = Vec::with_capacity(buckets.len());
        // Sort with the ordinals alongside (the bucket's position after sorting).
        let mut idx: Vec<usize> = (0..buckets.len()).collect();
        {
            let vals: Vec<Vec<f64>> = if paths {
                buckets
                    .iter()
                    .map(|(_, b)| {
                        self.spec
                            .order
                            .paths()
                            .map(|p| super::bucket_property(&self.def.subs, b, p))
                            .collect::<OsResult<Vec<_>>>()
                    })
                    .collect::<OsResult<_>>()?
            } else {
                Vec::new()
            };
            let empty: Vec<f64> = Vec::new();
            idx.sort_by(|&a, &b| {
                let (va, vb) = if paths { (&vals[a], &vals[b]) } else { (&empty, &empty) };
                self.spec.order.cmp(&buckets[a].1, &buckets[b].1, va, vb)
            });
        }
        idx.truncate(self.shard_size);
        let mut slots: Vec<Option<(u32, Bucket)>> = buckets.into_iter().map(Some).collect();
        for i in idx {
            if let Some((o, b)) = slots[i].take() {
                other -= b.doc_count;
                ord_of.push(o);
                only.push(b);
            }
        }
        if !paths {
            self.subs.replay(&ord_of)?;
            for (b, o) in only.iter_mut().zip(&ord_of) {
                b.subs = self.subs.results(*o)?;
            }
        }
        Ok(AggResult::Buckets(Buckets {
            other_doc_count: other,
            shard_size: self.shard_size as u64,
            fmt: self.cfg.fmt.clone(),
            ..Buckets::of(self.kind, only)
        }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.ords.mem_bytes() + self.subs.mem_bytes()
    }

    fn profile_type(&self) -> Option<&'static str> {
        // Strings collect by global ordinals unless the hint is `map` (then into a map keyed by
        // value, through each segment's ordinals looked up once per segment ordinal).
        Some(match self.kind {
            KeyKind::String if self.global.is_some() => "GlobalOrdinalsStringTermsAggregator",
            KeyKind::String => "MapStringTermsAggregator",
            KeyKind::Unmapped => "UnmappedTermsAggregator",
            _ => "NumericTermsAggregator",
        })
    }

    fn debug(&self, add: &mut dyn FnMut(&'static str, Value)) {
        let strategy = match self.kind {
            KeyKind::Long => "long_terms",
            KeyKind::Double => "double_terms",
            KeyKind::Unsigned => "unsigned_long_terms",
            _ => "terms",
        };
        if self.global.is_some() && self.kind == KeyKind::String {
            // Top-level documents count through an array indexed by global ordinal ("dense");
            // under a multi-bucket parent they are hashed by (owner, term) ("remap").
            let dense = self.ords.per_owner.iter().skip(1).all(Vec::is_empty);
            add("collection_strategy", json!(if dense { "dense" } else { "remap" }));
            add("result_strategy", json!(strategy));
            add("segments_with_single_valued_ords", json!(self.global_segments.0));
            add("segments_with_multi_valued_ords", json!(self.global_segments.1));
            add("has_filter", json!(!self.spec.inc_exc.is_empty()));
            if !dense {
                add("total_buckets", json!(self.ords.keys.len()));
            }
            if !self.deferred.is_empty() {
                add("deferred_aggregators", json!(self.deferred));
            }
            return;
        }
        add("result_strategy", json!(strategy));
        add("total_buckets", json!(self.ords.keys.len()));
        if !self.deferred.is_empty() {
            add("deferred_aggregators", json!(self.deferred));
        }
    }
}

struct TermsLeaf<'a> {
    values: SegValues<'a>,
    /// The shard's global ordinals and this segment's index among the reader's segments.
    global: Option<(std::sync::Arc<GlobalOrdinals>, usize)>,
    global_buckets: &'a mut Vec<u32>,
    ords: &'a mut BucketOrds,
    subs: SubLeaves<'a>,
    /// Owner 0: segment ordinal -> bucket ordinal (`u32::MAX`: not seen yet).
    seg_ords: Vec<u32>,
    /// Owner 0 over a single-valued numeric column with a small range: value - min -> bucket.
    dense: Option<(i64, Vec<u32>)>,
    missing_key: Option<RawKey>,
    scratch: Vec<i64>,
    scratch_ords: Vec<u64>,
    /// Owner 0, dense column, no sub-aggregations: counts by `value - min`, turned into
    /// buckets when the leaf is dropped (a leaf always is before results are built).
    local: Vec<u64>,
}

impl Drop for TermsLeaf<'_> {
    fn drop(&mut self) {
        let Some((lo, table)) = &self.dense else { return };
        for (i, &c) in self.local.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let b = match table.get(i).copied() {
                Some(b) if b != u32::MAX => b,
                _ => self.ords.ord_long(0, lo + i as i64),
            };
            self.ords.counts[b as usize] += c;
        }
    }
}

impl LeafCollector for TermsLeaf<'_> {
    fn collect_block(&mut self, docs: &[DocId], owner: u32) -> OsResult<()> {
        let col = match (&self.values, owner) {
            (SegValues::Num(r), 0) if self.dense.is_some() => r.single().copied(),
            _ => None,
        };
        let (Some(col), Some((lo, table))) = (col, self.dense.as_mut()) else {
            for &d in docs {
                self.collect(d, owner, f32::NAN)?;
            }
            return Ok(());
        };
        if self.subs.is_empty() {
            // Counts by value; bucket ordinals are made when the leaf is dropped.
            if self.local.is_empty() {
                self.local = vec![0; table.len()];
            }
            let base = *lo;
            let local = &mut self.local;
            super::source::for_block_values(&col, docs, |_, v| {
                if let Some(c) = local.get_mut((v - base) as usize) {
                    *c += 1;
                }
            });
            return Ok(());
        }
        let mut runs = super::Runs::default();
        let (ords, subs) = (&mut *self.ords, &mut self.subs);
        let with_subs = !subs.is_empty();
        let mut err = None;
        super::source::for_block_values(&col, docs, |d, v| {
            let i = (v - *lo) as usize;
            let b = match table.get(i).copied() {
                Some(b) if b != u32::MAX => b,
                _ => {
                    let b = ords.ord_long(0, v);
                    if let Some(slot) = table.get_mut(i) {
                        *slot = b;
                    }
                    b
                }
            };
            ords.counts[b as usize] += 1;
            if with_subs && err.is_none() {
                if let Err(e) = runs.push(subs, d, b) {
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
        let TermsLeaf {
            values,
            global,
            global_buckets,
            ords,
            subs,
            seg_ords,
            dense,
            missing_key,
            scratch,
            scratch_ords,
            local: _,
        } = self;
        match values {
            SegValues::Bytes(r) => {
                scratch_ords.clear();
                scratch_ords.extend_from_slice(r.ords(doc));
                if scratch_ords.is_empty() {
                    if let Some(m) = missing_key {
                        let b = ords.ord(owner, m.clone());
                        ords.counts[b as usize] += 1;
                        subs.collect(doc, b, score)?;
                    }
                    return Ok(());
                }
                for &so in scratch_ords.iter() {
                    let b = if let (0, Some((g, si))) = (owner, global.as_ref()) {
                        // The bucket of the term's global ordinal, made on its first document.
                        let gid =
                            g.segment_map(*si).map_or(Some(so as usize), |m| m.get(so as usize).map(|&x| x as usize));
                        match gid.and_then(|i| global_buckets.get(i).copied()) {
                            Some(b) if b != u32::MAX => b,
                            _ => {
                                let b = ords.ord(0, RawKey::B(r.term(so)?.into()));
                                if let Some(slot) = gid.and_then(|i| global_buckets.get_mut(i)) {
                                    *slot = b;
                                }
                                b
                            }
                        }
                    } else if owner == 0 && r.has_column() {
                        if seg_ords.is_empty() {
                            seg_ords.resize(r.value_count() as usize, u32::MAX);
                        }
                        match seg_ords.get(so as usize).copied() {
                            Some(b) if b != u32::MAX => b,
                            _ => {
                                let b = ords.ord(0, RawKey::B(r.term(so)?.into()));
                                if let Some(slot) = seg_ords.get_mut(so as usize) {
                                    *slot = b;
                                }
                                b
                            }
                        }
                    } else {
                        ords.ord(owner, RawKey::B(r.term(so)?.into()))
                    };
                    ords.counts[b as usize] += 1;
                    subs.collect(doc, b, score)?;
                }
            }
            SegValues::Num(r) => {
                if owner == 0 {
                    if let (Some((lo, table)), Some(col)) = (dense.as_mut(), r.single()) {
                        let Some(v) = col.first(doc) else { return Ok(()) };
                        let i = (v - *lo) as usize;
                        let b = match table.get(i).copied() {
                            Some(b) if b != u32::MAX => b,
                            _ => {
                                let b = ords.ord_long(0, v);
                                if let Some(slot) = table.get_mut(i) {
                                    *slot = b;
                                }
                                b
                            }
                        };
                        ords.counts[b as usize] += 1;
                        if !subs.is_empty() {
                            subs.collect(doc, b, score)?;
                        }
                        return Ok(());
                    }
                }
                scratch.clear();
                scratch.extend_from_slice(r.values(doc));
                let mut prev = None;
                for &v in scratch.iter() {
                    if prev == Some(v) {
                        continue;
                    }
                    prev = Some(v);
                    let b = ords.ord_long(owner, v);
                    ords.counts[b as usize] += 1;
                    subs.collect(doc, b, score)?;
                }
            }
            SegValues::None => {}
        }
        Ok(())
    }
}
