//! The index writer of one shard: the in-memory buffer, the list of searchable segments with their
//! live docs, refresh (buffer → segment), commit (segments → durable commit point), merges, and the
//! realtime lookups by `_id` that versioning needs.
//!
//! Merges (picking, running, installing) are in `writer/merges.rs`.
//!
//! Concurrency (as Lucene's DocumentsWriterPerThread): documents are inverted into a pool of
//! in-memory builders (`writer/pool.rs`, one per core by default), each behind its own mutex.
//! [`IndexWriter::append`] (a new id: no lookup) takes a free builder and holds nothing else, so
//! several threads invert into one shard at once. One mutex guards the rest of the state
//! (segments, flushing buffers, counters); operations that must see every copy of an id
//! (update, delete, realtime get and lookup) hold it and visit the builders one at a time, which
//! is enough: appends only add documents with new ids, and no builder is swapped out while the
//! state lock is held. Lock order: `refresh` → `state` → one builder.
//!
//! A refresh holds the state lock only to swap every non-empty builder out (each becomes a
//! `flushing` buffer, still the live copy of its documents for lookups and deletes; empty ones
//! stay) and to publish the new segments — one per builder, in slot order, numbered in that order
//! — with the deletes that hit the flushing buffers meanwhile; the segments are written without
//! the lock, so indexing goes on. Refreshes and commits are serialized by a second mutex (taken
//! before the state lock), so a commit never misses a flushing buffer. An append that returned
//! before a commit began is in that commit (its builder is swapped out by the commit). A merge
//! holds the state lock only to pick its segments and to install its result: the merge itself
//! reads immutable segment readers without the lock. Deletes
//! that hit a merging segment meanwhile are carried over to the merged segment at install
//! (numbered steps in [`IndexWriter::run_merge`]).
//!
//! Searchers see each segment's live docs as of the last refresh (`searchable`): a delete, or
//! the delete half of an update, is visible to search only after a refresh, like the new
//! documents, while realtime get and version checks use the current live docs. A merged segment
//! is searchable with all the deletes it carries.
//!
//! Failure: an I/O error or corruption during refresh, commit or merge install is *tragic*, as in
//! Lucene: the writer refuses further work ([`Error::Closed`]) and the shard must fail and recover
//! from its last commit and translog. Nothing is acknowledged past a failed fsync.

use std::collections::BTreeMap;
use std::fmt;

use super::builder::{meta, stored_keys, SegmentBuilder};
use super::commit::{self, CommitPoint, CommitSegment};
use super::deleter::{FileDeleter, FileRefs};
use super::merge_policy::TieredMergePolicy;
use super::reader::{IndexReader, Leaf};
use super::{Document, StoredDocument};
use crate::engine::analysis::AnalyzerRegistry;
use crate::engine::segment::info::SegmentInfo;
use crate::engine::segment::live_docs::LiveDocs;
use crate::engine::segment::reader::SegmentReader;
use crate::engine::segment::{random_id, segment_name, DocId, SegmentId};
use crate::engine::store::Directory;
use crate::engine::sync::{lock, Arc, AtomicBool, Condvar, Mutex, Ordering};
use crate::engine::{Error, Result};

mod merges;
#[cfg(test)]
mod nested_tests;
#[cfg(test)]
mod panic_tests;
mod pool;

use pool::BuilderPool;

pub use merges::{MergeCounters, MergeSpec};

/// Settings of the writer.
#[derive(Debug, Clone)]
pub struct IndexWriterConfig {
    /// Analyzers for text fields.
    pub analyzers: Arc<AnalyzerRegistry>,
    /// When to merge.
    pub merge_policy: TieredMergePolicy,
    /// Refresh when the buffer holds this many bytes (`indices.memory.index_buffer_size` share),
    /// default 64 MiB; all builders together.
    pub ram_buffer_bytes: usize,
    /// In-memory builders, i.e. how many threads can invert documents at once (default: the
    /// machine's available parallelism; at most 16).
    pub builders: usize,
}

impl Default for IndexWriterConfig {
    fn default() -> Self {
        IndexWriterConfig {
            analyzers: Arc::new(default_analyzers()),
            merge_policy: TieredMergePolicy::default(),
            ram_buffer_bytes: 64 << 20,
            builders: default_builders(),
        }
    }
}

