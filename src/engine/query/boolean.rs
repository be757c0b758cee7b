//! Boolean combinations of scorers: conjunction (leap-frog with block-max skipping), exclusion
//! and optional clauses (the disjunction is in [`super::disjunction`]). Scores are summed in
//! double and cast to float, in clause order, like Lucene's `ConjunctionScorer` and
//! `ReqOptSumScorer`.

use super::scorer::{below, BoxScorer, Scorer};
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::Error;

/// The first error of any sub-scorer (all are drained).
pub(crate) fn first_error(subs: &mut [BoxScorer<'_>]) -> Option<Error> {
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
        let mut c =
            Conjunction { subs, scoring, by_cost, doc: 0, min_competitive: 0.0, window_end: None, window_bound: 0.0 };
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
                    // Clauses already beyond `d` need bounds only from their own doc on (and
                    // skip data is never moved backwards).
                    let mut end = NO_MORE_DOCS;
                    for (s, &sc) in self.subs.iter_mut().zip(&self.scoring) {
                        if sc {
                            end = end.min(s.shallow_advance(d.max(s.doc())));
                        }
                    }
                    let end = end.max(d);
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
                end = end.min(s.shallow_advance(target.max(s.doc())));
            }
        }
        end.max(target)
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
        let a = self.req.shallow_advance(target.max(self.req.doc()));
        let b = self.opt.shallow_advance(target.max(self.opt.doc()));
        a.min(b).max(target)
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
