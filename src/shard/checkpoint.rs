//! The local checkpoint tracker: hands out sequence numbers on a primary and tracks the highest
//! sequence number below which every operation has been processed (the *processed* checkpoint,
//! what refresh and realtime reads rely on) and made durable in the translog (the *persisted*
//! checkpoint, what a commit may record and what the global checkpoint is computed from).
//!
//! Operations complete out of order (concurrent writers), so each checkpoint is the end of the
//! contiguous prefix of completed sequence numbers. Both trackers are guarded by one mutex; the
//! sequence-number generator is a lock-free counter.

use std::collections::BTreeSet;

use crate::engine::sync::{lock, AtomicI64, Mutex, Ordering};

/// No operation was ever performed (`SequenceNumbers.NO_OPS_PERFORMED`).
pub const NO_OPS_PERFORMED: i64 = -1;

/// One checkpoint: the end of the contiguous prefix of marked sequence numbers.
#[derive(Debug, Clone)]
struct Prefix {
    checkpoint: i64,
    /// Marked numbers above `checkpoint + 1` (the gaps' far side).
    ahead: BTreeSet<i64>,
}

impl Prefix {
    fn new(checkpoint: i64) -> Prefix {
        Prefix { checkpoint, ahead: BTreeSet::new() }
    }

    fn mark(&mut self, seq_no: i64) {
        if seq_no <= self.checkpoint {
            return;
        }
        if seq_no == self.checkpoint + 1 {
            self.checkpoint = seq_no;
            while self.ahead.first() == Some(&(self.checkpoint + 1)) {
                self.ahead.pop_first();
                self.checkpoint += 1;
            }
        } else {
            self.ahead.insert(seq_no);
        }
    }

    fn contains(&self, seq_no: i64) -> bool {
        seq_no <= self.checkpoint || self.ahead.contains(&seq_no)
    }
}

#[derive(Debug)]
struct Checkpoints {
    processed: Prefix,
    persisted: Prefix,
}

/// Tracks sequence numbers of one shard copy.
#[derive(Debug)]
pub struct LocalCheckpointTracker {
    next_seq_no: AtomicI64,
    max_seq_no: AtomicI64,
    checkpoints: Mutex<Checkpoints>,
}

impl LocalCheckpointTracker {
    /// A tracker that resumes after `max_seq_no` with every number up to `local_checkpoint`
    /// processed and persisted (values from the last commit, before translog replay).
    pub fn new(max_seq_no: i64, local_checkpoint: i64) -> LocalCheckpointTracker {
        assert!(max_seq_no >= NO_OPS_PERFORMED && local_checkpoint >= NO_OPS_PERFORMED, "sequence numbers start at -1");
        assert!(local_checkpoint <= max_seq_no, "local checkpoint cannot exceed max seq_no");
        LocalCheckpointTracker {
            next_seq_no: AtomicI64::new(max_seq_no + 1),
            max_seq_no: AtomicI64::new(max_seq_no),
            checkpoints: Mutex::new(Checkpoints {
                processed: Prefix::new(local_checkpoint),
                persisted: Prefix::new(local_checkpoint),
            }),
        }
    }

    /// Issues the next sequence number (primary only).
    pub fn generate_seq_no(&self) -> i64 {
        let s = self.next_seq_no.fetch_add(1, Ordering::SeqCst);
        self.max_seq_no.fetch_max(s, Ordering::SeqCst);
        s
    }

    /// Records that an operation with `seq_no` exists (replicas and replay receive numbers).
    pub fn advance_max_seq_no(&self, seq_no: i64) {
        self.next_seq_no.fetch_max(seq_no + 1, Ordering::SeqCst);
        self.max_seq_no.fetch_max(seq_no, Ordering::SeqCst);
    }

    /// The highest sequence number issued or seen.
    pub fn max_seq_no(&self) -> i64 {
        self.max_seq_no.load(Ordering::SeqCst)
    }

