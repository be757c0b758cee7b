//! Single-bucket and query-bucket aggregations: `filter`, `filters` (keyed or anonymous, with
//! an `other` bucket), `missing` and `global` (every document of the shard, whatever the query).

use serde_json::{json, Map, Value};

use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::{resolve, token, SegValues, SourceSpec};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::action::search::dsl;
use crate::engine::query::weight::Weight;
use crate::engine::query::{Searcher, SegmentView};
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

/// What a single-bucket aggregation keeps of each document.
#[derive(Debug, Clone)]
pub enum SingleKind {
    Filter(Value),
    Missing(SourceSpec),
    Global,
}

#[derive(Debug, Clone)]
pub struct SingleSpec {
    pub kind: SingleKind,
}

impl SingleSpec {
    pub fn parse_missing(name: &str, body: &Map<String, Value>) -> OsResult<SingleSpec> {
        let mut s = SourceSpec::default();
        for (k, v) in body {
            if !s.take("missing", k, v)? {
                return Err(OsError::parsing(crate::error::unknown_field(
                    "missing",
                    k,
                    &["field", "script", "missing", "format", "value_type"],
                )));
            }
        }
        s.require("missing", name)?;
        Ok(SingleSpec { kind: SingleKind::Missing(s) })
    }

    pub fn parse_global(body: &Map<String, Value>) -> OsResult<SingleSpec> {
        if let Some(k) = body.keys().next() {
            return Err(OsError::parsing(crate::error::unknown_field("global", k, &[])));
        }
        Ok(SingleSpec { kind: SingleKind::Global })
    }
}

/// Sums single-bucket results and reduces their sub-aggregations.
pub fn reduce_single(def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
    let mut n = 0;
    let mut subs = Vec::with_capacity(parts.len());
    for p in parts {
        if let AggResult::Single { doc_count, subs: s } = p {
            n += doc_count;
            subs.push(s);
        }
    }
    Ok(AggResult::Single { doc_count: n, subs: super::reduce_subs(def, subs, rc)? })
}

/// `{"doc_count": n, ...sub-aggregations}`.
pub fn render_single(def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
    let AggResult::Single { doc_count, subs } = r else {
        return Err(OsError::internal("single-bucket result of another kind"));
    };
    let mut m = Map::new();
    m.insert("doc_count".into(), json!(doc_count));
    render_into(&def.subs, subs, rc, m)
}

/// `_count` or a sub-aggregation's value.
pub fn single_property(def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
    let AggResult::Single { doc_count, subs } = r else { return Ok(f64::NAN) };
    match path.first().map(String::as_str) {
        None | Some("_count") | Some("doc_count") => Ok(*doc_count as f64),
        _ => super::sub_property(&def.subs, subs, path),
    }
}

impl AggSpec for SingleSpec {
    fn type_name(&self) -> &'static str {
        match self.kind {
            SingleKind::Filter(_) => "filter",
            SingleKind::Missing(_) => "missing",
            SingleKind::Global => "global",
        }
    }

    fn queries(&self) -> Vec<&Value> {
        match &self.kind {
            SingleKind::Filter(q) => vec![q],
            _ => Vec::new(),
        }
    }

    fn with_queries(&self, qs: Vec<Value>) -> Option<std::sync::Arc<dyn AggSpec>> {
        match (&self.kind, <[Value; 1]>::try_from(qs)) {
            (SingleKind::Filter(_), Ok([q])) => Some(std::sync::Arc::new(SingleSpec { kind: SingleKind::Filter(q) })),
            _ => None,
        }
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let test = match &self.kind {
            SingleKind::Filter(q) => {
                let q = dsl::parse(q, env.qc)?;
                Test::Query(env.searcher.match_weight(&q, false)?)
            }
            SingleKind::Missing(s) => {
                let cfg = match resolve(s, env.qc, "missing") {
                    Ok(c) => c,
                    // Any field kind counts its documents without values.
                    Err(_) if s.field.is_some() => {
                        return Ok(Box::new(SingleCollector {
                            test: Test::Exists(s.field.clone().unwrap_or_default()),
                            searcher: env.searcher.clone(),
                            counts: Vec::new(),
                            subs: Subs::new(def, env)?,
                        }))
                    }
                    Err(e) => return Err(e),
                };
                Test::Missing(cfg)
            }
            SingleKind::Global => Test::All,
        };
        Ok(Box::new(SingleCollector {
            test,
            searcher: env.searcher.clone(),
            counts: Vec::new(),
            subs: Subs::new(def, env)?,
        }))
    }

    fn empty(&self, def: &AggDef) -> AggResult {
        AggResult::Single { doc_count: 0, subs: def.empty_subs() }
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        reduce_single(def, parts, rc)
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        render_single(def, r, rc)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        single_property(def, r, path)
    }
}

