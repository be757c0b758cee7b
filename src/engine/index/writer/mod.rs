//! The index writer of one shard: the in-memory buffer, the list of searchable segments with their
//! live docs, refresh (buffer → segment), commit (segments → durable commit point), merges, and the
//! realtime lookups by `_id` that versioning needs.
//!
//! Merges (picking, running, installing) are in `writer/merges.rs`.
//!
//! Concurrency: one mutex guards the state. Writers hold it while inverting a document. A refresh
//! holds it only to swap the buffer out (it becomes `flushing`, still the live copy of its
//! documents for lookups and deletes) and to publish the new segment with the deletes that hit
//! the flushing buffer meanwhile; the segment is written without the lock, so indexing goes on.
//! Refreshes and commits are serialized by a second mutex (taken before the state lock), so
//! segments are published in write order and a commit never misses a flushing buffer. A merge
//! holds the state lock only to pick its segments and to install its result: the merge itself
//! reads immutable segment readers without the lock. Deletes
//! that hit a merging segment meanwhile are carried over to the merged segment at install
//! (numbered steps in [`IndexWriter::run_merge`]).
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
use super::searcher::{Leaf, Searcher};
use super::{Document, StoredDocument};
use crate::engine::analysis::AnalyzerRegistry;
use crate::engine::segment::live_docs::LiveDocs;
use crate::engine::segment::reader::SegmentReader;
use crate::engine::segment::info::SegmentInfo;
use crate::engine::segment::{random_id, segment_name, DocId, SegmentId};
use crate::engine::store::Directory;
use crate::engine::sync::{lock, Arc, Condvar, Mutex};
use crate::engine::{Error, Result};

mod merges;

pub use merges::MergeSpec;

/// Settings of the writer.
#[derive(Debug, Clone)]
pub struct IndexWriterConfig {
    /// Analyzers for text fields.
    pub analyzers: Arc<AnalyzerRegistry>,
    /// When to merge.
    pub merge_policy: TieredMergePolicy,
    /// Refresh when the buffer holds this many bytes (`indices.memory.index_buffer_size` share),
    /// default 64 MiB.
    pub ram_buffer_bytes: usize,
}

impl Default for IndexWriterConfig {
    fn default() -> Self {
        IndexWriterConfig {
            analyzers: Arc::new(default_analyzers()),
            merge_policy: TieredMergePolicy::default(),
            ram_buffer_bytes: 64 << 20,
        }
    }
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
    buffer: SegmentBuilder,
    /// The buffer a refresh is writing as a segment outside the lock (writers go on filling the
    /// new `buffer` meanwhile); until it is published it still holds the live copy of its
    /// documents for realtime get, version lookups and deletes.
    flushing: Option<Flushing>,
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
    /// Serializes refreshes and commits, so at most one buffer is flushing and segments are
    /// published in the order their documents were written. Lock order: `refresh` → `state`.
    refresh: Mutex<()>,
    state: Mutex<State>,
    /// Notified whenever a merge is installed or abandoned.
    merge_done: Condvar,
}

