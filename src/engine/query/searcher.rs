//! The searcher: a pinned set of segments, top-k search (by score with block-max pruning once the
//! total-hits threshold is reached, or by doc values), counting, and explanations.
//!
//! Ties are broken by (segment order, doc id) ascending, like Lucene. Scores are summed over
//! segments' statistics (deleted documents included), so they equal OpenSearch's for the same
//! index.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use super::explain::Explanation;
use super::max_score::Sink;
use super::sort::{cmp_key, cmp_value, cmp_values, KeyReader, SegKey, SortBy, SortField, SortOrder, SortValue};
use super::tree::Query;
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// Whether a total is exact or a lower bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `eq`: exact.
    Eq,
    /// `gte`: at least.
    Gte,
}

/// OpenSearch's `track_total_hits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TrackTotalHits {
    /// `true`: count every match (no block-max pruning).
    Accurate,
    /// Count exactly up to N (default 10 000); above, report `(N, Gte)` and prune.
    UpTo(u64),
    /// `false`: no counting; the total is reported as `(0, Gte)` when anything matched.
    Disabled,
}

/// What a search returns.
#[derive(Debug, Clone, PartialEq)]
pub struct TopSpec {
    /// Hits to return.
    pub size: usize,
    /// Hits to skip.
    pub from: usize,
    /// Sort criteria; empty means by score (then segment and doc).
    pub sort: Vec<SortField>,
    /// Total-hits accuracy.
    pub track_total_hits: TrackTotalHits,
    /// `search_after`: only hits strictly after these sort values (with an empty `sort`, one
    /// `Float` score: hits scoring less).
    pub after: Option<Vec<SortValue>>,
    /// With `after`: the (segment, doc) of the hit that carried those sort values (a scroll's
    /// last emitted hit, Lucene's `searchAfter` `FieldDoc`), so hits with EQUAL sort values are
    /// kept when they come after it in (segment, doc) order. `None`: equal values are skipped.
    pub after_doc: Option<(usize, DocId)>,
    /// Checked every few thousand collected docs inside a segment (and between segments): once
    /// past it, collection stops and the hits so far are returned with
    /// [`TopDocs::timed_out`] set (OpenSearch's `TimeExceededException` handling).
    pub deadline: Option<std::time::Instant>,
}

impl Default for TopSpec {
    fn default() -> Self {
        TopSpec {
            size: 10,
            from: 0,
            sort: vec![],
            track_total_hits: TrackTotalHits::UpTo(10_000),
            after: None,
            after_doc: None,
            deadline: None,
        }
    }
}

/// One hit.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index of the segment in the searcher.
    pub segment: usize,
    /// Doc id within the segment.
    pub doc: DocId,
    /// Score (NaN when sorting by fields without `_score`, like Lucene).
    pub score: f32,
    /// One value per sort field (empty when sorting by relevance only).
    pub sort_values: Vec<SortValue>,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct TopDocs {
    /// Total matching live documents, exact or a lower bound.
    pub total: (u64, Relation),
    /// Hits `from..from + size` in sort order.
    pub hits: Vec<Hit>,
    /// The best score (`None` when scores are not computed or nothing matched).
    pub max_score: Option<f32>,
    /// Whether collection stopped at [`TopSpec::deadline`] (hits and total are partial).
    pub timed_out: bool,
}

/// A search over a fixed set of segments (they stay alive as long as the searcher).
#[derive(Clone)]
pub struct Searcher {
    /// The segments, in index order.
    pub segments: Vec<Arc<dyn SegmentView>>,
}

/// The smallest float above `x` (Java's `Math.nextUp`).
pub fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        x
    } else if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

/// A hit packed into one integer ordered like the ranking: higher score first, then earlier
/// (segment, doc). The heap compares plain integers instead of (float, segment, doc) triples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Scored(u128);

