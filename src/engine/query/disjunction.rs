//! Disjunctions: documents matching at least `minimum_should_match` clauses, scored by the sum
//! (in double, cast to float) of the matching ones, with MaxScore block-max pruning when it is
//! the top-level scorer and a minimum competitive score is known.

use super::boolean::first_error;
use super::scorer::{below, BoxScorer, Scorer};
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Error;

/// Documents matching at least `msm` (>= 1) sub-scorers; the score sums the matching ones. At
/// the top level with a minimum competitive score and `msm == 1`, MaxScore pruning: per window
/// of blocks, the clauses whose summed block-max bounds cannot reach the minimum are
/// "non-essential" and only checked for candidates produced by the others.
pub struct Disjunction<'a> {
    subs: Vec<BoxScorer<'a>>,
    msm: usize,
    doc: DocId,
    min_competitive: f32,
    window_end: Option<DocId>,
    /// Clause indexes by increasing window bound; `bounds[k]` is the bound of `order[k]`.
    order: Vec<usize>,
    bounds: Vec<f32>,
    /// Scratch: the window bound of each clause, by clause index.
    raw_bounds: Vec<f32>,
    /// `order[..non_essential]` cannot reach the minimum together.
    non_essential: usize,
    /// The sum of the non-essential clauses' bounds over the rest of the segment (not just the
    /// window): below the minimum, docs that only they match can be skipped past the window.
    rest_bound: f64,
    /// The score of `doc`, when the pruned search already summed every matching clause.
    cached: Option<f32>,
    /// Scratch: each clause's score at the candidate (NaN when it does not match), summed in
    /// clause order so the cached score equals [`Scorer::score`]'s bit for bit.
    clause_scores: Vec<f32>,
}

impl<'a> Disjunction<'a> {
    /// The disjunction of `subs`, positioned on its first match.
    pub fn new(subs: Vec<BoxScorer<'a>>, msm: usize) -> Self {
        let n = subs.len();
        let mut d = Disjunction {
            subs,
            msm: msm.max(1),
            doc: 0,
            min_competitive: 0.0,
            window_end: None,
            order: (0..n).collect(),
            bounds: vec![0.0; n],
            raw_bounds: vec![0.0; n],
            non_essential: 0,
            rest_bound: f64::INFINITY,
            cached: None,
            clause_scores: vec![f32::NAN; n],
        };
        d.doc = d.find(0);
        d
    }

    fn find(&mut self, target: DocId) -> DocId {
        self.cached = None;
        if self.min_competitive > 0.0 && self.msm == 1 {
            return self.find_pruned(target);
        }
        let mut target = target;
        loop {
            let mut cand = NO_MORE_DOCS;
            for s in self.subs.iter_mut() {
                let d = s.doc();
                cand = cand.min(if d < target { s.advance(target) } else { d });
            }
            if cand == NO_MORE_DOCS {
                return NO_MORE_DOCS;
            }
            if self.msm == 1 {
                return cand;
            }
            let matching = self.subs.iter().filter(|s| s.doc() == cand).count();
            if matching >= self.msm {
                return cand;
            }
            target = cand + 1;
        }
    }

    fn compute_window(&mut self, target: DocId) {
        let mut end = NO_MORE_DOCS;
        for s in self.subs.iter_mut() {
            let t = target.max(s.doc());
            if t != NO_MORE_DOCS {
                end = end.min(s.shallow_advance(t));
            }
        }
        let end = end.max(target);
        for (i, s) in self.subs.iter_mut().enumerate() {
            self.raw_bounds[i] = if s.doc() == NO_MORE_DOCS { 0.0 } else { s.max_score(end) };
        }
        let raw = &self.raw_bounds;
        self.order.sort_by(|&a, &b| raw[a].total_cmp(&raw[b]));
        for (k, &i) in self.order.iter().enumerate() {
            self.bounds[k] = raw[i];
        }
        let mut sum = 0f64;
        self.non_essential = 0;
        for k in 0..self.order.len() {
            sum += self.bounds[k] as f64;
            if !below(sum, self.min_competitive) {
                break;
            }
            self.non_essential = k + 1;
        }
        let mut rest = 0f64;
        for k in 0..self.non_essential {
            let s = &mut self.subs[self.order[k]];
            if s.doc() != NO_MORE_DOCS {
                rest += s.max_score(NO_MORE_DOCS) as f64;
            }
        }
        self.rest_bound = rest;
        self.window_end = Some(end);
    }

