//! The shard engine: index, delete and no-op operations with sequence numbers, primary terms and
//! versions; the translog that makes them durable before they are acknowledged; refresh, flush and
//! recovery from the last commit plus translog replay.
//!
//! The write path of one operation (steps 1–5 under the shard's write lock for explicit ids; see
//! "Concurrent appends" for auto-generated ids):
//!
//! 1. resolve the version against the live document or its tombstone (`versioning`);
//! 2. take the next sequence number;
//! 3. apply it to the index writer (buffer);
//! 4. append it to the translog;
//! 5. mark it processed in the local checkpoint tracker and record tombstones for deletes;
//! 6. with `request` durability the caller waits in [`ShardEngine::ensure_synced`] — concurrent
//!    writers share one fsync — and only then acknowledges.
//!
//! Flush (commit) under the write lock: roll the translog to a new generation G, commit the index
//! with `translog_generation = G` and `local_checkpoint` = the processed checkpoint, then drop the
//! translog generations below G. Every operation at or below the checkpoint is in the commit, and
//! every later one is in generations ≥ G, so recovery replays exactly the missing suffix.
//!
//! Concurrent appends: an index op with an auto-generated id (OpenSearch's append-only
//! optimisation: it cannot exist yet, so no version lookup and no delete of an older copy) does not
//! take the write lock. It holds the *append gate* shared; the writer inverts it into one of its
//! builders in parallel with other appends, the checkpoint tracker hands out sequence numbers
//! atomically, and the translog has its own lock. Ops with explicit ids keep serializing on the
//! write lock; they stay correct next to appends because appends only add new ids, which the
//! writer's lookups see in every builder. Flush and close take the write lock and then the gate
//! exclusively, so no append is in flight while they run: the processed checkpoint then covers
//! every sequence number issued (`local_checkpoint == max_seq_no` in the commit, as before), and an
//! op logged in a generation below G was applied to the writer before the commit took its builders.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use super::checkpoint::{LocalCheckpointTracker, NO_OPS_PERFORMED};
use super::recovery::{RecoverySource, RecoveryState, Stage};
use super::versioning::{resolve_delete, resolve_index, Constraints, Current};
use crate::engine::index::commit::keys;
use crate::engine::index::commit::CommitPoint;
use crate::engine::index::deleter::FileRefs;
use crate::engine::index::{Document, IndexReader, IndexWriter, IndexWriterConfig, StoredDocument};
use crate::engine::schema::{IndexableField, NestedDoc};
use crate::engine::segment::random_id;
use crate::engine::store::Directory;
use crate::engine::sync::{lock, Arc, AtomicI64, Mutex, Ordering};
use crate::engine::translog::{Durability, Location, Operation, RecoveryPolicy, Translog, TranslogConfig};
use crate::engine::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};

use super::failure::{FailureListener, ShardFailer};
use super::stats::{inc, Op};

/// Turns a document's `_source` into indexable fields (the index mapping); used for writes and
/// for translog replay.
/// Returns the root document's fields and its nested documents.
pub type DocumentParser = Arc<dyn Fn(&str, &[u8]) -> Result<(Vec<IndexableField>, Vec<NestedDoc>)> + Send + Sync>;

/// Settings of a shard engine.
#[derive(Clone)]
pub struct ShardConfig {
    /// Index writer settings.
    pub writer: IndexWriterConfig,
    /// Translog settings (`index.translog.durability`, `sync_interval`, ...).
    pub translog: TranslogConfig,
    /// The primary term of this copy.
    pub primary_term: u64,
    /// How long tombstones of deletes are kept for versioning (`index.gc_deletes`, default 60s).
    pub gc_deletes: Duration,
    /// Parses sources for translog replay.
    pub parser: DocumentParser,
    /// Run merges on a background thread after refreshes (default). Off for deterministic tests,
    /// which call `maybe_merge` themselves.
    pub background_merges: bool,
    /// Told once if the running engine fails (corruption found by any operation; see
    /// [`super::failure`]). Not told of failures while the shard opens (the opener reports those).
    pub on_failure: Option<FailureListener>,
}

impl fmt::Debug for ShardConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShardConfig")
            .field("translog", &self.translog)
            .field("primary_term", &self.primary_term)
            .finish()
    }
}

