//! Boolean combinations of scorers: conjunction (leap-frog with block-max skipping), disjunction
//! (with `minimum_should_match`, and MaxScore block-max pruning at the top level), exclusion and
//! optional clauses. Scores are summed in double and cast to float, in clause order, like
//! Lucene's `ConjunctionScorer`, `DisjunctionSumScorer`, `ReqOptSumScorer`.

use super::scorer::{below, BoxScorer, Scorer};
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Error;

fn first_error(subs: &mut [BoxScorer<'_>]) -> Option<Error> {
    let mut err = None;
    for s in subs {
        if let Some(e) = s.take_error() {
            err.get_or_insert(e);
        }
    }
    err
}

/// Documents matching every sub-scorer. `scoring[i]` says whether clause `i` adds to the score
/// (`must`) or only filters (`filter`).
pub struct Conjunction<'a> {
    /// Clauses in their query order.
    subs: Vec<BoxScorer<'a>>,
    scoring: Vec<bool>,
    /// Clause indexes by increasing cost (the first leads).
    by_cost: Vec<usize>,
    doc: DocId,
    min_competitive: f32,
    window_end: Option<DocId>,
    window_bound: f64,
}

impl<'a> Conjunction<'a> {
    /// The conjunction of `subs` (at least one), positioned on its first match.
    pub fn new(subs: Vec<BoxScorer<'a>>, scoring: Vec<bool>) -> Self {
        let mut by_cost: Vec<usize> = (0..subs.len()).collect();
        by_cost.sort_by_key(|&i| subs[i].cost());
        let mut c = Conjunction { subs, scoring, by_cost, doc: 0, min_competitive: 0.0, window_end: None, window_bound: 0.0 };
        let start = c.subs[c.by_cost[0]].doc();
        c.doc = c.find(start);
        c
    }

    fn find(&mut self, mut target: DocId) -> DocId {
        'outer: loop {
            let lead = self.by_cost[0];
            let d = self.subs[lead].advance(target);
            if d == NO_MORE_DOCS {
                return NO_MORE_DOCS;
            }
            if self.min_competitive > 0.0 {
                if self.window_end.is_none_or(|e| d > e) {
                    let mut end = NO_MORE_DOCS;
                    for (s, &sc) in self.subs.iter_mut().zip(&self.scoring) {
                        if sc {
                            end = end.min(s.shallow_advance(d));
                        }
                    }
                    let mut bound = 0f64;
                    for (s, &sc) in self.subs.iter_mut().zip(&self.scoring) {
                        if sc {
                            bound += s.max_score(end) as f64;
                        }
                    }
                    self.window_end = Some(end);
                    self.window_bound = bound;
                }
                if below(self.window_bound, self.min_competitive) {
                    match self.window_end {
                        Some(e) if e != NO_MORE_DOCS => {
                            target = e + 1;
                            continue 'outer;
                        }
                        _ => return NO_MORE_DOCS,
                    }
                }
            }
            for k in 1..self.by_cost.len() {
                let i = self.by_cost[k];
                let o = self.subs[i].advance(d);
                if o > d {
                    target = o;
                    continue 'outer;
                }
            }
            return d;
        }
    }
}

impl Scorer for Conjunction<'_> {
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
        let mut sum = 0f64;
        for (s, &sc) in self.subs.iter_mut().zip(&self.scoring) {
            if sc {
                sum += s.score() as f64;
            }
        }
        sum as f32
    }
    fn cost(&self) -> u64 {
        self.subs[self.by_cost[0]].cost()
    }
    fn shallow_advance(&mut self, target: DocId) -> DocId {
        let mut end = NO_MORE_DOCS;
        for (s, &sc) in self.subs.iter_mut().zip(&self.scoring) {
            if sc {
                end = end.min(s.shallow_advance(target));
            }
        }
        end
    }
    fn max_score(&mut self, up_to: DocId) -> f32 {
        let mut sum = 0f64;
        for (s, &sc) in self.subs.iter_mut().zip(&self.scoring) {
            if sc {
                sum += s.max_score(up_to) as f64;
            }
        }
        ((sum * (1.0 + 1e-9)) as f32).max(0.0)
    }
    fn set_min_competitive_score(&mut self, min: f32) {
        self.min_competitive = min;
    }
    fn take_error(&mut self) -> Option<Error> {
        first_error(&mut self.subs)
    }
}

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
    /// `order[..non_essential]` cannot reach the minimum together.
    non_essential: usize,
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
            non_essential: 0,
        };
        d.doc = d.find(0);
        d
    }

    fn find(&mut self, target: DocId) -> DocId {
        if self.min_competitive > 0.0 && self.msm == 1 {
            return self.find_pruned(target);
        }
        let mut target = target;
        loop {
            let mut cand = NO_MORE_DOCS;
            for s in self.subs.iter_mut() {
                cand = cand.min(s.advance(target));
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
            self.bounds[i] = if s.doc() == NO_MORE_DOCS { 0.0 } else { s.max_score(end) };
        }
        let bounds = self.bounds.clone();
        self.order.sort_by(|&a, &b| bounds[a].total_cmp(&bounds[b]));
        for (k, &i) in self.order.iter().enumerate() {
            self.bounds[k] = bounds[i];
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
                // compete up to `end`, so the next window starts after it.
                if end == NO_MORE_DOCS {
                    return NO_MORE_DOCS;
                }
                target = end + 1;
                self.window_end = None;
                continue;
            }
            if cand == NO_MORE_DOCS {
                return NO_MORE_DOCS;
            }
            let mut partial = 0f64;
            for k in ne..self.order.len() {
                let i = self.order[k];
                if self.subs[i].doc() == cand {
                    partial += self.subs[i].score() as f64;
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
                    partial += self.subs[i].score() as f64;
                }
            }
            if ok {
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
        let sum: f64 = self.subs.iter_mut().filter(|s| s.doc() != NO_MORE_DOCS).map(|s| s.max_score(up_to) as f64).sum();
        (sum * (1.0 + 1e-9)) as f32
    }
    fn set_min_competitive_score(&mut self, min: f32) {
        if min > self.min_competitive {
            self.min_competitive = min;
            self.window_end = None;
        }
    }
    fn take_error(&mut self) -> Option<Error> {
        first_error(&mut self.subs)
    }
}

/// Matches of `req` that do not match `excl` (`must_not`).
pub struct ReqExcl<'a> {
    req: BoxScorer<'a>,
    excl: BoxScorer<'a>,
    doc: DocId,
}

