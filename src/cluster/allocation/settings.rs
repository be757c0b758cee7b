//! The allocation settings, read from the merged cluster settings (flat keys) and from an
//! index's flat settings. A value that does not parse falls back to the default: the settings
//! APIs validate values before they are stored, so this only guards against a corrupt state.

use serde_json::{Map, Value};

use super::filter::{NodeFilters, OpType};
use crate::cluster::metadata::IndexMetadata;

/// `cluster.routing.allocation.enable` / `index.routing.allocation.enable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Enable {
    All,
    Primaries,
    NewPrimaries,
    None,
}

impl Enable {
    fn parse(s: &str) -> Option<Enable> {
        match s.to_ascii_lowercase().as_str() {
            "all" => Some(Enable::All),
            "primaries" => Some(Enable::Primaries),
            "new_primaries" => Some(Enable::NewPrimaries),
            "none" => Some(Enable::None),
            _ => None,
        }
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            Enable::All => "all",
            Enable::Primaries => "primaries",
            Enable::NewPrimaries => "new_primaries",
            Enable::None => "none",
        }
    }
}

/// A setting value as a string: scalars as they print, arrays joined with commas.
pub(crate) fn value_str(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(a) => Some(a.iter().filter_map(value_str).collect::<Vec<_>>().join(",")),
        _ => None,
    }
}

/// A comma-separated list value, trimmed, empties dropped (`Strings.tokenizeToStringArray`).
pub(crate) fn list(s: &str) -> Vec<String> {
    s.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect()
}

fn int(m: &Map<String, Value>, key: &str, default: i64) -> i64 {
    m.get(key).and_then(value_str).and_then(|s| s.trim().parse().ok()).unwrap_or(default)
}

fn float(m: &Map<String, Value>, key: &str, default: f32) -> f32 {
    m.get(key).and_then(value_str).and_then(|s| s.trim().parse().ok()).unwrap_or(default)
}

/// The cluster-level allocation settings.
#[derive(Debug, Clone)]
pub(crate) struct AllocSettings {
    pub enable: Enable,
    pub rebalance_enable: String,
    pub same_host: bool,
    pub require: Option<NodeFilters>,
    pub include: Option<NodeFilters>,
    pub exclude: Option<NodeFilters>,
    pub awareness: Vec<String>,
    pub forced_awareness: Vec<(String, Vec<String>)>,
    pub total_shards_per_node: i64,
    pub initial_primaries_recoveries: i64,
    pub initial_replicas_recoveries: i64,
    pub incoming_recoveries: i64,
    pub outgoing_recoveries: i64,
    pub balance_shard: f32,
    pub balance_index: f32,
    pub threshold: f32,
    pub allow_rebalance: String,
    pub concurrent_rebalance: i64,
}

impl AllocSettings {
    /// Reads the merged (persistent, then transient over it) cluster settings.
    pub(crate) fn parse(m: &Map<String, Value>) -> AllocSettings {
        let s = |k: &str| m.get(k).and_then(value_str);
        let concurrent = int(m, "cluster.routing.allocation.node_concurrent_recoveries", 2);
        let mut forced = Vec::new();
        let prefix = "cluster.routing.allocation.awareness.force.";
        for (k, v) in m {
            if let Some(attr) = k.strip_prefix(prefix).and_then(|r| r.strip_suffix(".values")) {
                let values = value_str(v).map(|s| list(&s)).unwrap_or_default();
                if !values.is_empty() {
                    forced.push((attr.to_string(), values));
                }
            }
        }
        forced.sort();
        AllocSettings {
            enable: s("cluster.routing.allocation.enable").and_then(|v| Enable::parse(&v)).unwrap_or(Enable::All),
            rebalance_enable: s("cluster.routing.rebalance.enable")
                .map(|v| v.to_ascii_lowercase())
                .unwrap_or("all".into()),
            same_host: s("cluster.routing.allocation.same_shard.host").as_deref() == Some("true"),
            require: NodeFilters::from_settings(m, "cluster.routing.allocation.require.", OpType::And),
            include: NodeFilters::from_settings(m, "cluster.routing.allocation.include.", OpType::Or),
            exclude: NodeFilters::from_settings(m, "cluster.routing.allocation.exclude.", OpType::Or),
            awareness: s("cluster.routing.allocation.awareness.attributes").map(|v| list(&v)).unwrap_or_default(),
            forced_awareness: forced,
            total_shards_per_node: int(m, "cluster.routing.allocation.total_shards_per_node", -1),
            initial_primaries_recoveries: int(m, "cluster.routing.allocation.node_initial_primaries_recoveries", 4),
            initial_replicas_recoveries: int(m, "cluster.routing.allocation.node_initial_replicas_recoveries", 4),
            incoming_recoveries: int(m, "cluster.routing.allocation.node_concurrent_incoming_recoveries", concurrent),
            outgoing_recoveries: int(m, "cluster.routing.allocation.node_concurrent_outgoing_recoveries", concurrent),
            balance_shard: float(m, "cluster.routing.allocation.balance.shard", 0.45),
            balance_index: float(m, "cluster.routing.allocation.balance.index", 0.55),
            threshold: float(m, "cluster.routing.allocation.balance.threshold", 1.0),
            allow_rebalance: s("cluster.routing.allocation.allow_rebalance")
                .map(|v| v.to_ascii_lowercase())
                .unwrap_or("indices_all_active".into()),
            concurrent_rebalance: int(m, "cluster.routing.allocation.cluster_concurrent_rebalance", 2),
        }
    }
}