/// An index operation.
#[derive(Debug, Clone, Default)]
pub struct IndexOp {
    pub id: String,
    pub routing: Option<String>,
    pub source: Vec<u8>,
    pub fields: Vec<IndexableField>,
    /// The document's nested documents (indexed in one block with it).
    pub nested: Vec<NestedDoc>,
    pub constraints: Constraints,
    /// The id was generated by Fathom (no lookup needed: it cannot exist yet).
    pub auto_generated_id: bool,
}

/// The outcome of an index or delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteResult {
    pub seq_no: i64,
    pub primary_term: u64,
    pub version: i64,
    /// Index: the document was created (not updated). Delete: the document was found.
    pub created_or_found: bool,
    /// Where the operation is in the translog, for [`ShardEngine::ensure_synced`].
    pub location: Location,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Tombstone {
    pub(super) seq_no: i64,
    pub(super) primary_term: u64,
    pub(super) version: i64,
    pub(super) at: Instant,
}

/// One shard copy's engine.
pub struct ShardEngine {
    pub(super) writer: Arc<IndexWriter>,
    merges: Mutex<Option<super::merge_scheduler::MergeScheduler>>,
    /// Set when a write could not reach the translog after the index applied it (the engine
    /// then refuses every write; recovery starts from the files), or when an operation found
    /// corruption (the engine fails: see [`super::failure`]).
    pub(super) failer: ShardFailer,
    pub(super) translog: Arc<Translog>,
    pub(super) tracker: LocalCheckpointTracker,
    pub(super) tombstones: Mutex<HashMap<String, Tombstone>>,
    pub(super) write_lock: Mutex<()>,
    /// Held shared by appends of auto-generated ids, exclusively by flush and close (after
    /// `write_lock`), so these see no append in flight.
    pub(super) append_gate: RwLock<()>,
    pub(super) config: ShardConfig,
    history_uuid: String,
    pub(super) global_checkpoint: AtomicI64,
    recovery: Mutex<RecoveryState>,
    /// The primary term this copy writes (primary) or has seen from its primary (replica); a
    /// promotion raises it (see [`super::replica`]).
    pub(super) primary_term: AtomicU64,
    /// No other copy is in sync with this one: the global checkpoint is its own persisted
    /// checkpoint. A primary with in-sync replicas clears it and sets the global checkpoint
    /// from their checkpoints.
    pub(super) solo: AtomicBool,
    /// Peer recoveries reading the translog from this copy: flushes keep every generation
    /// while one runs.
    pub(super) translog_retention: AtomicUsize,
    /// Replica: the highest sequence number of an operation applied other than as an append
    /// (OpenSearch's `maxSeqNoOfNonAppendOnlyOperations`); an append the primary made at a
    /// sequence number above it needs no lookup here (see [`super::replica`]).
    pub(super) max_seq_no_non_append: AtomicI64,
    /// Replica: the sequence numbers of appends being applied without the write lock.
    pub(super) appends_in_flight: Mutex<std::collections::HashSet<i64>>,
    /// What this copy did (indexing, gets, refreshes, flushes, searches): the stats APIs.
    pub(super) counters: Arc<super::stats::ShardCounters>,
    _syncer: Option<crate::engine::translog::SyncerHandle>,
}

impl fmt::Debug for ShardEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShardEngine").field("max_seq_no", &self.tracker.max_seq_no()).finish()
    }
}

pub(super) fn uuid_string(id: &[u8; 16]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(id)
}

fn uuid_bytes(s: &str, what: &str) -> Result<[u8; 16]> {
    use base64::Engine;
    let v = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|_| Error::corrupt("segments_N", 0, format!("{what} [{s}] is not a valid uuid")))?;
    v.try_into().map_err(|_| Error::corrupt("segments_N", 0, format!("{what} [{s}] is not 16 bytes")))
}

