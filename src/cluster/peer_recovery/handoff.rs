//! The primary relocation handoff (OpenSearch's `IndexShard.relocated` with
//! `handoffPrimaryContext`): when the target of a relocating primary finishes its recovery,
//! the source stops taking writes (new ones are refused with a retryable error, so the
//! coordinating node tries again on the next cluster state), waits until every operation it
//! sequenced has been replicated (the target, tracked and in sync, holds all of them), and only
//! then lets the recovery finish. The target then reports started; the routing table makes it
//! the primary with the same term, and its node promotes it (the applier's primary follow).
//!
//! No operation of the old primary can be lost or reordered: none is sequenced after the block,
//! and the new primary only sequences once the table names it, with every earlier operation
//! applied. A relocation cancelled after the handoff (the target failed before it started)
//! leaves the source the primary in the table: it takes writes again (no other copy sequenced
//! in between, the target never being primary in a published table).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use crate::cluster::index_service::IndexShard;
use crate::cluster::routing_table::ShardState;
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// How long the source waits for its in-flight operations to be replicated.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// A copy's part in a handoff: whether it handed off (relocated), and its writes in flight.
#[derive(Debug, Default)]
pub struct Handoff {
    relocated: RwLock<bool>,
    replicating: AtomicUsize,
}

/// Held while a write sequences an operation on the primary (`acquirePrimaryOperationPermit`).
#[derive(Debug)]
pub struct Permit<'a>(#[allow(dead_code)] RwLockReadGuard<'a, bool>);

/// Counts one replication in flight until dropped.
#[derive(Debug)]
pub struct Replicating<'a>(&'a AtomicUsize);

impl Drop for Replicating<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Handoff {
    /// A permit to sequence an operation; `None` once the copy handed off.
    pub fn permit(&self) -> Option<Permit<'_>> {
        let g = self.relocated.read().unwrap_or_else(|e| e.into_inner());
        (!*g).then_some(Permit(g))
    }
    /// Whether the copy handed its primary role to its relocation target.
    pub fn is_relocated(&self) -> bool {
        *self.relocated.read().unwrap_or_else(|e| e.into_inner())
    }
    /// Marks one replication in flight.
    pub fn replicating(&self) -> Replicating<'_> {
        self.replicating.fetch_add(1, Ordering::SeqCst);
        Replicating(&self.replicating)
    }
    fn set(&self, v: bool) {
        *self.relocated.write().unwrap_or_else(|e| e.into_inner()) = v;
    }
    /// The copy takes writes again (its relocation was cancelled).
    pub(crate) fn resume(&self) {
        if self.is_relocated() {
            self.set(false);
        }
    }
}

/// The error a write gets on a copy that handed off: retryable on the next cluster state.
pub fn relocated_error(shard: &IndexShard) -> OsError {
    OsError::new(
        ErrorKind::UnavailableShards,
        format!("[{}][{}] shard is not in primary mode: the primary relocated", shard.index, shard.id),
    )
}

/// Whether `target_aid` is the relocation target of this node's copy of the shard, a primary.
fn is_primary_relocation(cs: &ClusterService, shard: &IndexShard, target_aid: &str) -> bool {
    let st = cs.state();
    let Some(t) = st.routing.shard(&shard.index, shard.id) else { return false };
    t.copy_on(&cs.node.node_id).is_some_and(|c| {
        c.primary
            && c.state == ShardState::Relocating
            && c.allocation_id.as_deref() == Some(shard.allocation_id.as_str())
            && c.relocation_id.as_deref() == Some(target_aid)
    })
}

/// At the end of a recovery into `target_aid`: when it is this primary's relocation target,
/// blocks writes and waits until every sequenced operation was replicated. On error the copy
/// takes writes again (the recovery fails, and with it the relocation).
pub(crate) fn hand_off(cs: &ClusterService, shard: &IndexShard, target_aid: &str) -> OsResult<()> {
    if !is_primary_relocation(cs, shard, target_aid) {
        return Ok(());
    }
    shard.handoff.set(true);
    let deadline = Instant::now() + DRAIN_TIMEOUT;
    loop {
        let drained =
            shard.handoff.replicating.load(Ordering::SeqCst) == 0 && shard.replication.pending_operations() == 0;
        if drained {
            tracing::info!(index = %shard.index, shard = shard.id, target = %target_aid, "primary handed off");
            return Ok(());
        }
        if Instant::now() >= deadline {
            shard.handoff.resume();
            return Err(OsError::new(
                ErrorKind::IllegalState,
                format!("[{}][{}] operations still in flight: the primary cannot hand off", shard.index, shard.id),
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permits_stop_once_relocated_and_come_back_on_resume() {
        let h = Handoff::default();
        assert!(h.permit().is_some());
        {
            let _r = h.replicating();
            assert_eq!(h.replicating.load(Ordering::SeqCst), 1);
        }
        assert_eq!(h.replicating.load(Ordering::SeqCst), 0);
        h.set(true);
        assert!(h.permit().is_none());
        assert!(h.is_relocated());
        h.resume();
        assert!(h.permit().is_some());
    }
}
