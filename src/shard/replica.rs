//! What a shard copy does as a member of a replication group (OpenSearch's primary/backup
//! model): a replica applies the operations its primary sequenced, in any order, and keeps the
//! primary term and global checkpoint the primary tells it; a primary hands out the operations
//! a recovering copy needs and keeps its translog while it copies.
//!
//! Applying an operation on a replica (under the write lock):
//!
//! 1. an operation already processed (a retry, or one that arrived both through replication and
//!    through the recovery's translog phase) is skipped;
//! 2. the document's current copy is looked up (live or tombstone); if it holds a higher
//!    sequence number, the operation is stale — a later write to the same id already arrived —
//!    and only the translog records it (the index keeps the newer document);
//! 3. otherwise the index applies it (index: replace; delete: remove and keep a tombstone);
//! 4. the translog records it, and the local checkpoint tracker marks it processed and raises
//!    the max sequence number to it.
//!
//! The copies converge whatever the arrival order, because each id ends with the operation of
//! the highest sequence number the primary gave it.
//!
//! Appends (OpenSearch's append-only optimisation on replicas): an operation the primary added
//! without a lookup (an auto-generated id, new by construction) needs none here either, unless
//! an operation other than such an append with a higher sequence number was applied already —
//! a follow-up write to the new document that overtook it (the id can be read on the primary
//! before the replicas have it). So a copy keeps the highest sequence number of the operations
//! it applied under the lookup (`max_seq_no_non_append`, at least the max sequence number its
//! store opened with), and an append above it goes to the index writer directly, under the
//! append gate (shared) rather than the write lock: appends of concurrent requests invert in
//! parallel. The lookup path holds the write lock and the gate exclusively, so it never runs
//! beside such an append, and an operation claimed by an append in flight is applied once.

use std::sync::atomic::Ordering as AtomicOrdering;
use std::time::Instant;

use super::engine::{ShardEngine, Tombstone};
use crate::engine::index::commit::{self, keys, CommitPoint};
use crate::engine::index::Document;
use crate::engine::segment::random_id;
use crate::engine::store::Directory;
use crate::engine::sync::{lock, Arc, Ordering};
use crate::engine::translog::{Operation, Translog, TranslogConfig};
use crate::engine::{Error, Result};

impl ShardEngine {
    /// The primary term this copy writes with (primary) or last heard of (replica).
    pub fn term(&self) -> u64 {
        self.primary_term.load(AtomicOrdering::SeqCst)
    }

    /// Raises the primary term (a promotion, or a replica hearing of a new primary). The
    /// translog starts a generation for it. Lower terms change nothing.
    pub fn raise_primary_term(&self, term: u64) -> Result<()> {
        if term <= self.term() {
            return Ok(());
        }
        let _w = lock(&self.write_lock);
        let _g = self.append_gate_write();
        self.check_open()?;
        self.translog.raise_primary_term(term)?;
        self.primary_term.fetch_max(term, AtomicOrdering::SeqCst);
        Ok(())
    }

    /// A promoted primary fills the holes below its max sequence number (operations its old
    /// primary issued that never reached it) with no-ops of its term, so that its local
    /// checkpoint, and the global checkpoint, move on (OpenSearch's `fillSeqNoGaps`).
    pub fn fill_seq_no_gaps(&self) -> Result<usize> {
        let _w = lock(&self.write_lock);
        let _g = self.append_gate_write();
        self.check_open()?;
        let term = self.term();
        let mut filled = 0;
        let max = self.tracker.max_seq_no();
        let mut seq_no = self.tracker.processed_checkpoint() + 1;
        while seq_no <= max {
            if !self.tracker.has_processed(seq_no) {
                let op = Operation::NoOp { seq_no, primary_term: term, reason: "filling gaps".into() };
                self.log(&op)?;
                self.tracker.mark_processed(seq_no);
                filled += 1;
            }
            seq_no += 1;
        }
        if filled > 0 {
            self.translog.sync()?;
            self.tracker.mark_persisted_up_to(self.tracker.processed_checkpoint());
        }
        Ok(filled)
    }

    /// Applies an operation a primary sequenced (steps in the module docs): a recovery's
    /// translog operation, or one replicated without the primary's append decision.
    pub fn apply_replica_op(&self, op: &Operation) -> Result<()> {
        self.apply_replica_ops(std::slice::from_ref(op), &|_| false)
    }

