//! Lucene's `MultiPhraseQuery`: a phrase with alternatives at a position (what OpenSearch's
//! `MultiPhrasePrefixQuery` rewrites `match_phrase_prefix` to). The alternatives' postings are
//! merged into one [`UnionPostings`] (Lucene's `UnionPostingsEnum`: a document is on the union
//! when any term is; its positions are all of theirs), and the ordinary [`PhraseScorer`] runs
//! over them. The BM25 idf is the sum of the idfs of every term found at any position
//! (`PhraseWeight.getStats` over all `termArrays`). One position is a disjunction of its terms
//! (`MultiPhraseQuery.rewrite`), each scored alone.

use std::fmt;
use std::sync::Arc;

use super::bm25::Bm25;
use super::phrase::{PhraseScorer, PhraseTerm};
use super::scorer::BoxScorer;
use super::tree::Query;
use super::view::SegmentView;
use super::weight::{term_stats, Weight};
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::{Error, Result};

/// The union of several postings lists (with positions).
pub struct UnionPostings<'a> {
    subs: Vec<Box<dyn Postings + 'a>>,
    started: bool,
    doc: DocId,
}

impl std::fmt::Debug for UnionPostings<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnionPostings").field("subs", &self.subs.len()).field("doc", &self.doc).finish()
    }
}

impl<'a> UnionPostings<'a> {
    /// The union of `subs` (unpositioned, as postings come from a segment).
    pub fn new(subs: Vec<Box<dyn Postings + 'a>>) -> Self {
        UnionPostings { subs, started: false, doc: 0 }
    }

    fn settle(&mut self) -> DocId {
        self.started = true;
        self.doc = self.subs.iter().map(|s| s.doc()).min().unwrap_or(NO_MORE_DOCS);
        self.doc
    }
}

impl Postings for UnionPostings<'_> {
    fn doc(&self) -> DocId {
        if self.started {
            self.doc
        } else {
            0
        }
    }
    fn next(&mut self) -> DocId {
        if !self.started {
            for s in self.subs.iter_mut() {
                s.next();
            }
            return self.settle();
        }
        if self.doc == NO_MORE_DOCS {
            return NO_MORE_DOCS;
        }
        let cur = self.doc;
        for s in self.subs.iter_mut() {
            if s.doc() == cur {
                s.next();
            }
        }
        self.settle()
    }
    fn advance(&mut self, target: DocId) -> DocId {
        for s in self.subs.iter_mut() {
            if !self.started || s.doc() < target {
                s.advance(target);
            }
        }
        self.settle()
    }
    fn freq(&self) -> u32 {
        self.subs.iter().filter(|s| s.doc() == self.doc).map(|s| s.freq()).fold(0u32, u32::saturating_add)
    }
    fn positions(&mut self, out: &mut Vec<u32>) {
        out.clear();
        let mut one = Vec::new();
        let cur = self.doc;
        for s in self.subs.iter_mut() {
            if s.doc() == cur {
                s.positions(&mut one);
                out.extend_from_slice(&one);
            }
        }
        out.sort_unstable();
        out.dedup();
    }
    fn cost(&self) -> u64 {
        self.subs.iter().map(|s| s.cost()).fold(0u64, u64::saturating_add)
    }
    fn shallow_advance(&mut self, _target: DocId) -> DocId {
        // One block covering everything: the union keeps no skip data.
        NO_MORE_DOCS
    }
    fn block_max(&self) -> (u32, u8) {
        (u32::MAX, 1)
    }
    fn take_error(&mut self) -> Option<Error> {
        self.subs.iter_mut().find_map(|s| s.take_error())
    }
}

/// A position's alternatives, or one term.
type Alternatives = (Vec<Vec<u8>>, u32);

