//! Phrase matching: the conjunction of the terms' postings, then their positions. Slop 0 counts
//! exact matches (Lucene's `ExactPhraseMatcher`); slop > 0 sums `1 / (1 + matchLength)` over the
//! minimal sloppy matches (Lucene's `SloppyPhraseMatcher`, without its special handling of
//! repeated terms). The phrase freq is scored with BM25 over the summed idf of the terms.

use std::sync::Arc;

use super::bm25::Bm25;
use super::scorer::{score_with, Scorer};
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::Error;

#[cfg(test)]
mod tests;

/// Phrases of up to this many terms after the first match positions by a merge walk.
const MERGE_TERMS: usize = 8;

/// One term of a phrase: its postings (with positions) and its position in the phrase. `P` is
/// the segment's own postings type when the view has one (the phrase loop then calls it without
/// dynamic dispatch), else `dyn Postings`.
pub struct PhraseTerm<P: Postings + ?Sized> {
    /// Postings with positions.
    pub postings: Box<P>,
    /// Position of the term in the phrase.
    pub offset: u32,
    /// Equal for the phrase terms with the same bytes (the index of the first of them).
    pub term_id: usize,
}

impl<P: Postings + ?Sized> PhraseTerm<P> {
    /// Term `i` of a phrase's `(term, position)` list with its postings; terms with the same
    /// bytes share the id of the first of them.
    pub fn of(terms: &[(Vec<u8>, u32)], i: usize, postings: Box<P>) -> Self {
        PhraseTerm { postings, offset: terms[i].1, term_id: terms.iter().position(|x| x.0 == terms[i].0).unwrap_or(i) }
    }
}

/// Scores the documents containing a phrase.
pub struct PhraseScorer<'a, P: Postings + ?Sized + 'a = dyn Postings + 'a> {
    terms: Vec<PhraseTerm<P>>,
    /// Term indexes by increasing cost (the first leads).
    by_cost: Vec<usize>,
    /// Where term 0 is in `by_cost`: once the terms up to it are on a doc, its bound is judged
    /// (it needs only term 0's freq), so the costlier terms after it are not moved (no block
    /// decoded) for docs that cannot compete.
    check_at: usize,
    positions: Vec<Vec<u32>>,
    slop: u32,
    norms: Option<&'a [u8]>,
    sim: Arc<Bm25>,
    constant: Option<f32>,
    doc: DocId,
    freq: f32,
    /// Docs scoring below this are not wanted (top-level scorer of a top-k search).
    min_competitive: f32,
    /// `sim.score(1, norm)` by norm byte, filled on first use (NaN: not yet): most bounds and
    /// phrase freqs are 1, so most cost no division (the same value bit for bit).
    one: [f32; 256],
}

