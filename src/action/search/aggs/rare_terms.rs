//! The `rare_terms` aggregation: the terms found in at most `max_doc_count` documents, by count
//! then key ascending. A shard returns its terms at or under the threshold and the terms it saw
//! more often (OpenSearch keeps those in a scaling cuckoo filter; here they are an exact set,
//! so no rare term is dropped by a false positive and `precision` only validates); the reduce
//! drops every term some shard saw too often or whose summed count passes the threshold
//! (OpenSearch's `InternalMappedRareTerms.reduce`).

use std::collections::{HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::include_exclude::IncludeExclude;
use super::ords::{BucketOrds, RawKey};
use super::result::{AggResult, Bucket, Buckets, Key, KeyIdent, KeyKind};
use super::source::{resolve, token, Config, NumKind, SegValues, SourceSpec, VType};
use super::{render_into, AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, SubLeaves, Subs};
use crate::engine::query::SegmentView;
use crate::engine::schema::date;
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

/// OpenSearch's `MAX_MAX_DOC_COUNT`.
const MAX_MAX_DOC_COUNT: i64 = 100;

#[derive(Debug, Clone)]
pub struct RareTermsSpec {
    pub source: SourceSpec,
    pub max_doc_count: u64,
    pub precision: f64,
    pub inc_exc: IncludeExclude,
}

impl RareTermsSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<RareTermsSpec> {
        let mut s = RareTermsSpec {
            source: SourceSpec::default(),
            max_doc_count: 1,
            precision: 0.001,
            inc_exc: IncludeExclude::default(),
        };
        for (k, v) in body {
            if s.source.take("rare_terms", k, v)? || s.inc_exc.take("rare_terms", k, v)? {
                continue;
            }
            match k.as_str() {
                "max_doc_count" => {
                    let n = v.as_i64().or_else(|| v.as_str().and_then(|t| t.parse().ok())).ok_or_else(|| {
                        OsError::parsing(format!(
                            "[rare_terms] max_doc_count doesn't support values of type: {}",
                            token(v)
                        ))
                    })?;
                    if n <= 0 {
                        return Err(OsError::illegal(format!(
                            "[max_doc_count] must be greater than 0. Found [{n}] in [{name}]"
                        )));
                    }
                    if n > MAX_MAX_DOC_COUNT {
                        return Err(OsError::illegal(format!(
                            "[max_doc_count] must be smallerthan {MAX_MAX_DOC_COUNT}in [{name}]"
                        )));
                    }
                    s.max_doc_count = n as u64;
                }
                "precision" => {
                    let p = v.as_f64().or_else(|| v.as_str().and_then(|t| t.parse().ok())).ok_or_else(|| {
                        OsError::parsing(format!("[rare_terms] precision doesn't support values of type: {}", token(v)))
                    })?;
                    if p < 0.00001 {
                        return Err(OsError::illegal("[precision] must be greater than 0.00001"));
                    }
                    s.precision = p;
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "rare_terms",
                        k,
                        &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "max_doc_count",
                            "include",
                            "exclude",
                            "precision",
                        ],
                    )))
                }
            }
        }
        s.source.require("rare_terms", name)?;
        Ok(s)
    }
}

