//! The `multi_terms` aggregation: a bucket per distinct combination of the values of several
//! fields, the top `size` by `order`. Shards return their top `shard_size` with the counts they
//! left out; the reduce is terms' (`reduce_terms`, OpenSearch's `InternalTerms.reduce` with its
//! doc count errors). Keys print as an array and as `a|b` (OpenSearch's `InternalMultiTerms`).

use serde_json::{json, Map, Value};

use super::bucket_order::{self, BucketOrder};
use super::multi_key::{doc_parts, for_each_combination, render_part, MultiOrds, PartKind};
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::source::{resolve, token, Config, SegValues, SourceSpec, VType};
use super::terms::{reduce_terms, Thresholds};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::engine::query::SegmentView;
use crate::engine::segment::DocId;
use crate::error::{OsError, OsResult};

#[derive(Debug, Clone)]
pub struct MultiTermsSpec {
    pub terms: Vec<SourceSpec>,
    pub counts: Thresholds,
    pub order: BucketOrder,
    pub show_error: bool,
}

fn parse_term(v: &Value) -> OsResult<SourceSpec> {
    let Value::Object(m) = v else {
        return Err(OsError::parsing(format!("[multi_terms] terms doesn't support values of type: {}", token(v))));
    };
    let mut s = SourceSpec::default();
    for (k, x) in m {
        if !s.take("multi_terms", k, x)? {
            return Err(OsError::parsing(crate::error::unknown_field(
                "multi_terms",
                k,
                &["field", "script", "missing", "value_type", "format"],
            )));
        }
    }
    if s.field.is_none() && s.script.is_none() {
        return Err(OsError::illegal("[field] and [script] cannot both be null.  Please specify one or the other."));
    }
    Ok(s)
}

impl MultiTermsSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<MultiTermsSpec> {
        let mut s = MultiTermsSpec {
            terms: Vec::new(),
            counts: Thresholds::default(),
            order: BucketOrder::count_desc(),
            show_error: false,
        };
        for (k, v) in body {
            if s.counts.take("multi_terms", name, k, v)? {
                continue;
            }
            match k.as_str() {
                "terms" => {
                    let Value::Array(a) = v else {
                        return Err(OsError::parsing(format!(
                            "[multi_terms] terms doesn't support values of type: {}",
                            token(v)
                        )));
                    };
                    s.terms = a.iter().map(parse_term).collect::<OsResult<_>>()?;
                }
                "order" => s.order = bucket_order::parse(v, name, true)?,
                "show_term_doc_count_error" => {
                    s.show_error = v.as_bool().ok_or_else(|| {
                        OsError::parsing(format!("[multi_terms] {k} doesn't support values of type: {}", token(v)))
                    })?
                }
                "collect_mode" => {
                    let h = super::source::string("multi_terms", k, v)?;
                    if h != "depth_first" && h != "breadth_first" {
                        return Err(OsError::illegal(format!("Unknown collect_mode [{h}]")));
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "multi_terms",
                        k,
                        &[
                            "terms",
                            "size",
                            "shard_size",
                            "min_doc_count",
                            "shard_min_doc_count",
                            "order",
                            "collect_mode",
                            "show_term_doc_count_error",
                        ],
                    )))
                }
            }
        }
        if s.terms.len() < 2 {
            return Err(OsError::illegal(format!(
                "multi term aggregation must has at least 2 terms. Found [{}] in [{name}]{}",
                s.terms.len(),
                if s.terms.len() == 1 { " Use terms aggregation for single term aggregation" } else { "" }
            )));
        }
        Ok(s)
    }
}