impl fmt::Debug for IndexWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = lock(&self.state);
        f.debug_struct("IndexWriter").field("segments", &s.segments.len()).field("buffered", &s.buffer.max_doc()).finish()
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
                        return Err(Error::corrupt(file, 0, format!("{} deletions, commit point says {}", l.num_deleted(), cs.del_count)));
                    }
                    l
                } else {
                    LiveDocs::all_live(cs.max_doc)
                };
                let files = Arc::new(deleter.acquire(reader.files()));
                let liv_file = (cs.del_gen > 0).then(|| Arc::new(deleter.acquire(vec![commit::live_docs_file(&cs.id, cs.del_gen)])));
                segments.push(Segment {
                    reader,
                    live: Arc::new(live),
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
            let stray: Vec<String> = dir.list()?.into_iter().filter(|f| !f.starts_with(commit::PENDING_PREFIX)).collect();
            if !stray.is_empty() {
                return Err(Error::FileNotFound { file: format!("segments_N (no commit point found, but the index holds {stray:?})") });
            }
        }
        let removed = deleter.delete_unreferenced(&|_| false)?;
        if !removed.is_empty() {
            tracing::info!(files = ?removed, "deleted files not referenced by the last commit");
        }
        let state = State { segments, buffer: SegmentBuilder::new(), flushing: None, counter, generation, version, commit_refs, failure: None };
        Ok((IndexWriter { dir, deleter, config, refresh: Mutex::new(()), state: Mutex::new(state), merge_done: Condvar::new() }, latest))
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
            tracing::error!(error = %e, "index writer failed; refusing further writes");
            s.failure = Some(e.to_string());
        }
        e
    }

    /// The directory.
    pub fn directory(&self) -> &Arc<dyn Directory> {
        &self.dir
    }

    /// Whether the buffer has outgrown its budget (the shard then refreshes).
    pub fn buffer_full(&self) -> bool {
        lock(&self.state).buffer.mem_bytes() >= self.config.ram_buffer_bytes
    }

    /// Adds a document whose id is known to be new (auto-generated ids): no lookup.
    pub fn append(&self, doc: &Document) -> Result<()> {
        let mut s = self.locked()?;
        s.buffer.add(doc, &self.config.analyzers)?;
        Ok(())
    }

    /// Adds a document, deleting the live copy with the same id if there is one. Returns whether
    /// one was replaced.
    pub fn update(&self, doc: &Document) -> Result<bool> {
        let mut s = self.locked()?;
        // Find the old copy first, add the new one, and delete the old copy only once the add
        // succeeded: a document rejected by the mapping must not take the live copy with it.
        let old = find_live(&s, &doc.id)?;
        s.buffer.add(doc, &self.config.analyzers)?;
        if let Some(loc) = old {
            delete_at(&mut s, loc);
        }
        Ok(old.is_some())
    }

    /// Deletes the live document with this id; returns whether there was one.
    pub fn delete(&self, id: &str) -> Result<bool> {
        let mut s = self.locked()?;
        match find_live(&s, id)? {
            Some(loc) => {
                delete_at(&mut s, loc);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The version stamp of the live document with this id (realtime).
    pub fn lookup(&self, id: &str) -> Result<Option<DocVersion>> {
        let s = self.locked()?;
        if let Some(d) = s.buffer.find(id) {
            let b = s.buffer.doc(d).expect("find returns existing docs");
            return Ok(Some(DocVersion { seq_no: b.seq_no, primary_term: b.primary_term, version: b.version }));
        }
        if let Some(f) = &s.flushing {
            if let Some(b) = f.find(id).and_then(|d| f.buffer.doc(d)) {
                return Ok(Some(DocVersion { seq_no: b.seq_no, primary_term: b.primary_term, version: b.version }));
            }
        }
        for seg in s.segments.iter().rev() {
            let live = &seg.live;
            if let Some(d) = seg.reader.find_id(id, &|d| live.is_live(d))? {
                return Ok(Some(read_version(&seg.reader, d)?));
            }
        }
        Ok(None)
    }

    /// The live document with this id, with its source (realtime).
    pub fn get(&self, id: &str) -> Result<Option<StoredDocument>> {
        let s = self.locked()?;
        if let Some(d) = s.buffer.find(id) {
            return Ok(s.buffer.doc(d).cloned());
        }
        if let Some(f) = &s.flushing {
            if let Some(d) = f.find(id) {
                return Ok(f.buffer.doc(d).cloned());
            }
        }
        for seg in s.segments.iter().rev() {
            let live = &seg.live;
            if let Some(d) = seg.reader.find_id(id, &|d| live.is_live(d))? {
                return read_document(&seg.reader, d).map(Some);
            }
        }
        Ok(None)
    }

    /// Turns the buffer into a searchable segment. Returns whether there was anything to refresh.
    ///
    /// The buffer is written outside the state lock: writers keep indexing into a fresh buffer
    /// while the segment is built, and the old buffer stays the live copy of its documents
    /// (realtime get, version checks, deletes) until the segment is published.
    pub fn refresh(&self) -> Result<bool> {
        let _serial = lock(&self.refresh);
        let (buffer, seg) = {
            let mut s = self.locked()?;
            if s.buffer.is_empty() {
                return Ok(false);
            }
            let buffer = Arc::new(std::mem::take(&mut s.buffer));
            let seg = SegmentId { name: segment_name(s.counter), id: random_id() };
            s.counter += 1;
            s.flushing = Some(Flushing { buffer: buffer.clone(), deletes: Default::default() });
            (buffer, seg)
        };
        let flushed = self.flush_buffer(&buffer, &seg);
        let mut s = lock(&self.state);
        let deletes = s.flushing.take().map(|f| f.deletes).unwrap_or_default();
        if let Some(f) = &s.failure {
            return Err(Error::Closed(f.clone()));
        }
        match flushed {
            Ok((info, deleted, reader)) => {
                self.publish(&mut s, info.max_doc, deleted.into_iter().chain(deletes), reader);
                Ok(true)
            }
            Err(e) => Err(self.fail(&mut s, e)),
        }
    }

    /// Writes a buffer as segment `seg` and opens it.
    fn flush_buffer(&self, buffer: &SegmentBuilder, seg: &SegmentId) -> Result<(SegmentInfo, Vec<DocId>, SegmentReader)> {
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
        s.segments.push(Segment {
            reader: Arc::new(reader),
            live: Arc::new(live),
            del_gen: 0,
            liv_dirty: any,
            files,
            liv_file: None,
            merging: false,
            committed: false,
        });
        s.version += 1;
    }

    fn refresh_locked(&self, s: &mut State) -> Result<bool> {
        if s.buffer.is_empty() {
            return Ok(false);
        }
        let buffer = std::mem::take(&mut s.buffer);
        let seg = SegmentId { name: segment_name(s.counter), id: random_id() };
        s.counter += 1;
        match self.flush_buffer(&buffer, &seg) {
            Ok((info, deleted, reader)) => {
                self.publish(s, info.max_doc, deleted.into_iter(), reader);
                Ok(true)
            }
            Err(e) => Err(self.fail(s, e)),
        }
    }

    /// A point-in-time view of the searchable segments; it keeps their files alive while it lives.
    pub fn searcher(&self) -> Result<Searcher> {
        let s = self.locked()?;
        let mut leaves = Vec::with_capacity(s.segments.len());
        let mut base = 0u32;
        for seg in &s.segments {
            leaves.push(Leaf { reader: seg.reader.clone(), live: seg.live.clone(), doc_base: base, files: seg.files.clone() });
            base += seg.reader.max_doc();
        }
        Ok(Searcher::new(leaves, s.version))
    }

    /// Refreshes, writes live docs of segments with new deletes, and writes a new commit point with
    /// `user_data`. When this returns, everything in it is durable.
    pub fn commit(&self, user_data: BTreeMap<String, String>) -> Result<CommitPoint> {
        // No refresh is in flight while the commit holds this: every acknowledged document is in
        // `buffer` or a segment, none in a flushing buffer the commit point would miss.
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
                seg.liv_file = Some(Arc::new(self.deleter.acquire(vec![commit::live_docs_file(&seg.reader.info.id, gen)])));
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

    /// Documents in the buffer (not yet searchable).
    pub fn buffered_docs(&self) -> u32 {
        let s = lock(&self.state);
        let flushing = s.flushing.as_ref().map_or(0, |f| f.buffer.max_doc() - f.buffer.num_deleted() - f.deletes.len() as u32);
        s.buffer.max_doc() - s.buffer.num_deleted() + flushing
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

/// Where the live copy of a document is.
#[derive(Debug, Clone, Copy)]
enum Location {
    Buffer(DocId),
    /// A document of the buffer being flushed.
    Flushing(DocId),
    /// Index into `State::segments` (valid while the lock is held) and doc.
    Segment(usize, DocId),
}

fn find_live(s: &State, id: &str) -> Result<Option<Location>> {
    if let Some(d) = s.buffer.find(id) {
        return Ok(Some(Location::Buffer(d)));
    }
    if let Some(d) = s.flushing.as_ref().and_then(|f| f.find(id)) {
        return Ok(Some(Location::Flushing(d)));
    }
    for (i, seg) in s.segments.iter().enumerate().rev() {
        let live = &seg.live;
        if let Some(d) = seg.reader.find_id(id, &|d| live.is_live(d))? {
            return Ok(Some(Location::Segment(i, d)));
        }
    }
    Ok(None)
}

fn delete_at(s: &mut State, loc: Location) {
    match loc {
        Location::Buffer(d) => {
            s.buffer.delete(d);
        }
        Location::Flushing(d) => {
            if let Some(f) = s.flushing.as_mut() {
                f.deletes.insert(d);
            }
        }
        Location::Segment(i, d) => {
            let seg = &mut s.segments[i];
            // Copy-on-write: searchers keep the bitset they pinned.
            let mut l = (*seg.live).clone();
            l.delete(d);
            seg.live = Arc::new(l);
            seg.liv_dirty = true;
        }
    }
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
    col.and_then(|c| c.first(doc)).ok_or_else(|| Error::corrupt(reader.info.file_name(), 0, format!("document {doc} has no [{field}] value")))
}

fn read_version(reader: &SegmentReader, doc: DocId) -> Result<DocVersion> {
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
    let mut id = String::new();
    let mut source = Vec::new();
    let mut routing = None;
    for (k, bytes) in reader.stored.document_fields(doc, with_source)? {
        match k {
            stored_keys::ID => id = String::from_utf8(bytes).map_err(|_| Error::corrupt(reader.name(), 0, "stored _id is not UTF-8"))?,
            stored_keys::SOURCE => source = bytes,
            stored_keys::ROUTING => {
                routing = Some(String::from_utf8(bytes).map_err(|_| Error::corrupt(reader.name(), 0, "stored _routing is not UTF-8"))?)
            }
            _ => {}
        }
    }
    Ok(StoredDocument { id, routing, source, seq_no: v.seq_no, primary_term: v.primary_term, version: v.version })
}