impl AggSpec for RareTermsSpec {
    fn type_name(&self) -> &'static str {
        "rare_terms"
    }

    fn typed_name(&self, r: &AggResult) -> &'static str {
        match r {
            AggResult::Buckets(b) => match b.kind {
                KeyKind::String => "srareterms",
                KeyKind::Unmapped => "umrareterms",
                _ => "lrareterms",
            },
            _ => "srareterms",
        }
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let cfg = resolve(&self.source, env.qc, "rare_terms")?;
        let regex_msg = |tail: &str| {
            OsError::illegal(format!(
                "Aggregation [{}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. {tail}",
                def.name
            ))
        };
        let kind = match &cfg.vt {
            None => KeyKind::Unmapped,
            Some(VType::Bytes { ip }) => {
                if *ip && self.inc_exc.has_regex() {
                    return Err(regex_msg("Use an array of values for include/exclude clauses"));
                }
                KeyKind::String
            }
            Some(VType::Num(k)) => {
                if self.inc_exc.has_regex() {
                    return Err(regex_msg(
                        "Use an array of numeric values for include/exclude clauses used to filter numeric fields",
                    ));
                }
                match k {
                    NumKind::Double | NumKind::Scaled(_) => {
                        return Err(OsError::illegal("RareTerms aggregation does not support floating point fields."))
                    }
                    NumKind::Unsigned => KeyKind::Unsigned,
                    _ => KeyKind::Long,
                }
            }
            Some(VType::GeoPoint) => return Err(super::source::unsupported(&cfg, "rare_terms")),
        };
        Ok(Box::new(RareCollector {
            spec: self.clone(),
            kind,
            cfg,
            ords: BucketOrds::default(),
            subs: Subs::new(def, env)?,
        }))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::Unmapped, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        let mut reference: Option<(KeyKind, super::fmt::Fmt)> = None;
        let mut filter: HashSet<KeyIdent> = HashSet::new();
        let mut pruned: Vec<Key> = Vec::new();
        let mut index: HashMap<KeyIdent, usize> = HashMap::new();
        let mut merged: Vec<(Bucket, Vec<Vec<AggResult>>)> = Vec::new();
        for p in parts {
            let AggResult::Buckets(b) = p else { continue };
            if b.kind == KeyKind::Unmapped {
                continue;
            }
            match &reference {
                None => reference = Some((b.kind, b.fmt.clone())),
                Some((k, _)) if *k != b.kind => {
                    return Err(OsError::new(
                        ErrorKind::AggregationExecution,
                        format!(
                            "Merging/Reducing the aggregations failed when computing the aggregation [{}] because the field you gave in the aggregation query existed as two different types in two different indices",
                            def.name
                        ),
                    ))
                }
                _ => {}
            }
            for k in b.pruned {
                if filter.insert(k.ident()) {
                    pruned.push(k);
                }
            }
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
        let Some((kind, fmt)) = reference else { return Ok(self.empty(def)) };
        let mut rare = Vec::new();
        for (mut b, subs) in merged {
            if b.doc_count <= self.max_doc_count && !filter.contains(&b.key.ident()) {
                b.subs = super::reduce_subs(def, subs, rc)?;
                rc.consume(1)?;
                rare.push(b);
            } else if b.doc_count > self.max_doc_count && filter.insert(b.key.ident()) {
                // Over the threshold once merged: later reductions must drop it too.
                pruned.push(b.key);
            }
        }
        sort_rare(&mut rare);
        Ok(AggResult::Buckets(Buckets { fmt, pruned, ..Buckets::of(kind, rare) }))
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        let AggResult::Buckets(b) = r else { return Err(OsError::internal("rare_terms result of another kind")) };
        let mut out = Vec::with_capacity(b.buckets.len());
        for bk in &b.buckets {
            let mut o = Map::new();
            let (k, ks) = b.fmt.key(&bk.key);
            o.insert("key".into(), k);
            if let Some(s) = ks {
                o.insert("key_as_string".into(), json!(s));
            }
            o.insert("doc_count".into(), json!(bk.doc_count));
            out.push(Value::Object(render_into(&def.subs, &bk.subs, rc, o)?));
        }
        let mut m = Map::new();
        m.insert("buckets".into(), Value::Array(out));
        Ok(m)
    }
}

/// Count ascending, then key ascending (OpenSearch's rare terms order).
fn sort_rare(b: &mut [Bucket]) {
    b.sort_by(|x, y| x.doc_count.cmp(&y.doc_count).then_with(|| x.key.cmp_key(&y.key)));
}

struct RareCollector {
    spec: RareTermsSpec,
    kind: KeyKind,
    cfg: Config,
    ords: BucketOrds,
    subs: Subs,
}

impl RareCollector {
    fn key(&self, raw: &RawKey) -> Key {
        match raw {
            RawKey::B(b) => Key::Bytes(b.to_vec()),
            RawKey::L(v) if self.kind == KeyKind::Unsigned => Key::Unsigned((*v as u64) ^ (1u64 << 63)),
            RawKey::L(v) => Key::Long(*v),
        }
    }

    fn accept(&self, raw: &RawKey, key: &Key) -> bool {
        if self.spec.inc_exc.is_empty() {
            return true;
        }
        match raw {
            RawKey::B(b) => self.spec.inc_exc.accept_bytes(b, matches!(self.cfg.vt, Some(VType::Bytes { ip: true }))),
            RawKey::L(v) => {
                let parse = |s: &str| -> Option<f64> {
                    match &self.cfg.fmt {
                        super::fmt::Fmt::Date { format, nanos, .. } => date::parse_date(s, format)
                            .ok()
                            .map(|ms| if *nanos { ms.saturating_mul(1_000_000) } else { ms } as f64),
                        _ => None,
                    }
                };
                self.spec.inc_exc.accept_number_with(key, *v, &parse)
            }
        }
    }
}

