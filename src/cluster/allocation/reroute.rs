//! `reroute` (OpenSearch's `AllocationService.reroute` with `disassociateDeadNodes` and the
//! metadata-driven routing updates) and the shard events (`applyStartedShards`,
//! `applyFailedShards`, `removeStaleIdsWithoutRoutings`), each a pure function from one table
//! to the next.

use serde_json::{Map, Value};

use super::assign::allocate;
use super::failures::{fail_copy, fail_departed, mark_in_sync, Failure};
use super::rebalance::rebalance;
use super::relocate::{cancel_departed, cancel_relocation, finish_relocation, move_shards, source_of};
use super::settings::{AllocSettings, IndexAlloc};
use super::sync::sync;
use super::AllocNode;
use crate::cluster::metadata::Metadata;
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardState, ShardTable};

/// The data nodes, by id, without duplicates.
pub(crate) fn data_nodes(nodes: &[AllocNode]) -> Vec<&AllocNode> {
    let mut v: Vec<&AllocNode> = nodes.iter().filter(|n| n.is_data()).collect();
    v.sort_by(|a, b| a.id.cmp(&b.id));
    v.dedup_by(|a, b| a.id == b.id);
    v
}

/// The next routing table: copies on departed nodes fail (a lost primary is replaced by an
/// in-sync started replica), the table follows the metadata (new, deleted and closed indices,
/// replica counts), delays that ran out end, and unassigned copies are assigned where the
/// deciders allow, least loaded node first. New assignments are `INITIALIZING` with an
/// allocation id from `new_id`. Started copies that may not remain on their node start
/// relocating, then copies move toward balance (see `relocate.rs` and `rebalance.rs`).
///
/// Deterministic; `reroute(reroute(t))` equals `reroute(t)` for the same inputs.
pub fn reroute(
    prev: &RoutingTable,
    md: &Metadata,
    nodes: &[AllocNode],
    cluster_settings: &Map<String, Value>,
    now_millis: i64,
    new_id: &mut dyn FnMut() -> String,
) -> RoutingTable {
    let s = AllocSettings::parse(cluster_settings);
    let data = data_nodes(nodes);
    let alive = |id: &str| data.iter().any(|n| n.id == id);
    let mut t = prev.clone();
    for (name, ir) in t.indices.iter_mut() {
        let delayed = md.indices.get(name).is_none_or(|m| IndexAlloc(m).delayed_timeout_millis() > 0);
        for st in &mut ir.shards {
            cancel_departed(st, &alive);
            fail_departed(st, &alive, now_millis, delayed);
        }
    }
    sync(&mut t, md, data.len() as u32, now_millis);
    for (name, ir) in t.indices.iter_mut() {
        let timeout = md.indices.get(name).map_or(60_000, |m| IndexAlloc(m).delayed_timeout_millis());
        for st in &mut ir.shards {
            let empty_in_sync = st.in_sync.is_empty();
            for c in st.copies.iter_mut().filter(|c| c.state == ShardState::Unassigned) {
                if c.primary && empty_in_sync && c.recovery_source == Some(RecoverySource::ExistingStore) {
                    c.recovery_source = Some(RecoverySource::EmptyStore);
                }
                if let Some(u) = c.unassigned.as_mut().filter(|u| u.delayed) {
                    if now_millis.saturating_sub(u.at_millis) >= timeout {
                        u.delayed = false;
                    }
                }
            }
        }
    }
    // Until a pass assigns nothing (each pass assigns at least one copy or ends it).
    let unassigned = t.copies().filter(|(_, _, c)| c.state == ShardState::Unassigned).count();
    for _ in 0..=unassigned {
        if allocate(&mut t, md, &data, &s, new_id, false) == 0 {
            break;
        }
    }
    // Started copies that may not stay where they are move (`moveShards`), then copies move
    // toward balance (`balance`).
    move_shards(&mut t, md, &data, &s, new_id);
    rebalance(&mut t, md, &data, &s, new_id);
    // Record every remaining copy's status against the final table, so that a second reroute
    // (which assigns nothing more) records the same ones.
    allocate(&mut t, md, &data, &s, new_id, true);
    t
}

