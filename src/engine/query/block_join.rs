//! Lucene's `ToParentBlockJoinQuery` (OpenSearch's `nested` query): the child query runs over
//! the nested documents of one path, and each parent document (the next document after a match
//! that belongs to the enclosing scope: a root document, or a nested document of the enclosing
//! `nested` query's path) matches with its matching children's scores combined by the score mode.
//!
//! The child query sees every document of the segment ([`SegmentView::with_nested`]); the
//! top-level view hides nested documents, so outside a join nothing but root documents match.

use super::explain::Explanation;
use super::scorer::{BoxScorer, Scorer};
use super::tree::Query;
use super::view::SegmentView;
use super::weight::Weight;
use crate::engine::index::builder::meta;
use crate::engine::segment::{DocId, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// How the scores of a parent's matching children combine (Lucene's `ScoreMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScoreMode {
    #[default]
    Avg,
    Sum,
    Min,
    Max,
    /// Parents score 0.
    None,
}

impl ScoreMode {
    /// OpenSearch's names: `avg`, `sum` (or `total`), `min`, `max`, `none`.
    pub fn parse(s: &str) -> Option<ScoreMode> {
        Some(match s {
            "avg" => ScoreMode::Avg,
            "sum" | "total" => ScoreMode::Sum,
            "min" => ScoreMode::Min,
            "max" => ScoreMode::Max,
            "none" => ScoreMode::None,
            _ => return None,
        })
    }

    fn lucene_name(self) -> &'static str {
        match self {
            ScoreMode::Avg => "Avg",
            ScoreMode::Sum => "Total",
            ScoreMode::Min => "Min",
            ScoreMode::Max => "Max",
            ScoreMode::None => "None",
        }
    }
}

/// A block join: children of `path` matching `query`, joined to their parents in `scope`.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    /// The nested object path of the children (`_nested_path` term).
    pub path: String,
    /// The enclosing `nested` query's path (`None`: parents are root documents).
    pub scope: Option<String>,
    /// The child query.
    pub query: Query,
    pub score_mode: ScoreMode,
}

impl std::fmt::Display for Join {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ToParentBlockJoinQuery (+{} #{}:{})", self.query, meta::NESTED_PATH, self.path)
    }
}

/// A compiled join.
#[derive(Debug, Clone)]
pub struct JoinWeight {
    pub child: Weight,
    pub path: String,
    pub scope: Option<String>,
    pub score_mode: ScoreMode,
}

/// Compiles `join` (the child weight scores unless the mode is `none` or nothing scores).
pub fn compile(
    join: &Join,
    segments: &[&dyn SegmentView],
    boost: f32,
    scoring: bool,
    explained: bool,
) -> Result<Weight> {
    let child_scoring = scoring && join.score_mode != ScoreMode::None;
    let child = Weight::build(&join.query, segments, boost, child_scoring, explained)?;
    if matches!(child, Weight::MatchNone) {
        return Ok(Weight::MatchNone);
    }
    let display = if explained { join.to_string() } else { String::new() };
    Ok(Weight::Join {
        inner: std::sync::Arc::new(JoinWeight {
            child,
            path: join.path.clone(),
            scope: join.scope.clone(),
            score_mode: join.score_mode,
        }),
        display,
    })
}

/// A doc bitset.
#[derive(Debug, Clone, Default)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// From per-doc flags.
    pub fn from_flags(flags: &[bool]) -> Bits {
        let mut b = Bits::new(flags.len() as u32);
        for (d, _) in flags.iter().enumerate().filter(|(_, &f)| f) {
            b.set(d as DocId);
        }
        b
    }
    fn new(max_doc: u32) -> Bits {
        Bits(vec![0; (max_doc as usize).div_ceil(64)])
    }
    fn set(&mut self, d: DocId) {
        if let Some(w) = self.0.get_mut(d as usize / 64) {
            *w |= 1 << (d % 64);
        }
    }
    /// The words (bit `d % 64` of word `d / 64`).
    pub fn words(&self) -> &[u64] {
        &self.0
    }
    /// Keeps only the docs also set in `other`.
    pub fn and(&mut self, other: &[u64]) {
        for (i, w) in self.0.iter_mut().enumerate() {
            *w &= other.get(i).copied().unwrap_or(0);
        }
    }
    /// Whether `d` is set.
    pub fn get(&self, d: DocId) -> bool {
        self.0.get(d as usize / 64).is_some_and(|w| w & (1 << (d % 64)) != 0)
    }
    /// The first set doc `>= d`, or `NO_MORE_DOCS`.
    pub fn next_set(&self, d: DocId) -> DocId {
        let mut i = d as usize / 64;
        let Some(&w) = self.0.get(i) else { return NO_MORE_DOCS };
        let w = w & (!0u64 << (d % 64));
        if w != 0 {
            return (i * 64) as DocId + w.trailing_zeros();
        }
        i += 1;
        while let Some(&w) = self.0.get(i) {
            if w != 0 {
                return (i * 64) as DocId + w.trailing_zeros();
            }
            i += 1;
        }
        NO_MORE_DOCS
    }
}

/// The documents of nested path `path` in `all` (a view showing nested documents).
pub fn path_docs(all: &dyn SegmentView, path: &str) -> Result<Bits> {
    let mut b = Bits::new(all.max_doc());
    if let Some(mut p) = all.postings(meta::NESTED_PATH, path.as_bytes(), false)? {
        loop {
            let d = p.next();
            if d == NO_MORE_DOCS {
                break;
            }
            b.set(d);
        }
        if let Some(e) = p.take_error() {
            return Err(e);
        }
    }
    Ok(b)
}

