//! The scorer of a span query in one segment (Lucene's `SpanScorer`): candidate documents from
//! the leaves' postings (conjunctions for near and containment queries, unions for `span_or`,
//! the included spans alone for `span_not`), then the document's spans decide
//! ([`super::eval`]); the score is BM25 over the sloppy frequency with the norm of the query's
//! field.

use std::sync::Arc;

use super::eval::{sloppy_freq, spans, Span};
use super::SpanQuery;
use crate::engine::query::bm25::Bm25;
use crate::engine::query::scorer::Scorer;
use crate::engine::query::view::SegmentView;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// Which documents may match (a superset of the matches).
#[derive(Debug)]
enum Approx {
    Leaf(usize),
    And(Vec<Approx>),
    Or(Vec<Approx>),
    /// Every document (a gap).
    All,
    Never,
}

fn approx_of(q: &SpanQuery, next: &mut usize) -> Approx {
    let mut take = || {
        let l = *next;
        *next += 1;
        l
    };
    match q {
        SpanQuery::Term { .. } => Approx::Leaf(take()),
        SpanQuery::IndexPrefix { terms, .. } => Approx::Or(terms.iter().map(|_| Approx::Leaf(take())).collect()),
        SpanQuery::Or(c) => Approx::Or(c.iter().map(|s| approx_of(s, next)).collect()),
        SpanQuery::Near { clauses, .. } => {
            let parts: Vec<Approx> =
                clauses.iter().map(|s| approx_of(s, next)).filter(|a| !matches!(a, Approx::All)).collect();
            if parts.is_empty() {
                Approx::Never
            } else {
                Approx::And(parts)
            }
        }
        SpanQuery::Containing { big, little } | SpanQuery::Within { big, little } => {
            Approx::And(vec![approx_of(big, next), approx_of(little, next)])
        }
        SpanQuery::Not { include, exclude, .. } => {
            let a = approx_of(include, next);
            // The exclusion's leaves are numbered but do not narrow the candidates.
            let _ = approx_of(exclude, next);
            a
        }
        SpanQuery::First { inner, .. } | SpanQuery::Mask { inner, .. } => approx_of(inner, next),
        SpanQuery::Gap { .. } => Approx::All,
        SpanQuery::NoMatch { .. } => Approx::Never,
    }
}

/// How a span query scores.
#[derive(Debug, Clone)]
pub struct SpanSim {
    /// BM25 over the query's terms (`None`: none of them occurs; the query then scores 0).
    pub sim: Option<Arc<Bm25>>,
    /// The field whose norms score (the top query's field).
    pub field: String,
    /// The score of every match instead (non-scoring contexts).
    pub constant: Option<f32>,
}

/// Scores the documents of one segment with spans of a query.
pub struct SpanScorer<'a> {
    query: Arc<SpanQuery>,
    postings: Vec<Option<Box<dyn Postings + 'a>>>,
    positions: Vec<Vec<u32>>,
    approx: Approx,
    norms: Option<&'a [u8]>,
    sim: SpanSim,
    doc: DocId,
    spans: Vec<Span>,
    freq: f32,
}

impl std::fmt::Debug for SpanScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpanScorer").field("doc", &self.doc).finish_non_exhaustive()
    }
}

impl<'a> SpanScorer<'a> {
    /// The scorer of `query` in `seg`, `None` when no document can match there.
    pub fn new(seg: &'a dyn SegmentView, query: Arc<SpanQuery>, sim: SpanSim) -> Result<Option<Self>> {
        let mut leaves = Vec::new();
        query.leaves(&mut leaves);
        let mut n = 0;
        let approx = approx_of(&query, &mut n);
        debug_assert_eq!(n, leaves.len());
        let mut postings = Vec::with_capacity(leaves.len());
        for (f, t) in &leaves {
            postings.push(match seg.postings(f, t, true)? {
                Some(mut p) => {
                    p.next();
                    Some(p)
                }
                None => None,
            });
        }
        let norms = seg.norms(&sim.field);
        let mut s = SpanScorer {
            query,
            postings,
            positions: vec![Vec::new(); leaves.len()],
            approx,
            norms,
            sim,
            doc: 0,
            spans: Vec::new(),
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

    /// The spans of the current document.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The norm byte of `doc` (1 without norms, as Lucene's `LeafSimScorer`).
    pub fn norm(&self, doc: DocId) -> u8 {
        match self.norms {
            Some(n) => n.get(doc as usize).copied().filter(|&b| b != 0).unwrap_or(1),
            None => 1,
        }
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
            Approx::All => target,
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
            for (p, pos) in self.postings.iter_mut().zip(self.positions.iter_mut()) {
                pos.clear();
                if let Some(p) = p {
                    let at = if p.doc() < d { p.advance(d) } else { p.doc() };
                    if at == d {
                        p.positions(pos);
                    }
                }
            }
            self.spans = spans(&self.query, &self.positions);
            if !self.spans.is_empty() {
                self.freq = sloppy_freq(&self.spans);
                return d;
            }
            target = d + 1;
        }
    }
}

impl Scorer for SpanScorer<'_> {
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
        if let Some(c) = self.sim.constant {
            return c;
        }
        match &self.sim.sim {
            Some(sim) => sim.score(self.freq, self.norm(self.doc)),
            None => 0.0,
        }
    }
    fn cost(&self) -> u64 {
        self.postings.iter().flatten().map(|p| p.cost()).max().unwrap_or(0)
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        match (self.sim.constant, &self.sim.sim) {
            (Some(c), _) => c,
            // BM25 never reaches its weight (boost times idf).
            (None, Some(sim)) => sim.weight,
            (None, None) => 0.0,
        }
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
