//! `sampler` and `diversified_sampler` (OpenSearch's `SamplerAggregator`,
//! `DiversifiedAggregatorFactory`): each shard keeps, per bucket, its `shard_size` best-scoring
//! documents (ties by doc), at most `max_docs_per_value` of them per value of `field` for the
//! diversified form, and only then replays them, in doc order, into the sub-aggregations
//! (deferred collection). The doc count is the number of documents sampled.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::filter::{reduce_single, render_single, single_property};
use super::result::AggResult;
use super::source::{resolve, token, Config, SegValues, SourceSpec, VType};
use super::{AggDef, AggSpec, Collector, LeafCollector, ReduceCtx, RenderCtx, ShardEnv, Subs};
use crate::engine::query::{Searcher, SegmentView};
use crate::engine::segment::DocId;
use crate::error::{ErrorKind, OsError, OsResult};

/// OpenSearch's `DEFAULT_SHARD_SAMPLE_SIZE`.
const DEFAULT_SHARD_SIZE: usize = 100;

/// A parsed `sampler` or `diversified_sampler`.
#[derive(Debug, Clone)]
pub struct SamplerSpec {
    pub shard_size: usize,
    /// diversified_sampler: the value source and the most documents kept per value.
    pub diversity: Option<(SourceSpec, usize)>,
}

fn int(agg: &str, k: &str, v: &Value) -> OsResult<i64> {
    match v {
        Value::Number(n) => n.as_i64().ok_or_else(|| OsError::parsing(format!("[{agg}] failed to parse field [{k}]"))),
        Value::String(s) => s.parse().map_err(|_| OsError::parsing(format!("[{agg}] failed to parse field [{k}]"))),
        _ => Err(OsError::parsing(format!("[{agg}] {k} doesn't support values of type: {}", token(v)))),
    }
}

fn non_negative(what: &str, n: i64, name: &str) -> OsResult<usize> {
    usize::try_from(n)
        .map_err(|_| OsError::illegal(format!("[{what}] must be greater than or equal to 0. Found [{n}] in [{name}]")))
}

impl SamplerSpec {
    pub fn parse_sampler(name: &str, body: &Map<String, Value>) -> OsResult<SamplerSpec> {
        let mut shard_size = DEFAULT_SHARD_SIZE;
        for (k, v) in body {
            match k.as_str() {
                "shard_size" => shard_size = non_negative("shardSize", int("sampler", k, v)?, name)?,
                _ => return Err(OsError::parsing(crate::error::unknown_field("sampler", k, &["shard_size"]))),
            }
        }
        Ok(SamplerSpec { shard_size, diversity: None })
    }

    pub fn parse_diversified(name: &str, body: &Map<String, Value>) -> OsResult<SamplerSpec> {
        const T: &str = "diversified_sampler";
        let mut source = SourceSpec::default();
        let mut shard_size = DEFAULT_SHARD_SIZE;
        let mut max_per_value = 1;
        for (k, v) in body {
            if source.take(T, k, v)? {
                continue;
            }
            match k.as_str() {
                "shard_size" => shard_size = non_negative("shardSize", int(T, k, v)?, name)?,
                "max_docs_per_value" => max_per_value = non_negative("maxDocsPerValue", int(T, k, v)?, name)?,
                "execution_hint" => {
                    let h = super::source::string(T, k, v)?;
                    if !matches!(h.as_str(), "map" | "global_ordinals" | "bytes_hash") {
                        return Err(OsError::illegal(format!(
                            "Unknown `execution_hint`: [{h}], expected any of [map, global_ordinals, bytes_hash]"
                        )));
                    }
                }
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        T,
                        k,
                        &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "shard_size",
                            "max_docs_per_value",
                            "execution_hint",
                        ],
                    )))
                }
            }
        }
        source.require(T, name)?;
        Ok(SamplerSpec { shard_size, diversity: Some((source, max_per_value)) })
    }
}