impl ShardEngine {
    /// Opens a shard copy from its own store: `index` holds segments and commit points, `translog`
    /// the translog. An empty store is initialised (EMPTY_STORE); otherwise the last commit is
    /// opened and the translog replayed (EXISTING_STORE). Recovery stages are recorded.
    pub fn open(
        index: Arc<dyn Directory>,
        translog_dir: Arc<dyn Directory>,
        config: ShardConfig,
    ) -> Result<ShardEngine> {
        let (writer, commit) = IndexWriter::open(index.clone(), config.writer.clone())?;
        let source = if commit.is_some() { RecoverySource::ExistingStore } else { RecoverySource::EmptyStore };
        let mut rs = RecoveryState::new(source, true);
        rs.advance(Stage::Index);
        for f in index.list()? {
            let len = index.file_len(&f).unwrap_or(0);
            rs.index.add_file(f, len, true);
        }
        rs.advance(Stage::VerifyIndex);
        // Fathom verifies every segment file's checksum when a shard opens (OpenSearch's
        // `index.shard.check_on_startup: checksum`), so damaged data is an error naming the file
        // and never a wrong search result after a restart.
        for leaf in writer.reader()?.leaves() {
            leaf.reader.check_integrity(index.as_ref())?;
        }

        let Some(commit) = commit else {
            // EMPTY_STORE. Crash-safe order: (1) the translog directory is cleared — no operation
            // can have been acknowledged without a commit point, because the first commit is
            // written (2) before the translog exists (3). A crash between 2 and 3 leaves a commit
            // with max_seq_no -1 and no translog, which the EXISTING_STORE path re-creates.
            rs.advance(Stage::Translog);
            rs.translog.total = 0;
            rs.translog.total_on_start = 0;
            for f in translog_dir.list()? {
                translog_dir.delete(&f)?;
            }
            translog_dir.sync_dir()?;
            let tl_uuid = random_id();
            let history_uuid = uuid_string(&random_id());
            writer.commit(initial_user_data(&tl_uuid, &history_uuid))?;
            let translog = Translog::create(
                translog_dir,
                tl_uuid,
                config.primary_term,
                NO_OPS_PERFORMED,
                config.translog.clone(),
            )?;
            let engine = ShardEngine::assemble(
                writer,
                translog,
                LocalCheckpointTracker::new(NO_OPS_PERFORMED, NO_OPS_PERFORMED),
                config,
                history_uuid,
                rs,
            );
            engine.finish_recovery();
            return Ok(engine);
        };

        let tl_uuid = uuid_bytes(
            commit.user_data.get(keys::TRANSLOG_UUID).map(String::as_str).unwrap_or(""),
            keys::TRANSLOG_UUID,
        )?;
        let tl_gen: u64 = commit
            .user_data
            .get(keys::TRANSLOG_GENERATION)
            .and_then(|g| g.parse().ok())
            .ok_or_else(|| Error::corrupt(commit.file_name(), 0, "commit point has no translog_generation"))?;
        let max_seq_no = commit.user_i64(keys::MAX_SEQ_NO).unwrap_or(NO_OPS_PERFORMED);
        let local_checkpoint = commit.user_i64(keys::LOCAL_CHECKPOINT).unwrap_or(NO_OPS_PERFORMED);
        if local_checkpoint > max_seq_no || local_checkpoint < NO_OPS_PERFORMED || max_seq_no >= i64::MAX / 2 {
            return Err(Error::corrupt(
                commit.file_name(),
                0,
                format!("local checkpoint {local_checkpoint} > max_seq_no {max_seq_no}"),
            ));
        }
        let history_uuid =
            commit.user_data.get(keys::HISTORY_UUID).cloned().unwrap_or_else(|| uuid_string(&random_id()));
        rs.advance(Stage::Translog);
        // A crash between the first commit and the end of the translog's creation (see
        // EMPTY_STORE) leaves a commit that never saw an operation and no `translog.ckp`: no
        // operation can have been acknowledged (that needs a finished open), so a new translog
        // loses nothing. Anything else goes through the translog's own recovery.
        let unfinished_init = max_seq_no == NO_OPS_PERFORMED
            && local_checkpoint == NO_OPS_PERFORMED
            && tl_gen == 1
            && !translog_dir.exists(crate::engine::translog::CHECKPOINT_FILE);
        let translog = if unfinished_init {
            for f in translog_dir.list()? {
                translog_dir.delete(&f)?;
            }
            Translog::create(translog_dir, tl_uuid, config.primary_term, NO_OPS_PERFORMED, config.translog.clone())?
        } else {
            Translog::open(
                translog_dir,
                tl_uuid,
                tl_gen,
                config.primary_term,
                config.translog.clone(),
                RecoveryPolicy::TolerateTornTail,
            )?
        };
        let ops = translog.snapshot(local_checkpoint + 1)?;
        rs.translog.total = ops.len() as i64;
        rs.translog.total_on_start = ops.len() as i64;
        let engine = ShardEngine::assemble(
            writer,
            translog,
            LocalCheckpointTracker::new(max_seq_no, local_checkpoint),
            config,
            history_uuid,
            rs,
        );
        for op in ops {
            engine.replay(&op)?;
            lock(&engine.recovery).translog.recovered += 1;
        }
        engine.tracker_sync_persisted();
        engine.flush()?;
        engine.finish_recovery();
        Ok(engine)
    }

