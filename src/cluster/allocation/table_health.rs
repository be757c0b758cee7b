//! Cluster health computed from the routing table (OpenSearch's `ClusterShardHealth` and
//! `ClusterIndexHealth`): a shard is green when every copy is active, yellow when its primary is
//! active but not every replica, and red when the primary is inactive, except a primary that is
//! new (recovering an empty store, never failed, not refused by the deciders), which is yellow.

use serde_json::{json, Map, Value};

use crate::cluster::health::Status;
use crate::cluster::metadata::Metadata;
use crate::cluster::routing_table::{RecoverySource, ShardCopy, ShardState, ShardTable};

/// One shard's health.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardHealth {
    pub id: u32,
    pub status: Status,
    pub primary_active: bool,
    pub active: u32,
    pub relocating: u32,
    pub initializing: u32,
    pub unassigned: u32,
    pub delayed_unassigned: u32,
}

/// One index's health.
#[derive(Debug, Clone, PartialEq)]
pub struct TableIndexHealth {
    pub name: String,
    pub status: Status,
    pub number_of_shards: u32,
    pub number_of_replicas: u32,
    pub active_primaries: u32,
    pub active: u32,
    pub relocating: u32,
    pub initializing: u32,
    pub unassigned: u32,
    pub delayed_unassigned: u32,
    pub shards: Vec<ShardHealth>,
}

/// `ClusterShardHealth.getInactivePrimaryHealth`.
fn inactive_primary_health(p: &ShardCopy) -> Status {
    let u = p.unassigned.as_ref();
    let new_primary = p.recovery_source == Some(RecoverySource::EmptyStore)
        && u.is_some_and(|u| u.allocation_status != "deciders_no" && u.failed_attempts == 0);
    if new_primary {
        Status::Yellow
    } else {
        Status::Red
    }
}

fn shard_health(st: &ShardTable) -> ShardHealth {
    let mut h = ShardHealth {
        id: st.id,
        status: Status::Green,
        primary_active: false,
        active: 0,
        relocating: 0,
        initializing: 0,
        unassigned: 0,
        delayed_unassigned: 0,
    };
    for c in &st.copies {
        match c.state {
            ShardState::Started | ShardState::Relocating => {
                h.active += 1;
                h.relocating += u32::from(c.state == ShardState::Relocating);
            }
            ShardState::Initializing => h.initializing += 1,
            ShardState::Unassigned => {
                h.unassigned += 1;
                h.delayed_unassigned += u32::from(c.unassigned.as_ref().is_some_and(|u| u.delayed));
            }
        }
    }
    let primary = st.primary();
    h.primary_active = primary.is_some_and(ShardCopy::active);
    h.status = match primary {
        Some(p) if p.active() => {
            if h.active as usize == st.copies.len() {
                Status::Green
            } else {
                Status::Yellow
            }
        }
        Some(p) => inactive_primary_health(p),
        None => Status::Red,
    };
    h
}

/// The health of every index of `md` that the table holds, by name (closed ones too: their
/// copies stay allocated, as OpenSearch's replicated closed indices).
pub fn health(table: &crate::cluster::routing_table::RoutingTable, md: &Metadata) -> Vec<TableIndexHealth> {
    let mut out = Vec::new();
    for (name, ir) in &table.indices {
        if md.indices.get(name).is_none_or(|m| m.uuid != ir.uuid) {
            continue;
        }
        let shards: Vec<ShardHealth> = ir.shards.iter().map(shard_health).collect();
        let sum = |f: fn(&ShardHealth) -> u32| shards.iter().map(f).sum::<u32>();
        let status = if shards.is_empty() {
            Status::Red
        } else {
            shards.iter().map(|s| s.status).max().unwrap_or(Status::Green)
        };
        out.push(TableIndexHealth {
            name: name.clone(),
            status,
            number_of_shards: ir.shards.len() as u32,
            number_of_replicas: ir.shards.first().map_or(0, |s| s.copies.len().saturating_sub(1) as u32),
            active_primaries: shards.iter().filter(|s| s.primary_active).count() as u32,
            active: sum(|s| s.active),
            relocating: sum(|s| s.relocating),
            initializing: sum(|s| s.initializing),
            unassigned: sum(|s| s.unassigned),
            delayed_unassigned: sum(|s| s.delayed_unassigned),
            shards,
        });
    }
    out
}

impl TableIndexHealth {
    /// The `indices.{name}` object of `_cluster/health`; with `shards` the per-shard breakdown.
    pub fn to_json(&self, with_shards: bool) -> Value {
        let mut v = json!({
            "status": self.status.name(),
            "number_of_shards": self.number_of_shards,
            "number_of_replicas": self.number_of_replicas,
            "active_primary_shards": self.active_primaries,
            "active_shards": self.active,
            "relocating_shards": self.relocating,
            "initializing_shards": self.initializing,
            "unassigned_shards": self.unassigned,
        });
        if with_shards {
            let shards: Map<String, Value> = self
                .shards
                .iter()
                .map(|s| {
                    (
                        s.id.to_string(),
                        json!({
                            "status": s.status.name(),
                            "primary_active": s.primary_active,
                            "active_shards": s.active,
                            "relocating_shards": s.relocating,
                            "initializing_shards": s.initializing,
                            "unassigned_shards": s.unassigned,
                        }),
                    )
                })
                .collect();
            v["shards"] = Value::Object(shards);
        }
        v
    }
}

/// Cluster-wide totals over some indices' health (`ClusterStateHealth`).
#[derive(Debug, Clone, PartialEq)]
pub struct TableClusterHealth {
    /// The worst index status; green with no index.
    pub status: Status,
    pub active_primaries: u32,
    pub active: u32,
    pub relocating: u32,
    pub initializing: u32,
    pub unassigned: u32,
    pub delayed_unassigned: u32,
    /// `active_shards_percent_as_number`: 100 with no shard at all.
    pub active_percent: f64,
}

/// Sums `indices` (the cluster level of `_cluster/health`).
pub fn cluster_totals(indices: &[TableIndexHealth]) -> TableClusterHealth {
    let sum = |f: fn(&TableIndexHealth) -> u32| indices.iter().map(f).sum::<u32>();
    let active = sum(|i| i.active);
    let total = sum(|i| i.active + i.initializing + i.unassigned);
    TableClusterHealth {
        status: indices.iter().map(|i| i.status).max().unwrap_or(Status::Green),
        active_primaries: sum(|i| i.active_primaries),
        active,
        relocating: sum(|i| i.relocating),
        initializing: sum(|i| i.initializing),
        unassigned: sum(|i| i.unassigned),
        delayed_unassigned: sum(|i| i.delayed_unassigned),
        active_percent: if total == 0 { 100.0 } else { 100.0 * f64::from(active) / f64::from(total) },
    }
}
