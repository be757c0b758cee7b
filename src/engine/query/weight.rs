//! A query compiled against a searcher's segments: global statistics resolved (BM25 idf and avgdl
//! summed over all segments like Lucene's `IndexSearcher`), boosts pushed down, multi-term
//! queries rewritten to constant-score document sets. A [`Weight`] then builds one scorer per
//! segment.

use std::sync::Arc;

use super::bm25::Bm25;
use super::boolean::{Conjunction, ReqExcl, ReqOpt};
use super::disjunction::Disjunction;
use super::multi_term::{self, DocSetQuery};
use super::phrase::{PhraseScorer, PhraseTerm};
use super::scorer::{AllScorer, BoxScorer, ConstScorer, DocListScorer, TermScorer};
use super::tree::{dedupe_clauses, Query};
use super::view::{SegmentView, TermState};
use crate::engine::segment::postings::SegmentPostings;
use crate::engine::segment::Postings;
use crate::engine::Result;

/// One term looked up in each segment of the searcher when the query was compiled, so scorers
/// open postings without a second dictionary lookup (Lucene's `TermStates`). Segments are
/// identified by address: they are pinned for as long as the searcher that compiled the weight.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermStates(Vec<(usize, Option<TermState>)>);

fn seg_key(seg: &dyn SegmentView) -> usize {
    seg as *const dyn SegmentView as *const () as usize
}

impl TermStates {
    /// The state in `seg`: `Some(None)` when the term is absent there, `None` when `seg` is not
    /// one of the compiled segments.
    fn get(&self, seg: &dyn SegmentView) -> Option<Option<&TermState>> {
        let k = seg_key(seg);
        self.0.iter().find(|(a, _)| *a == k).map(|(_, s)| s.as_ref())
    }

    /// [`Self::postings`] as the segment's own postings type (see
    /// [`SegmentView::segment_postings_of`]); `None` when not available that way.
    fn segment_postings<'a>(
        &self,
        seg: &'a dyn SegmentView,
        field: &str,
        term: &[u8],
        positions: bool,
    ) -> Option<Result<Option<SegmentPostings<'a>>>> {
        match self.get(seg) {
            Some(None) => Some(Ok(None)),
            Some(Some(st)) => seg.segment_postings_of(field, term, st, positions),
            None => None,
        }
    }

    /// The term's postings in `seg`, `None` when it does not occur there.
    fn postings<'a>(
        &self,
        seg: &'a dyn SegmentView,
        field: &str,
        term: &[u8],
        positions: bool,
    ) -> Result<Option<Box<dyn Postings + 'a>>> {
        match self.get(seg) {
            Some(None) => Ok(None),
            Some(Some(st)) => seg.postings_of(field, term, st, positions),
            None => seg.postings(field, term, positions),
        }
    }
}