/// The index-level allocation settings of one index.
pub(crate) struct IndexAlloc<'a>(pub &'a IndexMetadata);

impl IndexAlloc<'_> {
    fn get(&self, key: &str) -> Option<String> {
        self.0.settings.get(key).and_then(value_str)
    }
    /// `index.routing.allocation.enable`, when set.
    pub(crate) fn enable(&self) -> Option<Enable> {
        self.get("index.routing.allocation.enable").and_then(|v| Enable::parse(&v))
    }
    /// `index.allocation.max_retries` (5).
    pub(crate) fn max_retries(&self) -> i64 {
        self.get("index.allocation.max_retries").and_then(|v| v.trim().parse().ok()).unwrap_or(5)
    }
    /// `index.routing.allocation.total_shards_per_node` (-1: unlimited).
    pub(crate) fn total_shards_per_node(&self) -> i64 {
        self.get("index.routing.allocation.total_shards_per_node").and_then(|v| v.trim().parse().ok()).unwrap_or(-1)
    }
    /// `index.unassigned.node_left.delayed_timeout` in millis (1m; `0` disables).
    pub(crate) fn delayed_timeout_millis(&self) -> i64 {
        let key = "index.unassigned.node_left.delayed_timeout";
        match self.get(key) {
            None => 60_000,
            Some(v) => match crate::cluster::settings::parse_time(&v, key) {
                Ok(Some(d)) => d.as_millis().min(i64::MAX as u128) as i64,
                Ok(None) => 0,
                Err(_) => 60_000,
            },
        }
    }
    /// `index.priority` (1).
    pub(crate) fn priority(&self) -> i64 {
        self.get("index.priority").and_then(|v| v.trim().parse().ok()).unwrap_or(1)
    }
    /// `index.routing.rebalance.enable`, when set.
    pub(crate) fn rebalance_enable(&self) -> Option<String> {
        self.get("index.routing.rebalance.enable").map(|v| v.to_ascii_lowercase())
    }
    /// Whether `index.auto_expand_replicas` expands to every node (`0-all`).
    pub(crate) fn auto_expand_all(&self) -> bool {
        self.get("index.auto_expand_replicas").is_some_and(|v| v.ends_with("-all"))
    }
    /// The index's `require`, `include` and `exclude` filters.
    pub(crate) fn filters(&self) -> [Option<NodeFilters>; 3] {
        let m: Map<String, Value> = self.0.settings.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        [
            NodeFilters::from_settings(&m, "index.routing.allocation.require.", OpType::And),
            NodeFilters::from_settings(&m, "index.routing.allocation.include.", OpType::Or),
            NodeFilters::from_settings(&m, "index.routing.allocation.exclude.", OpType::Or),
        ]
    }
}

/// The replicas an index wants with `data_nodes` data nodes (`AutoExpandReplicas`): with no data
/// node an auto-expanding index keeps `current` (OpenSearch leaves the count unchanged then).
pub(crate) fn desired_replicas(m: &IndexMetadata, data_nodes: u32, current: u32) -> u32 {
    let auto = m.setting("index.auto_expand_replicas").is_some_and(|v| v != "false");
    if auto && data_nodes == 0 {
        return current;
    }
    crate::cluster::health::effective_replicas(m, data_nodes)
}