/// The parent documents of scope `scope`: root documents, or the nested documents of a path.
pub fn parent_docs(seg: &dyn SegmentView, all: &dyn SegmentView, scope: Option<&str>) -> Result<Bits> {
    match scope {
        Some(p) => path_docs(all, p),
        None => {
            let mut b = Bits::new(seg.max_doc());
            for d in 0..seg.max_doc() {
                if !seg.is_nested(d) {
                    b.set(d);
                }
            }
            Ok(b)
        }
    }
}

impl JoinWeight {
    /// The join's scorer in `seg` (the top-level or an enclosing join's view).
    pub fn scorer<'a>(&self, seg: &'a dyn SegmentView) -> Result<Option<BoxScorer<'a>>> {
        let all = seg.with_nested().unwrap_or(seg);
        let Some(child) = self.child.scorer(all)? else { return Ok(None) };
        let children = path_docs(all, &self.path)?;
        if children.next_set(0) == NO_MORE_DOCS {
            return Ok(None);
        }
        let parents = parent_docs(seg, all, self.scope.as_deref())?;
        let mut s = JoinScorer { child, children, parents, mode: self.score_mode, doc: 0, score: 0.0, count: 0 };
        s.next();
        Ok(Some(Box::new(s)))
    }

    /// Lucene's `BlockJoinWeight.explain`: the best child's explanation under a summary.
    pub fn explain(&self, seg: &dyn SegmentView, doc: DocId) -> Result<Explanation> {
        let all = seg.with_nested().unwrap_or(seg);
        let Some(mut sc) = self.scorer(seg)? else {
            return Ok(Explanation::no_match("Not a match", vec![]));
        };
        if sc.advance(doc) != doc || doc == NO_MORE_DOCS {
            return Ok(Explanation::no_match("Not a match", vec![]));
        }
        let score = sc.score();
        let children = path_docs(all, &self.path)?;
        let parents = parent_docs(seg, all, self.scope.as_deref())?;
        let mut start = doc;
        while start > 0 && !parents.get(start - 1) {
            start -= 1;
        }
        let (mut best, mut best_score, mut n) = (None, f32::MIN, 0);
        if let Some(mut c) = self.child.scorer(all)? {
            let mut d = c.advance(start);
            while d < doc {
                if children.get(d) {
                    n += 1;
                    let s = c.score();
                    if best.is_none() || s > best_score {
                        (best, best_score) = (Some(d), s);
                    }
                }
                d = c.next();
            }
            if let Some(e) = c.take_error() {
                return Err(e);
            }
        }
        let Some(b) = best else { return Ok(Explanation::no_match("Not a match", vec![])) };
        let sub = self.child.explain(all, b)?;
        Ok(Explanation::float(
            score,
            format!(
                "Score based on {n} child docs in range from {start} to {}, using score mode {}",
                doc.saturating_sub(1),
                self.score_mode.lucene_name()
            ),
            vec![sub],
        ))
    }
}

/// Parents of matching children, scored by the combined child scores.
struct JoinScorer<'a> {
    child: BoxScorer<'a>,
    children: Bits,
    parents: Bits,
    mode: ScoreMode,
    doc: DocId,
    score: f32,
    count: u32,
}

impl JoinScorer<'_> {
    /// From the child scorer's position: the next parent with a matching child of the path.
    fn collect(&mut self) -> DocId {
        loop {
            let c = self.child.doc();
            if c == NO_MORE_DOCS {
                self.doc = NO_MORE_DOCS;
                return NO_MORE_DOCS;
            }
            if !self.children.get(c) {
                self.child.next();
                continue;
            }
            let parent = self.parents.next_set(c);
            if parent == NO_MORE_DOCS {
                self.doc = NO_MORE_DOCS;
                return NO_MORE_DOCS;
            }
            let mut score = self.child.score() as f64;
            let mut count = 1u32;
            let mut d = self.child.next();
            while d < parent {
                if self.children.get(d) {
                    let s = self.child.score() as f64;
                    match self.mode {
                        ScoreMode::Avg | ScoreMode::Sum => score += s,
                        ScoreMode::Min => score = score.min(s),
                        ScoreMode::Max => score = score.max(s),
                        ScoreMode::None => {}
                    }
                    count += 1;
                }
                d = self.child.next();
            }
            if self.mode == ScoreMode::Avg {
                score /= count as f64;
            }
            self.score = if self.mode == ScoreMode::None { 0.0 } else { score as f32 };
            self.count = count;
            self.doc = parent;
            return parent;
        }
    }
}

impl Scorer for JoinScorer<'_> {
    fn doc(&self) -> DocId {
        self.doc
    }
    fn next(&mut self) -> DocId {
        if self.doc == NO_MORE_DOCS {
            return NO_MORE_DOCS;
        }
        self.collect()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        if target <= self.doc && self.count > 0 {
            return self.doc;
        }
        if target == NO_MORE_DOCS {
            self.doc = NO_MORE_DOCS;
            return NO_MORE_DOCS;
        }
        // Children of parents >= target come after the parent before target.
        let mut from = target;
        while from > 0 && !self.parents.get(from - 1) {
            from -= 1;
        }
        self.child.advance(from);
        self.collect()
    }
    fn score(&mut self) -> f32 {
        self.score
    }
    fn cost(&self) -> u64 {
        self.child.cost()
    }
    fn max_score(&mut self, _up_to: DocId) -> f32 {
        f32::MAX
    }
    fn take_error(&mut self) -> Option<Error> {
        self.child.take_error()
    }
}
