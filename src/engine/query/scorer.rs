//! Scorers: cursors over the matching documents of one segment, in increasing doc order, with
//! their scores and block-max upper bounds of their scores.
//!
//! Contract (all scorers): a scorer is positioned on its first match when built; `advance(t)` with
//! `t <= doc()` leaves it where it is. Deleted documents are not filtered here (the collector does).
//! Errors from postings end iteration and are collected with `take_error`, which callers must
//! check after iterating, so corruption is never a silently shorter result.

use std::sync::Arc;

use super::bm25::Bm25;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::Error;

/// A cursor over the matches of a (sub)query in one segment.
pub trait Scorer: Send {
    /// The current match, or [`NO_MORE_DOCS`].
    fn doc(&self) -> DocId;
    /// Moves to the next match.
    fn next(&mut self) -> DocId;
    /// Moves to the first match `>= target` (no move when `target <= doc()`).
    fn advance(&mut self, target: DocId) -> DocId;
    /// The score of the current match.
    fn score(&mut self) -> f32;
    /// An estimate of the number of matches (for ordering conjunctions).
    fn cost(&self) -> u64;
    /// Prepares bounds for docs from `target` on; returns the last doc up to which
    /// [`Scorer::max_score`] is precise (the end of the current block), `NO_MORE_DOCS` if none.
    fn shallow_advance(&mut self, _target: DocId) -> DocId {
        NO_MORE_DOCS
    }
    /// An upper bound of the scores of the docs from the last `shallow_advance` target to `up_to`.
    fn max_score(&mut self, up_to: DocId) -> f32;
    /// From now on only docs scoring `>= min` are wanted (top-level scorer only); a scorer may
    /// skip docs that cannot reach it.
    fn set_min_competitive_score(&mut self, _min: f32) {}
    /// The error that ended iteration early, if any.
    fn take_error(&mut self) -> Option<Error> {
        None
    }
}

/// A boxed scorer borrowing from its segment.
pub type BoxScorer<'a> = Box<dyn Scorer + 'a>;

/// Whether a score bound computed as a sum in double is certainly below `min` once the true score
/// (also summed in double and cast to float) is rounded: a margin covers double rounding.
#[inline]
pub fn below(bound: f64, min: f32) -> bool {
    ((bound * (1.0 + 1e-9)) as f32) < min
}