    fn assemble(
        writer: IndexWriter,
        translog: Translog,
        tracker: LocalCheckpointTracker,
        config: ShardConfig,
        history_uuid: String,
        rs: RecoveryState,
    ) -> ShardEngine {
        let translog = Arc::new(translog);
        let syncer = (config.translog.durability == Durability::Async).then(|| translog.start_async_syncer());
        let writer = Arc::new(writer);
        let failer = ShardFailer::new(writer.clone());
        let merges = config.background_merges.then(|| {
            let f = failer.clone();
            super::merge_scheduler::MergeScheduler::start(
                writer.clone(),
                Box::new(move |e: &Error| {
                    f.maybe_fail("merge", e);
                }),
            )
        });
        let primary_term = AtomicU64::new(config.primary_term);
        ShardEngine {
            primary_term,
            solo: AtomicBool::new(true),
            translog_retention: AtomicUsize::new(0),
            max_seq_no_non_append: AtomicI64::new(NO_OPS_PERFORMED),
            appends_in_flight: Mutex::new(std::collections::HashSet::new()),
            counters: Arc::default(),
            writer,
            merges: Mutex::new(merges),
            failer,
            translog,
            tracker,
            tombstones: Mutex::new(HashMap::new()),
            write_lock: Mutex::new(()),
            append_gate: RwLock::new(()),
            global_checkpoint: AtomicI64::new(NO_OPS_PERFORMED),
            config,
            history_uuid,
            recovery: Mutex::new(rs),
            _syncer: syncer,
        }
    }

    fn finish_recovery(&self) {
        // Whatever the store and the replay hold may be written again by a replica request:
        // no append at or below it skips the lookup.
        self.max_seq_no_non_append.fetch_max(self.tracker.max_seq_no(), Ordering::SeqCst);
        let mut rs = lock(&self.recovery);
        rs.advance(Stage::Finalize);
        rs.advance(Stage::Done);
        drop(rs);
        self.failer.arm(self.config.on_failure.clone());
    }

    /// Every processed operation is durable after replay (it came from the translog).
    fn tracker_sync_persisted(&self) {
        let p = self.tracker.processed_checkpoint();
        self.tracker.mark_persisted_up_to(p);
        self.global_checkpoint.fetch_max(p, Ordering::SeqCst);
    }

    /// Applies one translog operation during recovery (skipping those already in the commit).
    fn replay(&self, op: &Operation) -> Result<()> {
        let seq_no = op.seq_no();
        if self.tracker.has_processed(seq_no) {
            return Ok(());
        }
        let _w = lock(&self.write_lock);
        match op {
            Operation::Index { id, routing, source, seq_no, primary_term, version } => {
                let (fields, nested) = (self.config.parser)(id, source)?;
                let doc = Document {
                    id: id.clone(),
                    routing: routing.clone(),
                    source: source.clone(),
                    fields,
                    seq_no: *seq_no,
                    primary_term: *primary_term,
                    version: *version,
                    nested,
                };
                self.writer.update(&doc)?;
                lock(&self.tombstones).remove(id);
            }
            Operation::Delete { id, seq_no, primary_term, version } => {
                self.writer.delete(id)?;
                lock(&self.tombstones).insert(
                    id.clone(),
                    Tombstone { seq_no: *seq_no, primary_term: *primary_term, version: *version, at: Instant::now() },
                );
            }
            Operation::NoOp { .. } => {}
        }
        self.tracker.mark_processed(seq_no);
        Ok(())
    }

    pub(super) fn current(&self, id: &str) -> Result<Option<Current>> {
        if let Some(v) = self.writer.lookup(id)? {
            return Ok(Some(Current {
                seq_no: v.seq_no,
                primary_term: v.primary_term,
                version: v.version,
                deleted: false,
            }));
        }
        let t = lock(&self.tombstones).get(id).copied();
        Ok(t.filter(|t| t.at.elapsed() < self.config.gc_deletes).map(|t| Current {
            seq_no: t.seq_no,
            primary_term: t.primary_term,
            version: t.version,
            deleted: true,
        }))
    }