/// A compiled query.
#[derive(Debug, Clone)]
pub enum Weight {
    /// A term scored by BM25, or by `constant` when set (non-scoring contexts score 0).
    Term {
        field: String,
        term: Vec<u8>,
        sim: Arc<Bm25>,
        constant: Option<f32>,
        display: String,
        states: Arc<TermStates>,
    },
    /// A phrase of at least two terms.
    Phrase {
        field: String,
        terms: Vec<(Vec<u8>, u32)>,
        slop: u32,
        sim: Arc<Bm25>,
        constant: Option<f32>,
        display: String,
        states: Arc<Vec<TermStates>>,
    },
    /// A phrase with alternatives at some position (see [`super::multi_phrase`]).
    MultiPhrase {
        field: String,
        positions: Vec<(Vec<Vec<u8>>, u32)>,
        slop: u32,
        sim: Arc<Bm25>,
        constant: Option<f32>,
        display: String,
    },
    /// A boolean combination; `msm` is the minimum number of `should` clauses that must match.
    Bool {
        must: Vec<Weight>,
        should: Vec<Weight>,
        must_not: Vec<Weight>,
        filter: Vec<Weight>,
        msm: usize,
        scoring: bool,
        display: String,
    },
    /// The documents of `inner`, all scoring `score`.
    Const { inner: Box<Weight>, score: f32, display: String },
    /// A rewritten multi-term, range or exists query with constant score.
    DocSet { query: DocSetQuery, score: f32, display: String },
    /// Every document.
    MatchAll { score: f32 },
    /// A dis_max of at least one clause (see [`super::dis_max`]).
    DisMax { subs: Vec<Weight>, tie: f32, display: String },
    /// `boosting`: `pos` scored, times `negative_boost` where `neg` matches, times `boost`.
    Boosting { pos: Box<Weight>, neg: Box<Weight>, negative_boost: f32, boost: f32, display: String },
    /// `function_score` with at least one function or a `min_score`.
    FunctionScore { inner: Arc<super::function_score::FunctionScoreWeight>, display: String },
    /// Matches of `approx` confirmed by `check`, each scoring `score`.
    Verified { approx: Box<Weight>, check: super::verified::CheckRef, score: f32, display: String },
    /// An interval query (see [`super::intervals`]); `boost` is its weight, `constant` its score
    /// when set.
    Intervals { source: Arc<super::intervals::Source>, boost: f32, constant: Option<f32>, display: String },
    /// A span query (see [`super::spans`]).
    Spans { query: Arc<super::spans::SpanQuery>, sim: super::spans::scorer::SpanSim, display: String },
    /// `distance_feature` (see [`super::distance_feature`]).
    DistanceFeature {
        field: String,
        origin: super::distance_feature::Origin,
        pivot: f64,
        boost: f32,
        constant: Option<f32>,
        display: String,
    },
    /// A combined-field term (see [`super::combined_fields`]), scoring.
    CombinedField { fields: Vec<(String, f32)>, term: Vec<u8>, sim: Arc<Bm25>, display: String },
    /// A block join (`nested`; see [`super::block_join`]).
    Join { inner: Arc<super::block_join::JoinWeight>, display: String },
    /// A filter whose per-segment matches go through the node query cache (see
    /// [`super::cached`]).
    Cached(Arc<super::cached::CachedWeight>),
    /// No document.
    MatchNone,
}

/// Global statistics of a term: doc freq and the field's doc count and summed length, and its
/// per-segment states.
pub(super) fn term_stats(
    segments: &[&dyn SegmentView],
    field: &str,
    term: &[u8],
) -> Result<(u64, u64, u64, TermStates)> {
    let mut local = super::dfs::TermAgg::default();
    let mut fields = super::dfs::FieldAgg::default();
    let mut states = Vec::with_capacity(segments.len());
    for s in segments {
        let st = s.term_state(field, term)?;
        if let Some(ts) = &st {
            local.doc_freq += ts.stats.doc_freq as u64;
            local.total_term_freq += ts.stats.total_term_freq;
        }
        states.push((seg_key(*s), st));
        if let Some(fs) = s.field_stats(field) {
            fields.doc_count += fs.doc_count as u64;
            fields.sum_total_term_freq += fs.sum_total_term_freq;
            fields.sum_doc_freq += fs.sum_doc_freq;
        }
    }
    // `dfs_query_then_fetch`: the global statistics when in force (see `super::dfs`).
    let fields = super::dfs::field(field, fields);
    if local.doc_freq == 0 {
        // Absent from these segments: nothing matches here, whatever the global statistics.
        return Ok((0, fields.doc_count, fields.sum_total_term_freq, TermStates(states)));
    }
    let df = super::dfs::term(field, term, local).doc_freq;
    Ok((df, fields.doc_count.max(df), fields.sum_total_term_freq, TermStates(states)))
}

impl Weight {
    /// Compiles `query` for `segments` with the inherited `boost`; `scoring` false when only
    /// matches matter (filters, counts).
    pub fn compile(query: &Query, segments: &[&dyn SegmentView], boost: f32, scoring: bool) -> Result<Weight> {
        Weight::build(query, segments, boost, scoring, false)
    }