    /// Applies the operations of one replica request or recovery batch (steps in the module
    /// docs). `appended(i)`: the primary added operation `i` as an append (an auto-generated
    /// id, no lookup); such an operation skips the lookup here too and runs in parallel with
    /// other requests' appends (see "Appends" in the module docs). The others take the write
    /// lock once for the batch.
    pub fn apply_replica_ops(&self, ops: &[Operation], appended: &dyn Fn(usize) -> bool) -> Result<()> {
        let c = &self.counters.ops;
        let count = |f: fn(&Operation) -> bool| ops.iter().filter(|o| f(o)).count() as u64;
        let index = count(|o| matches!(o, Operation::Index { .. }));
        let delete = count(|o| matches!(o, Operation::Delete { .. }));
        c.index_current.fetch_add(index, Ordering::Relaxed);
        c.delete_current.fetch_add(delete, Ordering::Relaxed);
        let start = std::time::Instant::now();
        let r = self.apply_replica_batch(ops, appended);
        c.index_current.fetch_sub(index, Ordering::Relaxed);
        c.delete_current.fetch_sub(delete, Ordering::Relaxed);
        // The batch's time is shared among its operations.
        let ns = super::stats::nanos(start);
        let share = |n: u64| ns.checked_div(index + delete).map_or(0, |per| per * n);
        if r.is_ok() {
            c.index_total.fetch_add(index, Ordering::Relaxed);
            c.index_time_ns.fetch_add(share(index), Ordering::Relaxed);
            c.delete_total.fetch_add(delete, Ordering::Relaxed);
            c.delete_time_ns.fetch_add(share(delete), Ordering::Relaxed);
        } else {
            c.index_failed.fetch_add(index, Ordering::Relaxed);
        }
        self.failer.check("replica", r)
    }

    fn apply_replica_batch(&self, ops: &[Operation], appended: &dyn Fn(usize) -> bool) -> Result<()> {
        let mut locked: Vec<&Operation> = Vec::new();
        if (0..ops.len()).any(appended) {
            let _g = self.append_gate.read().unwrap_or_else(|p| p.into_inner());
            self.check_open()?;
            for (i, op) in ops.iter().enumerate() {
                if !appended(i) || !self.append_replica(op)? {
                    locked.push(op);
                }
            }
        } else {
            locked.extend(ops);
        }
        if locked.is_empty() {
            return Ok(());
        }
        let _w = lock(&self.write_lock);
        let _g = self.append_gate_write();
        self.check_open()?;
        for op in locked {
            self.apply_replica_locked(op)?;
        }
        Ok(())
    }

    /// An append the primary made, under the append gate (shared): applied without a lookup
    /// when no operation other than an append at or above its sequence number was applied
    /// here. `false`: it needs the lookup (the caller applies it under the write lock).
    fn append_replica(&self, op: &Operation) -> Result<bool> {
        let Operation::Index { id, routing, source, seq_no, primary_term, version } = op else { return Ok(false) };
        if *seq_no <= self.max_seq_no_non_append.load(Ordering::SeqCst) {
            return Ok(false);
        }
        self.check_term(op)?;
        // Claimed before the processed check, released after marking: the same operation
        // arriving twice at once is applied once.
        if !lock(&self.appends_in_flight).insert(*seq_no) {
            return Ok(true);
        }
        let r = (|| {
            if self.tracker.has_processed(*seq_no) {
                return Ok(());
            }
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
            self.writer.append(&doc)?;
            self.log(op)?;
            self.tracker.mark_processed(*seq_no);
            Ok(())
        })();
        lock(&self.appends_in_flight).remove(seq_no);
        r.map(|()| true)
    }

    fn check_term(&self, op: &Operation) -> Result<()> {
        if op.primary_term() > self.term() {
            return Err(Error::InvalidArgument(format!(
                "operation primary term [{}] is above the copy's primary term [{}]",
                op.primary_term(),
                self.term()
            )));
        }
        Ok(())
    }