enum Test {
    Query(Weight),
    Missing(super::source::Config),
    /// A field of a kind without doc values: missing when the document has no value at all.
    Exists(String),
    All,
}

struct SingleCollector {
    test: Test,
    searcher: Searcher,
    counts: Vec<u64>,
    subs: Subs,
}

/// The documents of segment `si` matching `w`, as a bitset.
pub fn matching_bits(searcher: &Searcher, w: &Weight, si: usize, max_doc: u32) -> OsResult<Vec<u64>> {
    let mut bits = vec![0u64; (max_doc as usize).div_ceil(64)];
    searcher.segment_matches(w, si, false, &mut |d, _| -> OsResult<()> {
        if let Some(x) = bits.get_mut(d as usize / 64) {
            *x |= 1u64 << (d % 64);
        }
        Ok(())
    })?;
    Ok(bits)
}

/// The documents of `seg` (segment `si`) matching `w`: as [`matching_bits`], or, when `seg` is
/// the segment's view showing nested documents (collectors under a `nested` aggregation), the
/// nested and root documents that match there.
pub fn matching_bits_in(searcher: &Searcher, w: &Weight, si: usize, seg: &dyn SegmentView) -> OsResult<Vec<u64>> {
    let nested_view =
        seg.with_nested().is_none() && searcher.segments.get(si).is_some_and(|s| s.with_nested().is_some());
    if !nested_view {
        return matching_bits(searcher, w, si, seg.max_doc());
    }
    let mut bits = vec![0u64; (seg.max_doc() as usize).div_ceil(64)];
    if let Some(mut sc) = w.scorer(seg)? {
        let mut d = sc.doc();
        while d != crate::engine::segment::NO_MORE_DOCS {
            if seg.is_live(d) {
                if let Some(x) = bits.get_mut(d as usize / 64) {
                    *x |= 1u64 << (d % 64);
                }
            }
            d = sc.next();
        }
        if let Some(e) = sc.take_error() {
            return Err(e.into());
        }
    }
    Ok(bits)
}

#[inline]
pub fn has_bit(bits: &[u64], d: DocId) -> bool {
    bits.get(d as usize / 64).is_some_and(|x| x & (1u64 << (d % 64)) != 0)
}

enum LeafTest<'a> {
    Bits(Vec<u64>),
    Missing(Box<SegValues<'a>>),
    Exists(&'a dyn SegmentView, &'a str),
    All,
}

impl Collector for SingleCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let test = match &self.test {
            Test::Query(w) => LeafTest::Bits(matching_bits_in(&self.searcher, w, si, seg)?),
            Test::Missing(cfg) => LeafTest::Missing(Box::new(cfg.open(seg))),
            Test::Exists(f) => LeafTest::Exists(seg, f.as_str()),
            Test::All => LeafTest::All,
        };
        Ok(Box::new(SingleLeaf { test, counts: &mut self.counts, subs: self.subs.leaves(seg, si)? }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        Ok(AggResult::Single {
            doc_count: self.counts.get(ord as usize).copied().unwrap_or(0),
            subs: self.subs.results(ord)?,
        })
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.counts.capacity() * 8 + self.subs.mem_bytes()
    }
}

struct SingleLeaf<'a> {
    test: LeafTest<'a>,
    counts: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
}

impl LeafCollector for SingleLeaf<'_> {
    #[inline]
    fn collect(&mut self, doc: DocId, ord: u32, score: f32) -> OsResult<()> {
        let keep = match &mut self.test {
            LeafTest::Bits(b) => has_bit(b, doc),
            LeafTest::Missing(v) => match v.as_mut() {
                SegValues::Num(r) => r.values(doc).is_empty(),
                SegValues::Bytes(r) => r.missing.is_none() && r.ords(doc).is_empty(),
                SegValues::None => true,
            },
            LeafTest::Exists(seg, f) => !seg.has_value(f, doc),
            LeafTest::All => true,
        };
        if keep {
            let o = ord as usize;
            if self.counts.len() <= o {
                self.counts.resize(o + 1, 0);
            }
            self.counts[o] += 1;
            self.subs.collect(doc, ord, score)?;
        }
        Ok(())
    }
}

