//! The read-only view of one segment that query execution needs. The lead implements it for the
//! real `SegmentReader`; the tests implement it with a naive in-memory model (the oracle).

use crate::engine::segment::doc_values::{NumericColumn, SortedSetColumn};
use crate::engine::segment::postings::{SegmentPostings, TermInfo};
use crate::engine::segment::{DocId, Postings};
use crate::engine::Result;

/// Statistics of one field in one segment (Lucene's `CollectionStatistics`, per segment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldStats {
    /// Documents with at least one term in the field, deleted documents included.
    pub doc_count: u32,
    /// Sum over terms of their total term freq (the sum of field lengths); for fields indexed
    /// without freqs, equal to `sum_doc_freq`.
    pub sum_total_term_freq: u64,
    /// Sum over terms of their doc freq.
    pub sum_doc_freq: u64,
}

/// Statistics of one term in one segment, deleted documents included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TermStats {
    /// Documents containing the term.
    pub doc_freq: u32,
    /// Occurrences of the term (equal to `doc_freq` without freqs).
    pub total_term_freq: u64,
}

/// A term looked up once in one segment: its statistics, and what opening its postings needs
/// (so a query looks each term up once, like Lucene's `TermStates`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermState {
    /// The term's statistics in the segment.
    pub stats: TermStats,
    /// The dictionary entry (`None` for views without one: postings are then looked up again).
    pub info: Option<TermInfo>,
}

