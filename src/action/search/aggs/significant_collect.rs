//! Shard collection of `significant_terms` and `significant_text` (see [`super::significant`]).
//!
//! A document's terms come from the field's doc values (keyword, ip, integer types), from the
//! inverted index uninverted per segment (a text field with `fielddata: true`), or from its
//! `_source` re-analyzed with the field's analyzer (significant_text, optionally dropping
//! sequences of six or more tokens already seen: `filter_duplicate_text`). Background counts come
//! from the term statistics of the shard's segments (deleted documents included, as Lucene's
//! `docFreq`; the background size is then the segments' `maxDoc`), or, with a
//! `background_filter` or a field without indexed terms, from counting the background's
//! documents.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::Value;

use super::fmt::Fmt;
use super::ords::{BucketOrds, RawKey};
use super::result::{AggResult, Bucket, Buckets, Key, KeyKind};
use super::significant::SigSpec;
use super::source::{resolve, Config, NumKind, SegValues, VType};
use super::{AggDef, Collector, LeafCollector, ShardEnv, SubLeaves, Subs};
use crate::action::search::dsl;
use crate::action::search::fetch::values_at;
use crate::engine::analysis::Analyzer;
use crate::engine::query::{Query, Searcher, SegmentView};
use crate::engine::schema::{FieldKind, Mapper, Mapping};
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::error::{OsError, OsResult};

/// Where a document's terms come from.
enum Terms {
    DocValues(Config),
    /// The indexed terms of a text field with `fielddata: true`.
    Uninvert(String),
    /// `_source` values at `paths`, analyzed (`None`: each value is one term, as a keyword).
    Reanalyze {
        paths: Vec<String>,
        analyzer: Option<Arc<dyn Analyzer>>,
    },
    Unmapped,
}

/// Where background counts come from.
enum Background {
    /// Term statistics / postings of the indexed field.
    Postings(String),
    /// Counting the background documents' doc values.
    Scan(Config),
}