impl<'a, P: Postings + ?Sized + 'a> PhraseScorer<'a, P> {
    /// The phrase of `terms` (at least one), positioned on its first match.
    pub fn new(
        mut terms: Vec<PhraseTerm<P>>,
        slop: u32,
        norms: Option<&'a [u8]>,
        sim: Arc<Bm25>,
        constant: Option<f32>,
    ) -> Self {
        for t in terms.iter_mut() {
            t.postings.next();
        }
        let mut by_cost: Vec<usize> = (0..terms.len()).collect();
        by_cost.sort_by_key(|&i| terms[i].postings.cost());
        let positions = vec![Vec::new(); terms.len()];
        let check_at = by_cost.iter().position(|&i| i == 0).unwrap_or(0);
        let mut p = PhraseScorer {
            terms,
            by_cost,
            check_at,
            positions,
            slop,
            norms,
            sim,
            constant,
            doc: 0,
            freq: 0.0,
            min_competitive: 0.0,
            one: [f32::NAN; 256],
        };
        p.doc = p.find(0);
        p
    }

    /// The phrase freq of the current document.
    pub fn freq(&self) -> f32 {
        self.freq
    }

    fn find(&mut self, mut target: DocId) -> DocId {
        loop {
            let lp = &mut self.terms[self.by_cost[0]].postings;
            let d = if lp.doc() < target { lp.advance(target) } else { lp.doc() };
            if d == NO_MORE_DOCS {
                return NO_MORE_DOCS;
            }
            if let Some(o) = self.align(1..self.check_at + 1, d) {
                target = o;
                continue;
            }
            if self.min_competitive > 0.0 && !self.may_compete(d) {
                target = d + 1;
                continue;
            }
            if let Some(o) = self.align(self.check_at + 1..self.by_cost.len(), d) {
                target = o;
                continue;
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

    /// Moves the terms `by_cost[ks]` to `d`; the first doc past `d` if one of them lacks it.
    #[inline]
    fn align(&mut self, ks: std::ops::Range<usize>, d: DocId) -> Option<DocId> {
        for &i in &self.by_cost[ks] {
            let p = &mut self.terms[i].postings;
            let o = if p.doc() < d { p.advance(d) } else { p.doc() };
            if o > d {
                return Some(o);
            }
        }
        None
    }

    /// Whether doc `d` (on term 0 at least) may score at least `min_competitive`, judged before
    /// its positions are read. An exact phrase's freq counts positions of the first term (each at
    /// most once), so it is at most that term's freq; BM25 rises with the freq (each float step
    /// of `Bm25::score` is monotone), so `score(freq of term 0, norm)` bounds the score. Lucene
    /// bounds by the least freq of all terms, which a term repeating one position can exceed.
    /// Sloppy phrases and constant scores are not bounded (`min_competitive` stays 0).
    fn may_compete(&mut self, d: DocId) -> bool {
        let freq = self.terms[0].postings.freq() as f32;
        self.score_of(freq, d) >= self.min_competitive
    }

    /// `sim.score(freq, norm of d)`, freq 1 through the table `one`.
    #[inline]
    fn score_of(&mut self, freq: f32, d: DocId) -> f32 {
        let norm = match self.norms {
            Some(n) => n.get(d as usize).copied().unwrap_or(1),
            None => 1,
        };
        score_with(&mut self.one, &self.sim, freq, norm)
    }

    fn exact_freq(&self) -> f32 {
        let (first, rest) = self.positions.split_first().expect("a phrase has at least one term");
        let off0 = self.terms[0].offset as i64;
        let mut freq = 0f32;
        if rest.len() <= MERGE_TERMS {
            // Starts increase, so each term's wanted position does too: one forward walk per
            // term instead of a binary search per start.
            let mut at = [0usize; MERGE_TERMS];
            'merge: for &p in first {
                let start = p as i64 - off0;
                for (k, pos) in rest.iter().enumerate() {
                    let want = start + self.terms[k + 1].offset as i64;
                    if want < 0 {
                        continue 'merge;
                    }
                    let j = &mut at[k];
                    while *j < pos.len() && (pos[*j] as i64) < want {
                        *j += 1;
                    }
                    match pos.get(*j) {
                        // Later starts want later positions: none left.
                        None => break 'merge,
                        Some(&q) if q as i64 != want => continue 'merge,
                        Some(_) => {}
                    }
                }
                freq += 1.0;
            }
            return freq;
        }
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

    /// Lucene's `SloppyPhraseMatcher`: phrase positions (`position - offset`) in a queue by
    /// (position, offset, ordinal); pop the smallest, advance it while it stays below the next
    /// one, minimizing the match length `end - position`; each minimal match within the slop
    /// adds `1 / (1 + matchLength)`. Repeated terms never share a position: at each document
    /// the j-th repeat (by offset) starts j positions later, and a collision advances the lesser
    /// of the two colliding entries (Lucene's `advanceRpts`).
    fn sloppy_freq(&self) -> f32 {
        let n = self.terms.len();
        let mut pps: Vec<Pp> = Vec::with_capacity(n);
        for (i, t) in self.terms.iter().enumerate() {
            let rpt = self.terms.iter().enumerate().filter(|(j, o)| *j != i && o.term_id == t.term_id).count() > 0;
            pps.push(Pp { pos: 0, offset: t.offset, ord: i, idx: 0, group: rpt.then_some(t.term_id), in_queue: true });
        }
        if !pps.iter_mut().all(|pp| self.place(pp, 0)) {
            return 0.0;
        }
        // Repeat groups: sorted by offset, the j-th member advanced j times.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for i in 0..n {
            if let Some(g) = pps[i].group {
                if g == i {
                    let mut members: Vec<usize> = (0..n).filter(|&j| pps[j].group == Some(g)).collect();
                    members.sort_by_key(|&j| (pps[j].offset, j));
                    groups.push(members);
                }
            }
        }
        for g in &groups {
            for (j, &m) in g.iter().enumerate() {
                let idx = pps[m].idx + j;
                if !self.place(&mut pps[m], idx) {
                    return 0.0;
                }
            }
        }
        let mut end = pps.iter().map(|p| p.pos).max().unwrap_or(0);
        let slop = self.slop as i64;
        let mut freq = 0f32;
        let mut cur = pop(&mut pps);
        let mut match_len = end - pps[cur].pos;
        let mut next = top_pos(&pps);
        loop {
            if !self.advance_pp(&mut pps, cur, &mut end) {
                break;
            }
            if pps[cur].group.is_some() && !self.advance_repeats(&mut pps, cur, &mut end) {
                break;
            }
            if pps[cur].pos > next {
                pps[cur].in_queue = true;
                if match_len <= slop {
                    freq += 1.0 / (1.0 + match_len as f32);
                }
                cur = pop(&mut pps);
                next = top_pos(&pps);
                match_len = end - pps[cur].pos;
            } else {
                match_len = match_len.min(end - pps[cur].pos);
            }
        }
        if match_len <= slop {
            freq += 1.0 / (1.0 + match_len as f32);
        }
        freq
    }

    /// Moves `pp` to its `idx`-th position; false when there is none.
    fn place(&self, pp: &mut Pp, idx: usize) -> bool {
        match self.positions[pp.ord].get(idx) {
            Some(&p) => {
                pp.idx = idx;
                pp.pos = p as i64 - pp.offset as i64;
                true
            }
            None => false,
        }
    }

    /// Lucene's `advancePP`: next position, raising `end`.
    fn advance_pp(&self, pps: &mut [Pp], i: usize, end: &mut i64) -> bool {
        let idx = pps[i].idx + 1;
        if !self.place(&mut pps[i], idx) {
            return false;
        }
        *end = (*end).max(pps[i].pos);
        true
    }

    /// Lucene's `advanceRpts`: while `i` shares its actual position with another repeat of its
    /// term, advance the lesser of the two.
    fn advance_repeats(&self, pps: &mut [Pp], i: usize, end: &mut i64) -> bool {
        let mut pp = i;
        loop {
            let actual = pps[pp].pos + pps[pp].offset as i64;
            let group = pps[pp].group;
            let Some(other) = (0..pps.len())
                .find(|&j| j != pp && pps[j].group == group && pps[j].pos + pps[j].offset as i64 == actual)
            else {
                return true;
            };
            let (a, b) = (&pps[pp], &pps[other]);
            if !(a.pos < b.pos || (a.pos == b.pos && a.offset < b.offset)) {
                pp = other;
            }
            if !self.advance_pp(pps, pp, end) {
                return false;
            }
        }
    }
}

/// A phrase position of the sloppy matcher.
#[derive(Debug, Clone, Copy)]
struct Pp {
    /// Position minus offset.
    pos: i64,
    offset: u32,
    /// Index of the term in the phrase (ties).
    ord: usize,
    /// Index into the term's positions.
    idx: usize,
    /// Repeat group (the `term_id`) when the term occurs more than once in the phrase.
    group: Option<usize>,
    in_queue: bool,
}

fn queue_key(p: &Pp) -> (i64, u32, usize) {
    (p.pos, p.offset, p.ord)
}

/// Removes and returns the smallest queued entry (there is always one: callers pop after
/// re-queuing).
fn pop(pps: &mut [Pp]) -> usize {
    let i = (0..pps.len()).filter(|&i| pps[i].in_queue).min_by_key(|&i| queue_key(&pps[i])).unwrap_or(0);
    pps[i].in_queue = false;
    i
}

/// The position of the smallest queued entry.
fn top_pos(pps: &[Pp]) -> i64 {
    pps.iter().filter(|p| p.in_queue).map(queue_key).min().map_or(i64::MAX, |k| k.0)
}

impl<'a, P: Postings + ?Sized + 'a> Scorer for PhraseScorer<'a, P> {
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
        self.score_of(self.freq, self.doc)
    }
    fn cost(&self) -> u64 {
        self.terms[self.by_cost[0]].postings.cost()
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        self.constant.unwrap_or(self.sim.weight)
    }
    fn set_min_competitive_score(&mut self, min: f32) {
        if self.slop == 0 && self.constant.is_none() {
            self.min_competitive = min;
        }
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

impl<P: Postings + ?Sized> std::fmt::Debug for PhraseTerm<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhraseTerm").finish_non_exhaustive()
    }
}

impl<'a, P: Postings + ?Sized + 'a> std::fmt::Debug for PhraseScorer<'a, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhraseScorer").finish_non_exhaustive()
    }
}