/// What the query layer reads from one segment. Every method is cheap to call repeatedly except
/// where noted; errors are corruption or I/O errors of the segment's files.
pub trait SegmentView: Send + Sync {
    /// Number of documents, deleted ones included; doc ids are `0..max_doc`.
    fn max_doc(&self) -> u32;
    /// False for deleted documents (and for ids `>= max_doc`).
    fn is_live(&self, doc: DocId) -> bool;
    /// Whether any document is deleted (when false, counts can come from statistics). A view
    /// hiding nested documents counts them as deleted.
    fn has_deletions(&self) -> bool;
    /// Whether `doc` is a nested document (block join; see [`super::block_join`]).
    fn is_nested(&self, _doc: DocId) -> bool {
        false
    }
    /// The same segment with its nested documents live (what a `nested` query's child query
    /// runs on); `None` when this view already shows every document.
    fn with_nested(&self) -> Option<&dyn SegmentView> {
        None
    }
    /// The field's statistics, `None` when no document of the segment has the field indexed.
    fn field_stats(&self, field: &str) -> Option<FieldStats>;
    /// The term's statistics, `None` when the term does not occur in the field.
    fn term_stats(&self, field: &str, term: &[u8]) -> Result<Option<TermStats>>;
    /// The term's postings (with positions when `positions` and the field indexes them; else
    /// positions come back empty). `None` when the term does not occur. The iterator implements
    /// block-max skip data (`shallow_advance`/`block_max`).
    fn postings(&self, field: &str, term: &[u8], positions: bool) -> Result<Option<Box<dyn Postings + '_>>>;
    /// The term's statistics and dictionary entry, `None` when the term does not occur. The
    /// default looks the statistics up and keeps no entry.
    fn term_state(&self, field: &str, term: &[u8]) -> Result<Option<TermState>> {
        Ok(self.term_stats(field, term)?.map(|stats| TermState { stats, info: None }))
    }
    /// The postings of a term found by [`SegmentView::term_state`] (same `field` and `term`),
    /// without a second dictionary lookup when the state holds the entry.
    fn postings_of(
        &self,
        field: &str,
        term: &[u8],
        _state: &TermState,
        positions: bool,
    ) -> Result<Option<Box<dyn Postings + '_>>> {
        self.postings(field, term, positions)
    }
    /// [`SegmentView::postings_of`] as the segment's own postings type, so that a hot loop (a
    /// phrase's) calls it without dynamic dispatch. `None` when the view has no such postings
    /// (the default) or the state holds no dictionary entry: callers then use `postings_of`.
    fn segment_postings_of(
        &self,
        _field: &str,
        _term: &[u8],
        _state: &TermState,
        _positions: bool,
    ) -> Option<Result<Option<SegmentPostings<'_>>>> {
        None
    }
    /// Calls `f` with the terms of `field` that are `>= from`, in increasing byte order, until it
    /// returns false or the terms run out. Unknown field: no calls.
    fn visit_terms(&self, field: &str, from: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> Result<()>;
    /// Dense norms of the field (`norms[doc]`, 0 = field absent in the doc), `None` when the
    /// field has no norms (keyword fields): BM25 then uses norm byte 1, like Lucene.
    fn norms(&self, field: &str) -> Option<&[u8]>;
    /// Sorted, deduplicated docs with a point value in `[lo, hi]` (inclusive, fixed-width sortable
    /// big-endian keys of the field's width). `None` when the field has no points.
    fn points_docs(&self, field: &str, lo: &[u8], hi: &[u8]) -> Result<Option<Vec<DocId>>>;
    /// The points of `field` block by block (aggregations that count from the points index),
    /// `None` when the field has none or the view cannot hand them out.
    fn points_field(&self, _field: &str) -> Option<crate::engine::segment::points::FieldPoints<'_>> {
        None
    }
    /// Replaces `out` with the doc's numeric doc values (sorted ascending; empty = missing; doubles
    /// are stored as sortable longs). Returns false when the field has no numeric column.
    fn numeric_values(&self, field: &str, doc: DocId, out: &mut Vec<i64>) -> bool;
    /// Replaces `out` with the doc's sorted-set ordinals (ascending; empty = missing). Ordinals are
    /// per segment and ordered like their term bytes. Returns false when there is no such column.
    fn sorted_set_ords(&self, field: &str, doc: DocId, out: &mut Vec<u64>) -> bool;
    /// The term bytes of ordinal `ord` of the field's sorted-set column.
    fn sorted_set_term(&self, field: &str, ord: u64) -> Result<Vec<u8>>;
    /// Whether the doc has any value for the field (doc values, norms or points), for `exists`.
    fn has_value(&self, field: &str, doc: DocId) -> bool;
    /// The stored `_source` of `doc` (JSON bytes), `None` when the view stores none. Reads and
    /// decompresses a stored block: for checking candidates one by one, not for scans.
    fn source(&self, _doc: DocId) -> Result<Option<Vec<u8>>> {
        Ok(None)
    }
    /// The field's numeric column itself (what aggregations scan: no name lookup per document).
    /// `None` when the view has none or keeps its columns otherwise: callers then fall back to
    /// [`SegmentView::numeric_values`].
    fn numeric_column(&self, _field: &str) -> Option<NumericColumn<'_>> {
        None
    }
    /// The field's sorted-set column itself; `None` as for [`SegmentView::numeric_column`].
    fn sorted_set_column(&self, _field: &str) -> Option<SortedSetColumn<'_>> {
        None
    }
    /// The identity of the segment's core (its files): the same for every view of the segment,
    /// across refreshes, while it is open, with a watch that tells when it closed. What caches
    /// of per-segment structures key on; `None` for views that are not cached.
    fn core_key(&self) -> Option<CoreKey> {
        None
    }
}

/// See [`SegmentView::core_key`].
#[derive(Debug, Clone)]
pub struct CoreKey {
    /// Unique in the process.
    pub id: u64,
    /// Dead once the segment closed.
    pub alive: std::sync::Weak<()>,
}

/// What a segment reader holds for its [`CoreKey`].
#[derive(Debug)]
pub struct CoreToken {
    id: u64,
    token: std::sync::Arc<()>,
}

impl Default for CoreToken {
    fn default() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        CoreToken { id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed), token: std::sync::Arc::new(()) }
    }
}

impl CoreToken {
    pub fn key(&self) -> CoreKey {
        CoreKey { id: self.id, alive: std::sync::Arc::downgrade(&self.token) }
    }
}