/// A field's own path in `_source` and the fields copying into it.
fn source_paths(mapping: &Mapping, field: &str) -> Vec<String> {
    let mut own = field.to_string();
    while !matches!(mapping.mapper(&own), Some(Mapper::Field(_))) {
        match own.rfind('.') {
            Some(i) => own.truncate(i),
            None => {
                own = field.to_string();
                break;
            }
        }
    }
    let mut out = vec![own];
    for (path, ft) in mapping.leaf_fields() {
        if ft.copy_to.iter().any(|c| c == field) && !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// The shard collector of a significant_terms / significant_text definition.
pub fn collector(spec: &SigSpec, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
    let t = if spec.text { "significant_text" } else { "significant_terms" };
    let field = spec.source.field.clone().unwrap_or_default();
    let ft = env.qc.mapping.field_type(&field);
    let (terms, bg, kind, fmt, num) = match (spec.text, ft.map(|f| &f.kind)) {
        (true, None) => (Terms::Unmapped, None, KeyKind::Unmapped, Fmt::Raw, None),
        (false, None) if spec.source.missing.is_none() => (Terms::Unmapped, None, KeyKind::Unmapped, Fmt::Raw, None),
        (true, Some(FieldKind::Text(p))) => {
            let name = p.analyzer.clone().unwrap_or_else(|| "default".into());
            let a =
                env.qc.analyzers.get(&name).ok_or_else(|| {
                    OsError::illegal(format!("analyzer [{name}] has not been configured in mappings"))
                })?;
            let paths = spec.source_fields.clone().unwrap_or_else(|| source_paths(env.qc.mapping, &field));
            (
                Terms::Reanalyze { paths, analyzer: Some(a) },
                Some(Background::Postings(field.clone())),
                KeyKind::String,
                Fmt::Raw,
                None,
            )
        }
        (true, Some(FieldKind::Keyword(k))) if k.normalizer.is_none() => {
            let paths = spec.source_fields.clone().unwrap_or_else(|| source_paths(env.qc.mapping, &field));
            (
                Terms::Reanalyze { paths, analyzer: None },
                Some(Background::Postings(field.clone())),
                KeyKind::String,
                Fmt::Raw,
                None,
            )
        }
        (true, Some(_)) => {
            return Err(OsError::illegal(format!(
                "Field [{field}] has no analyzer, but SignificantText requires an analyzed field"
            )))
        }
        (false, Some(FieldKind::Text(_))) => {
            let fielddata = ft.and_then(|f| f.extra.get("fielddata")).and_then(Value::as_bool).unwrap_or(false);
            if !fielddata {
                return Err(super::source::text_fielddata(&field));
            }
            (Terms::Uninvert(field.clone()), Some(Background::Postings(field.clone())), KeyKind::String, Fmt::Raw, None)
        }
        (false, _) => {
            let cfg = resolve(&spec.source, env.qc, t)?;
            let indexed = ft.is_some_and(|f| f.index != Some(false));
            match cfg.vt.clone() {
                Some(VType::Bytes { ip: false }) if indexed && cfg.field.is_some() => {
                    let fmt = cfg.fmt.clone();
                    (Terms::DocValues(cfg), Some(Background::Postings(field.clone())), KeyKind::String, fmt, None)
                }
                Some(VType::Bytes { .. }) => {
                    let fmt = cfg.fmt.clone();
                    (Terms::DocValues(cfg.clone()), Some(Background::Scan(cfg)), KeyKind::String, fmt, None)
                }
                Some(VType::Num(k)) => {
                    if matches!(k, NumKind::Double | NumKind::Scaled(_)) {
                        return Err(OsError::illegal("No support for examining floating point numerics"));
                    }
                    spec.inc_exc.check_numeric(&def.name)?;
                    let kind = if k == NumKind::Unsigned { KeyKind::Unsigned } else { KeyKind::Long };
                    let fmt = cfg.fmt.clone();
                    (Terms::DocValues(cfg.clone()), Some(Background::Scan(cfg)), kind, fmt, Some(k))
                }
                Some(VType::GeoPoint) => return Err(super::source::unsupported(&cfg, t)),
                None => (Terms::Unmapped, None, KeyKind::Unmapped, Fmt::Raw, None),
            }
        }
    };
    let bg_query = match &spec.background_filter {
        Some(q) => Some(dsl::parse(q, env.qc)?),
        None => None,
    };
    Ok(Box::new(SigCollector {
        spec: spec.clone(),
        kind,
        fmt,
        num,
        terms,
        bg,
        bg_query,
        searcher: env.searcher.clone(),
        ords: BucketOrds::default(),
        subset: Vec::new(),
        subs: Subs::new(def, env)?,
        background: None,
        seen_windows: HashSet::new(),
    }))
}

struct SigCollector {
    spec: SigSpec,
    kind: KeyKind,
    fmt: Fmt,
    num: Option<NumKind>,
    terms: Terms,
    bg: Option<Background>,
    bg_query: Option<Query>,
    searcher: Searcher,
    ords: BucketOrds,
    /// Per owner: documents collected (the foreground size).
    subset: Vec<u64>,
    subs: Subs,
    /// The background size and the background count of every collected term.
    background: Option<(i64, HashMap<RawKey, i64>)>,
    /// filter_duplicate_text: hashes of the six-token windows seen on this shard.
    seen_windows: HashSet<u64>,
}

impl SigCollector {
    fn key(&self, raw: &RawKey) -> Key {
        match (raw, self.num) {
            (RawKey::B(b), _) => Key::Bytes(b.to_vec()),
            (RawKey::L(v), Some(NumKind::Unsigned)) => Key::Unsigned((*v as u64) ^ (1u64 << 63)),
            (RawKey::L(v), _) => Key::Long(*v),
        }
    }

    fn accept(&self, raw: &RawKey, key: &Key) -> bool {
        if self.spec.inc_exc.is_empty() {
            return true;
        }
        match raw {
            RawKey::B(b) => self.spec.inc_exc.accept_bytes(b, self.fmt == Fmt::Ip),
            RawKey::L(v) => self.spec.inc_exc.accept_number(key, *v),
        }
    }

    /// Computes the background size and counts of every collected term (once, after collection).
    fn compute_background(&mut self) -> OsResult<()> {
        if self.background.is_some() {
            return Ok(());
        }
        let mut counts: HashMap<RawKey, i64> = HashMap::new();
        for (_, k) in &self.ords.keys {
            counts.insert(k.clone(), 0);
        }
        let filter = match &self.bg_query {
            Some(q) => Some(self.searcher.match_weight(q, false)?),
            None => None,
        };
        let mut superset: i64 = 0;
        for (si, seg) in self.searcher.segments.iter().enumerate() {
            let seg = seg.as_ref();
            let bits = match &filter {
                Some(w) => Some(super::filter::matching_bits(&self.searcher, w, si, seg.max_doc())?),
                None => None,
            };
            match &bits {
                Some(b) => superset += b.iter().map(|x| i64::from(x.count_ones())).sum::<i64>(),
                None => superset += i64::from(seg.max_doc()),
            }
            match &self.bg {
                None => {}
                Some(Background::Postings(field)) => {
                    for (k, c) in counts.iter_mut() {
                        let RawKey::B(term) = k else { continue };
                        match &bits {
                            None => {
                                if let Some(ts) = seg.term_stats(field, term)? {
                                    *c += i64::from(ts.doc_freq);
                                }
                            }
                            Some(b) => {
                                if let Some(mut p) = seg.postings(field, term, false)? {
                                    let mut d = p.next();
                                    while d != NO_MORE_DOCS {
                                        if super::filter::has_bit(b, d) {
                                            *c += 1;
                                        }
                                        d = p.next();
                                    }
                                }
                            }
                        }
                    }
                }
                Some(Background::Scan(cfg)) => {
                    let mut values = cfg.open(seg);
                    let mut keys: Vec<RawKey> = Vec::new();
                    for d in 0..seg.max_doc() {
                        let inside = match &bits {
                            Some(b) => super::filter::has_bit(b, d),
                            None => seg.is_live(d),
                        };
                        if !inside {
                            continue;
                        }
                        keys.clear();
                        doc_values_keys(&mut values, d, &mut keys)?;
                        for k in &keys {
                            if let Some(c) = counts.get_mut(k) {
                                *c += 1;
                            }
                        }
                    }
                }
            }
        }
        self.background = Some((superset, counts));
        Ok(())
    }
}

/// The distinct keys of a doc's doc values.
fn doc_values_keys(values: &mut SegValues<'_>, doc: DocId, out: &mut Vec<RawKey>) -> OsResult<()> {
    match values {
        SegValues::Bytes(r) => {
            let ords: Vec<u64> = r.ords(doc).to_vec();
            if ords.is_empty() {
                if let Some(m) = &r.missing {
                    out.push(RawKey::B(m.clone().into()));
                }
            }
            for o in ords {
                out.push(RawKey::B(r.term(o)?.into()));
            }
        }
        SegValues::Num(r) => out.extend(r.values(doc).iter().map(|&v| RawKey::L(v))),
        SegValues::None => {}
    }
    out.dedup();
    Ok(())
}

impl Collector for SigCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let source = match &self.terms {
            Terms::DocValues(cfg) => LeafTerms::DocValues(cfg.open(seg)),
            Terms::Uninvert(field) => match super::fielddata::load(seg, field) {
                Some(u) => LeafTerms::Uninverted(u),
                // The failure is the collection's (see `fielddata::load`).
                None => LeafTerms::None,
            },
            Terms::Reanalyze { paths, analyzer } => LeafTerms::Source { seg, paths, analyzer: analyzer.clone() },
            Terms::Unmapped => LeafTerms::None,
        };
        Ok(Box::new(SigLeaf {
            source,
            dedup: self.spec.filter_duplicate_text.then_some(&mut self.seen_windows),
            ords: &mut self.ords,
            subset: &mut self.subset,
            subs: self.subs.leaves(seg, si)?,
            keys: Vec::new(),
        }))
    }

    fn result(&mut self, owner: u32) -> OsResult<AggResult> {
        if self.kind == KeyKind::Unmapped {
            return Ok(AggResult::Buckets(Buckets::of(KeyKind::Unmapped, Vec::new())));
        }
        self.compute_background()?;
        let (superset, bg) =
            self.background.as_ref().map(|(s, m)| (*s, m)).ok_or_else(|| OsError::internal("background"))?;
        let subset = self.subset.get(owner as usize).copied().unwrap_or(0);
        let mut cands: Vec<(f64, u32, Bucket)> = Vec::new();
        for &o in self.ords.of_owner(owner) {
            let raw = &self.ords.keys[o as usize].1;
            let key = self.key(raw);
            let c = self.ords.counts[o as usize];
            if c < self.spec.shard_min_doc_count || !self.accept(raw, &key) {
                continue;
            }
            let b_df = bg.get(raw).copied().unwrap_or(0);
            let score = self.spec.heuristic.score(c as i64, subset as i64, b_df, superset)?;
            let mut b = Bucket::new(key, c, Vec::new());
            b.error = b_df;
            cands.push((score, o, b));
        }
        cands.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.2.key.cmp_key(&b.2.key)));
        cands.truncate(self.spec.shard_size());
        let mut buckets = Vec::with_capacity(cands.len());
        for (_, o, mut b) in cands {
            b.subs = self.subs.results(o)?;
            buckets.push(b);
        }
        Ok(AggResult::Buckets(Buckets {
            other_doc_count: subset,
            doc_count_error: superset,
            fmt: self.fmt.clone(),
            ..Buckets::of(self.kind, buckets)
        }))
    }

    fn needs_scores(&self) -> bool {
        self.subs.needs_scores()
    }

    fn mem_bytes(&self) -> usize {
        self.ords.mem_bytes() + self.subs.mem_bytes() + self.subset.capacity() * 8 + self.seen_windows.len() * 16
    }
}