impl Scored {
    fn new(score: f32, seg: usize, doc: DocId) -> Scored {
        // `f32::total_cmp` order as unsigned bits: flip all bits of negatives, the sign of the rest.
        let b = score.to_bits();
        let key = if b >> 31 == 1 { !b } else { b | 1 << 31 };
        let seg = u32::try_from(seg).unwrap_or(u32::MAX);
        Scored((key as u128) << 64 | ((u32::MAX - seg) as u128) << 32 | (u32::MAX - doc) as u128)
    }
    fn score(self) -> f32 {
        let key = (self.0 >> 64) as u32;
        f32::from_bits(if key >> 31 == 1 { key & !(1 << 31) } else { !key })
    }
    fn seg(self) -> usize {
        (u32::MAX - (self.0 >> 32) as u32) as usize
    }
    fn doc(self) -> DocId {
        u32::MAX - self.0 as u32
    }
}

/// The top-k by score of the live docs it is given, in (segment, doc) order.
struct TopCollector {
    /// Min-heap: the worst kept hit on top.
    heap: BinaryHeap<std::cmp::Reverse<Scored>>,
    k: usize,
    /// Live docs collected (all of them until `count > threshold`, when pruning may start).
    count: u64,
    threshold: u64,
    /// `search_after`: only hits ranked strictly after this one.
    after: Option<Scored>,
    /// [`TopSpec::deadline`], checked every [`DEADLINE_CHECK_EVERY`] collected docs.
    deadline: Option<std::time::Instant>,
    ticks: u32,
    /// Set once past the deadline: nothing more is collected and no doc is competitive.
    timed_out: bool,
    /// The segment whose docs are being collected.
    seg: usize,
    /// The worst kept score once the heap is full. A later doc enters only with a strictly
    /// higher score (ties go to the earlier (segment, doc)).
    worst: f32,
    /// `k` distinct live docs score at least this ([`super::floor`]); 0 until set.
    floor: f32,
}

/// Docs collected between two looks at the clock (OpenSearch checks its timeout per doc, at
/// the cost of a clock read; every 4096 docs bounds the overshoot to a few hundred µs).
pub const DEADLINE_CHECK_EVERY: u32 = 4096;

/// Whether `deadline` has passed, or the work was cancelled ([`crate::engine::cancel`]): a
/// cancelled search stops where a timed-out one stops.
fn past(deadline: Option<std::time::Instant>) -> bool {
    deadline.is_some_and(|d| std::time::Instant::now() >= d) || crate::engine::cancel::requested()
}

impl TopCollector {
    fn new(k: usize, threshold: u64, spec: &TopSpec, after: Option<f32>) -> TopCollector {
        let after = after.map(|a| match spec.after_doc {
            Some((seg, doc)) => Scored::new(a, seg, doc),
            // The last rank at score `a`: every hit scoring `a` or more is skipped.
            None => Scored::new(a, usize::MAX, DocId::MAX),
        });
        TopCollector {
            heap: BinaryHeap::with_capacity(k.min(4096) + 1),
            k,
            count: 0,
            threshold,
            after,
            deadline: spec.deadline,
            ticks: 0,
            timed_out: false,
            seg: 0,
            worst: f32::NEG_INFINITY,
            floor: 0.0,
        }
    }

    fn start_segment(&mut self, seg: usize) {
        self.seg = seg;
    }
}

impl super::max_score::Sink for TopCollector {
    #[inline]
    fn collect(&mut self, doc: DocId, score: f32) {
        if self.timed_out {
            return;
        }
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks % DEADLINE_CHECK_EVERY == 0 && past(self.deadline) {
            self.timed_out = true;
            return;
        }
        self.count += 1;
        if self.after.is_some_and(|a| Scored::new(score, self.seg, doc) >= a) {
            return;
        }
        if self.heap.len() < self.k {
            self.heap.push(std::cmp::Reverse(Scored::new(score, self.seg, doc)));
            if self.heap.len() == self.k {
                self.worst = self.heap.peek().expect("heap is full").0.score();
            }
        } else if score > self.worst {
            let mut top = self.heap.peek_mut().expect("heap is full (k > 0)");
            *top = std::cmp::Reverse(Scored::new(score, self.seg, doc));
            drop(top);
            self.worst = self.heap.peek().expect("heap is full (k > 0)").0.score();
        }
    }