impl AggSpec for SamplerSpec {
    fn type_name(&self) -> &'static str {
        match self.diversity {
            None => "sampler",
            Some(_) => "diversified_sampler",
        }
    }

    /// Both render as OpenSearch's `InternalSampler`.
    fn typed_name(&self, _r: &AggResult) -> &'static str {
        "sampler"
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        let diversity = match &self.diversity {
            None => None,
            Some((s, max)) => {
                let cfg = resolve(s, env.qc, "diversified_sampler")?;
                match &cfg.vt {
                    // Unmapped: OpenSearch's `UnmappedSampler` (no documents, no sub-aggregations).
                    None => return Ok(Box::new(UnmappedSampler)),
                    Some(VType::GeoPoint) => return Err(super::source::unsupported(&cfg, "diversified_sampler")),
                    Some(_) => {}
                }
                Some((cfg, *max))
            }
        };
        Ok(Box::new(SamplerCollector {
            shard_size: self.shard_size,
            diversity,
            nested: env.qc.nested_scope.is_some(),
            searcher: env.searcher.clone(),
            cands: Vec::new(),
            counts: Vec::new(),
            replayed: false,
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

struct UnmappedSampler;

impl Collector for UnmappedSampler {
    fn leaf<'a>(&'a mut self, _seg: &'a dyn SegmentView, _si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        Ok(Box::new(Nothing))
    }

    fn result(&mut self, _ord: u32) -> OsResult<AggResult> {
        Ok(AggResult::Single { doc_count: 0, subs: Vec::new() })
    }
}

struct Nothing;

impl LeafCollector for Nothing {
    fn collect(&mut self, _doc: DocId, _ord: u32, _score: f32) -> OsResult<()> {
        Ok(())
    }
}

/// The diversifying value of a document.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum DivKey {
    Missing,
    Num(i64),
    Bytes(Vec<u8>),
}

#[derive(Debug, Clone)]
struct Cand {
    score: f32,
    si: u32,
    doc: DocId,
    key: Option<DivKey>,
}

/// Best score first, then segment and doc (the shard's doc order).
fn better(a: &Cand, b: &Cand) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.si.cmp(&b.si)).then(a.doc.cmp(&b.doc))
}

/// The sample of one bucket: the best `n` candidates, at most `max` per diversifying value.
fn select(cands: &mut Vec<Cand>, n: usize, max: Option<usize>) {
    cands.sort_by(better);
    match max {
        None => cands.truncate(n),
        Some(max) => {
            let mut per: HashMap<DivKey, usize> = HashMap::new();
            let mut kept = Vec::with_capacity(n.min(cands.len()));
            for c in cands.drain(..) {
                if kept.len() >= n {
                    break;
                }
                let k = c.key.clone().unwrap_or(DivKey::Missing);
                let seen = per.entry(k).or_insert(0);
                if *seen < max {
                    *seen += 1;
                    kept.push(c);
                }
            }
            *cands = kept;
        }
    }
}

struct SamplerCollector {
    shard_size: usize,
    diversity: Option<(Config, usize)>,
    /// The documents are nested documents (the segments' nested views are replayed).
    nested: bool,
    searcher: Searcher,
    /// Candidates per owning bucket.
    cands: Vec<Vec<Cand>>,
    counts: Vec<u64>,
    replayed: bool,
    subs: Subs,
}

impl SamplerCollector {
    /// Feeds every bucket's sample to the sub-aggregations, segment by segment in doc order.
    fn replay(&mut self) -> OsResult<()> {
        self.replayed = true;
        let max = self.diversity.as_ref().map(|d| d.1);
        let mut docs: Vec<(u32, DocId, u32, f32)> = Vec::new();
        self.counts = vec![0; self.cands.len()];
        for (ord, cands) in self.cands.iter_mut().enumerate() {
            select(cands, self.shard_size, max);
            self.counts[ord] = cands.len() as u64;
            docs.extend(cands.iter().map(|c| (c.si, c.doc, ord as u32, c.score)));
        }
        self.cands = Vec::new();
        docs.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let segs = self.searcher.segments.clone();
        let mut i = 0;
        while i < docs.len() {
            let si = docs[i].0;
            let top: &dyn SegmentView =
                segs.get(si as usize).ok_or_else(|| OsError::internal(format!("no segment {si}")))?.as_ref();
            let seg = if self.nested { top.with_nested().unwrap_or(top) } else { top };
            let mut leaves = self.subs.leaves(seg, si as usize)?;
            while i < docs.len() && docs[i].0 == si {
                let (_, doc, ord, score) = docs[i];
                leaves.collect(doc, ord, score)?;
                i += 1;
            }
        }
        Ok(())
    }
}