enum LeafTerms<'a> {
    DocValues(SegValues<'a>),
    Uninverted(Arc<crate::engine::query::uninverted::Uninverted>),
    Source { seg: &'a dyn SegmentView, paths: &'a [String], analyzer: Option<Arc<dyn Analyzer>> },
    None,
}

struct SigLeaf<'a> {
    source: LeafTerms<'a>,
    dedup: Option<&'a mut HashSet<u64>>,
    ords: &'a mut BucketOrds,
    subset: &'a mut Vec<u64>,
    subs: SubLeaves<'a>,
    keys: Vec<RawKey>,
}

/// Tokens in runs of six or more already seen (DeDuplicatingTokenFilter's window) are dropped.
const DEDUP_WINDOW: usize = 6;

fn drop_duplicate_runs(tokens: Vec<String>, seen: &mut HashSet<u64>) -> Vec<String> {
    if tokens.len() < DEDUP_WINDOW {
        return tokens;
    }
    let mut dup = vec![false; tokens.len()];
    for i in 0..=tokens.len() - DEDUP_WINDOW {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        tokens[i..i + DEDUP_WINDOW].hash(&mut h);
        if !seen.insert(h.finish()) {
            for d in &mut dup[i..i + DEDUP_WINDOW] {
                *d = true;
            }
        }
    }
    tokens.into_iter().zip(dup).filter(|(_, d)| !d).map(|(t, _)| t).collect()
}