    /// One operation under the write lock and the append gate (exclusive).
    fn apply_replica_locked(&self, op: &Operation) -> Result<()> {
        let seq_no = op.seq_no();
        if self.tracker.has_processed(seq_no) {
            return Ok(());
        }
        self.check_term(op)?;
        if !matches!(op, Operation::NoOp { .. }) {
            self.max_seq_no_non_append.fetch_max(seq_no, Ordering::SeqCst);
        }
        match op {
            Operation::Index { id, routing, source, seq_no, primary_term, version } => {
                let newer = self.current(id)?.is_some_and(|c| c.seq_no > *seq_no);
                if !newer {
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
            }
            Operation::Delete { id, seq_no, primary_term, version } => {
                let newer = self.current(id)?.is_some_and(|c| c.seq_no > *seq_no);
                if !newer {
                    self.writer.delete(id)?;
                    lock(&self.tombstones).insert(
                        id.clone(),
                        Tombstone {
                            seq_no: *seq_no,
                            primary_term: *primary_term,
                            version: *version,
                            at: Instant::now(),
                        },
                    );
                }
            }
            Operation::NoOp { .. } => {}
        }
        self.log(op)?;
        self.tracker.mark_processed(seq_no);
        Ok(())
    }

    /// Marks operations persisted up to the processed checkpoint once the translog is synced
    /// (a replica answers its primary with this).
    pub fn sync_replica(&self) -> Result<i64> {
        let processed = self.tracker.processed_checkpoint();
        self.translog.sync()?;
        self.tracker.mark_persisted_up_to(processed);
        Ok(self.tracker.persisted_checkpoint())
    }

    /// The highest sequence number below which every operation is durable here.
    pub fn persisted_checkpoint(&self) -> i64 {
        self.tracker.persisted_checkpoint()
    }

    /// Whether other copies are in sync with this one (then the global checkpoint comes from
    /// [`ShardEngine::advance_global_checkpoint`], not from this copy alone).
    pub fn set_replicated(&self, replicated: bool) {
        self.solo.store(!replicated, AtomicOrdering::SeqCst);
    }

    /// Raises the global checkpoint (never lowers it); the translog records it at its next sync.
    pub fn advance_global_checkpoint(&self, gcp: i64) -> Result<()> {
        if self.global_checkpoint.fetch_max(gcp, Ordering::SeqCst) < gcp {
            self.translog.set_global_checkpoint(gcp)?;
        }
        Ok(())
    }

    /// Keeps every translog generation from now until [`ShardEngine::release_translog`] (a
    /// peer recovery replays operations from it).
    pub fn retain_translog(&self) {
        self.translog_retention.fetch_add(1, AtomicOrdering::SeqCst);
    }

    /// Ends one [`ShardEngine::retain_translog`].
    pub fn release_translog(&self) {
        let _ =
            self.translog_retention.fetch_update(AtomicOrdering::SeqCst, AtomicOrdering::SeqCst, |n| n.checked_sub(1));
    }

    /// The operations with `seq_no >= from` the translog holds, in log order.
    pub fn operations_from(&self, from: i64) -> Result<Vec<Operation>> {
        self.translog.snapshot(from)
    }
}

/// Prepares a store whose index files a peer recovery copied: a fresh, empty translog for this
/// copy and a commit pointing at it (the copied commit's user data otherwise), so the copy
/// opens as an existing store and replays nothing. Returns the new commit.
///
/// Crash order: the translog is created first (a crash leaves the copied commit, whose
/// translog uuid matches nothing here: the copy cannot open and recovers again), then the new
/// commit is written atomically.
pub fn bootstrap_copied_store(
    index: &dyn Directory,
    translog_dir: Arc<dyn Directory>,
    primary_term: u64,
    config: TranslogConfig,
) -> Result<CommitPoint> {
    let cp = commit::read_latest(index)?
        .ok_or_else(|| Error::corrupt("segments_N", 0, "the recovery copied no commit point"))?;
    let lcp = cp.user_i64(keys::LOCAL_CHECKPOINT).unwrap_or(-1);
    let uuid = random_id();
    let tl = Translog::create(translog_dir, uuid, primary_term, lcp, config)?;
    tl.close()?;
    let mut user = cp.user_data.clone();
    user.insert(keys::TRANSLOG_UUID.to_string(), super::engine::uuid_string(&uuid));
    user.insert(keys::TRANSLOG_GENERATION.to_string(), "1".to_string());
    let next = CommitPoint { generation: cp.generation + 1, user_data: user, ..cp };
    next.write(index)?;
    Ok(next)
}