impl Collector for SamplerCollector {
    fn leaf<'a>(&'a mut self, seg: &'a dyn SegmentView, si: usize) -> OsResult<Box<dyn LeafCollector + 'a>> {
        let values = self.diversity.as_ref().map(|(cfg, max)| (cfg.open(seg), *max));
        Ok(Box::new(SamplerLeaf { si: si as u32, n: self.shard_size, values, cands: &mut self.cands }))
    }

    fn result(&mut self, ord: u32) -> OsResult<AggResult> {
        if !self.replayed {
            self.replay()?;
        }
        Ok(AggResult::Single {
            doc_count: self.counts.get(ord as usize).copied().unwrap_or(0),
            subs: self.subs.results(ord)?,
        })
    }

    fn needs_scores(&self) -> bool {
        true
    }

    fn mem_bytes(&self) -> usize {
        self.cands.iter().map(|c| c.capacity() * 40).sum::<usize>() + self.counts.capacity() * 8 + self.subs.mem_bytes()
    }
}

struct SamplerLeaf<'a> {
    si: u32,
    n: usize,
    values: Option<(SegValues<'a>, usize)>,
    cands: &'a mut Vec<Vec<Cand>>,
}

fn single_valued() -> OsError {
    OsError::new(ErrorKind::AggregationExecution, "Sample diversifying key must be a single valued-field")
}

impl LeafCollector for SamplerLeaf<'_> {
    fn collect(&mut self, doc: DocId, ord: u32, score: f32) -> OsResult<()> {
        let o = ord as usize;
        if self.cands.len() <= o {
            self.cands.resize_with(o + 1, Vec::new);
        }
        let (key, max) = match &mut self.values {
            None => (None, None),
            Some((SegValues::Num(r), max)) => {
                let v = r.values(doc);
                let k = match v {
                    [] => DivKey::Missing,
                    [x] => DivKey::Num(*x),
                    _ => return Err(single_valued()),
                };
                (Some(k), Some(*max))
            }
            Some((SegValues::Bytes(r), max)) => {
                let missing = r.missing.clone();
                let ords = r.ords(doc).to_vec();
                let k = match ords.as_slice() {
                    [] => missing.map_or(DivKey::Missing, DivKey::Bytes),
                    [x] => DivKey::Bytes(r.term(*x)?),
                    _ => return Err(single_valued()),
                };
                (Some(k), Some(*max))
            }
            Some((SegValues::None, max)) => (Some(DivKey::Missing), Some(*max)),
        };
        let cands = &mut self.cands[o];
        cands.push(Cand { score, si: self.si, doc, key });
        // Bounded: the selection so far is all a later document can compete with.
        if cands.len() >= self.n.saturating_mul(2).max(64) {
            select(cands, self.n, max);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(score: f32, doc: DocId, key: i64) -> Cand {
        Cand { score, si: 0, doc, key: Some(DivKey::Num(key)) }
    }

    #[test]
    fn selection_keeps_the_best_per_value() {
        let mut v = vec![c(1.0, 0, 1), c(3.0, 1, 1), c(2.0, 2, 2), c(2.0, 3, 1), c(0.5, 4, 3)];
        select(&mut v, 3, Some(1));
        assert_eq!(v.iter().map(|c| c.doc).collect::<Vec<_>>(), vec![1, 2, 4]);
        let mut v = vec![c(1.0, 0, 1), c(3.0, 1, 1), c(2.0, 2, 2), c(2.0, 3, 1)];
        select(&mut v, 2, None);
        assert_eq!(v.iter().map(|c| c.doc).collect::<Vec<_>>(), vec![1, 2]);
    }

    /// Pruning early (as the leaf does) gives the selection of the whole list.
    #[test]
    fn pruning_is_safe() {
        let mut all: Vec<Cand> = (0..200).map(|d| c(((d * 37) % 11) as f32, d, i64::from(d % 7))).collect();
        let mut pruned: Vec<Cand> = Vec::new();
        for x in all.iter().cloned() {
            pruned.push(x);
            if pruned.len() >= 8 {
                select(&mut pruned, 5, Some(2));
            }
        }
        select(&mut pruned, 5, Some(2));
        select(&mut all, 5, Some(2));
        assert_eq!(pruned.iter().map(|c| c.doc).collect::<Vec<_>>(), all.iter().map(|c| c.doc).collect::<Vec<_>>());
    }
}