impl SigLeaf<'_> {
    fn doc_keys(&mut self, doc: DocId) -> OsResult<()> {
        self.keys.clear();
        match &mut self.source {
            LeafTerms::DocValues(v) => doc_values_keys(v, doc, &mut self.keys)?,
            LeafTerms::Uninverted(u) => {
                self.keys.extend(u.ords(doc).iter().map(|&o| RawKey::B(u.term(u64::from(o)).into())));
            }
            LeafTerms::Source { seg, paths, analyzer } => {
                let Some(bytes) = seg.source(doc)? else { return Ok(()) };
                let src: Value = serde_json::from_slice(&bytes)
                    .map_err(|e| OsError::internal(format!("stored _source of doc {doc} is not JSON: {e}")))?;
                let mut values = Vec::new();
                for p in paths.iter() {
                    values_at(&src, p, &mut values);
                }
                let mut tokens: Vec<String> = Vec::new();
                for v in &values {
                    let text = match v {
                        Value::String(s) => s.clone(),
                        Value::Null => continue,
                        other => other.to_string(),
                    };
                    match analyzer {
                        Some(a) => {
                            a.analyze(&text, 0, &mut |t| tokens.push(t.term.to_string()));
                        }
                        None => tokens.push(text),
                    }
                }
                if let Some(seen) = self.dedup.as_deref_mut() {
                    tokens = drop_duplicate_runs(tokens, seen);
                }
                self.keys.extend(tokens.into_iter().map(|t| RawKey::B(t.into_bytes().into())));
            }
            LeafTerms::None => {}
        }
        let mut seen = HashSet::new();
        self.keys.retain(|k| seen.insert(k.clone()));
        Ok(())
    }
}

impl LeafCollector for SigLeaf<'_> {
    fn collect(&mut self, doc: DocId, owner: u32, score: f32) -> OsResult<()> {
        let o = owner as usize;
        if self.subset.len() <= o {
            self.subset.resize(o + 1, 0);
        }
        self.subset[o] += 1;
        self.doc_keys(doc)?;
        for k in std::mem::take(&mut self.keys) {
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

    fn toks(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn duplicate_runs_of_six_are_dropped() {
        let mut seen = HashSet::new();
        assert_eq!(drop_duplicate_runs(toks("good n1 g1 g2 g3 g4 g5 g6"), &mut seen).len(), 8);
        assert_eq!(drop_duplicate_runs(toks("good n2 g1 g2 g3 g4 g5 g6"), &mut seen), toks("good n2"));
        assert_eq!(drop_duplicate_runs(toks("g1 g2 g3 g4 g5"), &mut seen).len(), 5);
    }
}