    #[inline]
    fn min_competitive(&self) -> f32 {
        if self.timed_out {
            // Nothing is competitive any more: MaxScore and block-max loops skip to the end.
            f32::INFINITY
        } else if self.heap.len() == self.k && self.count > self.threshold {
            next_up(self.worst).max(self.floor)
        } else {
            // Set only once pruning is allowed (`floor_k`); the floor counts inclusively, so a
            // doc tying with it still enters (ties go to the earlier doc).
            self.floor
        }
    }

    fn floor_k(&self) -> Option<usize> {
        let may_prune = self.threshold == 0 || self.count > self.threshold;
        (may_prune && self.after.is_none() && !self.timed_out).then_some(self.k)
    }

    fn raise_floor(&mut self, floor: f32) {
        if self.floor_k().is_some() {
            self.floor = self.floor.max(floor);
        }
    }
}

fn total(count: u64, threshold: u64) -> (u64, Relation) {
    if count > threshold {
        (threshold, Relation::Gte)
    } else {
        (count, Relation::Eq)
    }
}

impl Searcher {
    /// A searcher over `segments` (in index order).
    pub fn new(segments: Vec<Arc<dyn SegmentView>>) -> Searcher {
        Searcher { segments }
    }

    fn views(&self) -> Vec<&dyn SegmentView> {
        self.segments.iter().map(|s| s.as_ref()).collect()
    }

    /// The matching live documents (no scoring; statistics when there are no deletions).
    pub fn count(&self, query: &Query) -> Result<u64> {
        let views = self.views();
        let w = Weight::compile(query, &views, 1.0, false)?;
        let mut n = 0;
        for seg in views {
            n += super::count::count_segment(&w, seg)?;
        }
        Ok(n)
    }

    /// The weight of `query` over these segments, for [`Searcher::segment_matches`].
    pub fn match_weight(&self, query: &Query, scoring: bool) -> Result<Weight> {
        Weight::compile(query, &self.views(), 1.0, scoring)
    }

