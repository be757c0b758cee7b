//! Lucene's `DisjunctionMaxQuery`: documents matching any clause, scored by the best clause plus
//! `tie_breaker` times the other matching clauses (`max + tie * (sum - max)`, summed in double
//! like Lucene's `DisjunctionMaxScorer`).

use super::explain::Explanation;
use super::scorer::{BoxScorer, Scorer};
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// The union of the clauses' scorers in one segment.
pub struct DisMaxScorer<'a> {
    subs: Vec<BoxScorer<'a>>,
    tie: f32,
    doc: DocId,
}

impl<'a> DisMaxScorer<'a> {
    /// A scorer over `subs` (each positioned on its first match), on the first match of any.
    pub fn new(subs: Vec<BoxScorer<'a>>, tie: f32) -> Self {
        let doc = subs.iter().map(|s| s.doc()).min().unwrap_or(NO_MORE_DOCS);
        DisMaxScorer { subs, tie, doc }
    }

    fn settle(&mut self) -> DocId {
        self.doc = self.subs.iter().map(|s| s.doc()).min().unwrap_or(NO_MORE_DOCS);
        self.doc
    }
}

/// Lucene's combination of clause scores.
pub fn combine(scores: impl Iterator<Item = f32>, tie: f32) -> f32 {
    let mut max = 0f32;
    let mut others = 0f64;
    for s in scores {
        if s >= max {
            others += max as f64;
            max = s;
        } else {
            others += s as f64;
        }
    }
    (max as f64 + others * tie as f64) as f32
}

impl Scorer for DisMaxScorer<'_> {
    fn doc(&self) -> DocId {
        self.doc
    }

    fn next(&mut self) -> DocId {
        if self.doc == NO_MORE_DOCS {
            return NO_MORE_DOCS;
        }
        let cur = self.doc;
        for s in &mut self.subs {
            if s.doc() == cur {
                s.next();
            }
        }
        self.settle()
    }

    fn advance(&mut self, target: DocId) -> DocId {
        if target <= self.doc {
            return self.doc;
        }
        for s in &mut self.subs {
            if s.doc() < target {
                s.advance(target);
            }
        }
        self.settle()
    }

    fn score(&mut self) -> f32 {
        let cur = self.doc;
        let tie = self.tie;
        let scores: Vec<f32> = self.subs.iter_mut().filter(|s| s.doc() == cur).map(|s| s.score()).collect();
        combine(scores.into_iter(), tie)
    }

    fn cost(&self) -> u64 {
        self.subs.iter().map(|s| s.cost()).sum()
    }

    fn max_score(&mut self, _up_to: DocId) -> f32 {
        // No block bounds: a dis_max is never pruned (its clauses may sit past the target).
        f32::INFINITY
    }

    fn take_error(&mut self) -> Option<Error> {
        self.subs.iter_mut().find_map(|s| s.take_error())
    }
}

/// The scorer of a dis_max weight in `seg`, `None` when no clause can match there.
pub fn scorer<'a>(seg: &'a dyn SegmentView, subs: &[Weight], tie: f32) -> Result<Option<BoxScorer<'a>>> {
    let mut out = Vec::with_capacity(subs.len());
    for w in subs {
        if let Some(s) = w.scorer(seg)? {
            out.push(s);
        }
    }
    Ok(match out.len() {
        0 => None,
        1 => out.pop(),
        _ => Some(Box::new(DisMaxScorer::new(out, tie))),
    })
}

/// Lucene's explanation: "max of:" (tie 0) or "max plus {tie} times others of:".
pub fn explain(subs: &[Weight], tie: f32, seg: &dyn SegmentView, doc: DocId) -> Result<Explanation> {
    let mut matched = Vec::new();
    for w in subs {
        let e = w.explain(seg, doc)?;
        if e.matched {
            matched.push(e);
        }
    }
    if matched.is_empty() {
        return Ok(Explanation::no_match("No matching clause", vec![]));
    }
    let score = combine(matched.iter().map(|e| e.value.as_f32()), tie);
    let desc = if tie == 0.0 {
        "max of:".to_string()
    } else {
        format!("max plus {} times others of:", super::bm25::java_float(tie))
    };
    Ok(Explanation::float(score, desc, matched))
}

impl std::fmt::Debug for DisMaxScorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DisMaxScorer")
            .field("subs", &self.subs.len())
            .field("tie", &self.tie)
            .field("doc", &self.doc)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combines_like_lucene() {
        assert_eq!(combine([1.0f32, 3.0, 2.0].into_iter(), 0.0), 3.0);
        assert_eq!(combine([1.0f32, 3.0, 2.0].into_iter(), 0.5), 4.5);
        assert_eq!(combine([1.0f32, 3.0, 2.0].into_iter(), 1.0), 6.0);
        assert_eq!(combine(std::iter::empty(), 0.3), 0.0);
    }
}