#[cfg(test)]
thread_local! {
    /// Term scores computed on this thread (tests measure how much pruning saves with it).
    pub(crate) static SCORED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` computed term scores (tests only).
#[inline(always)]
fn count_scored(_n: usize) {
    #[cfg(test)]
    SCORED.with(|c| c.set(c.get() + _n as u64));
}

/// The BM25 scorer of one term's postings, skipping blocks whose block-max bound is below the
/// minimum competitive score (Lucene's `ImpactsDISI`).
pub struct TermScorer<'a> {
    postings: Box<dyn Postings + 'a>,
    norms: Option<&'a [u8]>,
    sim: Arc<Bm25>,
    /// Last doc of the block whose bound is `block_bound` (`None`: no block read yet).
    block_end: Option<DocId>,
    /// The target the block was loaded for: the bound holds for the docs in `block_from..=block_end`.
    block_from: DocId,
    block_bound: f32,
    min_competitive: f32,
    /// Constant score (filters) instead of BM25 when set.
    constant: Option<f32>,
    /// Scratch for the block's competitive impacts.
    impacts: Vec<(u32, u8)>,
    /// `sim.score(1, norm)` by norm byte, filled on first use (NaN: not computed yet). Most
    /// postings have freq 1, so most scores are a table lookup instead of a division. Boxed: a
    /// kilobyte inline made every move of the scorer (into cursors, into vectors) a copy of it,
    /// and the box is small enough for the allocator's per-thread cache.
    one: Box<[f32; 256]>,
    /// Block bounds from the skip entry's max freq and min norm alone, not the block's impacts
    /// (looser, but no list to decode): for a term probed about once per block, where decoding
    /// the impacts of every block costs more than the probe.
    loose: bool,
}

/// `sim.score(freq, norm)` through the freq-1 table `one` (bit for bit the same value); `one`
/// starts all NaN (not computed yet). Term scorers and phrase scorers keep one each.
#[inline(always)]
pub(super) fn score_with(one: &mut [f32; 256], sim: &Bm25, freq: f32, norm: u8) -> f32 {
    if freq != 1.0 {
        return sim.score(freq, norm);
    }
    let s = one[norm as usize];
    if !s.is_nan() {
        return s;
    }
    let s = sim.score(1.0, norm);
    one[norm as usize] = s;
    s
}

impl<'a> TermScorer<'a> {
    /// A scorer positioned on the first document of `postings`. `constant` replaces BM25.
    pub fn new(
        mut postings: Box<dyn Postings + 'a>,
        norms: Option<&'a [u8]>,
        sim: Arc<Bm25>,
        constant: Option<f32>,
    ) -> Self {
        postings.next();
        TermScorer {
            postings,
            norms,
            sim,
            block_end: None,
            block_from: 0,
            block_bound: f32::INFINITY,
            min_competitive: 0.0,
            constant,
            impacts: Vec::new(),
            one: Box::new([f32::NAN; 256]),
            loose: false,
        }
    }

    /// Moves the skip data to the block holding `target` and caches its bound: the best BM25
    /// score over the block's competitive impacts (or, with `loose`, of the skip entry's max
    /// freq and min norm). Returns the block's last doc.
    fn load_block(&mut self, target: DocId) -> DocId {
        let end = self.postings.shallow_advance(target);
        if self.loose {
            let (f, n) = self.postings.block_max();
            self.block_end = Some(end);
            self.block_from = target;
            // Past the end the pair is (0, 255): no doc, and the bound is the idf limit as for
            // an empty impact list.
            self.block_bound = if end == NO_MORE_DOCS { self.sim.weight } else { self.sim.score(f as f32, n) };
            return end;
        }
        self.postings.block_impacts(&mut self.impacts);
        let sim = &self.sim;
        let bound = self.impacts.iter().map(|&(f, n)| sim.score(f as f32, n)).fold(0f32, f32::max);
        self.block_end = Some(end);
        self.block_from = target;
        self.block_bound = if self.impacts.is_empty() { sim.weight } else { bound };
        end
    }

    /// A bound of the score of a doc `>= target` and up to the end of its block: the cached
    /// block's bound when it covers `target`, the next block's once `target` is beyond it, and
    /// the whole-segment bound when `target` lies before the cached block's range.
    pub(crate) fn bound_at(&mut self, target: DocId) -> f32 {
        if let Some(c) = self.constant {
            return c;
        }
        match self.block_end {
            Some(e) if target <= e => {
                if target >= self.block_from {
                    self.block_bound
                } else {
                    self.sim.weight
                }
            }
            _ => {
                self.load_block(target);
                self.block_bound
            }
        }
    }

    /// [`Postings::read_block`] of the term's postings (for [`super::term_cursor`]).
    #[inline]
    pub(crate) fn read_block(
        &mut self,
        docs: &mut [DocId; crate::engine::codec::bitpack::BLOCK],
        freqs: &mut [u32; crate::engine::codec::bitpack::BLOCK],
    ) -> usize {
        self.postings.read_block(docs, freqs)
    }

    /// A move ([`Scorer::advance`] to `target`, or [`Scorer::next`]) and
    /// [`Self::read_block`] in one call ([`Postings::move_and_read`]).
    #[inline]
    pub(crate) fn move_and_read(
        &mut self,
        target: Option<DocId>,
        docs: &mut [DocId; crate::engine::codec::bitpack::BLOCK],
        freqs: &mut [u32; crate::engine::codec::bitpack::BLOCK],
    ) -> (usize, usize) {
        if self.min_competitive > 0.0 && self.constant.is_none() {
            // Blocks below the minimum are skipped first (`skip_blocks`).
            let d = match target {
                Some(t) => self.advance(t),
                None => self.next(),
            };
            return if d == NO_MORE_DOCS { (0, 0) } else { (0, self.read_block(docs, freqs)) };
        }
        match target {
            Some(t) if t <= self.postings.doc() => (0, self.read_block(docs, freqs)),
            _ => self.postings.move_and_read(target, docs, freqs),
        }
    }

    /// Bounds blocks by their skip entry alone (see the `loose` field).
    pub(crate) fn set_loose_bounds(&mut self) {
        self.loose = true;
        self.block_end = None;
    }

    /// The term's stored top docs ([`Postings::top_docs`]).
    pub(crate) fn top_docs(&mut self, out: &mut Vec<(DocId, u32)>) {
        self.postings.top_docs(out)
    }

    /// The score of `doc` with `freq` occurrences (what [`Scorer::score`] gives on that doc).
    #[inline]
    pub(crate) fn score_of(&mut self, doc: DocId, freq: u32) -> f32 {
        if let Some(c) = self.constant {
            return c;
        }
        count_scored(1);
        let norm = self.norm(doc);
        score_with(&mut self.one, &self.sim, freq as f32, norm)
    }

    /// An upper bound of every score of the term: the constant, or BM25's `boost * idf` (the
    /// limit of the score as the freq grows).
    pub(crate) fn global_bound(&self) -> f32 {
        self.constant.unwrap_or(self.sim.weight)
    }

    /// [`Scorer::advance`] by [`Postings::probe`]: afterwards only the doc, [`Self::freq`] and
    /// scores are read until the next move.
    #[inline]
    pub(crate) fn probe(&mut self, target: DocId) -> DocId {
        let cur = self.postings.doc();
        if target <= cur {
            return cur;
        }
        let d = self.postings.probe(target);
        self.skip_blocks(d)
    }

    /// The postings' current freq (for phrase scoring and explanations).
    pub fn freq(&self) -> u32 {
        self.postings.freq()
    }

    fn norm(&self, doc: DocId) -> u8 {
        match self.norms {
            Some(n) => n.get(doc as usize).copied().unwrap_or(1),
            None => 1,
        }
    }

    /// Top-k of this term alone (Lucene's `BlockMaxConjunction` of one clause, tantivy's
    /// `block_wand_single_scorer`): once `sink` wants a minimum score, every block whose impact
    /// bound is below it is skipped without decoding; the other blocks are decoded into arrays
    /// ([`Postings::move_and_read`]) and scored in a tight loop over them, and only docs reaching
    /// the minimum are passed to `sink`. `live` filters deleted docs (`None`: none deleted).
    pub fn collect_top(&mut self, live: Option<&dyn super::view::SegmentView>, sink: &mut dyn super::max_score::Sink) {
        const N: usize = crate::engine::codec::bitpack::BLOCK;
        let mut docs = [0 as DocId; N];
        let mut freqs = [0u32; N];
        let mut scores = [0f32; N];
        let mut min = sink.min_competitive();
        // The next doc wanted; blocks are skipped on their bound before the postings decode them.
        let mut target = self.postings.doc();
        let (sim, norms) = (self.sim.clone(), self.norms);
        while target != NO_MORE_DOCS {
            if min > 0.0 {
                if self.block_end.is_none_or(|e| target > e) {
                    self.load_block(target);
                }
                if self.block_bound < min {
                    match self.block_end {
                        Some(e) if e != NO_MORE_DOCS => {
                            target = e + 1;
                            continue;
                        }
                        _ => break,
                    }
                }
            }
            let (i, n) = if self.postings.doc() < target {
                self.postings.move_and_read(Some(target), &mut docs, &mut freqs)
            } else {
                (0, self.postings.read_block(&mut docs, &mut freqs))
            };
            if i >= n {
                break;
            }
            target = docs[n - 1].saturating_add(1);
            let (docs, freqs, scores) = (&docs[i..n], &freqs[i..n], &mut scores[i..n]);
            count_scored(n - i);
            match (self.constant, norms) {
                (Some(c), _) => scores.fill(c),
                (None, Some(norms)) => {
                    let one = &mut self.one;
                    for ((s, &doc), &f) in scores.iter_mut().zip(docs).zip(freqs) {
                        *s = score_with(one, &sim, f as f32, norms.get(doc as usize).copied().unwrap_or(1));
                    }
                }
                (None, None) => {
                    let one = &mut self.one;
                    for (s, &f) in scores.iter_mut().zip(freqs) {
                        *s = score_with(one, &sim, f as f32, 1);
                    }
                }
            }
            for (&doc, &s) in docs.iter().zip(scores.iter()) {
                if s >= min && live.is_none_or(|seg| seg.is_live(doc)) {
                    sink.collect(doc, s);
                    min = sink.min_competitive();
                }
            }
        }
    }

    /// Skips whole blocks that cannot reach the minimum competitive score.
    fn skip_blocks(&mut self, mut doc: DocId) -> DocId {
        if self.min_competitive <= 0.0 || self.constant.is_some() {
            return doc;
        }
        // `target` runs ahead of `doc` over skipped blocks, which are never decoded.
        let mut target = doc;
        while doc != NO_MORE_DOCS {
            if self.block_end.is_none_or(|e| target > e) {
                self.load_block(target);
            }
            let end = self.block_end.expect("set just above");
            if self.block_bound >= self.min_competitive {
                if doc < target {
                    doc = self.postings.advance(target);
                }
                if doc <= end {
                    return doc;
                }
                // The block held nothing from `target` on: go on from the doc reached.
                target = doc;
                continue;
            }
            if end == NO_MORE_DOCS {
                return self.postings.advance(NO_MORE_DOCS);
            }
            target = end + 1;
        }
        doc
    }
}

impl Scorer for TermScorer<'_> {
    fn doc(&self) -> DocId {
        self.postings.doc()
    }
    fn next(&mut self) -> DocId {
        let d = self.postings.next();
        self.skip_blocks(d)
    }
    fn advance(&mut self, target: DocId) -> DocId {
        let cur = self.postings.doc();
        if target <= cur {
            return cur;
        }
        let d = self.postings.advance(target);
        self.skip_blocks(d)
    }
    fn score(&mut self) -> f32 {
        if let Some(c) = self.constant {
            return c;
        }
        let doc = self.postings.doc();
        count_scored(1);
        let (freq, norm) = (self.postings.freq(), self.norm(doc));
        score_with(&mut self.one, &self.sim, freq as f32, norm)
    }
    fn cost(&self) -> u64 {
        self.postings.cost()
    }
    fn shallow_advance(&mut self, target: DocId) -> DocId {
        if self.block_end.is_some_and(|e| target <= e) {
            return self.block_end.expect("checked");
        }
        self.load_block(target)
    }
    fn max_score(&mut self, up_to: DocId) -> f32 {
        if let Some(c) = self.constant {
            return c;
        }
        match self.block_end {
            Some(e) if up_to <= e => self.block_bound,
            _ => self.sim.weight,
        }
    }
    fn set_min_competitive_score(&mut self, min: f32) {
        self.min_competitive = min;
    }
    fn take_error(&mut self) -> Option<Error> {
        self.postings.take_error()
    }
}

/// A constant-score scorer over a sorted list of documents (multi-term queries, ranges, exists).
#[derive(Debug)]
pub struct DocListScorer {
    docs: Vec<DocId>,
    i: usize,
    score: f32,
}

impl DocListScorer {
    /// `docs` must be sorted and deduplicated.
    pub fn new(docs: Vec<DocId>, score: f32) -> Self {
        DocListScorer { docs, i: 0, score }
    }
}

impl Scorer for DocListScorer {
    fn doc(&self) -> DocId {
        self.docs.get(self.i).copied().unwrap_or(NO_MORE_DOCS)
    }
    fn next(&mut self) -> DocId {
        self.i = (self.i + 1).min(self.docs.len());
        self.doc()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target > self.doc() {
            self.i += self.docs[self.i..].partition_point(|&d| d < target);
        }
        self.doc()
    }
    fn score(&mut self) -> f32 {
        self.score
    }
    fn cost(&self) -> u64 {
        (self.docs.len() - self.i) as u64
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        self.score
    }
    /// No remaining doc can reach a minimum above the constant score: iteration ends (Lucene's
    /// ConstantScoreScorer does the same), so a full top-k of a filter stops early.
    fn set_min_competitive_score(&mut self, min: f32) {
        if min > self.score {
            self.i = self.docs.len();
        }
    }
}

/// Every document `0..max_doc` with a constant score.
#[derive(Debug)]
pub struct AllScorer {
    doc: DocId,
    max_doc: DocId,
    score: f32,
}

impl AllScorer {
    /// All of `0..max_doc`.
    pub fn new(max_doc: DocId, score: f32) -> Self {
        AllScorer { doc: if max_doc == 0 { NO_MORE_DOCS } else { 0 }, max_doc, score }
    }
}

impl Scorer for AllScorer {
    fn doc(&self) -> DocId {
        self.doc
    }
    fn next(&mut self) -> DocId {
        let t = self.doc.saturating_add(1);
        self.advance(t)
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target > self.doc {
            self.doc = if target >= self.max_doc { NO_MORE_DOCS } else { target };
        }
        self.doc
    }
    fn score(&mut self) -> f32 {
        self.score
    }
    fn cost(&self) -> u64 {
        self.max_doc as u64
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        self.score
    }
    /// As [`DocListScorer`]: nothing can reach a minimum above the constant score.
    fn set_min_competitive_score(&mut self, min: f32) {
        if min > self.score {
            self.doc = NO_MORE_DOCS;
        }
    }
}

/// Replaces the score of a scorer by a constant (constant score, filters).
pub struct ConstScorer<'a> {
    /// The wrapped scorer.
    pub inner: BoxScorer<'a>,
    /// The score of every match.
    pub score: f32,
}

impl Scorer for ConstScorer<'_> {
    fn doc(&self) -> DocId {
        self.inner.doc()
    }
    fn next(&mut self) -> DocId {
        self.inner.next()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        self.inner.advance(target)
    }
    fn score(&mut self) -> f32 {
        self.score
    }
    fn cost(&self) -> u64 {
        self.inner.cost()
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        self.score
    }
    fn take_error(&mut self) -> Option<Error> {
        self.inner.take_error()
    }
}

impl std::fmt::Debug for TermScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TermScorer").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ConstScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConstScorer").finish_non_exhaustive()
    }
}
