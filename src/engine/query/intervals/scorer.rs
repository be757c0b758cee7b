//! The scorer of an interval query in one segment (Lucene's `IntervalScorer`): candidate
//! documents from the leaves' postings combined as Lucene's interval approximations are
//! (conjunctions for sources needing all their parts, unions for disjunctions, the minuend alone
//! for `not_*` filters), then the iterator tree decides; the score is
//! `boost * (1 - pivot / (pivot + freq))` (Lucene's saturation function, pivot 1) over the sloppy
//! frequency `freq = Σ 1 / max(width - minExtent + 1, 1)` of the document's intervals.

use super::iter::{build, Leaves, Node, NO_MORE};
use super::Source;
use crate::engine::query::scorer::Scorer;
use crate::engine::query::view::SegmentView;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// Lucene's default interval score: saturation with pivot 1.
pub fn saturation(weight: f32, freq: f32) -> f32 {
    let pivot = 1.0f32;
    weight * (1.0f32 - pivot / (pivot + freq))
}

/// Which documents may match (a superset of the matches).
#[derive(Debug)]
enum Approx {
    Leaf(usize),
    And(Vec<Approx>),
    Or(Vec<Approx>),
    Never,
}

/// Scores the documents of one segment with intervals of a source.
pub struct IntervalScorer<'a> {
    postings: Vec<Option<Box<dyn Postings + 'a>>>,
    leaves: Leaves,
    approx: Approx,
    root: Node,
    min_extent: i32,
    boost: f32,
    constant: Option<f32>,
    doc: DocId,
    freq: f32,
}

impl std::fmt::Debug for IntervalScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntervalScorer").field("doc", &self.doc).finish_non_exhaustive()
    }
}

fn approx_of(source: &Source, next_leaf: &mut usize) -> Approx {
    let mut take = || {
        let l = *next_leaf;
        *next_leaf += 1;
        l
    };
    match source {
        Source::Term { .. } => Approx::Leaf(take()),
        Source::MultiTerm { terms, .. } => Approx::Or(terms.iter().map(|_| Approx::Leaf(take())).collect()),
        Source::NoMatch => Approx::Never,
        Source::Or(subs) => Approx::Or(subs.iter().map(|s| approx_of(s, next_leaf)).collect()),
        Source::Ordered(subs) | Source::Unordered(subs) | Source::Block(subs) => {
            Approx::And(subs.iter().map(|s| approx_of(s, next_leaf)).collect())
        }
        Source::MaxGaps(s, _) | Source::Repeat(s, _, _) | Source::Extend(s, _, _) | Source::Offset(s, _) => {
            approx_of(s, next_leaf)
        }
        Source::Containing(a, b) | Source::ContainedBy(a, b) | Source::Overlapping(a, b) => {
            Approx::And(vec![approx_of(a, next_leaf), approx_of(b, next_leaf)])
        }
        Source::NotContaining(a, b) | Source::NotContainedBy(a, b) | Source::NonOverlapping(a, b) => {
            let x = approx_of(a, next_leaf);
            // The subtrahend's leaves are numbered but do not narrow the candidates.
            let _ = approx_of(b, next_leaf);
            x
        }
    }
}

impl<'a> IntervalScorer<'a> {
    /// The scorer of `source` in `seg`, `None` when no document can match there. `boost` is the
    /// query's weight; `constant` replaces the score (non-scoring contexts).
    pub fn new(seg: &'a dyn SegmentView, source: &Source, boost: f32, constant: Option<f32>) -> Result<Option<Self>> {
        let mut terms: Vec<(String, Vec<u8>)> = Vec::new();
        let root = build(source, &mut |f, t| {
            terms.push((f.to_string(), t.to_vec()));
            terms.len() - 1
        });
        let mut n = 0;
        let approx = approx_of(source, &mut n);
        debug_assert_eq!(n, terms.len());
        let mut postings = Vec::with_capacity(terms.len());
        for (f, t) in &terms {
            let p = match seg.postings(f, t, true)? {
                Some(mut p) => {
                    p.next();
                    Some(p)
                }
                None => None,
            };
            postings.push(p);
        }
        let leaves = Leaves { positions: vec![Vec::new(); terms.len()] };
        let mut s = IntervalScorer {
            postings,
            leaves,
            approx,
            root,
            min_extent: source.min_extent(),
            boost,
            constant,
            doc: 0,
            freq: 0.0,
        };
        s.doc = s.find(0);
        if s.doc == NO_MORE_DOCS {
            if let Some(e) = s.take_error() {
                return Err(e);
            }
            return Ok(None);
        }
        Ok(Some(s))
    }

    /// The sloppy frequency of the current document.
    pub fn freq(&self) -> f32 {
        self.freq
    }

    fn adv(postings: &mut [Option<Box<dyn Postings + 'a>>], a: &Approx, target: DocId) -> DocId {
        match a {
            Approx::Leaf(l) => match &mut postings[*l] {
                Some(p) => {
                    if p.doc() < target {
                        p.advance(target)
                    } else {
                        p.doc()
                    }
                }
                None => NO_MORE_DOCS,
            },
            Approx::Never => NO_MORE_DOCS,
            Approx::Or(cs) => cs.iter().map(|c| Self::adv(postings, c, target)).min().unwrap_or(NO_MORE_DOCS),
            Approx::And(cs) => {
                let mut d = target;
                'outer: loop {
                    if d == NO_MORE_DOCS {
                        return d;
                    }
                    for c in cs {
                        let x = Self::adv(postings, c, d);
                        if x > d {
                            d = x;
                            continue 'outer;
                        }
                    }
                    return d;
                }
            }
        }
    }

    fn find(&mut self, mut target: DocId) -> DocId {
        loop {
            let d = Self::adv(&mut self.postings, &self.approx, target);
            if d == NO_MORE_DOCS {
                return d;
            }
            for (p, pos) in self.postings.iter_mut().zip(self.leaves.positions.iter_mut()) {
                pos.clear();
                if let Some(p) = p {
                    let at = if p.doc() < d { p.advance(d) } else { p.doc() };
                    if at == d {
                        p.positions(pos);
                    }
                }
            }
            self.root.reset(&self.leaves);
            if self.root.next_interval(&self.leaves) != NO_MORE {
                self.freq = 0.0;
                if self.constant.is_none() {
                    let mut freq = 0f32;
                    loop {
                        let length = self.root.end().wrapping_sub(self.root.start()).wrapping_add(1);
                        freq += 1f32 / length.wrapping_sub(self.min_extent).wrapping_add(1).max(1) as f32;
                        if self.root.next_interval(&self.leaves) == NO_MORE {
                            break;
                        }
                    }
                    self.freq = freq;
                }
                return d;
            }
            target = d + 1;
        }
    }
}

impl Scorer for IntervalScorer<'_> {
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
        match self.constant {
            Some(c) => c,
            None => saturation(self.boost, self.freq),
        }
    }
    fn cost(&self) -> u64 {
        self.postings.iter().flatten().map(|p| p.cost()).max().unwrap_or(0)
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        self.constant.unwrap_or(self.boost)
    }
    fn take_error(&mut self) -> Option<Error> {
        let mut err = None;
        for p in self.postings.iter_mut().flatten() {
            if let Some(e) = p.take_error() {
                err.get_or_insert(e);
            }
        }
        err
    }
}
