//! `terminate_after` (OpenSearch's `EarlyTerminatingCollector`, one per shard): a shard
//! collects only its first N matching live documents in index order. [`limit`] finds where
//! each shard's N-th match lies and returns a searcher whose segments hide every document after
//! it ([`Limited`] views: such documents read as deleted; statistics, and so scores, are the
//! untouched segment's).

use std::sync::Arc;

use super::searcher::Searcher;
use super::tree::Query;
use super::view::{FieldStats, SegmentView, TermState, TermStats};
use super::weight::Weight;
use crate::engine::segment::postings::SegmentPostings;
use crate::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use crate::engine::Result;

/// A segment whose documents from `end` on are hidden.
pub struct Limited {
    inner: Arc<dyn SegmentView>,
    end: DocId,
}

impl std::fmt::Debug for Limited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limited").field("end", &self.end).finish_non_exhaustive()
    }
}

impl SegmentView for Limited {
    fn max_doc(&self) -> u32 {
        self.inner.max_doc()
    }
    fn is_live(&self, doc: DocId) -> bool {
        doc < self.end && self.inner.is_live(doc)
    }
    fn has_deletions(&self) -> bool {
        self.end < self.inner.max_doc() || self.inner.has_deletions()
    }
    fn field_stats(&self, field: &str) -> Option<FieldStats> {
        self.inner.field_stats(field)
    }
    fn term_stats(&self, field: &str, term: &[u8]) -> Result<Option<TermStats>> {
        self.inner.term_stats(field, term)
    }
    fn postings(&self, field: &str, term: &[u8], positions: bool) -> Result<Option<Box<dyn Postings + '_>>> {
        self.inner.postings(field, term, positions)
    }
    fn term_state(&self, field: &str, term: &[u8]) -> Result<Option<TermState>> {
        self.inner.term_state(field, term)
    }
    fn postings_of(
        &self,
        field: &str,
        term: &[u8],
        state: &TermState,
        positions: bool,
    ) -> Result<Option<Box<dyn Postings + '_>>> {
        self.inner.postings_of(field, term, state, positions)
    }
    fn segment_postings_of(
        &self,
        field: &str,
        term: &[u8],
        state: &TermState,
        positions: bool,
    ) -> Option<Result<Option<SegmentPostings<'_>>>> {
        self.inner.segment_postings_of(field, term, state, positions)
    }
    fn visit_terms(&self, field: &str, from: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> Result<()> {
        self.inner.visit_terms(field, from, f)
    }
    fn norms(&self, field: &str) -> Option<&[u8]> {
        self.inner.norms(field)
    }
    fn points_docs(&self, field: &str, lo: &[u8], hi: &[u8]) -> Result<Option<Vec<DocId>>> {
        self.inner.points_docs(field, lo, hi)
    }
    fn numeric_values(&self, field: &str, doc: DocId, out: &mut Vec<i64>) -> bool {
        self.inner.numeric_values(field, doc, out)
    }
    fn sorted_set_ords(&self, field: &str, doc: DocId, out: &mut Vec<u64>) -> bool {
        self.inner.sorted_set_ords(field, doc, out)
    }
    fn sorted_set_term(&self, field: &str, ord: u64) -> Result<Vec<u8>> {
        self.inner.sorted_set_term(field, ord)
    }
    fn has_value(&self, field: &str, doc: DocId) -> bool {
        self.inner.has_value(field, doc)
    }
    fn source(&self, doc: DocId) -> Result<Option<Vec<u8>>> {
        self.inner.source(doc)
    }
    fn numeric_column(&self, field: &str) -> Option<crate::engine::segment::doc_values::NumericColumn<'_>> {
        self.inner.numeric_column(field)
    }
    fn sorted_set_column(&self, field: &str) -> Option<crate::engine::segment::doc_values::SortedSetColumn<'_>> {
        self.inner.sorted_set_column(field)
    }
}

/// `searcher` limited to the first `n` (> 0) matches of `query` of each shard, `shard_of[i]`
/// being the shard of segment `i`; and whether a shard had more (was terminated early).
pub fn limit(searcher: &Searcher, query: &Query, n: u64, shard_of: &[usize]) -> Result<(Searcher, bool)> {
    let views: Vec<&dyn SegmentView> = searcher.segments.iter().map(|s| s.as_ref()).collect();
    let w = Weight::compile(query, &views, 1.0, false)?;
    let mut counted: Vec<(usize, u64)> = Vec::new();
    let mut terminated = false;
    let mut out: Vec<Arc<dyn SegmentView>> = Vec::with_capacity(views.len());
    for (i, seg) in searcher.segments.iter().enumerate() {
        let shard = shard_of.get(i).copied().unwrap_or(0);
        let slot = match counted.iter().position(|c| c.0 == shard) {
            Some(p) => p,
            None => {
                counted.push((shard, 0));
                counted.len() - 1
            }
        };
        // The shard's collection already stopped: nothing of this segment is collected, but
        // a further match means the shard was terminated early.
        let mut end = seg.max_doc();
        if let Some(mut sc) = w.scorer(seg.as_ref())? {
            let mut d = sc.doc();
            while d != NO_MORE_DOCS {
                if seg.is_live(d) {
                    if counted[slot].1 >= n {
                        terminated = true;
                        end = d;
                        break;
                    }
                    counted[slot].1 += 1;
                }
                d = sc.next();
            }
            if let Some(e) = sc.take_error() {
                return Err(e);
            }
        }
        if end == seg.max_doc() {
            out.push(seg.clone());
        } else {
            out.push(Arc::new(Limited { inner: seg.clone(), end }));
        }
    }
    Ok((Searcher::new(out), terminated))
}