    /// Indexes a document (steps 1–5 of the module docs). Call [`ShardEngine::ensure_synced`]
    /// with the result's location before acknowledging under `request` durability.
    ///
    /// Ops with auto-generated ids run concurrently with each other (see the module docs).
    pub fn index(&self, op: IndexOp) -> Result<WriteResult> {
        self.index_logged(op).map(|(w, _)| w)
    }

    /// [`ShardEngine::index`], also returning the operation as the translog holds it (what a
    /// primary sends its replicas).
    pub fn index_logged(&self, op: IndexOp) -> Result<(WriteResult, Operation)> {
        let c = &self.counters.ops;
        let timer = Op::start(&c.index_current);
        let r = if op.auto_generated_id {
            let _g = self.append_gate.read().unwrap_or_else(|p| p.into_inner());
            self.index_locked(op)
        } else {
            let _w = lock(&self.write_lock);
            self.index_locked(op)
        };
        match &r {
            Ok(_) => {
                timer.finish(&c.index_total, &c.index_time_ns);
            }
            Err(_) => inc(&c.index_failed),
        }
        self.failer.check("index", r)
    }

    /// Steps 1–5 of an index op, under the write lock or (auto-generated id) the append gate.
    fn index_locked(&self, op: IndexOp) -> Result<(WriteResult, Operation)> {
        self.check_open()?;
        let current = if op.auto_generated_id { None } else { self.current(&op.id)? };
        let (version, created) = resolve_index(&op.id, &op.constraints, current)?;
        let seq_no = self.tracker.generate_seq_no();
        let primary_term = self.term();
        let doc = Document {
            id: op.id,
            routing: op.routing,
            source: op.source,
            fields: op.fields,
            seq_no,
            primary_term,
            version,
            nested: op.nested,
        };
        let applied =
            if op.auto_generated_id { self.writer.append(&doc) } else { self.writer.update(&doc).map(|_| ()) };
        if let Err(e) = applied {
            return Err(self.after_failed_apply(seq_no, e));
        }
        if !op.auto_generated_id {
            lock(&self.tombstones).remove(&doc.id);
        }
        let logged =
            Operation::Index { id: doc.id, routing: doc.routing, source: doc.source, seq_no, primary_term, version };
        let location = self.log(&logged)?;
        self.tracker.mark_processed(seq_no);
        Ok((WriteResult { seq_no, primary_term, version, created_or_found: created, location }, logged))
    }

    /// A document-level failure after the sequence number was taken: record a no-op so the
    /// sequence has no gap (as OpenSearch does), and return the error.
    fn after_failed_apply(&self, seq_no: i64, e: Error) -> Error {
        if matches!(e, Error::Closed(_) | Error::Io { .. } | Error::Injected { .. }) {
            return e;
        }
        let reason = e.to_string();
        if self.log(&Operation::NoOp { seq_no, primary_term: self.term(), reason }).is_ok() {
            self.tracker.mark_processed(seq_no);
        }
        e
    }

    /// Deletes a document by id.
    pub fn delete(&self, id: &str, constraints: Constraints) -> Result<WriteResult> {
        let c = &self.counters.ops;
        let timer = Op::start(&c.delete_current);
        let r = {
            let _w = lock(&self.write_lock);
            self.delete_locked(id, constraints)
        };
        if r.is_ok() {
            timer.finish(&c.delete_total, &c.delete_time_ns);
        }
        self.failer.check("delete", r)
    }

    fn delete_locked(&self, id: &str, constraints: Constraints) -> Result<WriteResult> {
        self.check_open()?;
        let current = self.current(id)?;
        let (version, found) = resolve_delete(id, &constraints, current)?;
        let seq_no = self.tracker.generate_seq_no();
        let primary_term = self.term();
        if let Err(e) = self.writer.delete(id) {
            return Err(self.after_failed_apply(seq_no, e));
        }
        let location = self.log(&Operation::Delete { id: id.to_string(), seq_no, primary_term, version })?;
        self.tracker.mark_processed(seq_no);
        lock(&self.tombstones).insert(id.to_string(), Tombstone { seq_no, primary_term, version, at: Instant::now() });
        Ok(WriteResult { seq_no, primary_term, version, created_or_found: found, location })
    }

