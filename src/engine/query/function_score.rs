//! Queries that rescale another query's scores: Lucene's `FunctionScoreQuery.boostByQuery`
//! (OpenSearch's `boosting`) and OpenSearch's own `FunctionScoreQuery` (`function_score` with
//! `weight`, `field_value_factor` and `random_score` functions, `score_mode`, `boost_mode`,
//! `max_boost` and `min_score`), with their arithmetic in double exactly as in Java.

use std::sync::Arc;

use super::scorer::{BoxScorer, Scorer};
use super::sort::sortable_long_to_double;
use super::tree::Query;
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// `field_value_factor`'s `modifier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    None,
    Log,
    Log1p,
    Log2p,
    Ln,
    Ln1p,
    Ln2p,
    Square,
    Sqrt,
    Reciprocal,
}

impl Modifier {
    /// The modifier named `s` (case-insensitive), as `Modifier.fromString`.
    pub fn parse(s: &str) -> Option<Modifier> {
        Some(match s.to_ascii_lowercase().as_str() {
            "none" => Modifier::None,
            "log" => Modifier::Log,
            "log1p" => Modifier::Log1p,
            "log2p" => Modifier::Log2p,
            "ln" => Modifier::Ln,
            "ln1p" => Modifier::Ln1p,
            "ln2p" => Modifier::Ln2p,
            "square" => Modifier::Square,
            "sqrt" => Modifier::Sqrt,
            "reciprocal" => Modifier::Reciprocal,
            _ => return None,
        })
    }

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Modifier::None => "none",
            Modifier::Log => "log",
            Modifier::Log1p => "log1p",
            Modifier::Log2p => "log2p",
            Modifier::Ln => "ln",
            Modifier::Ln1p => "ln1p",
            Modifier::Ln2p => "ln2p",
            Modifier::Square => "square",
            Modifier::Sqrt => "sqrt",
            Modifier::Reciprocal => "reciprocal",
        }
    }

    /// `Modifier.apply`.
    pub fn apply(self, n: f64) -> f64 {
        match self {
            Modifier::None => n,
            Modifier::Log => n.log10(),
            Modifier::Log1p => (n + 1.0).log10(),
            Modifier::Log2p => (n + 2.0).log10(),
            Modifier::Ln => n.ln(),
            Modifier::Ln1p => n.ln_1p(),
            Modifier::Ln2p => (n + 1.0).ln_1p(),
            Modifier::Square => n * n,
            Modifier::Sqrt => n.sqrt(),
            Modifier::Reciprocal => 1.0 / n,
        }
    }
}

/// Where `random_score` takes its per-document randomness from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RandomSource {
    /// The index-wide doc id (`docBase + doc`), as OpenSearch without a `seed`.
    DocId,
    /// The first term of a sorted-set (keyword) column.
    Keyword(String),
    /// The first value of a numeric column of longs, hashed as its decimal text.
    Long(String),
    /// The document's `_id` (OpenSearch's default field when only a `seed` is given), read
    /// from the `_id` terms' postings once per segment.
    Id,
}

/// One score function.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreFunction {
    /// Only a weight (OpenSearch's `WeightFactorFunction` over `ScoreOne`): 1.
    One,
    /// `field_value_factor`: `modifier(value * factor)`; `doubles` when the column holds doubles
    /// as sortable longs.
    FieldValueFactor {
        field: String,
        doubles: bool,
        has_column: bool,
        factor: f32,
        modifier: Modifier,
        missing: Option<f64>,
    },
    /// `random_score` with its salted seed (`BitMixer.mix(seed, salt)`).
    Random { salted_seed: i32, source: RandomSource },
}

/// A function, the documents it applies to (`None`: all) and its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterFunction {
    pub filter: Option<Query>,
    pub function: ScoreFunction,
    pub weight: Option<f32>,
}

/// `score_mode`: how the functions' values combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreMode {
    Multiply,
    Sum,
    Avg,
    First,
    Max,
    Min,
}

/// `boost_mode`: how the function value combines with the query score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CombineMode {
    Multiply,
    Replace,
    Sum,
    Avg,
    Max,
    Min,
}

impl CombineMode {
    /// `CombineFunction.combine`.
    pub fn combine(self, q: f32, f: f64, max_boost: f32) -> f32 {
        let f = f.min(max_boost as f64);
        let q = q as f64;
        (match self {
            CombineMode::Multiply => q * f,
            CombineMode::Replace => f,
            CombineMode::Sum => q + f,
            CombineMode::Avg => (q + f) / 2.0,
            CombineMode::Max => q.max(f),
            CombineMode::Min => q.min(f),
        }) as f32
    }
}