/// The default number of in-memory builders: `FATHOM_INDEX_BUILDERS` if set (benchmarks compare
/// 1 with more in one binary), else the machine's available parallelism.
fn default_builders() -> usize {
    let env = std::env::var("FATHOM_INDEX_BUILDERS").ok().and_then(|v| v.parse().ok());
    env.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The built-in analyzers, with `default` (the index default analyzer, which text fields without
/// an `analyzer` use) bound to `standard` as in OpenSearch.
pub fn default_analyzers() -> AnalyzerRegistry {
    let mut r = AnalyzerRegistry::with_builtins();
    if r.get("default").is_none() {
        if let Some(std) = r.get("standard") {
            r.register("default", std);
        }
    }
    r
}

/// The version stamp of a live document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocVersion {
    pub seq_no: i64,
    pub primary_term: u64,
    pub version: i64,
}

/// What `_cat/segments`-like listings show of a segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentStats {
    pub name: String,
    pub generation: u64,
    pub max_doc: u32,
    pub deleted: u32,
    pub size_bytes: u64,
    pub committed: bool,
}

struct Segment {
    reader: Arc<SegmentReader>,
    live: Arc<LiveDocs>,
    /// The live docs searchers see: `live` as of the last refresh (a delete or an update is
    /// visible to search only after a refresh, as in OpenSearch; realtime reads use `live`).
    searchable: Arc<LiveDocs>,
    /// Generation of the `.liv` on disk (0: none).
    del_gen: u64,
    /// Whether `live` has deletes not yet written to a `.liv`.
    liv_dirty: bool,
    files: Arc<FileRefs>,
    liv_file: Option<Arc<FileRefs>>,
    merging: bool,
    committed: bool,
}

struct State {
    segments: Vec<Segment>,
    /// The buffers a refresh is writing as segments outside the lock (writers go on filling the
    /// pool's fresh builders meanwhile); until they are published they still hold the live copy
    /// of their documents for realtime get, version lookups and deletes.
    flushing: Vec<Flushing>,
    counter: u64,
    generation: u64,
    version: u64,
    commit_refs: Option<FileRefs>,
    failure: Option<String>,
}

/// A buffer being flushed, and the documents deleted from it since the flush began (its own
/// deleted bits are frozen in the flush).
struct Flushing {
    buffer: Arc<SegmentBuilder>,
    deletes: ahash::AHashSet<DocId>,
}

impl Flushing {
    fn find(&self, id: &str) -> Option<DocId> {
        self.buffer.find(id).filter(|d| !self.deletes.contains(d))
    }
}

/// The index writer (see the module docs).
pub struct IndexWriter {
    dir: Arc<dyn Directory>,
    deleter: Arc<FileDeleter>,
    config: IndexWriterConfig,
    /// Serializes refreshes and commits, so at most one refresh's buffers are flushing and a
    /// commit never misses them. Lock order: `refresh` → `state` → one builder.
    refresh: Mutex<()>,
    state: Mutex<State>,
    /// The in-memory builders (see the module docs).
    pool: BuilderPool,
    /// Mirrors `State::failure` for appends, which don't take the state lock.
    failed: AtomicBool,
    /// Notified whenever a merge is installed or abandoned.
    merge_done: Condvar,
    /// What the merges did (stats).
    pub merge_counters: merges::MergeCounters,
}

impl fmt::Debug for IndexWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = lock(&self.state);
        f.debug_struct("IndexWriter").field("segments", &s.segments.len()).field("builders", &self.pool.len()).finish()
    }
}