    /// Records a no-op with a reason (fills a sequence number).
    pub fn noop(&self, reason: &str) -> Result<(i64, Location)> {
        let _w = lock(&self.write_lock);
        self.check_open()?;
        let seq_no = self.tracker.generate_seq_no();
        let location = self.log(&Operation::NoOp { seq_no, primary_term: self.term(), reason: reason.to_string() })?;
        self.tracker.mark_processed(seq_no);
        Ok((seq_no, location))
    }

    /// Waits until the operation at `location` is durable (group commit), then marks sequence
    /// numbers persisted up to it. Under `request` durability a write is acknowledged only after
    /// this returns `Ok`.
    pub fn ensure_synced(&self, location: Location, seq_no: i64) -> Result<()> {
        self.ensure_synced_ops(location, &[seq_no])
    }

    /// [`ShardEngine::ensure_synced`] for several operations: `location` is the furthest of
    /// theirs, and each of `seq_nos` is marked persisted.
    pub fn ensure_synced_ops(&self, location: Location, seq_nos: &[i64]) -> Result<()> {
        self.translog.ensure_synced(location)?;
        for &seq_no in seq_nos {
            self.tracker.mark_persisted(seq_no);
        }
        let persisted = self.tracker.persisted_checkpoint();
        // One copy is its own in-sync set: the global checkpoint is its persisted checkpoint,
        // stored in the translog checkpoint at the next sync. With in-sync replicas the primary
        // sets it from theirs (see `super::replica`).
        if self.solo.load(Ordering::SeqCst) && self.global_checkpoint.fetch_max(persisted, Ordering::SeqCst) < persisted
        {
            self.translog.set_global_checkpoint(persisted)?;
        }
        Ok(())
    }

    /// The durability of this shard's translog.
    pub fn durability(&self) -> Durability {
        self.config.translog.durability
    }

    /// Realtime get by id.
    pub fn get(&self, id: &str) -> Result<Option<StoredDocument>> {
        let timer = Op::start(&self.counters.ops.get_current);
        let r = self.failer.check("get", self.writer.get(id));
        self.count_get(timer, &r);
        r
    }

    /// Counts a finished get as found or missing (a failed get is not counted, as in OpenSearch).
    fn count_get(&self, timer: Op<'_>, r: &Result<Option<StoredDocument>>) {
        let c = &self.counters.ops;
        if let Ok(found) = r {
            let ns = timer.finish(&c.get_total, &c.get_time_ns);
            let (total, time) = if found.is_some() {
                (&c.get_exists_total, &c.get_exists_time_ns)
            } else {
                (&c.get_missing_total, &c.get_missing_time_ns)
            };
            inc(total);
            time.fetch_add(ns, Ordering::Relaxed);
        }
    }

    /// This copy's counters (the search and update paths count there too).
    pub fn counters(&self) -> &Arc<super::stats::ShardCounters> {
        &self.counters
    }

    /// This copy's counters now, with its writer's merges.
    pub fn counters_snapshot(&self) -> super::stats::CountersSnapshot {
        let mut s = self.counters.snapshot();
        s.merges = super::stats::MergeSnapshot::of(&self.writer.merge_counters);
        s
    }

    /// Get by id from the refreshed segments only (`realtime=false`): what a search sees, so a
    /// document written since the last refresh is not found (and a deleted one still is).
    pub fn get_searchable(&self, id: &str) -> Result<Option<StoredDocument>> {
        let timer = Op::start(&self.counters.ops.get_current);
        let r = self.failer.check("get", self.get_searchable_inner(id));
        self.count_get(timer, &r);
        r
    }

    fn get_searchable_inner(&self, id: &str) -> Result<Option<StoredDocument>> {
        let searcher = self.writer.reader()?;
        for leaf in searcher.leaves().iter().rev() {
            let live = &leaf.live;
            if let Some(d) = leaf.reader.find_id(id, &|d| live.is_live(d))? {
                return crate::engine::index::writer::read_document(&leaf.reader, d).map(Some);
            }
        }
        Ok(None)
    }

