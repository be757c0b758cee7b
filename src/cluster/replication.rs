//! Replication (OpenSearch's `ReplicationOperation` and `ReplicationTracker`): a primary sends
//! every operation it sequenced to the copies of its replication group, in parallel, and a
//! write is acknowledged only once each of them has it durably.
//!
//! The group of a primary holds the copies the routing table assigns (started ones in the
//! in-sync set are *in sync*) and the copies a peer recovery is filling (*tracked*: they get
//! every new operation from the moment their recovery replays the translog; see
//! [`super::peer_recovery`]). A copy that fails to take an operation is failed through the
//! cluster manager (a publication that takes it out of the in-sync set) before the write is
//! acknowledged; when that publication fails — this node lost the cluster manager, or a newer
//! primary exists — the write is not acknowledged.
//!
//! Fencing: every replica request carries the primary term. A copy that knows a higher term
//! refuses the request (the sender is a stale primary, which then acknowledges nothing), and
//! the cluster manager refuses to fail a copy on behalf of an older term.
//!
//! The global checkpoint is the lowest persisted checkpoint of the in-sync copies (the primary
//! included); the primary sends it with each request and every copy keeps the highest it saw.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::index_service::IndexShard;
use super::routing_table::{ShardState, ShardTable};
use super::ClusterService;
use crate::engine::translog::Operation;
use crate::error::{ErrorKind, OsError, OsResult};

/// The replica half of a shard-level write.
pub const ACTION_REPLICA: &str = "indices:data/write/bulk[s][r]";

/// How long a replica may take to answer.
const REPLICA_TIMEOUT: Duration = Duration::from_secs(60);

/// One copy a primary replicates to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub node: String,
    /// In the in-sync set (its checkpoint counts for the global checkpoint).
    pub in_sync: bool,
    /// Its persisted checkpoint, as it last answered.
    pub persisted: i64,
}

/// A shard copy's part in replication: whether it is the primary, the term it opened or was
/// promoted with, and (primary) the copies it replicates to.
#[derive(Debug, Default)]
pub struct ReplicationGroup {
    primary: AtomicBool,
    /// The primary term in the routing table when this copy opened, raised when it is promoted.
    /// A replica that sees a higher term in the table has a new primary and recovers again.
    term: AtomicU64,
    targets: Mutex<BTreeMap<String, Target>>,
    /// Operations written but not yet sent, by sequence number, and whether the engine added
    /// each as an append (kept only while the group has targets).
    pending: Mutex<HashMap<i64, (Operation, bool)>>,
}