    /// [`Weight::compile`] with each weight's Lucene display string, which explanations print
    /// (formatting them costs a few thousand instructions a query, so searches skip it).
    pub fn compile_explained(
        query: &Query,
        segments: &[&dyn SegmentView],
        boost: f32,
        scoring: bool,
    ) -> Result<Weight> {
        Weight::build(query, segments, boost, scoring, true)
    }

    /// [`Weight::compile`], with display strings when `explained`. Weights without scores go
    /// through the thread's query cache when it has one (see [`super::cached`]).
    pub(super) fn build(
        query: &Query,
        segments: &[&dyn SegmentView],
        boost: f32,
        scoring: bool,
        explained: bool,
    ) -> Result<Weight> {
        let w = Weight::build_uncached(query, segments, boost, scoring, explained)?;
        if scoring || explained {
            return Ok(w);
        }
        Ok(super::cached::wrap(query, w, segments))
    }

    fn build_uncached(
        query: &Query,
        segments: &[&dyn SegmentView],
        boost: f32,
        scoring: bool,
        explained: bool,
    ) -> Result<Weight> {
        let display = if explained { query.to_string() } else { String::new() };
        let constant = |b: f32| if scoring { boost * b } else { 0.0 };
        Ok(match query {
            Query::Term { field, term, boost: b } => {
                let (df, doc_count, sum_ttf, states) = term_stats(segments, field, term)?;
                if df == 0 {
                    return Ok(Weight::MatchNone);
                }
                let sim = Arc::new(Bm25::new(boost * b, doc_count, sum_ttf, &[df]));
                let constant = if scoring { None } else { Some(0.0) };
                Weight::Term {
                    field: field.clone(),
                    term: term.clone(),
                    sim,
                    constant,
                    display,
                    states: Arc::new(states),
                }
            }
            Query::Phrase { field, terms, slop, boost: b } => {
                if terms.is_empty() {
                    return Ok(Weight::MatchNone);
                }
                if terms.len() == 1 {
                    let t = Query::Term { field: field.clone(), term: terms[0].0.clone(), boost: *b };
                    return Weight::build(&t, segments, boost, scoring, explained);
                }
                let mut dfs = Vec::with_capacity(terms.len());
                let mut states = Vec::with_capacity(terms.len());
                let (mut doc_count, mut sum_ttf) = (0, 0);
                // All terms are looked up before a missing one makes it match nothing: a dfs
                // round records the statistics of each (Lucene's `PhraseWeight`).
                for (t, _) in terms {
                    let (df, dc, st, ts) = term_stats(segments, field, t)?;
                    dfs.push(df);
                    states.push(ts);
                    (doc_count, sum_ttf) = (dc, st);
                }
                if dfs.contains(&0) {
                    return Ok(Weight::MatchNone);
                }
                let sim = Arc::new(Bm25::new(boost * b, doc_count, sum_ttf, &dfs));
                let constant = if scoring { None } else { Some(0.0) };
                Weight::Phrase {
                    field: field.clone(),
                    terms: terms.clone(),
                    slop: *slop,
                    sim,
                    constant,
                    display,
                    states: Arc::new(states),
                }
            }
            Query::Blended { terms, blend, boost: b } => {
                return super::blended::compile(terms, *blend, segments, boost * b, scoring, explained)
            }
            Query::MultiPhrase { field, positions, slop, boost: b } => {
                return super::multi_phrase::compile(field, positions, *slop, *b, segments, boost, scoring, explained);
            }
            Query::Intervals { source, boost: b, .. } => {
                if **source == super::intervals::Source::NoMatch {
                    return Ok(Weight::MatchNone);
                }
                let constant = if scoring { None } else { Some(0.0) };
                Weight::Intervals { source: Arc::new((**source).clone()), boost: boost * b, constant, display }
            }
            Query::Spans { query: sq, boost: b } => {
                return super::spans::compile(sq, segments, boost * b, scoring, display)
            }
            Query::DistanceFeature { field, origin, pivot, boost: b } => {
                let constant = if scoring { None } else { Some(0.0) };
                Weight::DistanceFeature {
                    field: field.clone(),
                    origin: *origin,
                    pivot: *pivot,
                    boost: boost * b,
                    constant,
                    display,
                }
            }
            Query::CombinedField { fields, term, boost: b } => {
                return super::combined_fields::compile(fields, term, *b, segments, boost, scoring, explained);
            }
            Query::Bool { must, should, must_not, filter, minimum_should_match, boost: b } => {
                let bb = boost * b;
                let comp = |qs: &[Query], sc: bool| -> Result<Vec<Weight>> {
                    qs.iter().map(|q| Weight::build(q, segments, bb, sc, explained)).collect()
                };
                let must = dedupe_clauses(must);
                let should = if *minimum_should_match <= 1 {
                    dedupe_clauses(should)
                } else {
                    std::borrow::Cow::Borrowed(&should[..])
                };
                let w = Weight::Bool {
                    must: comp(&must, scoring)?,
                    should: comp(&should, scoring)?,
                    must_not: comp(must_not, false)?,
                    filter: comp(filter, false)?,
                    msm: *minimum_should_match as usize,
                    scoring,
                    display,
                };
                if let Weight::Bool { must, should, filter, msm, .. } = &w {
                    let required_empty = must.is_empty() && filter.is_empty();
                    let msm_eff = if required_empty { (*msm).max(1) } else { *msm };
                    let any_required_none = must.iter().chain(filter.iter()).any(|w| matches!(w, Weight::MatchNone));
                    let live_should = should.iter().filter(|w| !matches!(w, Weight::MatchNone)).count();
                    if any_required_none || live_should < msm_eff {
                        return Ok(Weight::MatchNone);
                    }
                }
                w
            }
            Query::ConstantScore { query, boost: b } => {
                let inner = Weight::build(query, segments, 1.0, false, explained)?;
                if matches!(inner, Weight::MatchNone) {
                    return Ok(Weight::MatchNone);
                }
                Weight::Const { inner: Box::new(inner), score: constant(*b), display }
            }
            Query::Verified { approx, check, boost: b } => {
                let inner = Weight::build(approx, segments, 1.0, false, explained)?;
                if matches!(inner, Weight::MatchNone) {
                    return Ok(Weight::MatchNone);
                }
                Weight::Verified { approx: Box::new(inner), check: check.clone(), score: constant(*b), display }
            }
            Query::MatchAll { boost: b } => Weight::MatchAll { score: constant(*b) },
            Query::MatchNone => Weight::MatchNone,
            Query::DisMax { queries, tie_breaker, boost: b } => {
                let mut subs = Vec::with_capacity(queries.len());
                for q in queries {
                    let w = Weight::build(q, segments, boost * b, scoring, explained)?;
                    if !matches!(w, Weight::MatchNone) {
                        subs.push(w);
                    }
                }
                if subs.is_empty() {
                    return Ok(Weight::MatchNone);
                }
                Weight::DisMax { subs, tie: *tie_breaker, display }
            }
            Query::Boosting { positive, negative, negative_boost, boost: b } => {
                let pos = Weight::build(positive, segments, 1.0, scoring, explained)?;
                if !scoring || matches!(pos, Weight::MatchNone) {
                    return Ok(pos);
                }
                let neg = Weight::build(negative, segments, 1.0, false, explained)?;
                Weight::Boosting {
                    pos: Box::new(pos),
                    neg: Box::new(neg),
                    negative_boost: *negative_boost,
                    boost: boost * b,
                    display,
                }
            }
            Query::FunctionScore { spec, boost: b } => {
                if !scoring && spec.min_score.is_none() {
                    return Weight::build(&spec.query, segments, boost * b, false, explained);
                }
                let sub_scoring = spec.boost_mode != super::function_score::CombineMode::Replace;
                let sub = Weight::build(&spec.query, segments, boost * b, sub_scoring, explained)?;
                if matches!(sub, Weight::MatchNone) {
                    return Ok(sub);
                }
                let mut filters = Vec::with_capacity(spec.functions.len());
                for f in &spec.functions {
                    filters.push(match &f.filter {
                        Some(q) => Some(Weight::build(q, segments, 1.0, false, explained)?),
                        None => None,
                    });
                }
                let bases = super::function_score::doc_bases(segments);
                let inner = super::function_score::FunctionScoreWeight { sub, filters, spec: (**spec).clone(), bases };
                Weight::FunctionScore { inner: Arc::new(inner), display }
            }
            Query::Nested { join, boost: b } => {
                return super::block_join::compile(join, segments, boost * b, scoring, explained);
            }
            Query::Terms { boost: b, .. }
            | Query::Prefix { boost: b, .. }
            | Query::Wildcard { boost: b, .. }
            | Query::Range { boost: b, .. }
            | Query::Exists { boost: b, .. }
            | Query::DocValues { boost: b, .. } => match DocSetQuery::from_query(query)? {
                Some(q) => Weight::DocSet { query: q, score: constant(*b), display },
                None => Weight::MatchNone,
            },
        })
    }