    /// Makes buffered documents searchable; prunes expired tombstones.
    pub fn refresh(&self) -> Result<bool> {
        let gc = self.config.gc_deletes;
        lock(&self.tombstones).retain(|_, t| t.at.elapsed() < gc);
        let start = Instant::now();
        let refreshed = self.failer.check("refresh", self.writer.refresh())?;
        // Every refresh Fathom makes is an external one (it has no internal reader for version
        // lookups), so both figures count it.
        let (c, ns) = (&self.counters.ops, super::stats::nanos(start));
        for (total, time) in
            [(&c.refresh_total, &c.refresh_time_ns), (&c.refresh_external_total, &c.refresh_external_time_ns)]
        {
            inc(total);
            time.fetch_add(ns, Ordering::Relaxed);
        }
        if refreshed {
            self.request_merge();
        }
        Ok(refreshed)
    }

    fn request_merge(&self) {
        if let Some(m) = lock(&self.merges).as_ref() {
            m.request();
        }
    }

    /// Merge rounds the background thread completed (0 when disabled).
    pub fn merge_rounds(&self) -> u64 {
        lock(&self.merges).as_ref().map_or(0, |m| m.rounds())
    }

    /// A pinned view for searching.
    pub fn reader(&self) -> Result<IndexReader> {
        self.failer.check("search", self.writer.reader())
    }

    /// The handle that fails this engine (searches report the corruption they find through it).
    pub fn failer(&self) -> &ShardFailer {
        &self.failer
    }

    /// Commits the index and trims the translog (see the module docs for the protocol).
    pub fn flush(&self) -> Result<()> {
        let r = self.flush_locked().map(|_| ());
        self.failer.check("flush", r)
    }

    fn flush_locked(&self) -> Result<CommitPoint> {
        self.flush_locked_with(false).map(|(cp, _)| cp)
    }

    fn flush_locked_with(&self, pin: bool) -> Result<(CommitPoint, Option<FileRefs>)> {
        let c = &self.counters.ops;
        let start = Instant::now();
        let r = self.flush_locked_inner(pin);
        if r.is_ok() {
            inc(&c.flush_total);
            c.flush_time_ns.fetch_add(super::stats::nanos(start), Ordering::Relaxed);
        }
        r
    }

    fn flush_locked_inner(&self, pin: bool) -> Result<(CommitPoint, Option<FileRefs>)> {
        let _w = lock(&self.write_lock);
        let _g = self.append_gate.write().unwrap_or_else(|p| p.into_inner());
        self.check_open()?;
        self.translog.sync()?;
        let gen = self.translog.roll_generation()?;
        let processed = self.tracker.processed_checkpoint();
        self.tracker.mark_persisted_up_to(processed);
        if self.solo.load(Ordering::SeqCst) {
            self.global_checkpoint.fetch_max(processed, Ordering::SeqCst);
        }
        self.translog.set_global_checkpoint(self.global_checkpoint())?;
        let mut user = BTreeMap::new();
        user.insert(keys::TRANSLOG_UUID.to_string(), uuid_string(&self.translog.uuid()));
        user.insert(keys::TRANSLOG_GENERATION.to_string(), gen.to_string());
        user.insert(keys::LOCAL_CHECKPOINT.to_string(), processed.to_string());
        user.insert(keys::MAX_SEQ_NO.to_string(), self.tracker.max_seq_no().to_string());
        user.insert(keys::HISTORY_UUID.to_string(), self.history_uuid.clone());
        user.insert(keys::MAX_UNSAFE_AUTO_ID_TIMESTAMP.to_string(), "-1".to_string());
        user.insert(keys::MIN_RETAINED_SEQ_NO.to_string(), (processed + 1).to_string());
        let cp = self.writer.commit(user)?;
        // Pinned under the write lock: no other commit can drop these files first.
        let refs =
            if pin { Some(self.writer.deleter().acquire(cp.files(self.writer.directory().as_ref())?)) } else { None };
        // A peer recovery replays the operations above the commit it copies from this
        // translog: its generations stay until the recovery ends.
        if self.translog_retention.load(Ordering::SeqCst) == 0 {
            self.translog.trim_unreferenced(gen)?;
        }
        self.request_merge();
        Ok((cp, refs))
    }

    /// Flushes and keeps the new commit's files from deletion while the returned references
    /// live (the file phase of a peer recovery copies them).
    pub fn flush_pinned(&self) -> Result<(CommitPoint, FileRefs)> {
        let r = self.flush_locked_with(true).and_then(|(cp, refs)| {
            refs.map(|r| (cp, r)).ok_or_else(|| Error::InvalidArgument("the flush pinned no files".into()))
        });
        self.failer.check("flush", r)
    }