/// `filters`: named or anonymous query buckets, and optionally the documents none matched.
#[derive(Debug, Clone)]
pub struct FiltersSpec {
    /// (name, query); names are `None` for the array form.
    pub filters: Vec<(Option<String>, Value)>,
    pub keyed: bool,
    pub other: Option<String>,
}

impl FiltersSpec {
    pub fn parse(_name: &str, body: &Map<String, Value>) -> OsResult<FiltersSpec> {
        let mut filters = Vec::new();
        let mut keyed = false;
        let mut other_bucket = None;
        let mut other_key = None;
        for (k, v) in body {
            match k.as_str() {
                "filters" => match v {
                    Value::Object(m) => {
                        keyed = true;
                        let mut f: Vec<(Option<String>, Value)> =
                            m.iter().map(|(n, q)| (Some(n.clone()), q.clone())).collect();
                        f.sort_by(|a, b| a.0.cmp(&b.0));
                        filters = f;
                    }
                    Value::Array(a) => filters = a.iter().map(|q| (None, q.clone())).collect(),
                    _ => return Err(OsError::parsing(format!("Unknown key for a {} in [filters]: [{k}].", token(v)))),
                },
                "other_bucket" => {
                    other_bucket = Some(v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[filters] other_bucket doesn't support values of type: {}", token(v)))
                    })?)
                }
                "other_bucket_key" => other_key = Some(super::source::string("filters", k, v)?),
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "filters",
                        k,
                        &["filters", "other_bucket", "other_bucket_key"],
                    )))
                }
            }
        }
        if filters.is_empty() && !body.contains_key("filters") {
            return Err(OsError::parsing("[filters] cannot be null"));
        }
        let other = match (other_bucket, other_key) {
            (Some(false), _) => None,
            (Some(true), k) => Some(k.unwrap_or_else(|| "_other_".into())),
            (None, Some(k)) => Some(k),
            (None, None) => None,
        };
        Ok(FiltersSpec { filters, keyed, other })
    }
}

/// Puts rewritten queries (terms lookups resolved) in place of named ones; false when the
/// counts differ.
pub fn replace_named_queries<N>(filters: &mut [(N, Value)], qs: Vec<Value>) -> bool {
    if qs.len() != filters.len() {
        return false;
    }
    for (f, q) in filters.iter_mut().zip(qs) {
        f.1 = q;
    }
    true
}