    /// The scorer of this weight in `seg`, `None` when nothing can match there. `seg` must be one
    /// of the segments the weight was compiled against (or a segment it never saw, which is
    /// looked up afresh), while the searcher holding them is alive: term entries are kept by
    /// segment address.
    pub fn scorer<'a>(&self, seg: &'a dyn SegmentView) -> Result<Option<BoxScorer<'a>>> {
        Ok(match self {
            Weight::Term { field, term, sim, constant, states, .. } => {
                match states.postings(seg, field, term, false)? {
                    Some(p) => Some(Box::new(TermScorer::new(p, seg.norms(field), sim.clone(), *constant))),
                    None => None,
                }
            }
            Weight::Phrase { field, terms, slop, sim, constant, states, .. } => {
                // The segment's own postings when the view has them for every term: the phrase
                // loop then calls them without dynamic dispatch. (A view has them for all terms
                // or for none, so a partial set is never opened twice in practice.)
                let mut own = Vec::with_capacity(terms.len());
                for (i, (t, _)) in terms.iter().enumerate() {
                    let Some(found) = states.get(i).and_then(|st| st.segment_postings(seg, field, t, true)) else {
                        break;
                    };
                    match found? {
                        Some(p) => own.push(PhraseTerm::of(terms, i, Box::new(p))),
                        None => return Ok(None),
                    }
                }
                if own.len() == terms.len() {
                    return Ok(Some(Box::new(PhraseScorer::new(own, *slop, seg.norms(field), sim.clone(), *constant))));
                }
                let mut pts = Vec::with_capacity(terms.len());
                for (i, (t, _)) in terms.iter().enumerate() {
                    let found = match states.get(i) {
                        Some(st) => st.postings(seg, field, t, true)?,
                        None => seg.postings(field, t, true)?,
                    };
                    match found {
                        Some(postings) => pts.push(PhraseTerm::of(terms, i, postings)),
                        None => return Ok(None),
                    }
                }
                Some(Box::new(PhraseScorer::new(pts, *slop, seg.norms(field), sim.clone(), *constant)))
            }
            Weight::MultiPhrase { field, positions, slop, sim, constant, .. } => {
                return super::multi_phrase::box_scorer(seg, field, positions, *slop, sim, *constant);
            }
            Weight::Intervals { source, boost, constant, .. } => {
                match super::intervals::scorer::IntervalScorer::new(seg, source, *boost, *constant)? {
                    Some(s) => Some(Box::new(s)),
                    None => None,
                }
            }
            Weight::Spans { query, sim, .. } => {
                match super::spans::scorer::SpanScorer::new(seg, query.clone(), sim.clone())? {
                    Some(s) => Some(Box::new(s)),
                    None => None,
                }
            }
            Weight::DistanceFeature { field, origin, pivot, boost, constant, .. } => {
                match super::distance_feature::DistanceFeatureScorer::new(
                    seg, field, *origin, *pivot, *boost, *constant,
                ) {
                    Some(s) => Some(Box::new(s)),
                    None => None,
                }
            }
            Weight::CombinedField { fields, term, sim, .. } => {
                match super::combined_fields::CombinedFieldScorer::new(seg, fields, term, sim.clone())? {
                    Some(s) => Some(Box::new(s)),
                    None => None,
                }
            }
            Weight::Bool { must, should, must_not, filter, msm, scoring, .. } => {
                return bool_scorer(seg, must, should, must_not, filter, *msm, *scoring);
            }
            Weight::Const { inner, score, .. } => match inner.scorer(seg)? {
                Some(s) => Some(Box::new(ConstScorer { inner: s, score: *score })),
                None => None,
            },
            Weight::DocSet { query, score, .. } => {
                let docs = multi_term::collect_docs(query, seg)?;
                if docs.is_empty() {
                    None
                } else {
                    Some(Box::new(DocListScorer::new(docs, *score)))
                }
            }
            Weight::Verified { approx, check, score, .. } => match approx.scorer(seg)? {
                Some(s) => Some(Box::new(super::verified::VerifiedScorer::new(s, check.0.clone(), seg, *score))),
                None => None,
            },
            Weight::MatchAll { score } => Some(Box::new(AllScorer::new(seg.max_doc(), *score))),
            Weight::DisMax { subs, tie, .. } => return super::dis_max::scorer(seg, subs, *tie),
            Weight::Boosting { pos, neg, negative_boost, boost, .. } => match pos.scorer(seg)? {
                Some(p) => Some(Box::new(super::function_score::BoostingScorer {
                    pos: p,
                    neg: neg.scorer(seg)?,
                    negative_boost: *negative_boost,
                    boost: *boost,
                })),
                None => None,
            },
            Weight::FunctionScore { inner, .. } => match super::function_score::FunctionScorer::build(inner, seg)? {
                Some(s) => Some(Box::new(s)),
                None => None,
            },
            Weight::Join { inner, .. } => return inner.scorer(seg),
            Weight::Cached(c) => return c.scorer(seg),
            Weight::MatchNone => None,
        })
    }

    /// For a term weight: its postings in `seg` (`Some(None)` when absent there); `None` for any
    /// other weight.
    pub fn term_postings<'a>(&self, seg: &'a dyn SegmentView) -> Result<Option<Option<Box<dyn Postings + 'a>>>> {
        match self {
            Weight::Term { field, term, states, .. } => Ok(Some(states.postings(seg, field, term, false)?)),
            _ => Ok(None),
        }
    }

    /// For a scoring conjunction of at least two plain term clauses (nothing but `must`): the
    /// clauses' term scorers in `seg`, in query order (for [`super::block_max_and`]; empty when
    /// a term is absent from `seg`); `None` for any other query.
    pub fn term_conjunction<'a>(&self, seg: &'a dyn SegmentView) -> Result<Option<Vec<TermScorer<'a>>>> {
        let Weight::Bool { must, should, must_not, filter, scoring: true, .. } = self else { return Ok(None) };
        if must.len() < 2 || !should.is_empty() || !must_not.is_empty() || !filter.is_empty() {
            return Ok(None);
        }
        if !must.iter().all(|w| matches!(w, Weight::Term { constant: None, .. })) {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(must.len());
        for w in must {
            if let Weight::Term { field, term, sim, states, .. } = w {
                match states.postings(seg, field, term, false)? {
                    Some(p) => out.push(TermScorer::new(p, seg.norms(field), sim.clone(), None)),
                    None => return Ok(Some(vec![])),
                }
            }
        }
        Ok(Some(out))
    }

    /// For a scoring term, or a scoring disjunction of plain term clauses (no required, excluded
    /// or filter clause, `minimum_should_match` at most 1): the clauses' term scorers in `seg` (for [`super::max_score`]); `None` for any other
    /// query.
    pub fn term_disjunction<'a>(&self, seg: &'a dyn SegmentView) -> Result<Option<Vec<TermScorer<'a>>>> {
        if let Weight::Term { field, term, sim, constant: None, states, .. } = self {
            // One clause: `max_score::search` runs the term's block-at-a-time top-k.
            let Some(p) = states.postings(seg, field, term, false)? else { return Ok(Some(vec![])) };
            return Ok(Some(vec![TermScorer::new(p, seg.norms(field), sim.clone(), None)]));
        }
        let Weight::Bool { must, should, must_not, filter, msm, scoring: true, .. } = self else { return Ok(None) };
        if !must.is_empty() || !must_not.is_empty() || !filter.is_empty() || *msm > 1 || should.len() < 2 {
            return Ok(None);
        }
        if !should.iter().all(|w| matches!(w, Weight::Term { constant: None, .. } | Weight::MatchNone)) {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(should.len());
        for w in should {
            if let Weight::Term { field, term, sim, states, .. } = w {
                if let Some(p) = states.postings(seg, field, term, false)? {
                    out.push(TermScorer::new(p, seg.norms(field), sim.clone(), None));
                }
            }
        }
        Ok(Some(out))
    }

    /// The number of matching live docs of `seg` when statistics give it without iterating.
    pub fn count_fast(&self, seg: &dyn SegmentView) -> Result<Option<u64>> {
        if seg.has_deletions() {
            return Ok(None);
        }
        Ok(match self {
            Weight::Term { field, term, states, .. } => match states.get(seg) {
                Some(st) => Some(st.map_or(0, |t| t.stats.doc_freq as u64)),
                None => Some(seg.term_stats(field, term)?.map_or(0, |t| t.doc_freq as u64)),
            },
            Weight::MatchAll { .. } => Some(seg.max_doc() as u64),
            Weight::MatchNone => Some(0),
            Weight::Const { inner, .. } => inner.count_fast(seg)?,
            Weight::Cached(c) => c.inner.count_fast(seg)?,
            _ => None,
        })
    }
}