/// Compiles a multi-phrase for `segments` with the inherited `boost`.
#[allow(clippy::too_many_arguments)]
pub fn compile(
    field: &str,
    positions: &[Alternatives],
    slop: u32,
    b: f32,
    segments: &[&dyn SegmentView],
    boost: f32,
    scoring: bool,
    explained: bool,
) -> Result<Weight> {
    let positions: Vec<Alternatives> = positions.iter().filter(|(ts, _)| !ts.is_empty()).cloned().collect();
    if positions.is_empty() {
        return Ok(Weight::MatchNone);
    }
    if positions.len() == 1 {
        // `MultiPhraseQuery.rewrite`: one position is a disjunction of term queries.
        let should: Vec<Query> =
            positions[0].0.iter().map(|t| Query::Term { field: field.into(), term: t.clone(), boost: 1.0 }).collect();
        let q =
            Query::Bool { must: vec![], should, must_not: vec![], filter: vec![], minimum_should_match: 0, boost: b };
        return Weight::build(&q, segments, boost, scoring, explained);
    }
    if positions.iter().all(|(ts, _)| ts.len() == 1) {
        let terms = positions.iter().map(|(ts, p)| (ts[0].clone(), *p)).collect();
        return Weight::build(
            &Query::Phrase { field: field.into(), terms, slop, boost: b },
            segments,
            boost,
            scoring,
            explained,
        );
    }
    let mut dfs = Vec::new();
    let (mut doc_count, mut sum_ttf) = (0, 0);
    let mut kept = Vec::with_capacity(positions.len());
    for (ts, p) in &positions {
        let mut found = Vec::with_capacity(ts.len());
        for t in ts {
            let (df, dc, st, _) = term_stats(segments, field, t)?;
            (doc_count, sum_ttf) = (dc, st);
            if df > 0 {
                dfs.push(df);
                found.push(t.clone());
            }
        }
        kept.push((found, *p));
    }
    // All positions are looked up before an empty one makes it match nothing: a dfs round
    // records the statistics of every term (Lucene's `MultiPhraseWeight`).
    if kept.iter().any(|(found, _)| found.is_empty()) {
        return Ok(Weight::MatchNone);
    }
    let sim = Arc::new(Bm25::new(boost * b, doc_count, sum_ttf, &dfs));
    let constant = if scoring { None } else { Some(0.0) };
    let display = if explained {
        Query::MultiPhrase { field: field.into(), positions, slop, boost: 1.0 }.to_string()
    } else {
        String::new()
    };
    Ok(Weight::MultiPhrase { field: field.into(), positions: kept, slop, sim, constant, display })
}

/// The phrase scorer of a multi-phrase in `seg`, `None` when a position has no term there.
pub fn scorer<'a>(
    seg: &'a dyn SegmentView,
    field: &str,
    positions: &[Alternatives],
    slop: u32,
    sim: &Arc<Bm25>,
    constant: Option<f32>,
) -> Result<Option<PhraseScorer<'a>>> {
    let mut pts = Vec::with_capacity(positions.len());
    for (i, (ts, offset)) in positions.iter().enumerate() {
        let mut subs = Vec::with_capacity(ts.len());
        for t in ts {
            if let Some(p) = seg.postings(field, t, true)? {
                subs.push(p);
            }
        }
        let postings: Box<dyn Postings + 'a> = match subs.len() {
            0 => return Ok(None),
            1 => subs.pop().expect("one element"),
            _ => Box::new(UnionPostings::new(subs)),
        };
        // Repeated single terms share an id (the phrase matcher keeps their positions apart).
        let term_id = if ts.len() == 1 {
            positions.iter().position(|(o, _)| o.len() == 1 && o[0] == ts[0]).unwrap_or(i)
        } else {
            i
        };
        pts.push(PhraseTerm { postings, offset: *offset, term_id });
    }
    Ok(Some(PhraseScorer::new(pts, slop, seg.norms(field), sim.clone(), constant)))
}

/// The boxed scorer of a multi-phrase weight.
pub fn box_scorer<'a>(
    seg: &'a dyn SegmentView,
    field: &str,
    positions: &[Alternatives],
    slop: u32,
    sim: &Arc<Bm25>,
    constant: Option<f32>,
) -> Result<Option<BoxScorer<'a>>> {
    Ok(scorer(seg, field, positions, slop, sim, constant)?.map(|s| Box::new(s) as BoxScorer<'a>))
}

/// Lucene's `MultiPhraseQuery.toString`: `body:"quick (brown bright) ? fox"~1`.
pub fn fmt_multi_phrase(field: &str, positions: &[Alternatives], slop: u32, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{field}:\"")?;
    let mut last: Option<u32> = None;
    for (ts, p) in positions {
        if let Some(l) = last {
            write!(f, " ")?;
            for _ in 1..p.saturating_sub(l).min(1024) {
                write!(f, "? ")?;
            }
        }
        let text: Vec<String> = ts.iter().map(|t| String::from_utf8_lossy(t).into_owned()).collect();
        if text.len() > 1 {
            write!(f, "({})", text.join(" "))?;
        } else {
            write!(f, "{}", text.join(" "))?;
        }
        last = Some(*p);
    }
    write!(f, "\"")?;
    if slop != 0 {
        write!(f, "~{slop}")?;
    }
    Ok(())
}