impl<'a> ReqExcl<'a> {
    /// `req` minus `excl`, positioned on its first match.
    pub fn new(req: BoxScorer<'a>, excl: BoxScorer<'a>) -> Self {
        let mut r = ReqExcl { doc: req.doc(), req, excl };
        r.doc = r.settle(r.doc);
        r
    }

    fn settle(&mut self, mut d: DocId) -> DocId {
        while d != NO_MORE_DOCS && self.excl.advance(d) == d {
            d = self.req.next();
        }
        d
    }
}

impl Scorer for ReqExcl<'_> {
    fn doc(&self) -> DocId {
        self.doc
    }
    fn next(&mut self) -> DocId {
        let d = self.req.next();
        self.doc = self.settle(d);
        self.doc
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target > self.doc {
            let d = self.req.advance(target);
            self.doc = self.settle(d);
        }
        self.doc
    }
    fn score(&mut self) -> f32 {
        self.req.score()
    }
    fn cost(&self) -> u64 {
        self.req.cost()
    }
    fn shallow_advance(&mut self, target: DocId) -> DocId {
        self.req.shallow_advance(target)
    }
    fn max_score(&mut self, up_to: DocId) -> f32 {
        self.req.max_score(up_to)
    }
    fn set_min_competitive_score(&mut self, min: f32) {
        self.req.set_min_competitive_score(min);
    }
    fn take_error(&mut self) -> Option<Error> {
        let a = self.req.take_error();
        let b = self.excl.take_error();
        a.or(b)
    }
}

/// Matches of `req`; the score adds `opt`'s where it also matches (`must` plus `should`).
pub struct ReqOpt<'a> {
    req: BoxScorer<'a>,
    opt: BoxScorer<'a>,
}

impl<'a> ReqOpt<'a> {
    /// `req` with optional `opt`.
    pub fn new(req: BoxScorer<'a>, opt: BoxScorer<'a>) -> Self {
        ReqOpt { req, opt }
    }
}

impl Scorer for ReqOpt<'_> {
    fn doc(&self) -> DocId {
        self.req.doc()
    }
    fn next(&mut self) -> DocId {
        self.req.next()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        self.req.advance(target)
    }
    fn score(&mut self) -> f32 {
        let d = self.req.doc();
        let mut s = self.req.score() as f64;
        if self.opt.advance(d) == d {
            s += self.opt.score() as f64;
        }
        s as f32
    }
    fn cost(&self) -> u64 {
        self.req.cost()
    }
    fn shallow_advance(&mut self, target: DocId) -> DocId {
        let a = self.req.shallow_advance(target);
        let b = self.opt.shallow_advance(target);
        a.min(b)
    }
    fn max_score(&mut self, up_to: DocId) -> f32 {
        let s = self.req.max_score(up_to) as f64 + self.opt.max_score(up_to) as f64;
        (s * (1.0 + 1e-9)) as f32
    }
    fn take_error(&mut self) -> Option<Error> {
        let a = self.req.take_error();
        let b = self.opt.take_error();
        a.or(b)
    }
}

impl std::fmt::Debug for Conjunction<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conjunction").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Disjunction<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Disjunction").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ReqExcl<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReqExcl").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ReqOpt<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReqOpt").finish_non_exhaustive()
    }
}