impl ReplicationGroup {
    pub fn new(primary: bool, term: u64) -> ReplicationGroup {
        ReplicationGroup { primary: AtomicBool::new(primary), term: AtomicU64::new(term), ..Default::default() }
    }
    pub fn is_primary(&self) -> bool {
        self.primary.load(Ordering::SeqCst)
    }
    /// The term this copy opened or was promoted with.
    pub fn term(&self) -> u64 {
        self.term.load(Ordering::SeqCst)
    }
    pub(super) fn promote(&self, term: u64) {
        self.term.fetch_max(term, Ordering::SeqCst);
        self.primary.store(true, Ordering::SeqCst);
    }
    /// The copies this primary replicates to.
    pub fn targets(&self) -> Vec<(String, Target)> {
        lock(&self.targets).iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
    fn has_targets(&self) -> bool {
        !lock(&self.targets).is_empty()
    }
    /// Starts sending operations to a recovering copy (not in sync yet).
    pub(super) fn track(&self, allocation_id: &str, node: &str) {
        lock(&self.targets).entry(allocation_id.to_string()).or_insert_with(|| Target {
            node: node.to_string(),
            in_sync: false,
            persisted: -1,
        });
    }
    /// A recovered copy joins the in-sync set once its persisted checkpoint (as it reported
    /// it, or as its replica answers since did) reached `global_checkpoint` (OpenSearch's
    /// `markAllocationIdAsInSync`): the global checkpoint never passes an in-sync copy. Whether
    /// it joined.
    pub(super) fn mark_in_sync(&self, allocation_id: &str, persisted: i64, global_checkpoint: i64) -> bool {
        let mut targets = lock(&self.targets);
        let Some(t) = targets.get_mut(allocation_id) else { return false };
        t.persisted = t.persisted.max(persisted);
        if t.persisted >= global_checkpoint {
            t.in_sync = true;
        }
        t.in_sync
    }
    fn remove(&self, allocation_id: &str) {
        lock(&self.targets).remove(allocation_id);
    }
    /// Follows the routing table: copies no longer assigned leave; started in-sync copies are
    /// in sync; initializing copies stay only while their recovery tracks them.
    pub(super) fn follow_table(&self, table: &ShardTable, me: &str) {
        let mut t = lock(&self.targets);
        t.retain(|aid, _| table.has_allocation(aid));
        for c in table.copies.iter().filter(|c| !c.on(me) && !c.primary) {
            let (Some(aid), Some(node)) = (&c.allocation_id, &c.node) else { continue };
            if c.state == ShardState::Started && table.in_sync.contains(aid) {
                let e =
                    t.entry(aid.clone()).or_insert_with(|| Target { node: node.clone(), in_sync: true, persisted: -1 });
                e.in_sync = true;
            }
        }
    }
    /// Operations sequenced and not yet sent (a primary handoff waits for none).
    pub(super) fn pending_operations(&self) -> usize {
        lock(&self.pending).len()
    }
    /// The lowest persisted checkpoint among in-sync targets (`None` without any).
    fn min_in_sync(&self) -> Option<i64> {
        lock(&self.targets).values().filter(|t| t.in_sync).map(|t| t.persisted).min()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a replica does about refresh after applying a write (the write's `refresh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ReplicaRefresh {
    #[default]
    No,
    /// `refresh=true`: refresh now.
    Now,
    /// `refresh=wait_for`: answer after the copy's next refresh.
    WaitFor,
}

/// The header of a replica request (the operations follow, length-prefixed).
#[derive(Debug, Serialize, Deserialize)]
struct ReplicaHead {
    index: String,
    uuid: String,
    shard: u32,
    allocation_id: String,
    primary_term: u64,
    global_checkpoint: i64,
    #[serde(default)]
    refresh: ReplicaRefresh,
    /// The operations the primary added as appends (auto-generated ids), as `[first, count]`
    /// runs of positions in the request: the replica skips their lookup (see
    /// [`crate::shard::replica`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    appended: Vec<[u32; 2]>,
}

/// `[first, count]` runs of the positions where `flags` is set.
fn runs(flags: impl Iterator<Item = bool>) -> Vec<[u32; 2]> {
    let mut out: Vec<[u32; 2]> = Vec::new();
    for (i, f) in flags.enumerate() {
        if !f {
            continue;
        }
        match out.last_mut() {
            Some(r) if r[0] + r[1] == i as u32 => r[1] += 1,
            _ => out.push([i as u32, 1]),
        }
    }
    out
}

/// Whether position `i` is in one of `runs`.
fn in_runs(runs: &[[u32; 2]], i: usize) -> bool {
    let i = i as u64;
    runs.iter().any(|r| i >= u64::from(r[0]) && i < u64::from(r[0]) + u64::from(r[1]))
}

#[derive(Debug, Serialize, Deserialize)]
struct ReplicaAnswer {
    local_checkpoint: i64,
    persisted: i64,
}

/// Operations as a replica request or a recovery batch carries them: each a little-endian u32
/// length and the translog payload encoding.
pub fn encode_ops(ops: &[Operation]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for op in ops {
        buf.clear();
        op.encode(&mut buf);
        out.extend_from_slice(&(buf.len() as u32).to_le_bytes());
        out.extend_from_slice(&buf);
    }
    out
}

/// Decodes [`encode_ops`]' bytes; an error for anything malformed.
pub fn decode_ops(mut bytes: &[u8]) -> OsResult<Vec<Operation>> {
    let mut ops = Vec::new();
    while !bytes.is_empty() {
        let len = bytes
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| OsError::illegal("truncated operation length"))?;
        let payload = bytes.get(4..4 + len).ok_or_else(|| OsError::illegal("truncated operation"))?;
        ops.push(Operation::decode(payload).map_err(|e| OsError::illegal(format!("malformed operation: {e}")))?);
        bytes = &bytes[4 + len..];
    }
    Ok(ops)
}

/// What replication did, for `_shards` in the answer.
#[derive(Debug, Clone, Default)]
pub struct Replicated {
    /// The shard.
    pub shard: u32,
    /// Copies that took the operations (the primary not counted).
    pub successful: u32,
    /// Copies that failed and were failed through the cluster manager: `(node, reason)`.
    pub failed: Vec<(String, String)>,
}

impl IndexShard {
    /// Indexes on this primary copy; the operation waits for [`IndexShard::replicate`].
    pub fn index(&self, op: crate::shard::IndexOp) -> crate::engine::Result<crate::shard::WriteResult> {
        let _permit = self.sequencing_permit()?;
        let appended = op.auto_generated_id;
        let (w, logged) = self.engine.index_logged(op)?;
        if self.replication.has_targets() {
            lock(&self.replication.pending).insert(w.seq_no, (logged, appended));
        }
        Ok(w)
    }

    /// Deletes on this primary copy; the operation waits for [`IndexShard::replicate`].
    pub fn delete(
        &self,
        id: &str,
        c: crate::shard::versioning::Constraints,
    ) -> crate::engine::Result<crate::shard::WriteResult> {
        let _permit = self.sequencing_permit()?;
        let w = self.engine.delete(id, c)?;
        if self.replication.has_targets() {
            let op = Operation::Delete {
                id: id.to_string(),
                seq_no: w.seq_no,
                primary_term: w.primary_term,
                version: w.version,
            };
            lock(&self.replication.pending).insert(w.seq_no, (op, false));
        }
        Ok(w)
    }

    /// A permit to sequence an operation: none once this primary handed off to its relocation
    /// target (see [`super::peer_recovery::handoff`]).
    fn sequencing_permit(&self) -> crate::engine::Result<super::peer_recovery::handoff::Permit<'_>> {
        self.handoff
            .permit()
            .ok_or_else(|| crate::engine::Error::Closed(format!("[{}][{}] the primary relocated", self.index, self.id)))
    }

    /// Sends the operations with `seq_nos` (written here, durable here) to every copy of the
    /// group and waits for them; fails copies that do not take them (see the module docs).
    /// An error means the write must not be acknowledged.
    pub fn replicate(&self, cs: &ClusterService, seq_nos: &[i64], refresh: ReplicaRefresh) -> OsResult<Replicated> {
        let _in_flight = self.handoff.replicating();
        let mut ops: Vec<(Operation, bool)> = {
            let mut p = lock(&self.replication.pending);
            seq_nos.iter().filter_map(|s| p.remove(s)).collect()
        };
        let targets = self.replication.targets();
        if targets.is_empty() {
            return Ok(Replicated { shard: self.id, ..Default::default() });
        }
        ops.sort_by_key(|(op, _)| op.seq_no());
        let appended = runs(ops.iter().map(|(_, a)| *a));
        let ops: Vec<Operation> = ops.into_iter().map(|(op, _)| op).collect();
        let body = encode_ops(&ops);
        let term = self.engine.term();
        let gcp = self.engine.global_checkpoint();
        let send = |aid: &str, t: &Target| -> OsResult<ReplicaAnswer> {
            let head = ReplicaHead {
                index: self.index.clone(),
                uuid: self.index_uuid.clone(),
                shard: self.id,
                allocation_id: aid.to_string(),
                primary_term: term,
                global_checkpoint: gcp,
                refresh,
                appended: appended.clone(),
            };
            let head = serde_json::to_vec(&head).map_err(|e| OsError::internal(e.to_string()))?;
            let bytes = cs.send(&t.node, ACTION_REPLICA, super::remote::frame_pair(&head, &body), REPLICA_TIMEOUT)?;
            serde_json::from_slice(&bytes).map_err(|e| OsError::internal(format!("malformed replica answer: {e}")))
        };
        let answers: Vec<OsResult<ReplicaAnswer>> = if targets.len() == 1 {
            vec![send(&targets[0].0, &targets[0].1)]
        } else {
            std::thread::scope(|s| {
                let hs: Vec<_> = targets.iter().map(|(aid, t)| s.spawn(move || send(aid, t))).collect();
                hs.into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err(OsError::internal("replication panicked"))))
                    .collect()
            })
        };
        let mut out = Replicated { shard: self.id, ..Default::default() };
        for ((aid, t), a) in targets.iter().zip(answers) {
            match a {
                Ok(a) => {
                    out.successful += 1;
                    if let Some(x) = lock(&self.replication.targets).get_mut(aid) {
                        x.persisted = x.persisted.max(a.persisted);
                    }
                }
                Err(e) if is_stale_term(&e) => {
                    return Err(OsError::new(
                        ErrorKind::IllegalState,
                        format!("[{}][{}] primary term [{term}] is stale: {}", self.index, self.id, e.reason),
                    ));
                }
                Err(e) => {
                    let reason = format!("failed to perform indices:data/write/bulk[s] on replica: {}", e.reason);
                    self.fail_replica(cs, aid, term, &reason)?;
                    out.failed.push((t.node.clone(), reason));
                }
            }
        }
        self.update_global_checkpoint();
        Ok(out)
    }

    /// Makes the operations `seq_nos` durable on this primary (under `request` durability: the
    /// translog up to `location`, the furthest of theirs) and on every copy of the group (see
    /// [`IndexShard::replicate`]). As in OpenSearch, the local fsync runs beside the replica
    /// requests; both must succeed. An error means the write must not be acknowledged.
    pub fn sync_and_replicate(
        &self,
        cs: &ClusterService,
        location: crate::engine::translog::Location,
        seq_nos: &[i64],
        refresh: ReplicaRefresh,
    ) -> OsResult<Replicated> {
        let sync = || -> OsResult<()> {
            if self.engine.durability() == crate::engine::translog::Durability::Request {
                self.engine.ensure_synced_ops(location, seq_nos)?;
            }
            Ok(())
        };
        if !self.replication.has_targets() {
            sync()?;
            return self.replicate(cs, seq_nos, refresh);
        }
        let (local, replicated) = std::thread::scope(|s| {
            let local = std::thread::Builder::new().name("fathom[sync]".into()).spawn_scoped(s, sync);
            let replicated = self.replicate(cs, seq_nos, refresh);
            let local = match local {
                Ok(h) => h.join().unwrap_or_else(|_| Err(OsError::internal("the translog sync panicked"))),
                // No thread to spare: sync here.
                Err(_) => sync(),
            };
            (local, replicated)
        });
        local?;
        let r = replicated?;
        self.update_global_checkpoint();
        Ok(r)
    }

    /// The global checkpoint from the in-sync copies' persisted checkpoints.
    pub(super) fn update_global_checkpoint(&self) {
        let own = self.engine.persisted_checkpoint();
        let gcp = match self.replication.min_in_sync() {
            Some(m) => {
                self.engine.set_replicated(true);
                own.min(m)
            }
            None => {
                self.engine.set_replicated(false);
                own
            }
        };
        if let Err(e) = self.engine.advance_global_checkpoint(gcp) {
            tracing::warn!(index = %self.index, shard = self.id, error = %e, "cannot record the global checkpoint");
        }
    }

    /// Fails a copy through the cluster manager on behalf of this primary (term checked there).
    fn fail_replica(&self, cs: &ClusterService, aid: &str, term: u64, reason: &str) -> OsResult<()> {
        cs.fail_copy_as_primary(&self.index, self.id, aid, term, reason)?;
        self.replication.remove(aid);
        Ok(())
    }
}

