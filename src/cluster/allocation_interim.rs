//! Interim allocation (replaced by `allocation/`): primaries on the least loaded data node,
//! replicas left unassigned.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::metadata::{IndexState, Metadata};
use super::routing_table::*;

#[derive(Debug, Clone, Default)]
pub struct AllocNode {
    pub id: String,
    pub name: String,
    pub host: String,
    pub transport_address: String,
    pub roles: Vec<String>,
    pub attributes: BTreeMap<String, String>,
}

fn unassigned(primary: bool, reason: &str, now: i64) -> ShardCopy {
    ShardCopy {
        primary,
        state: ShardState::Unassigned,
        node: None,
        relocating_node: None,
        allocation_id: None,
        recovery_source: None,
        unassigned: Some(UnassignedInfo {
            reason: reason.into(),
            at_millis: now,
            delayed: false,
            failed_attempts: 0,
            details: None,
            last_node: None,
            allocation_status: "no_attempt".into(),
        }),
    }
}

pub fn reroute(
    prev: &RoutingTable,
    md: &Metadata,
    nodes: &[AllocNode],
    _settings: &Map<String, Value>,
    now: i64,
    new_id: &mut dyn FnMut() -> String,
) -> RoutingTable {
    let mut out = RoutingTable::default();
    for (name, m) in &md.indices {
        if m.state != IndexState::Open {
            continue;
        }
        let mut ir = match prev.indices.get(name) {
            Some(ir) if ir.uuid == m.uuid => ir.clone(),
            _ => IndexRouting {
                uuid: m.uuid.clone(),
                shards: (0..m.number_of_shards())
                    .map(|i| ShardTable {
                        id: i,
                        primary_term: m.primary_term,
                        in_sync: vec![],
                        copies: std::iter::once(unassigned(true, "INDEX_CREATED", now))
                            .chain((0..m.number_of_replicas()).map(|_| unassigned(false, "INDEX_CREATED", now)))
                            .collect(),
                    })
                    .collect(),
            },
        };
        for st in &mut ir.shards {
            for c in &mut st.copies {
                if let Some(n) = c.node.clone() {
                    if !nodes.iter().any(|x| x.id == n) {
                        *c = unassigned(c.primary, "NODE_LEFT", now);
                        if let Some(u) = &mut c.unassigned {
                            u.last_node = Some(n);
                        }
                    }
                }
            }
        }
        out.indices.insert(name.clone(), ir);
    }
    let data: Vec<&AllocNode> = nodes.iter().filter(|n| n.roles.iter().any(|r| r == "data")).collect();
    let mut load: BTreeMap<String, usize> = data.iter().map(|n| (n.id.clone(), 0)).collect();
    for (_, _, c) in out.copies() {
        if let Some(n) = &c.node {
            *load.entry(n.clone()).or_default() += 1;
        }
    }
    for ir in out.indices.values_mut() {
        for st in &mut ir.shards {
            let holders: Vec<String> = st.copies.iter().filter_map(|c| c.node.clone()).collect();
            let in_sync_empty = st.in_sync.is_empty();
            for c in &mut st.copies {
                if !c.primary || c.state != ShardState::Unassigned {
                    continue;
                }
                if c.unassigned.as_ref().is_some_and(|u| u.failed_attempts >= 5) {
                    continue;
                }
                let last = c.unassigned.as_ref().and_then(|u| u.last_node.clone());
                let target = if in_sync_empty {
                    load.iter()
                        .filter(|(n, _)| !holders.contains(n))
                        .min_by_key(|(n, l)| (**l, (*n).clone()))
                        .map(|(n, _)| n.clone())
                } else {
                    last.filter(|l| load.contains_key(l))
                };
                if let Some(t) = target {
                    *load.entry(t.clone()).or_default() += 1;
                    c.state = ShardState::Initializing;
                    c.node = Some(t);
                    c.allocation_id = Some(new_id());
                    c.recovery_source =
                        Some(if in_sync_empty { RecoverySource::EmptyStore } else { RecoverySource::ExistingStore });
                }
            }
        }
    }
    out
}

pub fn shard_started(t: &RoutingTable, index: &str, shard: u32, allocation_id: &str) -> Result<RoutingTable, String> {
    let mut t = t.clone();
    let st =
        t.indices.get_mut(index).and_then(|ir| ir.shards.iter_mut().find(|s| s.id == shard)).ok_or("no such shard")?;
    let c = st
        .copies
        .iter_mut()
        .find(|c| c.allocation_id.as_deref() == Some(allocation_id) && c.state == ShardState::Initializing)
        .ok_or("no such initializing copy")?;
    c.state = ShardState::Started;
    c.recovery_source = None;
    c.unassigned = None;
    if !st.in_sync.iter().any(|a| a == allocation_id) {
        st.in_sync.push(allocation_id.to_string());
    }
    Ok(t)
}

pub fn shard_failed(
    t: &RoutingTable,
    index: &str,
    shard: u32,
    allocation_id: &str,
    reason: &str,
    now: i64,
) -> Result<RoutingTable, String> {
    let mut t = t.clone();
    let st =
        t.indices.get_mut(index).and_then(|ir| ir.shards.iter_mut().find(|s| s.id == shard)).ok_or("no such shard")?;
    let c = st.copies.iter_mut().find(|c| c.allocation_id.as_deref() == Some(allocation_id)).ok_or("no such copy")?;
    let attempts = c.unassigned.as_ref().map_or(0, |u| u.failed_attempts);
    let node = c.node.clone();
    *c = unassigned(c.primary, "ALLOCATION_FAILED", now);
    if let Some(u) = &mut c.unassigned {
        u.failed_attempts = attempts + 1;
        u.details = Some(reason.to_string());
        u.last_node = node;
    }
    Ok(t)
}
