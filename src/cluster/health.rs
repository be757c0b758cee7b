//! Cluster health from allocation. One node holds every primary; replicas cannot be assigned to
//! the node that holds their primary, so they stay unassigned (yellow).

use serde_json::{json, Map, Value};

use super::metadata::IndexMetadata;

/// Health colour, ordered green < yellow < red.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Green,
    Yellow,
    Red,
}

impl Status {
    /// `green`, `yellow`, `red`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Green => "green",
            Status::Yellow => "yellow",
            Status::Red => "red",
        }
    }
    /// Parses a `wait_for_status` value.
    pub fn parse(s: &str) -> Option<Status> {
        match s.to_ascii_lowercase().as_str() {
            "green" => Some(Status::Green),
            "yellow" => Some(Status::Yellow),
            "red" => Some(Status::Red),
            _ => None,
        }
    }
}

/// The replicas an index wants on a cluster of `nodes` data nodes (`auto_expand_replicas`).
pub fn effective_replicas(m: &IndexMetadata, nodes: u32) -> u32 {
    if let Some(spec) = m.setting("index.auto_expand_replicas") {
        if spec != "false" {
            if let Some((lo, hi)) = spec.split_once('-') {
                let lo: u32 = lo.parse().unwrap_or(0);
                let hi: u32 = if hi == "all" { nodes.saturating_sub(1) } else { hi.parse().unwrap_or(lo) };
                return nodes.saturating_sub(1).clamp(lo, hi.max(lo));
            }
        }
    }
    m.number_of_replicas()
}

/// Health of one index on a one-node cluster.
#[derive(Debug, Clone)]
pub struct IndexHealth {
    pub name: String,
    pub status: Status,
    pub shards: u32,
    pub replicas: u32,
    pub active_primaries: u32,
    pub active: u32,
    pub unassigned: u32,
    /// Shards that failed to open.
    pub failed: Vec<u32>,
}

impl IndexHealth {
    /// Computes the health of `m`: every primary is active on this node except the `failed`
    /// shards (which could not open: red, with their replicas unassigned too).
    pub fn of(m: &IndexMetadata, failed: &[u32]) -> IndexHealth {
        let shards = m.number_of_shards();
        let replicas = effective_replicas(m, 1);
        let down = failed.iter().filter(|&&f| f < shards).count() as u32;
        let unassigned = shards * replicas + down;
        let status = if down > 0 {
            Status::Red
        } else if unassigned > 0 {
            Status::Yellow
        } else {
            Status::Green
        };
        IndexHealth {
            name: m.name.clone(),
            status,
            shards,
            replicas,
            active_primaries: shards - down,
            active: shards - down,
            unassigned,
            failed: failed.to_vec(),
        }
    }

    /// The `indices.{name}` object; with `shards` the per-shard breakdown.
    pub fn to_json(&self, with_shards: bool) -> Value {
        let mut v = json!({
            "status": self.status.name(),
            "number_of_shards": self.shards,
            "number_of_replicas": self.replicas,
            "active_primary_shards": self.active_primaries,
            "active_shards": self.active,
            "relocating_shards": 0,
            "initializing_shards": 0,
            "unassigned_shards": self.unassigned,
        });
        if with_shards {
            let mut shards = Map::new();
            for i in 0..self.shards {
                let up = !self.failed.contains(&i);
                let status = match (up, self.replicas) {
                    (false, _) => Status::Red,
                    (true, 0) => Status::Green,
                    (true, _) => Status::Yellow,
                };
                shards.insert(
                    i.to_string(),
                    json!({
                        "status": status.name(),
                        "primary_active": up,
                        "active_shards": u32::from(up),
                        "relocating_shards": 0,
                        "initializing_shards": 0,
                        "unassigned_shards": self.replicas + u32::from(!up),
                    }),
                );
            }
            v["shards"] = Value::Object(shards);
        }
        v
    }
}

/// Cluster-wide totals over some indices.
#[derive(Debug, Clone)]
pub struct ClusterHealth {
    pub status: Status,
    pub indices: Vec<IndexHealth>,
    pub active_primaries: u32,
    pub active: u32,
    pub unassigned: u32,
}

impl ClusterHealth {
    /// Health over `indices` (all indices for the cluster level).
    pub fn of<'a>(indices: impl Iterator<Item = (&'a IndexMetadata, Vec<u32>)>) -> ClusterHealth {
        let indices: Vec<IndexHealth> = indices.map(|(m, failed)| IndexHealth::of(m, &failed)).collect();
        let status = indices.iter().map(|i| i.status).max().unwrap_or(Status::Green);
        ClusterHealth {
            status,
            active_primaries: indices.iter().map(|i| i.active_primaries).sum(),
            active: indices.iter().map(|i| i.active).sum(),
            unassigned: indices.iter().map(|i| i.unassigned).sum(),
            indices,
        }
    }

    /// `active_shards_percent_as_number`.
    pub fn active_percent(&self) -> f64 {
        let total = self.active + self.unassigned;
        if total == 0 {
            100.0
        } else {
            100.0 * self.active as f64 / total as f64
        }
    }
}