impl IndexWriter {
    /// Opens the index in `dir` at its latest commit (or empty), deleting every file that commit
    /// does not reference (leftovers of a crash). Returns the writer and the commit it opened.
    pub fn open(dir: Arc<dyn Directory>, config: IndexWriterConfig) -> Result<(IndexWriter, Option<CommitPoint>)> {
        let deleter = FileDeleter::new(dir.clone());
        let latest = commit::read_latest(dir.as_ref())?;
        let mut segments = Vec::new();
        let mut commit_refs = None;
        let (mut counter, mut generation, mut version) = (0, 0, 0);
        if let Some(cp) = &latest {
            for cs in &cp.segments {
                let reader = Arc::new(SegmentReader::open(dir.as_ref(), &cs.id)?);
                if reader.max_doc() != cs.max_doc {
                    return Err(Error::corrupt(
                        reader.info.file_name(),
                        0,
                        format!("max_doc {} differs from the commit point's {}", reader.max_doc(), cs.max_doc),
                    ));
                }
                let live = if cs.del_gen > 0 {
                    let l = LiveDocs::read(dir.as_ref(), &cs.id, cs.del_gen, cs.max_doc)?;
                    if l.num_deleted() != cs.del_count {
                        let file = commit::live_docs_file(&cs.id, cs.del_gen);
                        return Err(Error::corrupt(
                            file,
                            0,
                            format!("{} deletions, commit point says {}", l.num_deleted(), cs.del_count),
                        ));
                    }
                    l
                } else {
                    LiveDocs::all_live(cs.max_doc)
                };
                let files = Arc::new(deleter.acquire(reader.files()));
                let liv_file = (cs.del_gen > 0)
                    .then(|| Arc::new(deleter.acquire(vec![commit::live_docs_file(&cs.id, cs.del_gen)])));
                let live = Arc::new(live);
                segments.push(Segment {
                    reader,
                    searchable: live.clone(),
                    live,
                    del_gen: cs.del_gen,
                    liv_dirty: false,
                    files,
                    liv_file,
                    merging: false,
                    committed: true,
                });
            }
            // The commit keeps every file it names (segments, .liv, itself) until a newer commit
            // is durable; otherwise the first commit after open would unlink this commit's .liv
            // files before the new commit point exists.
            commit_refs = Some(deleter.acquire(commit_files(&cp.file_name(), &segments)));
            counter = cp.counter;
            generation = cp.generation;
            version = cp.version;
        }
        if latest.is_none() {
            // Segment files exist only after a first commit was written, so files other than a
            // torn `pending_segments_*` mean the commit point was lost: refuse to start empty.
            let stray: Vec<String> =
                dir.list()?.into_iter().filter(|f| !f.starts_with(commit::PENDING_PREFIX)).collect();
            if !stray.is_empty() {
                return Err(Error::FileNotFound {
                    file: format!("segments_N (no commit point found, but the index holds {stray:?})"),
                });
            }
        }
        let removed = deleter.delete_unreferenced(&|_| false)?;
        if !removed.is_empty() {
            tracing::info!(files = ?removed, "deleted files not referenced by the last commit");
        }
        let state = State { segments, flushing: Vec::new(), counter, generation, version, commit_refs, failure: None };
        let pool = BuilderPool::new(config.builders);
        let writer = IndexWriter {
            dir,
            deleter,
            config,
            refresh: Mutex::new(()),
            state: Mutex::new(state),
            pool,
            failed: AtomicBool::new(false),
            merge_done: Condvar::new(),
            merge_counters: merges::MergeCounters::default(),
        };
        Ok((writer, latest))
    }