impl AggSpec for FiltersSpec {
    fn type_name(&self) -> &'static str {
        "filters"
    }

    fn queries(&self) -> Vec<&Value> {
        self.filters.iter().map(|(_, q)| q).collect()
    }

    fn with_queries(&self, qs: Vec<Value>) -> Option<std::sync::Arc<dyn AggSpec>> {
        let mut out = self.clone();
        replace_named_queries(&mut out.filters, qs).then(|| std::sync::Arc::new(out) as _)
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let mut weights = Vec::with_capacity(self.filters.len());
        for (_, q) in &self.filters {
            let q = dsl::parse(q, env.qc)?;
            weights.push(env.searcher.match_weight(&q, false)?);
        }
        Ok(Box::new(FiltersCollector {
            spec: self.clone(),
            weights,
            searcher: env.searcher.clone(),
            counts: Vec::new(),
            subs: Subs::new(def, env)?,
        }))
    }

    fn empty(&self, def: &AggDef) -> AggResult {
        let mut b: Vec<Bucket> = self
            .filters
            .iter()
            .map(|(n, _)| Bucket::new(Key::Str(n.clone().unwrap_or_default()), 0, def.empty_subs()))
            .collect();
        if let Some(o) = &self.other {
            b.push(Bucket::new(Key::Str(o.clone()), 0, def.empty_subs()));
        }
        AggResult::Buckets(Buckets::of(KeyKind::String, b))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut acc: Option<Vec<(Bucket, Vec<Vec<AggResult>>)>> = None;
        for p in parts {
            let AggResult::Buckets(b) = p else { continue };
            match &mut acc {
                None => {
                    acc = Some(
                        b.buckets
                            .into_iter()
                            .map(|mut x| {
                                let s = std::mem::take(&mut x.subs);
                                (x, vec![s])
                            })
                            .collect(),
                    )
                }
                Some(a) => {
                    for (t, mut x) in a.iter_mut().zip(b.buckets) {
                        t.0.doc_count += x.doc_count;
                        t.1.push(std::mem::take(&mut x.subs));
                    }
                }
            }
        }
        let Some(acc) = acc else { return Ok(self.empty(def)) };
        let mut out = Vec::with_capacity(acc.len());
        for (mut b, s) in acc {
            b.subs = super::reduce_subs(def, s, rc)?;
            out.push(b);
        }
        rc.consume(out.len())?;
        Ok(AggResult::Buckets(Buckets::of(KeyKind::String, out)))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("filters result of another kind")) };
        let mut arr = Vec::new();
        let mut obj = Map::new();
        for bk in &b.buckets {
            let mut o = Map::new();
            o.insert("doc_count".into(), json!(bk.doc_count));
            let o = render_into(&def.subs, &bk.subs, rc, o)?;
            match (&bk.key, self.keyed) {
                (Key::Str(k), true) => {
                    obj.insert(k.clone(), Value::Object(o));
                }
                _ => arr.push(Value::Object(o)),
            }
        }
        let mut m = Map::new();
        m.insert("buckets".into(), if self.keyed { Value::Object(obj) } else { Value::Array(arr) });
        Ok(m)
    }

    fn property(&self, def: &AggDef, r: &AggResult, path: &[String]) -> OsResult<f64> {
        let AggResult::Buckets(b) = r else { return Ok(f64::NAN) };
        let Some(name) = path.first() else {
            return Err(OsError::illegal(format!("[{}] is a multi-bucket aggregation: name a bucket", def.name)));
        };
        let Some(bk) = b.buckets.iter().find(|x| matches!(&x.key, Key::Str(k) if k == name)) else {
            return Err(OsError::illegal(format!("Unknown bucket key [{name}] in [{}]", def.name)));
        };
        super::bucket_property(&def.subs, bk, &path[1..])
    }
}

struct FiltersCollector {
    spec: FiltersSpec,
    weights: Vec<Weight>,
    searcher: Searcher,
    /// `counts[owner * n + i]`, `n` counting the other bucket.
    counts: Vec<u64>,
    subs: Subs,
}

impl FiltersCollector {
    fn width(&self) -> usize {
        self.weights.len() + usize::from(self.spec.other.is_some())
    }
}

impl Collector for FiltersCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let bits =
            self.weights.iter().map(|w| matching_bits_in(&self.searcher, w, si, seg)).collect::<OsResult<Vec<_>>>()?;
        let n = self.width();
        Ok(Box::new(FiltersLeaf {
            bits,
            other: self.spec.other.is_some(),
            n,
            counts: &mut self.counts,
            subs: self.subs.leaves(seg, si)?,
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let n = self.width();
        let mut b = Vec::with_capacity(n);
        let names: Vec<String> = self
            .spec
            .filters
            .iter()
            .map(|(k, _)| k.clone().unwrap_or_default())
            .chain(self.spec.other.clone())
            .collect();
        for (i, name) in names.into_iter().enumerate() {
            let o = owner as usize * n + i;
            b.push(Bucket::new(Key::Str(name), self.counts.get(o).copied().unwrap_or(0), self.subs.results(o as u32)?));
        }
        Ok(AggResult::Buckets(Buckets::of(KeyKind::String, b)))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.counts.capacity() * 8 + self.subs.mem_bytes()
    }
}

struct FiltersLeaf<'a> {
    bits: Vec<Vec<u64>>,
    other: bool,
    n: usize,
    counts: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
}

impl LeafCollector for FiltersLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let base = owner as usize * self.n;
        if self.counts.len() < base + self.n {
            self.counts.resize(base + self.n, 0);
        }
        let mut any = false;
        for i in 0..self.bits.len() {
            if has_bit(&self.bits[i], doc) {
                any = true;
                self.counts[base + i] += 1;
                self.subs.collect(doc, (base + i) as u32, score)?;
            }
        }
        if self.other && !any {
            let i = self.n - 1;
            self.counts[base + i] += 1;
            self.subs.collect(doc, (base + i) as u32, score)?;
        }
        Ok(())
    }
}
