//! Two-phase matching (Lucene's `TwoPhaseIterator`): an approximation query finds candidates
//! cheaply, and a per-document check, supplied by the layer that built the query, confirms each.
//! The matches score a constant (OpenSearch's `SourceFieldMatchQuery`, which checks
//! `match_only_text` phrases against the re-analyzed `_source`).

use std::fmt;
use std::sync::Arc;

use super::scorer::{BoxScorer, Scorer};
use super::view::SegmentView;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// Confirms a candidate document of one segment.
pub trait DocCheck: Send + Sync {
    /// Whether `doc` of `seg` (a live approximation match) really matches.
    fn matches(&self, seg: &dyn SegmentView, doc: DocId) -> Result<bool>;
    /// How explanations and `Query` display print the check (Lucene's `toString`).
    fn describe(&self) -> String;
}

/// A shared check; equal only to itself (queries compare checks by identity).
#[derive(Clone)]
pub struct CheckRef(pub Arc<dyn DocCheck>);

impl fmt::Debug for CheckRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CheckRef({})", self.0.describe())
    }
}

impl PartialEq for CheckRef {
    fn eq(&self, other: &CheckRef) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The approximation's matches that pass the check, each scoring `score`.
pub struct VerifiedScorer<'a> {
    approx: BoxScorer<'a>,
    check: Arc<dyn DocCheck>,
    seg: &'a dyn SegmentView,
    score: f32,
    doc: DocId,
    error: Option<Error>,
}

impl<'a> VerifiedScorer<'a> {
    /// Positioned before the first match.
    pub fn new(approx: BoxScorer<'a>, check: Arc<dyn DocCheck>, seg: &'a dyn SegmentView, score: f32) -> Self {
        VerifiedScorer { approx, check, seg, score, doc: 0, error: None }.started()
    }

    fn started(mut self) -> Self {
        // Scorers start on their first match; `doc()` of a fresh approximation is its first.
        let first = self.approx.doc();
        self.doc = self.confirm(first);
        self
    }

    /// The first approximation match from `d` on that passes the check.
    fn confirm(&mut self, mut d: DocId) -> DocId {
        while d != NO_MORE_DOCS {
            match self.check.matches(self.seg, d) {
                Ok(true) => return d,
                Ok(false) => d = self.approx.next(),
                Err(e) => {
                    self.error = Some(e);
                    return NO_MORE_DOCS;
                }
            }
        }
        NO_MORE_DOCS
    }
}

impl Scorer for VerifiedScorer<'_> {
    fn doc(&self) -> DocId {
        self.doc
    }
    fn next(&mut self) -> DocId {
        if self.doc == NO_MORE_DOCS {
            return NO_MORE_DOCS;
        }
        let d = self.approx.next();
        self.doc = self.confirm(d);
        self.doc
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target <= self.doc {
            return self.doc;
        }
        let d = self.approx.advance(target);
        self.doc = self.confirm(d);
        self.doc
    }
    fn score(&mut self) -> f32 {
        self.score
    }
    fn cost(&self) -> u64 {
        self.approx.cost()
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        self.score
    }
    fn take_error(&mut self) -> Option<Error> {
        self.error.take().or_else(|| self.approx.take_error())
    }
}

impl fmt::Debug for VerifiedScorer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerifiedScorer")
            .field("check", &self.check.describe())
            .field("doc", &self.doc)
            .finish_non_exhaustive()
    }
}