impl AggSpec for MultiTermsSpec {
    fn type_name(&self) -> &'static str {
        "multi_terms"
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        self.order.validate(&def.subs)?;
        let mut cfgs = Vec::with_capacity(self.terms.len());
        for t in &self.terms {
            let cfg = resolve(t, env.qc, "multi_terms")?;
            if matches!(cfg.vt, Some(VType::GeoPoint)) {
                return Err(super::source::unsupported(&cfg, "multi_terms"));
            }
            cfgs.push(cfg);
        }
        Ok(Box::new(MultiTermsCollector {
            spec: self.clone(),
            def: def.clone(),
            shard_size: self.counts.shard_size(env.shards),
            kinds: cfgs.iter().map(|c| PartKind::of(&c.vt)).collect(),
            cfgs,
            ords: MultiOrds::default(),
            subs: Subs::new(def, env)?,
            zero_keys: Vec::new(),
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::String, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let fmts = parts
            .iter()
            .find_map(|p| match p {
                AggResult::Buckets(b) if !b.buckets.is_empty() => Some(b.fmts.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let mut r = reduce_terms(def, &self.order, self.counts.size, self.counts.min_doc_count, parts, rc)?;
        if let AggResult::Buckets(b) = &mut r {
            b.fmts = fmts;
        }
        Ok(r)
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("multi_terms result of another kind")) };
        let mut m = Map::new();
        m.insert("doc_count_error_upper_bound".into(), json!(b.doc_count_error));
        m.insert("sum_other_doc_count".into(), json!(b.other_doc_count));
        let mut out = Vec::with_capacity(b.buckets.len());
        for bk in &b.buckets {
            let parts: &[Option<Key>] = match &bk.key {
                Key::Multi(p) => p,
                _ => &[],
            };
            let mut keys = Vec::with_capacity(parts.len());
            let mut texts = Vec::with_capacity(parts.len());
            for (i, p) in parts.iter().enumerate() {
                let fmt = b.fmts.get(i).cloned().unwrap_or(super::fmt::Fmt::Raw);
                let (k, t) = render_part(p.as_ref(), &fmt);
                keys.push(k);
                texts.push(t);
            }
            let mut o = Map::new();
            o.insert("key".into(), Value::Array(keys));
            o.insert("key_as_string".into(), json!(texts.join("|")));
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

struct MultiTermsCollector {
    spec: MultiTermsSpec,
    def: AggDef,
    shard_size: usize,
    cfgs: Vec<Config>,
    kinds: Vec<PartKind>,
    ords: MultiOrds,
    subs: Subs,
    /// With `min_doc_count: 0`: every key of the shard's documents.
    zero_keys: Vec<Vec<Option<Key>>>,
}

/// The key parts of `doc` per source (`None` when a source has no value: no key).
fn doc_keys(kinds: &[PartKind], values: &mut [SegValues<'_>], doc: DocId) -> OsResult<Option<Vec<Vec<Option<Key>>>>> {
    let mut per = Vec::with_capacity(kinds.len());
    let mut scratch = Vec::new();
    for (k, v) in kinds.iter().zip(values.iter_mut()) {
        scratch.clear();
        doc_parts(k, v, doc, &mut scratch)?;
        if scratch.is_empty() {
            return Ok(None);
        }
        per.push(scratch.drain(..).map(Some).collect());
    }
    Ok(Some(per))
}

impl Collector for MultiTermsCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        if self.spec.counts.min_doc_count == 0 {
            let mut values: Vec<SegValues<'_>> = self.cfgs.iter().map(|c| c.open(seg)).collect();
            for d in 0..seg.max_doc() {
                if !seg.is_live(d) {
                    continue;
                }
                if let Some(per) = doc_keys(&self.kinds, &mut values, d)? {
                    let zero = &mut self.zero_keys;
                    for_each_combination(&per, &mut |k| {
                        zero.push(k);
                        Ok(())
                    })?;
                }
            }
        }
        Ok(Box::new(MultiTermsLeaf {
            kinds: &self.kinds,
            values: self.cfgs.iter().map(|c| c.open(seg)).collect(),
            ords: &mut self.ords,
            subs: self.subs.leaves(seg, si)?,
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        if self.spec.counts.min_doc_count == 0 {
            for k in self.zero_keys.clone() {
                self.ords.ord(owner, k);
            }
        }
        let mut other: u64 = 0;
        let mut cands: Vec<(u32, Bucket)> = Vec::new();
        let paths = self.spec.order.paths().count() > 0;
        for &o in self.ords.of_owner(owner) {
            let c = self.ords.counts[o as usize];
            other += c;
            if c < self.spec.counts.shard_min_doc_count {
                continue;
            }
            cands.push((o, Bucket::new(Key::Multi(self.ords.keys[o as usize].clone()), c, Vec::new())));
        }
        if paths {
            for (o, b) in &mut cands {
                b.subs = self.subs.results(*o)?;
            }
        }
        let vals: Vec<Vec<f64>> = if paths {
            cands
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
            vec![Vec::new(); cands.len()]
        };
        let mut idx: Vec<usize> = (0..cands.len()).collect();
        idx.sort_by(|&a, &b| self.spec.order.cmp(&cands[a].1, &cands[b].1, &vals[a], &vals[b]));
        idx.truncate(self.shard_size);
        let mut slots: Vec<Option<(u32, Bucket)>> = cands.into_iter().map(Some).collect();
        let mut buckets = Vec::with_capacity(idx.len());
        for i in idx {
            if let Some((o, mut b)) = slots[i].take() {
                other -= b.doc_count;
                if !paths {
                    b.subs = self.subs.results(o)?;
                }
                buckets.push(b);
            }
        }
        Ok(AggResult::Buckets(Buckets {
            other_doc_count: other,
            shard_size: self.shard_size as u64,
            fmts: self.cfgs.iter().map(|c| c.fmt.clone()).collect(),
            ..Buckets::of(KeyKind::String, buckets)
        }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.ords.mem_bytes() + self.subs.mem_bytes() + self.zero_keys.len() * 48
    }
}

struct MultiTermsLeaf<'a> {
    kinds: &'a [PartKind],
    values: Vec<SegValues<'a>>,
    ords: &'a mut MultiOrds,
    subs: SubLeaves<'a>,
}

impl LeafCollector for MultiTermsLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let Some(per) = doc_keys(self.kinds, &mut self.values, doc)? else { return Ok(()) };
        let MultiTermsLeaf { ords, subs, .. } = self;
        for_each_combination(&per, &mut |key| {
            let o = ords.ord(owner, key);
            ords.counts[o as usize] += 1;
            subs.collect(doc, o, score)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_validates() {
        let p = |v: Value| MultiTermsSpec::parse("m", v.as_object().unwrap());
        let s =
            p(json!({"terms": [{"field": "a"}, {"field": "b", "missing": "x"}], "size": 3, "order": {"_key": "asc"}}))
                .unwrap();
        assert_eq!(s.terms.len(), 2);
        assert_eq!(s.counts.size, 3);
        assert!(s.order.is_key_order());
        let e = p(json!({"terms": [{"field": "a"}]})).unwrap_err().reason;
        assert!(e.contains("at least 2 terms. Found [1] in [m] Use terms aggregation"), "{e}");
        assert!(p(json!({"terms": [{"field": "a"}, {"bogus": 1}]})).is_err());
        assert!(p(json!({"terms": [{"field": "a"}, {"field": "b"}], "size": 0})).is_err());
    }
}