/// Whether a replica refused a request because it knows a newer primary term.
fn is_stale_term(e: &OsError) -> bool {
    e.reason.contains("is too old")
}

/// The replica side of [`ACTION_REPLICA`]: applies the operations to the copy the request
/// names (serving, or filling through a peer recovery), makes them durable, and answers with
/// its checkpoints.
pub fn handle_replica(cs: &ClusterService, payload: &[u8]) -> OsResult<Vec<u8>> {
    let _in_flight = cs.counters.indexing_pressure.track(super::node_counters::Stage::Replica, payload.len());
    let (head, body) =
        super::remote::unframe_pair(payload).ok_or_else(|| OsError::illegal("malformed replica request"))?;
    let head: ReplicaHead =
        serde_json::from_slice(head).map_err(|e| OsError::illegal(format!("malformed replica request: {e}")))?;
    let ops = decode_ops(body)?;
    let copy = cs.copy_for_replication(&head.index, &head.uuid, head.shard, &head.allocation_id)?;
    let current = copy.engine.term();
    if head.primary_term < current || head.primary_term < copy.replication.term() {
        return Err(OsError::illegal(format!(
            "[{}][{}] operation primary term [{}] is too old (current [{}])",
            head.index,
            head.shard,
            head.primary_term,
            current.max(copy.replication.term())
        )));
    }
    copy.engine.raise_primary_term(head.primary_term)?;
    apply_split(&copy, &ops, &head.appended)?;
    let persisted = if copy.engine.durability() == crate::engine::translog::Durability::Request {
        copy.engine.sync_replica()?
    } else {
        copy.engine.persisted_checkpoint()
    };
    copy.engine.advance_global_checkpoint(head.global_checkpoint)?;
    match head.refresh {
        ReplicaRefresh::No => {}
        ReplicaRefresh::Now => {
            copy.refresh()?;
        }
        ReplicaRefresh::WaitFor => {
            copy.wait_for_refresh()?;
        }
    }
    let a = ReplicaAnswer { local_checkpoint: copy.engine.local_checkpoint(), persisted };
    serde_json::to_vec(&a).map_err(|e| OsError::internal(e.to_string()))
}

