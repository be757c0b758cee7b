//! Failing copies: a node leaving (`AllocationService.disassociateDeadNodes`) and a shard failing
//! (`applyFailedShards`), with primary promotion (`RoutingNodes.failShard`) and the in-sync set
//! (`IndexMetadataUpdater`).
//!
//! - A failed active primary raises the primary term and is replaced by a started replica whose
//!   allocation id is in the in-sync set (the failed primary becomes an unassigned replica); with
//!   none it becomes an unassigned primary recovering from its `EXISTING_STORE`. Failing a
//!   primary fails its initializing replicas (`PRIMARY_FAILED`).
//! - The in-sync set shrinks only for `shard_failed` (OpenSearch's `markAsStale`), never when a
//!   node leaves: the departed copy may come back with every acknowledged write. A failed primary
//!   keeps its id when no active copy remains, so that the set never empties.
//! - A failed or lost copy whose id stays in-sync (lost with its node, or a failed primary with
//!   nothing active left) remembers its allocation id (not rendered) and `last_node`: a primary can be recovered there from the data
//!   that node holds (OpenSearch asks the nodes for it; `max_retries` bounds the attempts).

use crate::cluster::routing_table::{RecoverySource, ShardCopy, ShardState, ShardTable, UnassignedInfo};

/// Why and how a copy fails.
pub(crate) struct Failure {
    pub reason: &'static str,
    pub details: String,
    pub at_millis: i64,
    /// `index.unassigned.node_left.delayed_timeout` is positive (node left only).
    pub delayed: bool,
    /// Remove its allocation id from the in-sync set (`markAsStale`).
    pub mark_stale: bool,
}

fn unassigned_copy(
    primary: bool,
    source: RecoverySource,
    remembered: Option<String>,
    info: UnassignedInfo,
) -> ShardCopy {
    ShardCopy {
        primary,
        state: ShardState::Unassigned,
        node: None,
        relocating_node: None,
        relocation_id: None,
        allocation_id: remembered,
        recovery_source: Some(source),
        unassigned: Some(info),
    }
}

/// Fails copy `i` of `st`.
pub(crate) fn fail_copy(st: &mut ShardTable, i: usize, f: &Failure) {
    let c = st.copies[i].clone();
    let id = c.allocation_id.clone();
    let mut removed = false;
    if f.mark_stale && c.active() {
        if let Some(id) = &id {
            let before = st.in_sync.len();
            st.in_sync.retain(|x| x != id);
            removed = st.in_sync.len() != before;
        }
    }
    if c.primary {
        for j in 0..st.copies.len() {
            let r = &st.copies[j];
            if j != i && !r.primary && r.state == ShardState::Initializing {
                let info = UnassignedInfo {
                    reason: "PRIMARY_FAILED".into(),
                    at_millis: f.at_millis,
                    delayed: false,
                    failed_attempts: 0,
                    details: Some("primary failed while replica initializing".into()),
                    last_node: None,
                    allocation_status: "no_attempt".into(),
                };
                st.copies[j] = unassigned_copy(false, RecoverySource::Peer, None, info);
            }
        }
    }
    let prior_failures = c.unassigned.as_ref().map_or(0, |u| u.failed_attempts);
    let info = UnassignedInfo {
        reason: f.reason.into(),
        at_millis: f.at_millis,
        delayed: f.delayed,
        failed_attempts: if f.reason == "ALLOCATION_FAILED" { prior_failures + 1 } else { 0 },
        details: Some(f.details.clone()),
        last_node: c.node.clone(),
        allocation_status: "no_attempt".into(),
    };
    // A copy whose id stays in-sync keeps data the cluster needs on its node (lost with it, or a
    // failed primary with nothing active left): remember where it is.
    let readd = removed && c.primary && !st.copies.iter().enumerate().any(|(j, x)| j != i && x.active());
    let remembered = id.clone().filter(|a| readd || st.in_sync.contains(a));
    if c.primary && c.active() {
        st.primary_term += 1;
        let candidate = st.copies.iter().position(|r| {
            !r.primary
                && r.state == ShardState::Started
                && r.allocation_id.as_ref().is_some_and(|a| st.in_sync.contains(a))
        });
        match candidate {
            Some(j) => {
                st.copies[i] = unassigned_copy(false, RecoverySource::Peer, remembered, info);
                st.copies[j].primary = true;
                let p = st.copies.remove(j);
                st.copies.insert(0, p);
            }
            None => st.copies[i] = unassigned_copy(true, RecoverySource::ExistingStore, remembered, info),
        }
    } else if c.primary {
        let source = c.recovery_source.unwrap_or(RecoverySource::EmptyStore);
        st.copies[i] = unassigned_copy(true, source, remembered, info);
    } else {
        st.copies[i] = unassigned_copy(false, RecoverySource::Peer, remembered, info);
    }
    if readd {
        if let Some(id) = id {
            st.in_sync.push(id);
        }
    }
}

/// Fails the copies of `st` whose node is not in `alive` (replicas first, so that a primary is
/// only replaced by a replica that stays).
pub(crate) fn fail_departed(st: &mut ShardTable, alive: &dyn Fn(&str) -> bool, now_millis: i64, delayed: bool) {
    for pass_primary in [false, true] {
        loop {
            let gone = st
                .copies
                .iter()
                .position(|c| c.primary == pass_primary && c.node.as_deref().is_some_and(|n| !alive(n)));
            let Some(i) = gone else { break };
            let node = st.copies[i].node.clone().unwrap_or_default();
            let f = Failure {
                reason: "NODE_LEFT",
                details: format!("node_left [{node}]"),
                at_millis: now_millis,
                delayed,
                mark_stale: false,
            };
            fail_copy(st, i, &f);
        }
    }
}

/// Adds a started copy's allocation id to the in-sync set, trimming the set to `replicas + 1`
/// ids when it grows past that (ids of assigned copies kept first).
pub(crate) fn mark_in_sync(st: &mut ShardTable, id: &str) {
    if st.in_sync.iter().any(|x| x == id) {
        return;
    }
    let before = st.in_sync.len();
    st.in_sync.push(id.to_string());
    let max = st.copies.len();
    if st.in_sync.len() > before && st.in_sync.len() > max {
        let assigned = |x: &String| st.copies.iter().any(|c| c.node.is_some() && c.allocation_id.as_ref() == Some(x));
        let (mut keep, rest): (Vec<String>, Vec<String>) = st.in_sync.iter().cloned().partition(|x| assigned(x));
        keep.extend(rest);
        keep.truncate(max);
        st.in_sync = keep;
    }
}