    /// Marks `seq_no` as applied to the engine.
    pub fn mark_processed(&self, seq_no: i64) {
        self.advance_max_seq_no(seq_no);
        lock(&self.checkpoints).processed.mark(seq_no);
    }

    /// Marks `seq_no` as durable in the translog.
    pub fn mark_persisted(&self, seq_no: i64) {
        self.advance_max_seq_no(seq_no);
        lock(&self.checkpoints).persisted.mark(seq_no);
    }

    /// Marks every number up to `seq_no` durable (after a flush or a translog replay).
    pub fn mark_persisted_up_to(&self, seq_no: i64) {
        self.advance_max_seq_no(seq_no);
        let mut c = lock(&self.checkpoints);
        if seq_no > c.persisted.checkpoint {
            c.persisted.checkpoint = seq_no;
            c.persisted.ahead.retain(|&s| s > seq_no);
            while c.persisted.ahead.first() == Some(&(c.persisted.checkpoint + 1)) {
                c.persisted.ahead.pop_first();
                c.persisted.checkpoint += 1;
            }
        }
    }

    /// Every number up to this one was processed.
    pub fn processed_checkpoint(&self) -> i64 {
        lock(&self.checkpoints).processed.checkpoint
    }

    /// Every number up to this one is durable.
    pub fn persisted_checkpoint(&self) -> i64 {
        lock(&self.checkpoints).persisted.checkpoint
    }

    /// Whether `seq_no` was processed (replay uses this to skip operations already applied).
    pub fn has_processed(&self, seq_no: i64) -> bool {
        lock(&self.checkpoints).processed.contains(seq_no)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn contiguous_prefix() {
        let t = LocalCheckpointTracker::new(NO_OPS_PERFORMED, NO_OPS_PERFORMED);
        let a = t.generate_seq_no();
        let b = t.generate_seq_no();
        let c = t.generate_seq_no();
        assert_eq!((a, b, c), (0, 1, 2));
        t.mark_processed(c);
        assert_eq!(t.processed_checkpoint(), -1);
        t.mark_processed(a);
        assert_eq!(t.processed_checkpoint(), 0);
        t.mark_processed(b);
        assert_eq!(t.processed_checkpoint(), 2);
        assert_eq!(t.persisted_checkpoint(), -1);
        assert!(t.has_processed(1) && !t.has_processed(3));
        assert_eq!(t.max_seq_no(), 2);
    }

    proptest! {
        /// Against a model: the checkpoint is the largest n such that 0..=n are all marked.
        #[test]
        fn matches_model(order in Just((0i64..40).collect::<Vec<_>>()).prop_shuffle(), k in 0usize..40) {
            let t = LocalCheckpointTracker::new(NO_OPS_PERFORMED, NO_OPS_PERFORMED);
            let mut marked = std::collections::HashSet::new();
            for &s in &order[..k] {
                t.mark_processed(s);
                marked.insert(s);
                let mut want = -1;
                while marked.contains(&(want + 1)) { want += 1; }
                prop_assert_eq!(t.processed_checkpoint(), want);
            }
        }
    }
}

#[cfg(loom)]
mod loom_tests {
    use super::*;
    use std::sync::Arc;

    /// Two writers complete out of order; an observer never sees the checkpoint pass a number that
    /// is not yet marked, and both numbers end up covered.
    #[test]
    fn concurrent_marks() {
        loom::model(|| {
            let t = Arc::new(LocalCheckpointTracker::new(NO_OPS_PERFORMED, NO_OPS_PERFORMED));
            let s0 = t.generate_seq_no();
            let s1 = t.generate_seq_no();
            let t1 = t.clone();
            let h = loom::thread::spawn(move || t1.mark_processed(s1));
            let seen = t.processed_checkpoint();
            assert!(seen == -1, "checkpoint {seen} before seq 0 is marked");
            t.mark_processed(s0);
            h.join().unwrap();
            assert_eq!(t.processed_checkpoint(), 1);
        });
    }
}