fn one_or_disjunction<'a>(mut subs: Vec<BoxScorer<'a>>, msm: usize) -> BoxScorer<'a> {
    if subs.len() == 1 && msm <= 1 {
        subs.pop().expect("one element")
    } else {
        Box::new(Disjunction::new(subs, msm))
    }
}

/// Lucene's `Boolean2ScorerSupplier`: required clauses in a conjunction, `should` as a
/// disjunction (required when `msm > 0` or nothing else is required, else optional), then
/// `must_not` excluded.
fn bool_scorer<'a>(
    seg: &'a dyn SegmentView,
    must: &[Weight],
    should: &[Weight],
    must_not: &[Weight],
    filter: &[Weight],
    msm: usize,
    scoring: bool,
) -> Result<Option<BoxScorer<'a>>> {
    let mut req: Vec<BoxScorer<'a>> = Vec::new();
    let mut req_scoring = Vec::new();
    for (ws, sc) in [(must, scoring), (filter, false)] {
        for w in ws {
            match w.scorer(seg)? {
                Some(s) => {
                    req.push(s);
                    req_scoring.push(sc);
                }
                None => return Ok(None),
            }
        }
    }
    let mut opt = Vec::new();
    for w in should {
        if let Some(s) = w.scorer(seg)? {
            opt.push(s);
        }
    }
    let msm = if req.is_empty() { msm.max(1) } else { msm };
    if opt.len() < msm {
        return Ok(None);
    }
    let mut pos: BoxScorer<'a> = if req.is_empty() {
        one_or_disjunction(opt, msm)
    } else {
        if msm > 0 {
            req.push(one_or_disjunction(opt, msm));
            req_scoring.push(scoring);
            opt = Vec::new();
        }
        let base: BoxScorer<'a> = if req.len() == 1 {
            let s = req.pop().expect("one element");
            if req_scoring[0] {
                s
            } else {
                Box::new(ConstScorer { inner: s, score: 0.0 })
            }
        } else {
            Box::new(Conjunction::new(req, req_scoring))
        };
        if scoring && !opt.is_empty() {
            Box::new(ReqOpt::new(base, one_or_disjunction(opt, 1)))
        } else {
            base
        }
    };
    let mut excl = Vec::new();
    for w in must_not {
        if let Some(s) = w.scorer(seg)? {
            excl.push(s);
        }
    }
    if !excl.is_empty() {
        pos = Box::new(ReqExcl::new(pos, one_or_disjunction(excl, 1)));
    }
    Ok(Some(pos))
}
