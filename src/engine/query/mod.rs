//! query/: "which documents match, and how well (BM25)".
//!
//! A [`Query`] tree is compiled by a [`Searcher`] into a [`Weight`] (global BM25 statistics over
//! the searcher's segments, boosts pushed down, multi-term queries rewritten to constant-score
//! document sets), which builds one [`Scorer`] per segment through the [`SegmentView`] trait.
//! Top-k by score uses block-max skipping once the total-hits threshold is reached (block-max
//! term skipping, block-max conjunctions, MaxScore disjunctions); sorts use doc values.
//!
//! Searching an index: take a pinned snapshot from the writer and query it.
//!
//! ```ignore
//! let snapshot = writer.reader()?;                 // engine::index::IndexReader (pins files)
//! let top = snapshot.query().search(&Query::Term { field: "body".into(), term: b"fox".to_vec(), boost: 1.0 },
//!                                   &TopSpec { size: 10, track_total_hits: TrackTotalHits::UpTo(0), ..TopSpec::default() })?;
//! let n = snapshot.query().count(&query)?;
//! // hit.segment indexes snapshot.leaves(); read the stored doc with index::writer::read_document.
//! ```
//!
//! | file | holds |
//! |---|---|
//! | [`view`] | the segment interface the query layer reads |
//! | [`tree`] | the query tree |
//! | [`bm25`] | Lucene's BM25, bit for bit, and its explanation |
//! | [`explain`] | explanation trees |
//! | [`weight`] | compiled queries and per-segment scorer construction |
//! | [`scorer`] | the scorer trait, term, doc-list and match-all scorers |
//! | [`count`] | counting without scoring (statistics, bitset unions) |
//! | [`dfs`] | global term statistics in force or recorded (`dfs_query_then_fetch`) |
//! | [`block_max_and`] | block-max top-k of term conjunctions |
//! | [`boolean`] | conjunction (block-max), exclusion, optional clauses |
//! | [`dis_max`] | dis_max: best clause plus tie-breaker times the others |
//! | [`function_score`] | boosting and function_score: rescaled scores |
//! | [`disjunction`] | disjunction with minimum_should_match and MaxScore pruning |
//! | [`max_score`] | windowed MaxScore top-k of term disjunctions |
//! | [`phrase`] | exact and sloppy phrases |
//! | [`multi_phrase`] | phrases with alternatives at a position (union postings) |
//! | [`distance_feature`] | distance_feature: scores by distance of dates and points to an origin |
//! | [`combined_fields`] | BM25F over weighted fields (combined_fields) |
//! | [`limited`] | `terminate_after`: each shard's first N matches |
//! | [`intervals`] | interval queries: Lucene's minimal-interval sources and scorer |
//! | [`blended`] | terms scored with blended statistics (cross_fields, fuzzy) |
//! | [`block_join`] | `nested`: children joined to their parent documents |
//! | [`multi_term`] | terms, prefix, wildcard, ranges, exists |
//! | [`nested_source`] | a nested document's slice of its root's `_source` |
//! | [`doc_values_query`] | the same answered from doc values (fields not indexed) |
//! | [`sort`] | sort fields and values |
//! | [`spans`] | span queries: Lucene's spans and `SpanWeight` scoring |
//! | [`sort_nested`] | sorts by the values of nested documents |
//! | [`term_cursor`] | term scorers read a block at a time |
//! | [`searcher`] | the searcher: top-k, totals, count, explain |
//! | [`verified`] | two-phase matching: candidates confirmed by a per-document check |
//! | [`memory_index`] | a one-document index in memory, searchable by any query |
//! | [`query_cache`] | the node query cache: filter matches per segment, LRU |
//! | [`query_cache_policy`] | which filters are cached (usage tracking) |
//! | [`cached`] | filters run through the query cache |

pub mod blended;
pub mod block_buf;
pub mod block_join;
pub mod block_max_and;
pub mod bm25;
pub mod boolean;
pub mod cached;
pub mod combined_fields;
pub mod count;
pub mod dfs;
pub mod dis_max;
pub mod disjunction;
pub mod distance_feature;
pub mod doc_values_query;
pub mod explain;
pub mod floor;
pub mod function_score;
pub mod global_ords;
pub mod intervals;
pub mod limited;
pub mod max_score;
pub mod memory_index;
pub mod multi_phrase;
pub mod multi_term;
pub mod nested_source;
pub mod phrase;
pub mod query_cache;
pub mod query_cache_policy;
pub mod scorer;
pub mod searcher;
pub mod sort;
pub mod sort_nested;
pub mod spans;
pub mod term_cursor;
pub mod tree;
pub mod uninverted;
pub mod verified;
pub mod view;
pub mod weight;

#[cfg(test)]
pub(crate) mod model;
#[cfg(test)]
mod tests;

pub use doc_values_query::{BytesMatch, DvFilter, GeoShape, IntervalRelation};
pub use explain::{ExplValue, Explanation};
pub use scorer::Scorer;
pub use searcher::{Hit, Relation, Searcher, TopDocs, TopSpec, TrackTotalHits};
pub use sort::{Missing, NumMode, NumericSort, SortBy, SortField, SortOrder, SortValue};
pub use tree::{Query, RangeKind};
pub use view::{FieldStats, SegmentView, TermState, TermStats};
pub use weight::Weight;