    /// Merges as the policy asks (run on the merge thread pool).
    pub fn maybe_merge(&self) -> Result<usize> {
        self.failer.check("merge", self.writer.maybe_merge(16))
    }

    /// `_forcemerge`.
    pub fn force_merge(&self, max_num_segments: usize) -> Result<()> {
        self.failer.check("force merge", self.writer.force_merge(max_num_segments))
    }

    /// The index writer (stats, segment listings).
    pub fn writer(&self) -> &Arc<IndexWriter> {
        &self.writer
    }

    /// The translog.
    pub fn translog(&self) -> &Translog {
        &self.translog
    }

    /// Highest sequence number issued.
    pub fn max_seq_no(&self) -> i64 {
        self.tracker.max_seq_no()
    }

    /// Processed local checkpoint.
    pub fn local_checkpoint(&self) -> i64 {
        self.tracker.processed_checkpoint()
    }

    /// The global checkpoint (one copy: its own persisted checkpoint).
    pub fn global_checkpoint(&self) -> i64 {
        self.global_checkpoint.load(Ordering::SeqCst)
    }

    /// The history uuid.
    pub fn history_uuid(&self) -> &str {
        &self.history_uuid
    }

    /// The recovery state (for `_recovery`).
    pub fn recovery_state(&self) -> RecoveryState {
        lock(&self.recovery).clone()
    }

    /// Stops the merge thread (waiting for a running merge), syncs and closes the translog. The
    /// shard can then be reopened from its files.
    pub fn close(&self) -> Result<()> {
        let merges = lock(&self.merges).take();
        drop(merges);
        let _w = lock(&self.write_lock);
        let _g = self.append_gate.write().unwrap_or_else(|p| p.into_inner());
        self.failer.close();
        self.translog.close()
    }

    /// The append gate held exclusively (no append in flight), after the write lock.
    pub(super) fn append_gate_write(&self) -> std::sync::RwLockWriteGuard<'_, ()> {
        self.append_gate.write().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn check_open(&self) -> Result<()> {
        match self.failer.failure() {
            Some(f) => Err(Error::Closed(f)),
            None => Ok(()),
        }
    }

    /// Appends to the translog; a failure after the index applied the operation fails the
    /// engine (the operation is in the buffer but not durable, and must never be acknowledged).
    pub(super) fn log(&self, op: &Operation) -> Result<Location> {
        self.translog.add(op).inspect_err(|e| {
            if !self.failer.maybe_fail("translog", e) && self.failer.failure().is_none() {
                tracing::error!(error = %e, "translog write failed; failing the shard engine");
                self.failer.refuse(format!("translog failure: {e}"));
            }
        })
    }
}

fn initial_user_data(tl_uuid: &[u8; 16], history_uuid: &str) -> BTreeMap<String, String> {
    let mut user = BTreeMap::new();
    user.insert(keys::TRANSLOG_UUID.to_string(), uuid_string(tl_uuid));
    user.insert(keys::TRANSLOG_GENERATION.to_string(), "1".to_string());
    user.insert(keys::LOCAL_CHECKPOINT.to_string(), NO_OPS_PERFORMED.to_string());
    user.insert(keys::MAX_SEQ_NO.to_string(), NO_OPS_PERFORMED.to_string());
    user.insert(keys::HISTORY_UUID.to_string(), history_uuid.to_string());
    user.insert(keys::MAX_UNSAFE_AUTO_ID_TIMESTAMP.to_string(), "-1".to_string());
    user.insert(keys::MIN_RETAINED_SEQ_NO.to_string(), "0".to_string());
    user
}

/// A [`DocumentParser`] that indexes nothing but metadata (tests of durability don't need fields).
pub fn no_fields_parser() -> DocumentParser {
    Arc::new(|_, _| Ok((Vec::new(), Vec::new())))
}

/// Default shard settings with `parser`.
pub fn default_config(parser: DocumentParser) -> ShardConfig {
    ShardConfig {
        writer: IndexWriterConfig::default(),
        translog: TranslogConfig::default(),
        primary_term: 1,
        gc_deletes: Duration::from_secs(60),
        parser,
        background_merges: true,
        on_failure: None,
    }
}