fn shard_mut<'a>(t: &'a mut RoutingTable, index: &str, shard: u32) -> Result<&'a mut ShardTable, String> {
    t.indices
        .get_mut(index)
        .and_then(|ir| ir.shards.iter_mut().find(|s| s.id == shard))
        .ok_or_else(|| format!("no shard [{index}][{shard}] in the routing table"))
}

/// An initializing copy finished recovering: it becomes `STARTED` and its allocation id joins
/// the in-sync set; a relocation target replaces its source. An unknown or stale allocation id is an error (the caller ignores it).
pub fn shard_started(
    table: &RoutingTable,
    index: &str,
    shard: u32,
    allocation_id: &str,
) -> Result<RoutingTable, String> {
    let mut t = table.clone();
    let st = shard_mut(&mut t, index, shard)?;
    if finish_relocation(st, allocation_id) {
        return Ok(t);
    }
    let c = st
        .copies
        .iter_mut()
        .find(|c| c.state == ShardState::Initializing && c.allocation_id.as_deref() == Some(allocation_id))
        .ok_or_else(|| format!("no initializing copy of [{index}][{shard}] with allocation id [{allocation_id}]"))?;
    c.state = ShardState::Started;
    c.recovery_source = None;
    c.unassigned = None;
    mark_in_sync(st, allocation_id);
    Ok(t)
}

/// An assigned copy failed (`reason` becomes the unassigned details): it becomes unassigned
/// (`ALLOCATION_FAILED`, one more failed attempt) and leaves the in-sync set; a failed started
/// primary is replaced by an in-sync started replica (primary term + 1).
pub fn shard_failed(
    table: &RoutingTable,
    index: &str,
    shard: u32,
    allocation_id: &str,
    reason: &str,
    now_millis: i64,
) -> Result<RoutingTable, String> {
    let mut t = table.clone();
    let st = shard_mut(&mut t, index, shard)?;
    // A relocation target that failed: the source stays where it is (`cancelRelocation`).
    if let Some(i) = source_of(st, allocation_id) {
        cancel_relocation(st, i);
        return Ok(t);
    }
    let i = st
        .copies
        .iter()
        .position(|c| c.state != ShardState::Unassigned && c.allocation_id.as_deref() == Some(allocation_id))
        .ok_or_else(|| format!("no assigned copy of [{index}][{shard}] with allocation id [{allocation_id}]"))?;
    let f = Failure {
        reason: "ALLOCATION_FAILED",
        details: reason.to_string(),
        at_millis: now_millis,
        delayed: false,
        mark_stale: true,
    };
    fail_copy(st, i, &f);
    Ok(t)
}

/// The primary found in-sync copies it cannot reach that have no assigned copy any more
/// (`removeStaleIdsWithoutRoutings`): their ids leave the in-sync set, unless that would empty
/// it, and their data is no longer a candidate for the primary.
pub fn remove_stale_allocation_ids(
    table: &RoutingTable,
    index: &str,
    shard: u32,
    ids: &[String],
) -> Result<RoutingTable, String> {
    let mut t = table.clone();
    let st = shard_mut(&mut t, index, shard)?;
    let stale: Vec<String> = ids
        .iter()
        .filter(|id| {
            !st.copies.iter().any(|c| c.state != ShardState::Unassigned && c.allocation_id.as_ref() == Some(*id))
        })
        .cloned()
        .collect();
    let remaining: Vec<String> = st.in_sync.iter().filter(|x| !stale.contains(x)).cloned().collect();
    if remaining.is_empty() {
        return Err(format!("the in-sync set of [{index}][{shard}] cannot become empty"));
    }
    st.in_sync = remaining;
    for c in st.copies.iter_mut().filter(|c| c.state == ShardState::Unassigned) {
        if c.allocation_id.as_ref().is_some_and(|a| stale.contains(a)) {
            c.allocation_id = None;
        }
    }
    Ok(t)
}