    fn find_pruned(&mut self, mut target: DocId) -> DocId {
        loop {
            if target == NO_MORE_DOCS {
                return NO_MORE_DOCS;
            }
            if self.window_end.is_none_or(|e| target > e) {
                self.compute_window(target);
            }
            let end = self.window_end.expect("computed above");
            let ne = self.non_essential;
            if ne == self.order.len() {
                if end == NO_MORE_DOCS {
                    return NO_MORE_DOCS;
                }
                target = end + 1;
                continue;
            }
            let mut cand = NO_MORE_DOCS;
            for k in ne..self.order.len() {
                let i = self.order[k];
                cand = cand.min(self.subs[i].advance(target));
            }
            if cand > end {
                // Nothing essential in this window: the non-essential clauses alone cannot
                // compete up to `end`, so the next window starts after it, or at the next
                // essential doc when they cannot compete anywhere on their own.
                if end == NO_MORE_DOCS {
                    return NO_MORE_DOCS;
                }
                target = if below(self.rest_bound, self.min_competitive) { cand } else { end + 1 };
                self.window_end = None;
                continue;
            }
            if cand == NO_MORE_DOCS {
                return NO_MORE_DOCS;
            }
            let mut partial = 0f64;
            self.clause_scores.fill(f32::NAN);
            for k in ne..self.order.len() {
                let i = self.order[k];
                if self.subs[i].doc() == cand {
                    let sc = self.subs[i].score();
                    self.clause_scores[i] = sc;
                    partial += sc as f64;
                }
            }
            let mut rest: f64 = self.bounds[..ne].iter().map(|&b| b as f64).sum();
            let mut ok = true;
            for k in (0..ne).rev() {
                if below(partial + rest, self.min_competitive) {
                    ok = false;
                    break;
                }
                rest -= self.bounds[k] as f64;
                let i = self.order[k];
                if self.subs[i].advance(cand) == cand {
                    let sc = self.subs[i].score();
                    self.clause_scores[i] = sc;
                    partial += sc as f64;
                }
            }
            if ok {
                let sum: f64 = self.clause_scores.iter().filter(|x| !x.is_nan()).map(|&x| x as f64).sum();
                self.cached = Some(sum as f32);
                return cand;
            }
            target = cand + 1;
        }
    }
}

impl Scorer for Disjunction<'_> {
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
        if let Some(c) = self.cached {
            return c;
        }
        let doc = self.doc;
        let mut sum = 0f64;
        for s in self.subs.iter_mut() {
            if s.doc() == doc {
                sum += s.score() as f64;
            }
        }
        sum as f32
    }
    fn cost(&self) -> u64 {
        self.subs.iter().map(|s| s.cost()).sum()
    }
    fn shallow_advance(&mut self, target: DocId) -> DocId {
        let mut end = NO_MORE_DOCS;
        for s in self.subs.iter_mut() {
            let t = target.max(s.doc());
            if t != NO_MORE_DOCS {
                end = end.min(s.shallow_advance(t));
            }
        }
        end.max(target)
    }
    fn max_score(&mut self, up_to: DocId) -> f32 {
        let sum: f64 =
            self.subs.iter_mut().filter(|s| s.doc() != NO_MORE_DOCS).map(|s| s.max_score(up_to) as f64).sum();
        (sum * (1.0 + 1e-9)) as f32
    }
    fn set_min_competitive_score(&mut self, min: f32) {
        if min > self.min_competitive {
            self.min_competitive = min;
            self.window_end = None;
            self.cached = None;
        }
    }
    fn take_error(&mut self) -> Option<Error> {
        first_error(&mut self.subs)
    }
}

impl std::fmt::Debug for Disjunction<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Disjunction").finish_non_exhaustive()
    }
}