impl Collector for RareCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(RareLeaf {
            values: self.cfg.open(seg),
            ords: &mut self.ords,
            subs: self.subs.leaves(seg, si)?,
            scratch: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        let mut buckets = Vec::new();
        let mut pruned = Vec::new();
        for &o in self.ords.of_owner(owner) {
            let raw = &self.ords.keys[o as usize].1;
            let key = self.key(raw);
            if !self.accept(raw, &key) {
                continue;
            }
            let c = self.ords.counts[o as usize];
            if c > self.spec.max_doc_count {
                pruned.push(key);
            } else {
                buckets.push(Bucket::new(key, c, self.subs.results(o)?));
            }
        }
        sort_rare(&mut buckets);
        Ok(AggResult::Buckets(Buckets { fmt: self.cfg.fmt.clone(), pruned, ..Buckets::of(self.kind, buckets) }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.ords.mem_bytes() + self.subs.mem_bytes()
    }
}

struct RareLeaf<'a> {
    values: SegValues<'a>,
    ords: &'a mut BucketOrds,
    subs: SubLeaves<'a>,
    scratch: Vec<RawKey>,
}

impl LeafCollector for RareLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        self.scratch.clear();
        match &mut self.values {
            SegValues::Bytes(r) => {
                let ords: Vec<u64> = r.ords(doc).to_vec();
                if ords.is_empty() {
                    if let Some(m) = &r.missing {
                        self.scratch.push(RawKey::B(m.clone().into()));
                    }
                }
                for o in ords {
                    self.scratch.push(RawKey::B(r.term(o)?.into()));
                }
            }
            SegValues::Num(r) => {
                let mut prev = None;
                for &v in r.values(doc) {
                    if prev != Some(v) {
                        self.scratch.push(RawKey::L(v));
                    }
                    prev = Some(v);
                }
            }
            SegValues::None => {}
        }
        for k in self.scratch.drain(..) {
            let b = self.ords.ord(owner, k);
            self.ords.counts[b as usize] += 1;
            self.subs.collect(doc, b, score)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::search::aggs::parse::parse_aggs;

    fn spec(v: Value) -> OsResult<RareTermsSpec> {
        RareTermsSpec::parse("r", v.as_object().unwrap())
    }

    #[test]
    fn parses_with_opensearch_limits() {
        assert_eq!(spec(json!({"field": "f"})).unwrap().max_doc_count, 1);
        assert_eq!(
            spec(json!({"field": "f", "max_doc_count": 101})).unwrap_err().reason,
            "[max_doc_count] must be smallerthan 100in [r]"
        );
        assert_eq!(
            spec(json!({"field": "f", "max_doc_count": 0})).unwrap_err().reason,
            "[max_doc_count] must be greater than 0. Found [0] in [r]"
        );
        assert!(spec(json!({"field": "f", "precision": 0.0})).is_err());
        assert!(spec(json!({"field": "f", "size": 3})).is_err());
    }

    fn part(buckets: &[(&str, u64)], pruned: &[&str]) -> AggResult {
        AggResult::Buckets(Buckets {
            pruned: pruned.iter().map(|p| Key::Bytes(p.as_bytes().to_vec())).collect(),
            ..Buckets::of(
                KeyKind::String,
                buckets.iter().map(|(k, c)| Bucket::new(Key::Bytes(k.as_bytes().to_vec()), *c, vec![])).collect(),
            )
        })
    }

    #[test]
    fn reduce_drops_terms_pruned_on_any_shard_or_over_the_threshold() {
        let defs = parse_aggs(&json!({"r": {"rare_terms": {"field": "f", "max_doc_count": 2}}})).unwrap();
        let d = &defs[0];
        let parts = vec![part(&[("a", 1), ("b", 2), ("c", 1)], &["d"]), part(&[("d", 1), ("b", 1), ("e", 2)], &["c"])];
        let mut rc = ReduceCtx::new(true, 1000);
        let AggResult::Buckets(b) = d.spec.reduce(d, parts, &mut rc).unwrap() else { panic!() };
        let keys: Vec<(Key, u64)> = b.buckets.iter().map(|x| (x.key.clone(), x.doc_count)).collect();
        assert_eq!(keys, vec![(Key::Bytes(b"a".to_vec()), 1), (Key::Bytes(b"e".to_vec()), 2)]);
        assert!(b.pruned.contains(&Key::Bytes(b"b".to_vec())));
    }
}
