//! index/: "buffer these documents, make them searchable, make them durable, merge, delete unused
//! files". Not for: sequence numbers, versions and the translog (that is `shard/`).

pub mod builder;
pub mod commit;
pub mod deleter;
mod leaf_view;
pub mod merge_policy;
pub mod merger;
pub mod reader;
pub mod writer;

pub use reader::{IndexReader, Leaf};
pub use writer::{DocVersion, IndexWriter, IndexWriterConfig};

use crate::engine::schema::{IndexableField, NestedDoc};

/// A document as the engine indexes it: parsed fields plus the metadata the shard assigned.
///
/// Its `nested` documents are indexed as one block with it, immediately before it (Lucene's
/// block join): they carry a `_nested_path` term and no metadata of their own, and are deleted
/// with it. Searches see only root documents unless a `nested` query joins its children.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// `_id`.
    pub id: String,
    /// `_routing`, when given.
    pub routing: Option<String>,
    /// `_source` (JSON bytes).
    pub source: Vec<u8>,
    /// Fields from the mapping.
    pub fields: Vec<IndexableField>,
    /// `_seq_no`.
    pub seq_no: i64,
    /// `_primary_term`.
    pub primary_term: u64,
    /// `_version`.
    pub version: i64,
    /// The `nested` objects, in block order (see [`NestedDoc`]).
    pub nested: Vec<NestedDoc>,
}

/// A document read back by `_id` (realtime: from the buffer or from segments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredDocument {
    pub id: String,
    pub routing: Option<String>,
    pub source: Vec<u8>,
    pub seq_no: i64,
    pub primary_term: u64,
    pub version: i64,
}