    /// Calls `f` with every live match of `w` in segment `si` and its score (NaN unless the
    /// weight scores) — what aggregations collect, one segment at a time so that the caller
    /// can open the segment's columns first. `f`'s error stops the visit.
    pub fn segment_matches<E: From<Error>>(
        &self,
        w: &Weight,
        si: usize,
        scoring: bool,
        f: &mut dyn FnMut(DocId, f32) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let Some(seg) = self.segments.get(si) else { return Ok(()) };
        let seg = seg.as_ref();
        let Some(mut sc) = w.scorer(seg)? else { return Ok(()) };
        let mut doc = sc.doc();
        while doc != NO_MORE_DOCS {
            if seg.is_live(doc) {
                f(doc, if scoring { sc.score() } else { f32::NAN })?;
            }
            doc = sc.next();
        }
        match sc.take_error() {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    /// The number of live documents matching `query` whose score is at least `min` (the total
    /// of a search with `min_score`: every match is scored, none kept).
    pub fn count_min_score(&self, query: &Query, min: f32) -> Result<u64> {
        let views = self.views();
        let w = Weight::compile(query, &views, 1.0, true)?;
        let mut n = 0;
        for seg in views {
            let Some(mut sc) = w.scorer(seg)? else { continue };
            let mut doc = sc.doc();
            while doc != NO_MORE_DOCS {
                if seg.is_live(doc) && sc.score() >= min {
                    n += 1;
                }
                doc = sc.next();
            }
            if let Some(e) = sc.take_error() {
                return Err(e);
            }
        }
        Ok(n)
    }

    /// The top hits of `query` under `spec`.
    pub fn search(&self, query: &Query, spec: &TopSpec) -> Result<TopDocs> {
        let by_score = spec.sort.is_empty()
            || (spec.sort.len() == 1 && spec.sort[0].by == SortBy::Score && spec.sort[0].order == SortOrder::Desc);
        let threshold = match spec.track_total_hits {
            TrackTotalHits::Accurate => u64::MAX,
            TrackTotalHits::UpTo(n) => n,
            TrackTotalHits::Disabled => 0,
        };
        if by_score {
            self.search_by_score(query, spec, threshold)
        } else {
            self.search_by_fields(query, spec, threshold)
        }
    }

    fn search_by_score(&self, query: &Query, spec: &TopSpec, threshold: u64) -> Result<TopDocs> {
        let views = self.views();
        let k = spec.from.saturating_add(spec.size);
        if k == 0 {
            let n = self.count(query)?;
            return Ok(TopDocs { total: total(n, threshold), hits: vec![], max_score: None, timed_out: false });
        }
        let after = match spec.after.as_deref() {
            None => None,
            Some([SortValue::Float(s)]) => Some(*s),
            Some([SortValue::Double(s)]) => Some(*s as f32),
            Some(other) => {
                return Err(Error::InvalidArgument(format!("search_after {other:?} does not match a sort by score")))
            }
        };
        let w = Weight::compile(query, &views, 1.0, true)?;
        let mut top = TopCollector::new(k, threshold, spec, after);
        for (si, seg) in views.iter().enumerate() {
            if top.timed_out || (si > 0 && past(spec.deadline)) {
                top.timed_out = true;
                break;
            }
            top.start_segment(si);
            if let Some(clauses) = w.term_disjunction(*seg)? {
                super::max_score::search(clauses, *seg, &mut top)?;
                continue;
            }
            if let Some(clauses) = w.term_conjunction(*seg)? {
                super::block_max_and::search(clauses, *seg, &mut top)?;
                continue;
            }
            let Some(mut sc) = w.scorer(*seg)? else { continue };
            let deletions = seg.has_deletions();
            let max_doc = seg.max_doc();
            let mut min_comp = 0f32;
            let mut doc = sc.doc();
            loop {
                let m = top.min_competitive();
                if m > min_comp {
                    min_comp = m;
                    sc.set_min_competitive_score(m);
                    doc = sc.doc();
                }
                if doc == NO_MORE_DOCS || top.timed_out {
                    break;
                }
                let live = if deletions { seg.is_live(doc) } else { doc < max_doc };
                if live {
                    let score = sc.score();
                    top.collect(doc, score);
                }
                doc = sc.next();
            }
            if let Some(e) = sc.take_error() {
                return Err(e);
            }
        }
        let (heap, count, timed_out) = (top.heap, top.count, top.timed_out);
        // Ascending `Reverse`: best first.
        let sorted = heap.into_sorted_vec();
        let max_score = sorted.first().map(|e| e.0.score());
        let with_values = !spec.sort.is_empty();
        let hits = sorted
            .into_iter()
            .skip(spec.from)
            .map(|std::cmp::Reverse(e)| Hit {
                segment: e.seg(),
                doc: e.doc(),
                score: e.score(),
                sort_values: if with_values { vec![SortValue::Float(e.score())] } else { vec![] },
            })
            .collect();
        Ok(TopDocs { total: total(count, threshold), hits, max_score, timed_out })
    }

    fn search_by_fields(&self, query: &Query, spec: &TopSpec, threshold: u64) -> Result<TopDocs> {
        let views = self.views();
        let fields = &spec.sort;
        let scoring = fields.iter().any(|f| f.by == SortBy::Score);
        let k = spec.from.saturating_add(spec.size);
        if let Some(a) = &spec.after {
            if a.len() != fields.len() {
                return Err(Error::InvalidArgument(format!(
                    "search_after has {} values but sort has {} fields",
                    a.len(),
                    fields.len()
                )));
            }
        }
        let w = Weight::compile(query, &views, 1.0, scoring)?;
        let mut global: Vec<(Vec<SortValue>, usize, DocId, f32)> = Vec::new();
        let mut count = 0u64;
        let mut max_score: Option<f32> = None;
        let mut doc_base = 0i64;
        let (mut ticks, mut timed_out) = (0u32, false);
        for (si, seg) in views.iter().enumerate() {
            if timed_out || (si > 0 && past(spec.deadline)) {
                timed_out = true;
                break;
            }
            let base = doc_base;
            doc_base += seg.max_doc() as i64;
            let Some(mut sc) = w.scorer(*seg)? else { continue };
            let mut keys = KeyReader::new(*seg, base);
            keys.prepare(fields)?;
            let mut after_memo: HashMap<(usize, u64), Ordering> = HashMap::new();
            let mut local: Vec<(Vec<SegKey>, DocId, f32)> = Vec::new();
            let cmp_local = |a: &(Vec<SegKey>, DocId, f32), b: &(Vec<SegKey>, DocId, f32)| {
                for ((x, y), f) in a.0.iter().zip(&b.0).zip(fields) {
                    let o = cmp_key(x, y, f);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.1.cmp(&b.1)
            };
            let mut doc = sc.doc();
            while doc != NO_MORE_DOCS {
                ticks = ticks.wrapping_add(1);
                if ticks % DEADLINE_CHECK_EVERY == 0 && past(spec.deadline) {
                    timed_out = true;
                    break;
                }
                if seg.is_live(doc) {
                    count += 1;
                    let score = if scoring { sc.score() } else { f32::NAN };
                    if scoring {
                        max_score = Some(max_score.map_or(score, |m: f32| m.max(score)));
                    }
                    if k > 0 {
                        let ks: Vec<SegKey> = fields.iter().map(|f| keys.key(f, doc, score)).collect();
                        let keep = match &spec.after {
                            None => true,
                            Some(after) => match after_cmp(&keys, &ks, after, fields, &mut after_memo)? {
                                Ordering::Greater => true,
                                // Equal values: after the (segment, doc) that carried them.
                                Ordering::Equal => spec.after_doc.is_some_and(|a| (si, doc) > a),
                                Ordering::Less => false,
                            },
                        };
                        if keep {
                            local.push((ks, doc, score));
                            if local.len() >= k.max(16).saturating_mul(2) {
                                local.sort_by(cmp_local);
                                local.truncate(k);
                            }
                        }
                    }
                }
                doc = sc.next();
            }
            if let Some(e) = sc.take_error() {
                return Err(e);
            }
            local.sort_by(cmp_local);
            local.truncate(k);
            for (ks, d, s) in local {
                let vals = ks.iter().zip(fields).map(|(key, f)| keys.value(f, key)).collect::<Result<Vec<_>>>()?;
                global.push((vals, si, d, s));
            }
        }
        global.sort_by(|a, b| cmp_values(&a.0, &b.0, fields).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let hits = global
            .into_iter()
            .take(k)
            .skip(spec.from)
            .map(|(sort_values, segment, doc, score)| Hit { segment, doc, score, sort_values })
            .collect();
        Ok(TopDocs { total: total(count, threshold), hits, max_score, timed_out })
    }

    /// `query` compiled for explaining (or matching) many documents, see [`Searcher::explain_with`].
    pub fn explain_weight(&self, query: &Query) -> Result<Weight> {
        Weight::compile_explained(query, &self.views(), 1.0, true)
    }

    /// The explanation of `doc` of segment `segment` by a weight of [`Searcher::explain_weight`].
    pub fn explain_with(&self, w: &Weight, segment: usize, doc: DocId) -> Result<Explanation> {
        let views = self.views();
        let seg = *views.get(segment).ok_or_else(|| {
            Error::InvalidArgument(format!("no segment {segment} (the searcher has {})", views.len()))
        })?;
        w.explain(seg, doc)
    }

    /// The scores of `query` for the given `(segment, doc)`s (`None`: the doc does not match), as
    /// Lucene's `QueryRescorer` reads them: one scorer per segment, advanced over the docs in
    /// order. Deleted docs are scored like live ones (the caller names docs it already found).
    pub fn score_docs(&self, query: &Query, docs: &[(usize, DocId)]) -> Result<Vec<Option<f32>>> {
        let views = self.views();
        let w = Weight::compile(query, &views, 1.0, true)?;
        let mut order: Vec<usize> = (0..docs.len()).collect();
        order.sort_by_key(|&i| docs[i]);
        let mut out = vec![None; docs.len()];
        let mut i = 0;
        while i < order.len() {
            let segment = docs[order[i]].0;
            let seg = *views.get(segment).ok_or_else(|| {
                Error::InvalidArgument(format!("no segment {segment} (the searcher has {})", views.len()))
            })?;
            let mut sc = w.scorer(seg)?;
            while i < order.len() && docs[order[i]].0 == segment {
                let target = docs[order[i]].1;
                if let Some(sc) = sc.as_mut() {
                    let mut d = sc.doc();
                    if d < target {
                        d = sc.advance(target);
                    }
                    if d == target {
                        out[order[i]] = Some(sc.score());
                    }
                }
                i += 1;
            }
            if let Some(e) = sc.as_mut().and_then(|s| s.take_error()) {
                return Err(e);
            }
        }
        Ok(out)
    }

    /// Lucene's explanation of the score of `doc` of segment `segment` for `query`.
    pub fn explain(&self, query: &Query, segment: usize, doc: DocId) -> Result<Explanation> {
        let views = self.views();
        let seg = *views.get(segment).ok_or_else(|| {
            Error::InvalidArgument(format!("no segment {segment} (the searcher has {})", views.len()))
        })?;
        let w = Weight::compile_explained(query, &views, 1.0, true)?;
        w.explain(seg, doc)
    }
}

/// How a document's keys compare to the `search_after` values (`Greater`: the doc comes after).
fn after_cmp(
    keys: &KeyReader<'_>,
    ks: &[SegKey],
    after: &[SortValue],
    fields: &[SortField],
    memo: &mut HashMap<(usize, u64), Ordering>,
) -> Result<Ordering> {
    for (i, ((key, a), f)) in ks.iter().zip(after).zip(fields).enumerate() {
        let o = match key {
            SegKey::Ord(Some(ord)) => match memo.get(&(i, *ord)) {
                Some(o) => *o,
                None => {
                    let o = cmp_value(&keys.value(f, key)?, a, f);
                    memo.insert((i, *ord), o);
                    o
                }
            },
            _ => cmp_value(&keys.value(f, key)?, a, f),
        };
        if o != Ordering::Equal {
            return Ok(o);
        }
    }
    Ok(Ordering::Equal)
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod scored_tests {
    use super::Scored;
    use proptest::prelude::*;

    fn score() -> impl Strategy<Value = f32> {
        prop_oneof![any::<f32>(), Just(0.0), Just(-0.0), Just(f32::INFINITY), -10f32..10.0]
    }

    proptest! {
        /// The packed key round-trips and orders like the ranking: score by `total_cmp`, then
        /// earlier (segment, doc) first.
        #[test]
        fn packed_hits_order_like_the_ranking(a in (score(), 0usize..5, any::<u32>()), b in (score(), 0usize..5, any::<u32>())) {
            let (ka, kb) = (Scored::new(a.0, a.1, a.2), Scored::new(b.0, b.1, b.2));
            prop_assert_eq!((ka.score().to_bits(), ka.seg(), ka.doc()), (a.0.to_bits(), a.1, a.2));
            let ranking = a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2));
            prop_assert_eq!(ka.cmp(&kb), ranking);
        }
    }
}
