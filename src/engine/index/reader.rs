//! An index reader (Lucene's `DirectoryReader`): a pinned, reference-counted snapshot of the
//! searchable segments and their live docs; [`IndexReader::query`] is the query-running
//! [`query::Searcher`] over it (Lucene's `IndexSearcher`). Refreshes, deletes and merges after it was taken do not change what it sees, and the
//! files of its segments are not deleted while it (or a clone: a point in time, a scroll) lives.

use crate::engine::index::deleter::FileRefs;
use crate::engine::query;
use crate::engine::segment::live_docs::LiveDocs;
use crate::engine::segment::reader::SegmentReader;
use crate::engine::sync::Arc;

/// One segment of a reader.
#[derive(Debug, Clone)]
pub struct Leaf {
    /// The segment.
    pub reader: Arc<SegmentReader>,
    /// Its live docs as of the snapshot.
    pub live: Arc<LiveDocs>,
    /// Sum of `max_doc` of the leaves before it (global doc ids).
    pub doc_base: u32,
    /// Keeps the segment's files alive.
    pub files: Arc<FileRefs>,
    /// The same segment with its nested documents live, when it has any: the view a `nested`
    /// query's children are matched in (this one hides them, so that every other query, count
    /// and sort sees only root documents, as OpenSearch's non-nested filter does).
    pub with_nested: Option<std::sync::Arc<Leaf>>,
    /// Whether this view shows nested documents.
    pub shows_nested: bool,
}

impl Leaf {
    /// The leaf of a segment: root documents only, with the nested view when it has any.
    pub fn new(reader: Arc<SegmentReader>, live: Arc<LiveDocs>, doc_base: u32, files: Arc<FileRefs>) -> Leaf {
        let mut leaf = Leaf { reader, live, doc_base, files, with_nested: None, shows_nested: false };
        if leaf.reader.nested.is_some() {
            let all = Leaf { shows_nested: true, ..leaf.clone() };
            leaf.with_nested = Some(std::sync::Arc::new(all));
        }
        leaf
    }
}

/// A point-in-time view of an index (cheap to clone).
#[derive(Clone)]
pub struct IndexReader {
    leaves: Arc<Vec<Leaf>>,
    // std's Arc (not loom's): trait objects need unsized coercion, and the query layer is not
    // part of the loom models.
    query: std::sync::Arc<query::Searcher>,
    version: u64,
}

impl std::fmt::Debug for IndexReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexReader").field("leaves", &self.leaves.len()).field("version", &self.version).finish()
    }
}

impl IndexReader {
    /// A searcher over `leaves`.
    pub fn new(leaves: Vec<Leaf>, version: u64) -> IndexReader {
        let views: Vec<std::sync::Arc<dyn query::SegmentView>> =
            leaves.iter().map(|l| std::sync::Arc::new(l.clone()) as std::sync::Arc<dyn query::SegmentView>).collect();
        IndexReader { leaves: Arc::new(leaves), query: std::sync::Arc::new(query::Searcher::new(views)), version }
    }

    /// Runs queries over this snapshot: `searcher.query().search(&query, &spec)`, `count`,
    /// `explain`. Hits name segments by their index in [`IndexReader::leaves`].
    pub fn query(&self) -> &query::Searcher {
        &self.query
    }

    /// The segments.
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// The writer's version when the snapshot was taken (changes on refresh, merge).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Live documents.
    pub fn num_docs(&self) -> u64 {
        self.leaves.iter().map(|l| (l.reader.max_doc() - l.live.num_deleted()) as u64).sum()
    }

    /// Deleted documents not yet merged away.
    pub fn num_deleted(&self) -> u64 {
        self.leaves.iter().map(|l| l.live.num_deleted() as u64).sum()
    }
}