/// A `function_score` query.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionScore {
    pub query: Query,
    pub functions: Vec<FilterFunction>,
    pub score_mode: ScoreMode,
    pub boost_mode: CombineMode,
    pub max_boost: f32,
    pub min_score: Option<f32>,
}

/// The compiled parts of a function score (inside [`Weight::FunctionScore`]).
#[derive(Debug, Clone)]
pub struct FunctionScoreWeight {
    pub sub: Weight,
    pub filters: Vec<Option<Weight>>,
    pub spec: FunctionScore,
    /// Doc base of each compiled segment, by segment address.
    pub bases: Vec<(usize, u32)>,
}

fn seg_key(seg: &dyn SegmentView) -> usize {
    seg as *const dyn SegmentView as *const () as usize
}

/// Doc bases of `segments` in order (for index-wide doc ids).
pub fn doc_bases(segments: &[&dyn SegmentView]) -> Vec<(usize, u32)> {
    let mut base = 0u32;
    segments
        .iter()
        .map(|s| {
            let b = base;
            base = base.saturating_add(s.max_doc());
            (seg_key(*s), b)
        })
        .collect()
}

/// A double as Java prints it, for the usual magnitudes.
fn jd(d: f64) -> String {
    format!("{d:?}")
}

/// HPPC's `BitMixer.mix32`.
pub fn mix32(k: i32) -> i32 {
    let mut k = k as u32;
    k = (k ^ (k >> 16)).wrapping_mul(0x85eb_ca6b);
    k = (k ^ (k >> 13)).wrapping_mul(0xc2b2_ae35);
    (k ^ (k >> 16)) as i32
}

/// Every document's `_id` in `seg`: per doc the index of its id in the returned terms
/// (`u32::MAX`: none), from the `_id` postings (bounded by the segment's size).
fn doc_ids(seg: &dyn SegmentView) -> Result<(Vec<u32>, Vec<Vec<u8>>)> {
    let max_doc = seg.max_doc() as usize;
    let mut by_doc = vec![u32::MAX; max_doc];
    let mut terms: Vec<Vec<u8>> = Vec::new();
    seg.visit_terms(crate::engine::index::builder::meta::ID, b"", &mut |t| {
        terms.push(t.to_vec());
        terms.len() <= max_doc
    })?;
    for (i, t) in terms.iter().enumerate() {
        let Some(mut p) = seg.postings(crate::engine::index::builder::meta::ID, t, false)? else { continue };
        let mut d = p.next();
        let mut n = 0usize;
        while d != crate::engine::segment::NO_MORE_DOCS && n <= max_doc {
            if let Some(slot) = by_doc.get_mut(d as usize) {
                *slot = i as u32;
            }
            d = p.next();
            n += 1;
        }
        if let Some(e) = p.take_error() {
            return Err(e);
        }
    }
    Ok((by_doc, terms))
}

/// Lucene's `StringHelper.murmurhash3_x86_32` (signed seed and result, as Java has them).
pub fn murmurhash3_x86_32(data: &[u8], seed: i32) -> i32 {
    crate::engine::codec::murmur3::murmur3_x86_32(data, seed as u32) as i32
}

/// Java's `String.hashCode` (over UTF-16 code units).
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
}

/// Lucene's `boostByQuery` scorer: the positive score times `negative_boost` where the negative
/// query matches, times the boost, in double.
pub struct BoostingScorer<'a> {
    pub pos: BoxScorer<'a>,
    pub neg: Option<BoxScorer<'a>>,
    pub negative_boost: f32,
    pub boost: f32,
}

impl Scorer for BoostingScorer<'_> {
    fn doc(&self) -> DocId {
        self.pos.doc()
    }
    fn next(&mut self) -> DocId {
        self.pos.next()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        self.pos.advance(target)
    }
    fn score(&mut self) -> f32 {
        let doc = self.pos.doc();
        let s = self.pos.score() as f64;
        let matched = match &mut self.neg {
            Some(n) => n.advance(doc) == doc && doc != NO_MORE_DOCS,
            None => false,
        };
        let factor = if matched { s * self.negative_boost as f64 } else { s };
        if factor >= 0.0 {
            (factor * self.boost as f64) as f32
        } else {
            0.0
        }
    }
    fn cost(&self) -> u64 {
        self.pos.cost()
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        f32::INFINITY
    }
    fn take_error(&mut self) -> Option<Error> {
        self.pos.take_error().or_else(|| self.neg.as_mut().and_then(|n| n.take_error()))
    }
}