/// Requests with at least this many operations are applied by two threads.
const SPLIT_AT: usize = 256;

/// Applies a replica request's operations; a large request's halves on two threads (appends
/// invert in parallel; what needs the write lock takes turns), so that one request uses
/// both cores when nothing else runs. The order within a request does not matter (see
/// [`crate::shard::replica`]).
fn apply_split(copy: &IndexShard, ops: &[Operation], appended: &[[u32; 2]]) -> OsResult<()> {
    let apply = |from: usize, part: &[Operation]| -> OsResult<()> {
        copy.engine.apply_replica_ops(part, &|i| in_runs(appended, from + i)).map_err(OsError::from)
    };
    if ops.len() < SPLIT_AT || appended.is_empty() {
        return apply(0, ops);
    }
    let mid = ops.len() / 2;
    let (first, second) = ops.split_at(mid);
    std::thread::scope(|s| {
        let other = std::thread::Builder::new().name("fathom[replica]".into()).spawn_scoped(s, || apply(mid, second));
        let here = apply(0, first);
        let there = match other {
            Ok(h) => h.join().unwrap_or_else(|_| Err(OsError::internal("applying replica operations panicked"))),
            Err(_) => apply(mid, second),
        };
        here.and(there)
    })
}

impl ClusterService {
    /// Fails a replica copy on behalf of the primary of term `term` (OpenSearch's shard-failed
    /// action with its primary term check): refused when the routing table has moved to a newer
    /// primary, so a stale primary cannot remove a copy that holds what the new one wrote.
    pub(super) fn fail_copy_as_primary(
        &self,
        index: &str,
        shard: u32,
        allocation_id: &str,
        term: u64,
        reason: &str,
    ) -> OsResult<()> {
        let publisher = self.publisher();
        let st = publisher.publish(&mut |cur| {
            let Some(t) = cur.routing.shard(index, shard) else { return Ok(None) };
            if t.primary_term != term {
                return Err(OsError::new(
                    ErrorKind::IllegalState,
                    format!(
                        "[{index}][{shard}] primary term [{term}] did not match current primary term [{}]",
                        t.primary_term
                    ),
                ));
            }
            let now = crate::clock::now_millis();
            match super::allocation::shard_failed(&cur.routing, index, shard, allocation_id, reason, now) {
                Ok(rt) => {
                    let interim = super::state::ClusterState { routing: Arc::new(rt), ..cur.clone() };
                    Ok(Some(self.rerouted(&interim, cur.metadata.clone())))
                }
                // Already failed or gone: nothing to do.
                Err(_) => Ok(None),
            }
        })?;
        let events = self.apply(&st)?;
        self.report(events)
    }

