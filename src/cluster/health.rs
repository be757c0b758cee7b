//! Health colours and the replica count an index asks for. Health itself follows the routing
//! table (see `allocation::health`).

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

/// What `_cat/indices` shows of an index besides the routing table's status: its shard and
/// replica counts (a closed index, which has no health of its own, is shown as its settings
/// ask: yellow with replicas, green without).
#[derive(Debug, Clone)]
pub struct IndexHealth {
    pub status: Status,
    pub shards: u32,
    pub replicas: u32,
}

impl IndexHealth {
    /// The counts of `m`, with the status of a one-node cluster.
    pub fn of(m: &IndexMetadata) -> IndexHealth {
        let replicas = effective_replicas(m, 1);
        let status = if replicas > 0 { Status::Yellow } else { Status::Green };
        IndexHealth { status, shards: m.number_of_shards(), replicas }
    }
}
