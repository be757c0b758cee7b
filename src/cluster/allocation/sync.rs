//! The table following the metadata (OpenSearch's `MetadataCreateIndexService` /
//! `MetadataDeleteIndexService` / `MetadataIndexStateService` routing updates and
//! `RoutingTable.Builder.updateNumberOfReplicas`): new open indices get every copy unassigned
//! (`INDEX_CREATED`, primaries from an `EMPTY_STORE`), deleted indices leave, closed ones keep
//! their copies where they are (OpenSearch's replicated closed indices: reopened, each copy
//! opens again on the node holding its data), and replica counts follow
//! `index.number_of_replicas` / `index.auto_expand_replicas`.

use super::settings::desired_replicas;
use crate::cluster::metadata::{IndexMetadata, IndexState, Metadata};
use crate::cluster::routing_table::{
    IndexRouting, RecoverySource, RoutingTable, ShardCopy, ShardState, ShardTable, UnassignedInfo,
};

/// A new unassigned copy.
pub(crate) fn new_unassigned(primary: bool, reason: &str, now_millis: i64) -> ShardCopy {
    ShardCopy {
        primary,
        state: ShardState::Unassigned,
        node: None,
        relocating_node: None,
        relocation_id: None,
        allocation_id: None,
        recovery_source: Some(if primary { RecoverySource::EmptyStore } else { RecoverySource::Peer }),
        unassigned: Some(UnassignedInfo {
            reason: reason.into(),
            at_millis: now_millis,
            delayed: false,
            failed_attempts: 0,
            details: None,
            last_node: None,
            allocation_status: "no_attempt".into(),
        }),
    }
}

fn new_index(m: &IndexMetadata, replicas: u32, now_millis: i64) -> IndexRouting {
    let shards = (0..m.number_of_shards())
        .map(|id| {
            let mut copies = vec![new_unassigned(true, "INDEX_CREATED", now_millis)];
            copies.extend((0..replicas).map(|_| new_unassigned(false, "INDEX_CREATED", now_millis)));
            ShardTable { id, primary_term: 0, in_sync: Vec::new(), copies }
        })
        .collect();
    IndexRouting { uuid: m.uuid.clone(), shards }
}

/// Removes one replica: unassigned ones first, then initializing, then started. Its allocation
/// id leaves the in-sync set (a copy dropped on purpose holds nothing the cluster needs), unless
/// that would empty the set. An unassigned replica that remembers in-sync data on a departed node
/// hands that memory to an unassigned primary that has none, so the primary can still use it.
fn remove_replica(st: &mut ShardTable) {
    let pick = [ShardState::Unassigned, ShardState::Initializing, ShardState::Started, ShardState::Relocating]
        .iter()
        .find_map(|s| st.copies.iter().position(|c| !c.primary && c.state == *s));
    let Some(i) = pick else { return };
    let c = st.copies.remove(i);
    let Some(id) = c.allocation_id.filter(|a| st.in_sync.contains(a)) else { return };
    let in_sync = &st.in_sync;
    let primary = st.copies.iter_mut().find(|x| x.primary);
    match primary {
        Some(p)
            if c.state == ShardState::Unassigned
                && p.state == ShardState::Unassigned
                && p.allocation_id.as_ref().is_none_or(|a| !in_sync.contains(a)) =>
        {
            p.allocation_id = Some(id);
            if let Some(u) = p.unassigned.as_mut() {
                u.last_node = c.unassigned.and_then(|u| u.last_node);
            }
        }
        _ if st.in_sync.len() > 1 => st.in_sync.retain(|x| *x != id),
        _ => {}
    }
}

/// Brings `table` in line with `md` over `data_nodes` data nodes.
pub(crate) fn sync(table: &mut RoutingTable, md: &Metadata, data_nodes: u32, now_millis: i64) {
    table.indices.retain(|name, ir| md.indices.get(name).is_some_and(|m| m.uuid == ir.uuid));
    for (name, m) in &md.indices {
        if m.state != IndexState::Open {
            continue;
        }
        let Some(ir) = table.indices.get_mut(name) else {
            let replicas = desired_replicas(m, data_nodes, m.number_of_replicas());
            table.indices.insert(name.clone(), new_index(m, replicas, now_millis));
            continue;
        };
        for st in &mut ir.shards {
            let current = st.copies.len().saturating_sub(1) as u32;
            let want = desired_replicas(m, data_nodes, current);
            for _ in current..want {
                st.copies.push(new_unassigned(false, "REPLICA_ADDED", now_millis));
            }
            for _ in want..current {
                remove_replica(st);
            }
        }
    }
}