    /// The copy a replica request or recovery names: index by name and uuid, shard, allocation
    /// id; serving here or being recovered.
    pub(super) fn copy_for_replication(
        &self,
        index: &str,
        uuid: &str,
        shard: u32,
        allocation_id: &str,
    ) -> OsResult<Arc<IndexShard>> {
        let svc = self.index(index)?;
        let copy = (svc.uuid == uuid).then(|| svc.copy_with(shard, allocation_id)).flatten();
        copy.ok_or_else(|| {
            OsError::new(
                ErrorKind::ShardNotFound,
                format!("[{index}][{shard}] no copy with allocation id [{allocation_id}] on this node"),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_round_trip_and_bad_bytes_are_refused() {
        let ops = vec![
            Operation::Index {
                id: "1".into(),
                routing: Some("r".into()),
                source: b"{}".to_vec(),
                seq_no: 3,
                primary_term: 2,
                version: 1,
            },
            Operation::Delete { id: "2".into(), seq_no: 4, primary_term: 2, version: 5 },
            Operation::NoOp { seq_no: 5, primary_term: 2, reason: "gap".into() },
        ];
        let b = encode_ops(&ops);
        assert_eq!(decode_ops(&b).unwrap(), ops);
        assert!(decode_ops(&b[..b.len() - 1]).is_err());
        assert!(decode_ops(&[9, 0, 0, 0, 1]).is_err());
        assert!(decode_ops(&[]).unwrap().is_empty());
    }
}
