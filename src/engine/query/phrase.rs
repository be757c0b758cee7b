//! Phrase matching: the conjunction of the terms' postings, then their positions. Slop 0 counts
//! exact matches (Lucene's `ExactPhraseMatcher`); slop > 0 sums `1 / (1 + matchLength)` over the
//! minimal sloppy matches (Lucene's `SloppyPhraseMatcher`, without its special handling of
//! repeated terms). The phrase freq is scored with BM25 over the summed idf of the terms.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use super::bm25::Bm25;
use super::scorer::Scorer;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::Error;

/// One term of a phrase: its postings (with positions) and its position in the phrase.
pub struct PhraseTerm<'a> {
    /// Postings with positions.
    pub postings: Box<dyn Postings + 'a>,
    /// Position of the term in the phrase.
    pub offset: u32,
}

/// Scores the documents containing a phrase.
pub struct PhraseScorer<'a> {
    terms: Vec<PhraseTerm<'a>>,
    /// Term indexes by increasing cost (the first leads).
    by_cost: Vec<usize>,
    positions: Vec<Vec<u32>>,
    slop: u32,
    norms: Option<&'a [u8]>,
    sim: Arc<Bm25>,
    constant: Option<f32>,
    doc: DocId,
    freq: f32,
}

impl<'a> PhraseScorer<'a> {
    /// The phrase of `terms` (at least one), positioned on its first match.
    pub fn new(mut terms: Vec<PhraseTerm<'a>>, slop: u32, norms: Option<&'a [u8]>, sim: Arc<Bm25>, constant: Option<f32>) -> Self {
        for t in terms.iter_mut() {
            t.postings.next();
        }
        let mut by_cost: Vec<usize> = (0..terms.len()).collect();
        by_cost.sort_by_key(|&i| terms[i].postings.cost());
        let positions = vec![Vec::new(); terms.len()];
        let mut p = PhraseScorer { terms, by_cost, positions, slop, norms, sim, constant, doc: 0, freq: 0.0 };
        p.doc = p.find(0);
        p
    }

    /// The phrase freq of the current document.
    pub fn freq(&self) -> f32 {
        self.freq
    }

    fn find(&mut self, mut target: DocId) -> DocId {
        'outer: loop {
            let lp = &mut self.terms[self.by_cost[0]].postings;
            let d = if lp.doc() < target { lp.advance(target) } else { lp.doc() };
            if d == NO_MORE_DOCS {
                return NO_MORE_DOCS;
            }
            for k in 1..self.by_cost.len() {
                let p = &mut self.terms[self.by_cost[k]].postings;
                let o = if p.doc() < d { p.advance(d) } else { p.doc() };
                if o > d {
                    target = o;
                    continue 'outer;
                }
            }
            for (t, pos) in self.terms.iter_mut().zip(self.positions.iter_mut()) {
                pos.clear();
                t.postings.positions(pos);
            }
            let f = if self.slop == 0 { self.exact_freq() } else { self.sloppy_freq() };
            if f > 0.0 {
                self.freq = f;
                return d;
            }
            target = d + 1;
        }
    }

    fn exact_freq(&self) -> f32 {
        let (first, rest) = self.positions.split_first().expect("a phrase has at least one term");
        let off0 = self.terms[0].offset as i64;
        let mut freq = 0f32;
        'starts: for &p in first {
            let start = p as i64 - off0;
            for (k, pos) in rest.iter().enumerate() {
                let want = start + self.terms[k + 1].offset as i64;
                if want < 0 || pos.binary_search(&(want as u32)).is_err() {
                    continue 'starts;
                }
            }
            freq += 1.0;
        }
        freq
    }

    fn sloppy_freq(&self) -> f32 {
        // Heap of (position - offset, offset, term index, index into its positions).
        let mut heap = BinaryHeap::new();
        let mut end = i64::MIN;
        for (i, pos) in self.positions.iter().enumerate() {
            let Some(&p) = pos.first() else { return 0.0 };
            let rel = p as i64 - self.terms[i].offset as i64;
            end = end.max(rel);
            heap.push(Reverse((rel, self.terms[i].offset, i, 0usize)));
        }
        let slop = self.slop as i64;
        let mut freq = 0f32;
        let Some(Reverse(mut pp)) = heap.pop() else { return 0.0 };
        let mut match_len = end - pp.0;
        let mut next = heap.peek().map(|r| r.0 .0).unwrap_or(i64::MAX);
        loop {
            let (_, off, i, j) = pp;
            let Some(&p) = self.positions[i].get(j + 1) else { break };
            pp = (p as i64 - off as i64, off, i, j + 1);
            end = end.max(pp.0);
            if pp.0 > next {
                if match_len <= slop {
                    freq += 1.0 / (1.0 + match_len as f32);
                }
                heap.push(Reverse(pp));
                let Some(Reverse(top)) = heap.pop() else { break };
                pp = top;
                next = heap.peek().map(|r| r.0 .0).unwrap_or(i64::MAX);
                match_len = end - pp.0;
            } else {
                match_len = match_len.min(end - pp.0);
            }
        }
        if match_len <= slop {
            freq += 1.0 / (1.0 + match_len as f32);
        }
        freq
    }
}

impl Scorer for PhraseScorer<'_> {
    fn doc(&self) -> DocId {
        self.doc
    }
    fn next(&mut self) -> DocId {
        if self.doc != NO_MORE_DOCS {
            self.doc = self.find(self.doc + 1);
        }
        self.doc
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target > self.doc {
            self.doc = self.find(target);
        }
        self.doc
    }
    fn score(&mut self) -> f32 {
        if let Some(c) = self.constant {
            return c;
        }
        let norm = match self.norms {
            Some(n) => n.get(self.doc as usize).copied().unwrap_or(1),
            None => 1,
        };
        self.sim.score(self.freq, norm)
    }
    fn cost(&self) -> u64 {
        self.terms[self.by_cost[0]].postings.cost()
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        self.constant.unwrap_or(self.sim.weight)
    }
    fn take_error(&mut self) -> Option<Error> {
        let mut err = None;
        for t in self.terms.iter_mut() {
            if let Some(e) = t.postings.take_error() {
                err.get_or_insert(e);
            }
        }
        err
    }
}

impl std::fmt::Debug for PhraseTerm<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhraseTerm").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for PhraseScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhraseScorer").finish_non_exhaustive()
    }
}