/// OpenSearch's `FunctionFactorScorer`, with `MinScoreScorer` when `min_score` is set.
pub struct FunctionScorer<'a> {
    inner: BoxScorer<'a>,
    filters: Vec<Option<BoxScorer<'a>>>,
    w: Arc<FunctionScoreWeight>,
    seg: &'a dyn SegmentView,
    base: u32,
    needs_scores: bool,
    error: Option<Error>,
    /// The score of the current doc when `min_score` already computed it.
    current: Option<f32>,
    nums: Vec<i64>,
    ords: Vec<u64>,
    /// Per doc of the segment, the index of its `_id` in `id_terms` (built on first use).
    ids: Option<(Vec<u32>, Vec<Vec<u8>>)>,
}

impl<'a> FunctionScorer<'a> {
    /// The scorer of `w` in `seg` (`None` when the query matches nothing there).
    pub fn build(w: &Arc<FunctionScoreWeight>, seg: &'a dyn SegmentView) -> Result<Option<FunctionScorer<'a>>> {
        let Some(inner) = w.sub.scorer(seg)? else { return Ok(None) };
        let mut filters = Vec::with_capacity(w.filters.len());
        for f in &w.filters {
            filters.push(match f {
                Some(fw) => fw.scorer(seg)?,
                None => None,
            });
        }
        let base = w.bases.iter().find(|(k, _)| *k == seg_key(seg)).map_or(0, |b| b.1);
        let needs_scores = w.spec.boost_mode != CombineMode::Replace;
        let mut s = FunctionScorer {
            inner,
            filters,
            w: w.clone(),
            seg,
            base,
            needs_scores,
            error: None,
            current: None,
            nums: Vec::new(),
            ords: Vec::new(),
            ids: None,
        };
        s.settle();
        Ok(Some(s))
    }

    /// Moves past docs below `min_score` (bounded by the segment's doc count).
    fn settle(&mut self) -> DocId {
        self.current = None;
        let Some(min) = self.w.spec.min_score else { return self.inner.doc() };
        let mut doc = self.inner.doc();
        while doc != NO_MORE_DOCS {
            let s = self.compute();
            if self.error.is_some() {
                return doc;
            }
            if s >= min {
                self.current = Some(s);
                return doc;
            }
            doc = self.inner.next();
        }
        doc
    }

    fn filter_matches(&mut self, i: usize, doc: DocId) -> bool {
        match self.filters.get_mut(i) {
            Some(Some(f)) => f.advance(doc) == doc,
            Some(None) => self.w.filters.get(i).is_some_and(|f| f.is_none()),
            None => false,
        }
    }

    fn function_score(&mut self, i: usize, doc: DocId) -> std::result::Result<f64, String> {
        let w = self.w.clone();
        let Some(ff) = w.spec.functions.get(i) else { return Ok(1.0) };
        let v = match &ff.function {
            ScoreFunction::One => 1.0,
            ScoreFunction::FieldValueFactor { field, doubles, has_column, factor, modifier, missing } => {
                let found = *has_column && self.seg.numeric_values(field, doc, &mut self.nums) && !self.nums.is_empty();
                let value = match (found, missing) {
                    (true, _) => {
                        let l = self.nums[0];
                        if *doubles {
                            sortable_long_to_double(l)
                        } else {
                            l as f64
                        }
                    }
                    (false, Some(m)) => *m,
                    (false, None) => return Err(format!("Missing value for field [{field}]")),
                };
                let val = value * *factor as f64;
                let result = modifier.apply(val);
                if result < 0.0 {
                    let mut m = format!(
                        "field value function must not produce negative scores, but got: [{}] for field value: [{}]",
                        jd(result),
                        jd(value)
                    );
                    if *modifier == Modifier::Ln {
                        m.push_str("; consider using ln1p or ln2p instead of ln to avoid negative scores");
                    } else if *modifier == Modifier::Log {
                        m.push_str("; consider using log1p or log2p instead of log to avoid negative scores");
                    }
                    return Err(m);
                }
                result
            }
            ScoreFunction::Random { salted_seed, source } => {
                let hash = match source {
                    RandomSource::DocId => mix32((self.base.wrapping_add(doc) as i32) ^ *salted_seed),
                    RandomSource::Keyword(f) => {
                        if self.seg.sorted_set_ords(f, doc, &mut self.ords) && !self.ords.is_empty() {
                            match self.seg.sorted_set_term(f, self.ords[0]) {
                                Ok(t) => murmurhash3_x86_32(&t, *salted_seed),
                                Err(e) => {
                                    self.error = Some(e);
                                    0
                                }
                            }
                        } else {
                            // A document without a value hashes to the salted seed itself.
                            *salted_seed
                        }
                    }
                    RandomSource::Long(f) => {
                        if self.seg.numeric_values(f, doc, &mut self.nums) && !self.nums.is_empty() {
                            murmurhash3_x86_32(self.nums[0].to_string().as_bytes(), *salted_seed)
                        } else {
                            *salted_seed
                        }
                    }
                    RandomSource::Id => {
                        if self.ids.is_none() {
                            match doc_ids(self.seg) {
                                Ok(m) => self.ids = Some(m),
                                Err(e) => {
                                    self.error = Some(e);
                                    self.ids = Some((vec![], vec![]));
                                }
                            }
                        }
                        let (by_doc, terms) = self.ids.as_ref().expect("built above");
                        match by_doc.get(doc as usize).and_then(|&i| terms.get(i as usize)) {
                            Some(id) => murmurhash3_x86_32(id, *salted_seed),
                            None => *salted_seed,
                        }
                    }
                };
                ((hash & 0x00FF_FFFF) as f32 / (1u32 << 24) as f32) as f64
            }
        };
        Ok(match ff.weight {
            Some(w) => v * w as f64,
            None => v,
        })
    }

    /// `computeScore`: the functions' combined factor for `doc`.
    fn factor(&mut self, doc: DocId) -> std::result::Result<f64, String> {
        let w = self.w.clone();
        let n = w.spec.functions.len();
        let single = n == 1 && w.spec.functions.first().is_some_and(|f| f.filter.is_none());
        let mode = if single { ScoreMode::Multiply } else { w.spec.score_mode };
        let mut factor = 1f64;
        match mode {
            ScoreMode::First => {
                for i in 0..n {
                    if self.filter_matches(i, doc) {
                        factor = self.function_score(i, doc)?;
                        break;
                    }
                }
            }
            ScoreMode::Max | ScoreMode::Min => {
                let mut best: Option<f64> = None;
                for i in 0..n {
                    if self.filter_matches(i, doc) {
                        let v = self.function_score(i, doc)?;
                        best = Some(match best {
                            None => v,
                            Some(b) if mode == ScoreMode::Max => b.max(v),
                            Some(b) => b.min(v),
                        });
                    }
                }
                if let Some(b) = best {
                    factor = b;
                }
            }
            ScoreMode::Multiply => {
                for i in 0..n {
                    if self.filter_matches(i, doc) {
                        factor *= self.function_score(i, doc)?;
                    }
                }
            }
            ScoreMode::Sum | ScoreMode::Avg => {
                let (mut total, mut weights) = (0f64, 0f64);
                for i in 0..n {
                    if self.filter_matches(i, doc) {
                        total += self.function_score(i, doc)?;
                        weights += w.spec.functions.get(i).and_then(|f| f.weight).unwrap_or(1.0) as f64;
                    }
                }
                if weights != 0.0 {
                    factor = if mode == ScoreMode::Avg { total / weights } else { total };
                }
            }
        }
        Ok(factor)
    }

    /// The score of the current doc (errors are kept for `take_error`; the score is then 0).
    fn compute(&mut self) -> f32 {
        let doc = self.inner.doc();
        let sub = if self.needs_scores { self.inner.score() } else { 0.0 };
        if self.w.spec.functions.is_empty() {
            return sub;
        }
        let r = self.factor(doc).and_then(|f| {
            let s = self.w.spec.boost_mode.combine(sub, f, self.w.spec.max_boost);
            if s < 0.0 || s.is_nan() {
                Err(format!(
                    "function score query returned an invalid score: {} for doc: {doc}",
                    super::bm25::java_float(s)
                ))
            } else {
                Ok(s)
            }
        });
        match r {
            Ok(s) => s,
            Err(m) => {
                if self.error.is_none() {
                    self.error = Some(Error::InvalidArgument(m));
                }
                0.0
            }
        }
    }
}

impl Scorer for FunctionScorer<'_> {
    fn doc(&self) -> DocId {
        if self.error.is_some() {
            return NO_MORE_DOCS;
        }
        self.inner.doc()
    }
    fn next(&mut self) -> DocId {
        if self.error.is_some() {
            return NO_MORE_DOCS;
        }
        self.inner.next();
        self.settle();
        self.doc()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if self.error.is_some() {
            return NO_MORE_DOCS;
        }
        if target <= self.inner.doc() {
            return self.inner.doc();
        }
        self.inner.advance(target);
        self.settle();
        self.doc()
    }
    fn score(&mut self) -> f32 {
        match self.current {
            Some(s) => s,
            None => self.compute(),
        }
    }
    fn cost(&self) -> u64 {
        self.inner.cost()
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        f32::MAX
    }
    fn take_error(&mut self) -> Option<Error> {
        self.error.take().or_else(|| self.inner.take_error())
    }
}

impl std::fmt::Debug for BoostingScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoostingScorer").field("negative_boost", &self.negative_boost).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for FunctionScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionScorer").field("base", &self.base).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