    fn locked(&self) -> Result<crate::engine::sync::MutexGuard<'_, State>> {
        let s = lock(&self.state);
        if let Some(f) = &s.failure {
            return Err(Error::Closed(f.clone()));
        }
        Ok(s)
    }

    /// Records a tragic failure and returns the error.
    fn fail(&self, s: &mut State, e: Error) -> Error {
        if s.failure.is_none() {
            self.failed.store(true, Ordering::SeqCst);
            tracing::error!(error = %e, "index writer failed; refusing further writes");
            s.failure = Some(e.to_string());
        }
        e
    }

    /// Fails the writer from outside (the shard engine failed: corruption found by a search,
    /// a get or a merge): it refuses further work as after a tragic failure of its own.
    pub fn fail_tragic(&self, reason: String) {
        let mut s = lock(&self.state);
        if s.failure.is_none() {
            self.failed.store(true, Ordering::SeqCst);
            s.failure = Some(reason);
        }
    }

    /// The directory.
    pub fn directory(&self) -> &Arc<dyn Directory> {
        &self.dir
    }

    /// Whether the builders have outgrown their budget (the shard then refreshes).
    pub fn buffer_full(&self) -> bool {
        self.pool.mem_bytes() >= self.config.ram_buffer_bytes
    }

    /// Adds a document whose id is known to be new (auto-generated ids): no lookup, and no lock
    /// but one builder's, so concurrent appends invert in parallel.
    pub fn append(&self, doc: &Document) -> Result<()> {
        if self.failed.load(Ordering::SeqCst) {
            return Err(Error::Closed(lock(&self.state).failure.clone().unwrap_or_default()));
        }
        self.add_buffered(doc, None)
    }

    /// Inverts `doc` into a pooled builder. A panic part-way through (a bug in an analyzer, say)
    /// leaves that builder half-updated: its next document would reuse the doc number whose
    /// postings are already written. So a panic is tragic: the writer fails (nothing more is
    /// indexed, refreshed or committed; recovery replays the translog on reopen) and the panic
    /// comes back as an error. `state` is the caller's lock on the writer state, if it holds it.
    fn add_buffered(&self, doc: &Document, state: Option<&mut State>) -> Result<()> {
        let mut held = self.pool.acquire();
        let analyzers = &self.config.analyzers;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| held.add(doc, analyzers))) {
            Ok(r) => r.map(|_| ()),
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                drop(held);
                let e =
                    Error::Closed(format!("indexing document [{}] panicked ({what}); the writer is failed", doc.id));
                Err(match state {
                    Some(s) => self.fail(s, e),
                    None => self.fail(&mut lock(&self.state), e),
                })
            }
        }
    }

    /// Adds a document, deleting the live copy with the same id if there is one. Returns whether
    /// one was replaced.
    pub fn update(&self, doc: &Document) -> Result<bool> {
        let mut s = self.locked()?;
        // Find the old copy first, add the new one, and delete the old copy only once the add
        // succeeded: a document rejected by the mapping must not take the live copy with it.
        let old = self.find_live(&s, &doc.id)?;
        self.add_buffered(doc, Some(&mut s))?;
        if let Some(loc) = old {
            self.delete_at(&mut s, loc);
        }
        Ok(old.is_some())
    }

    /// Deletes the live document with this id; returns whether there was one.
    pub fn delete(&self, id: &str) -> Result<bool> {
        let mut s = self.locked()?;
        match self.find_live(&s, id)? {
            Some(loc) => {
                self.delete_at(&mut s, loc);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The version stamp of the live document with this id (realtime).
    pub fn lookup(&self, id: &str) -> Result<Option<DocVersion>> {
        let s = self.locked()?;
        let stamp =
            |b: &StoredDocument| DocVersion { seq_no: b.seq_no, primary_term: b.primary_term, version: b.version };
        match self.find_live(&s, id)? {
            None => Ok(None),
            Some(Location::Buffer(i, d)) => Ok(self.pool.get(i).doc(d).map(stamp)),
            Some(Location::Flushing(i, d)) => Ok(s.flushing.get(i).and_then(|f| f.buffer.doc(d)).map(stamp)),
            Some(Location::Segment(i, d)) => read_version(&s.segments[i].reader, d).map(Some),
        }
    }

    /// The live document with this id, with its source (realtime).
    pub fn get(&self, id: &str) -> Result<Option<StoredDocument>> {
        let s = self.locked()?;
        match self.find_live(&s, id)? {
            None => Ok(None),
            Some(Location::Buffer(i, d)) => Ok(self.pool.get(i).doc(d).cloned()),
            Some(Location::Flushing(i, d)) => Ok(s.flushing.get(i).and_then(|f| f.buffer.doc(d)).cloned()),
            Some(Location::Segment(i, d)) => read_document(&s.segments[i].reader, d).map(Some),
        }
    }

    /// Where the live copy of `id` is: a builder, a flushing buffer (newest first) or a segment
    /// (newest first). Holding the state lock keeps the answer valid.
    fn find_live(&self, s: &State, id: &str) -> Result<Option<Location>> {
        for b in self.pool.each() {
            if let Some(d) = b.find(id) {
                return Ok(Some(Location::Buffer(b.index, d)));
            }
        }
        for (i, f) in s.flushing.iter().enumerate().rev() {
            if let Some(d) = f.find(id) {
                return Ok(Some(Location::Flushing(i, d)));
            }
        }
        for (i, seg) in s.segments.iter().enumerate().rev() {
            let live = &seg.live;
            if let Some(d) = seg.reader.find_id(id, &|d| live.is_live(d))? {
                return Ok(Some(Location::Segment(i, d)));
            }
        }
        Ok(None)
    }

    fn delete_at(&self, s: &mut State, loc: Location) {
        match loc {
            Location::Buffer(i, d) => {
                self.pool.get(i).delete(d);
            }
            Location::Flushing(i, d) => {
                // The document with its nested documents (the block before it).
                if let Some(f) = s.flushing.get_mut(i) {
                    for c in f.buffer.block_start(d)..=d {
                        f.deletes.insert(c);
                    }
                }
            }
            Location::Segment(i, d) => {
                let seg = &mut s.segments[i];
                // Copy-on-write: searchers keep the bitset they pinned.
                let mut l = (*seg.live).clone();
                for c in seg.reader.block_start(d)..=d {
                    l.delete(c);
                }
                seg.live = Arc::new(l);
                seg.liv_dirty = true;
            }
        }
    }

    /// Turns the builders into searchable segments (one per non-empty builder). Returns whether
    /// there was anything to refresh.
    ///
    /// The buffers are written outside the state lock: writers keep indexing into fresh builders
    /// while the segments are built, and the old buffers stay the live copy of their documents
    /// (realtime get, version checks, deletes) until the segments are published.
    pub fn refresh(&self) -> Result<bool> {
        let _serial = lock(&self.refresh);
        let batch: Vec<(Arc<SegmentBuilder>, SegmentId)> = {
            let mut s = self.locked()?;
            let taken = self.pool.take_all();
            if taken.is_empty() {
                return Ok(Self::publish_deletes(&mut s));
            }
            let mut batch = Vec::with_capacity(taken.len());
            for b in taken {
                let seg = SegmentId { name: segment_name(s.counter), id: random_id() };
                s.counter += 1;
                let b = Arc::new(b);
                s.flushing.push(Flushing { buffer: b.clone(), deletes: Default::default() });
                batch.push((b, seg));
            }
            batch
        };
        let mut flushed = Vec::with_capacity(batch.len());
        for (buffer, seg) in &batch {
            match self.flush_buffer(buffer, seg) {
                Ok(f) => flushed.push(f),
                Err(e) => {
                    let mut s = lock(&self.state);
                    s.flushing.clear();
                    return Err(self.fail(&mut s, e));
                }
            }
        }
        let mut s = lock(&self.state);
        let flushing = std::mem::take(&mut s.flushing);
        if let Some(f) = &s.failure {
            return Err(Error::Closed(f.clone()));
        }
        for ((info, deleted, reader), f) in flushed.into_iter().zip(flushing) {
            self.publish(&mut s, info.max_doc, deleted.into_iter().chain(f.deletes), reader);
        }
        Self::publish_deletes(&mut s);
        Ok(true)
    }

    /// Makes the deletes since the last refresh visible to new searchers; returns whether
    /// there were any.
    fn publish_deletes(s: &mut State) -> bool {
        let mut any = false;
        for seg in &mut s.segments {
            if !Arc::ptr_eq(&seg.searchable, &seg.live) {
                seg.searchable = seg.live.clone();
                any = true;
            }
        }
        if any {
            s.version += 1;
        }
        any
    }

    /// Writes a buffer as segment `seg` and opens it.
    fn flush_buffer(
        &self,
        buffer: &SegmentBuilder,
        seg: &SegmentId,
    ) -> Result<(SegmentInfo, Vec<DocId>, SegmentReader)> {
        let (info, deleted) = buffer.flush(self.dir.as_ref(), seg)?;
        let reader = SegmentReader::open(self.dir.as_ref(), seg)?;
        Ok((info, deleted, reader))
    }

    /// Appends a freshly flushed segment (the newest) with its deletions.
    fn publish(&self, s: &mut State, max_doc: u32, deleted: impl Iterator<Item = DocId>, reader: SegmentReader) {
        let mut live = LiveDocs::all_live(max_doc);
        let mut any = false;
        for d in deleted {
            live.delete(d);
            any = true;
        }
        let files = Arc::new(self.deleter.acquire(reader.files()));
        let live = Arc::new(live);
        s.segments.push(Segment {
            reader: Arc::new(reader),
            searchable: live.clone(),
            live,
            del_gen: 0,
            liv_dirty: any,
            files,
            liv_file: None,
            merging: false,
            committed: false,
        });
        s.version += 1;
    }

    /// Flushes every builder under the state lock (commit: nothing may be missed).
    fn refresh_locked(&self, s: &mut State) -> Result<bool> {
        let taken = self.pool.take_all();
        let any = !taken.is_empty();
        for buffer in taken {
            let seg = SegmentId { name: segment_name(s.counter), id: random_id() };
            s.counter += 1;
            match self.flush_buffer(&buffer, &seg) {
                Ok((info, deleted, reader)) => self.publish(s, info.max_doc, deleted.into_iter(), reader),
                Err(e) => return Err(self.fail(s, e)),
            }
        }
        let deletes = Self::publish_deletes(s);
        Ok(any || deletes)
    }

    /// A point-in-time view of the searchable segments; it keeps their files alive while it lives.
    pub fn reader(&self) -> Result<IndexReader> {
        let s = self.locked()?;
        let mut leaves = Vec::with_capacity(s.segments.len());
        let mut base = 0u32;
        for seg in &s.segments {
            leaves.push(Leaf::new(seg.reader.clone(), seg.searchable.clone(), base, seg.files.clone()));
            base += seg.reader.max_doc();
        }
        Ok(IndexReader::new(leaves, s.version))
    }

    /// Refreshes, writes live docs of segments with new deletes, and writes a new commit point with
    /// `user_data`. When this returns, everything in it is durable.
    pub fn commit(&self, user_data: BTreeMap<String, String>) -> Result<CommitPoint> {
        // No refresh is in flight while the commit holds this: every acknowledged document is in
        // a builder or a segment, none in a flushing buffer the commit point would miss.
        let _serial = lock(&self.refresh);
        let mut s = self.locked()?;
        self.refresh_locked(&mut s)?;
        match self.commit_locked(&mut s, user_data) {
            Ok(cp) => Ok(cp),
            Err(e) => Err(self.fail(&mut s, e)),
        }
    }

    fn commit_locked(&self, s: &mut State, user_data: BTreeMap<String, String>) -> Result<CommitPoint> {
        for seg in s.segments.iter_mut() {
            if seg.liv_dirty {
                let gen = seg.del_gen + 1;
                seg.live.write(self.dir.as_ref(), &seg.reader.info.id, gen)?;
                seg.liv_file =
                    Some(Arc::new(self.deleter.acquire(vec![commit::live_docs_file(&seg.reader.info.id, gen)])));
                seg.del_gen = gen;
                seg.liv_dirty = false;
            }
        }
        let cp = CommitPoint {
            generation: s.generation + 1,
            version: s.version,
            counter: s.counter,
            segments: s
                .segments
                .iter()
                .map(|seg| CommitSegment {
                    id: seg.reader.info.id.clone(),
                    max_doc: seg.reader.max_doc(),
                    del_gen: seg.del_gen,
                    del_count: seg.live.num_deleted(),
                })
                .collect(),
            user_data,
        };
        cp.write(self.dir.as_ref())?;
        // Take the new commit's references before dropping the old ones: shared files stay.
        s.commit_refs = Some(self.deleter.acquire(commit_files(&cp.file_name(), &s.segments)));
        s.generation = cp.generation;
        for seg in s.segments.iter_mut() {
            seg.committed = true;
        }
        self.deleter.retry_pending();
        Ok(cp)
    }

    /// Per-segment figures.
    pub fn segment_stats(&self) -> Vec<SegmentStats> {
        let s = lock(&self.state);
        s.segments
            .iter()
            .map(|seg| SegmentStats {
                name: seg.reader.name().to_string(),
                generation: u64::from_str_radix(seg.reader.name().trim_start_matches('_'), 36).unwrap_or(0),
                max_doc: seg.reader.max_doc(),
                deleted: seg.live.num_deleted(),
                size_bytes: seg.reader.info.size_in_bytes(),
                committed: seg.committed && !seg.liv_dirty,
            })
            .collect()
    }

    /// The files of the segments, as (extension, length) pairs.
    pub fn segment_files(&self) -> Vec<(String, u64)> {
        let s = lock(&self.state);
        let mut out = Vec::new();
        for seg in &s.segments {
            for f in &seg.reader.info.files {
                let ext = f.name.rsplit_once('.').map_or("", |(_, e)| e);
                out.push((ext.to_string(), f.len));
            }
        }
        out
    }

    /// Live documents in the builders and flushing buffers (not yet searchable).
    pub fn buffered_docs(&self) -> u32 {
        let s = lock(&self.state);
        let flushing: u32 =
            s.flushing.iter().map(|f| f.buffer.max_doc() - f.buffer.num_deleted() - f.deletes.len() as u32).sum();
        let building: u32 = self.pool.each().map(|b| b.max_doc() - b.num_deleted()).sum();
        building + flushing
    }

    /// The number of in-memory builders.
    pub fn builders(&self) -> usize {
        self.pool.len()
    }

    /// The file deleter (tests check reference counts).
    pub fn deleter(&self) -> &Arc<FileDeleter> {
        &self.deleter
    }
}

impl Drop for IndexWriter {
    fn drop(&mut self) {
        self.deleter.close();
    }
}

/// Where the live copy of a document is (valid while the state lock is held).
#[derive(Debug, Clone, Copy)]
enum Location {
    /// Builder (pool slot) and doc.
    Buffer(usize, DocId),
    /// Index into `State::flushing` and doc.
    Flushing(usize, DocId),
    /// Index into `State::segments` and doc.
    Segment(usize, DocId),
}

/// Every file a commit point over `segments` names: itself, each segment's files and live docs.
fn commit_files(commit_file: &str, segments: &[Segment]) -> Vec<String> {
    let mut files = vec![commit_file.to_string()];
    for seg in segments {
        files.extend(seg.reader.files());
        if seg.del_gen > 0 {
            files.push(commit::live_docs_file(&seg.reader.info.id, seg.del_gen));
        }
    }
    files
}

fn numeric(reader: &SegmentReader, field: &str, doc: DocId) -> Result<i64> {
    let f = reader.field_infos.by_name(field).map(|f| f.number);
    let col = f.and_then(|f| reader.doc_values.numeric(f));
    col.and_then(|c| c.first(doc))
        .ok_or_else(|| Error::corrupt(reader.info.file_name(), 0, format!("document {doc} has no [{field}] value")))
}

/// The version stamp (`_seq_no`, `_primary_term`, `_version`) of a document of a segment.
pub fn read_version(reader: &SegmentReader, doc: DocId) -> Result<DocVersion> {
    Ok(DocVersion {
        seq_no: numeric(reader, meta::SEQ_NO, doc)?,
        primary_term: numeric(reader, meta::PRIMARY_TERM, doc)? as u64,
        version: numeric(reader, meta::VERSION, doc)?,
    })
}

/// Reads a stored document with its version stamp.
pub fn read_document(reader: &SegmentReader, doc: DocId) -> Result<StoredDocument> {
    read_document_with(reader, doc, true)
}

/// As [`read_document`]; without `with_source` the `source` is left empty, which reads no
/// compressed stored data (`_id` and `_routing` are stored uncompressed).
pub fn read_document_with(reader: &SegmentReader, doc: DocId, with_source: bool) -> Result<StoredDocument> {
    let v = read_version(reader, doc)?;
    let StoredFields { id, routing, source } = read_stored_fields(reader, doc, with_source)?;
    Ok(StoredDocument { id, routing, source, seq_no: v.seq_no, primary_term: v.primary_term, version: v.version })
}

/// A document's stored metadata and source, without its version stamp (what a search hit
/// shows unless `version` or `seq_no_primary_term` is asked for).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredFields {
    pub id: String,
    pub routing: Option<String>,
    /// Empty unless read `with_source`.
    pub source: Vec<u8>,
}

/// Reads `_id`, `_routing` and, `with_source`, the `_source` of a document of a segment.
pub fn read_stored_fields(reader: &SegmentReader, doc: DocId, with_source: bool) -> Result<StoredFields> {
    let mut out = StoredFields::default();
    for (k, bytes) in reader.stored.document_fields(doc, with_source)? {
        match k {
            stored_keys::ID => {
                out.id =
                    String::from_utf8(bytes).map_err(|_| Error::corrupt(reader.name(), 0, "stored _id is not UTF-8"))?
            }
            stored_keys::SOURCE => out.source = bytes,
            stored_keys::ROUTING => {
                out.routing = Some(
                    String::from_utf8(bytes)
                        .map_err(|_| Error::corrupt(reader.name(), 0, "stored _routing is not UTF-8"))?,
                )
            }
            _ => {}
        }
    }
    Ok(out)
}
