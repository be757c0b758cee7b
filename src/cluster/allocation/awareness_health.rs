//! Health per awareness attribute value (`_cluster/health?level=awareness_attributes`,
//! OpenSearch's `ClusterAwarenessHealth`): for each value of an attribute the data nodes with it,
//! the copies on them by state, and its weighted-routing weight.
//!
//! - The attributes: the one asked for, else `cluster.routing.allocation.awareness.attributes`.
//! - The values: those of the data nodes (a node without the attribute is left out; a forced
//!   value no node has does not appear).
//! - `active_shards` counts started copies only (a relocating source is in `relocating_shards`,
//!   its target in `initializing_shards` of the target's value).
//! - `unassigned_shards` = total copies of the metadata / number of values - active -
//!   initializing, when `cluster.routing.allocation.awareness.balance` is on and the attribute has
//!   forced values; else -1.
//! - `weight`: the value's weight in the weighted routing whatever its attribute (1.0 unlisted).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::settings::{list, value_str, AllocSettings};
use crate::cluster::routing_table::ShardState;
use crate::cluster::state::ClusterState;

/// The figures of one attribute value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValueHealth {
    pub active_shards: i64,
    pub initializing_shards: i64,
    pub relocating_shards: i64,
    pub unassigned_shards: i64,
    pub data_nodes: i64,
    pub weight: f64,
}

impl ValueHealth {
    fn to_json(&self) -> Value {
        json!({
            "active_shards": self.active_shards,
            "initializing_shards": self.initializing_shards,
            "relocating_shards": self.relocating_shards,
            "unassigned_shards": self.unassigned_shards,
            "data_nodes": self.data_nodes,
            "weight": self.weight,
        })
    }
}

/// Copies per node by state: (started, initializing, relocating).
fn copies_per_node(st: &ClusterState) -> BTreeMap<String, (i64, i64, i64)> {
    let mut out: BTreeMap<String, (i64, i64, i64)> = BTreeMap::new();
    for ir in st.routing.indices.values() {
        for t in &ir.shards {
            for c in &t.copies {
                let Some(node) = &c.node else { continue };
                let e = out.entry(node.clone()).or_default();
                match c.state {
                    ShardState::Started => e.0 += 1,
                    ShardState::Initializing => e.1 += 1,
                    ShardState::Relocating => {
                        e.2 += 1;
                        if let Some(target) = c.relocating_node.clone() {
                            out.entry(target).or_default().1 += 1;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// Every copy the metadata asks for (`Metadata.getTotalNumberOfShards`), closed indices too.
fn total_copies(st: &ClusterState, data_nodes: u32) -> i64 {
    st.metadata
        .indices
        .values()
        .map(|m| {
            i64::from(m.number_of_shards()) * (i64::from(crate::cluster::health::effective_replicas(m, data_nodes)) + 1)
        })
        .sum()
}

/// One attribute's values.
pub fn attribute_health(st: &ClusterState, attribute: &str, show_unassigned: bool) -> BTreeMap<String, ValueHealth> {
    let data: Vec<_> = st.nodes.iter().filter(|n| n.roles.iter().any(|r| r == "data")).collect();
    let per_node = copies_per_node(st);
    let mut out: BTreeMap<String, ValueHealth> = BTreeMap::new();
    for n in &data {
        let Some((_, value)) = n.attributes.iter().find(|(k, _)| k == attribute) else { continue };
        let h = out.entry(value.clone()).or_default();
        h.data_nodes += 1;
        if let Some((a, i, r)) = per_node.get(&n.node_id) {
            h.active_shards += a;
            h.initializing_shards += i;
            h.relocating_shards += r;
        }
    }
    let per_value = if out.is_empty() { 0 } else { total_copies(st, data.len() as u32) / out.len() as i64 };
    for (value, h) in out.iter_mut() {
        h.unassigned_shards = if show_unassigned { per_value - h.active_shards - h.initializing_shards } else { -1 };
        h.weight = st.metadata.weighted_routing.as_ref().and_then(|w| w.weights.get(value).copied()).unwrap_or(1.0);
    }
    out
}

/// The `awareness_attributes` object of a health response; `attribute` is the
/// `awareness_attribute` parameter.
pub fn awareness_health(st: &ClusterState, settings: &Map<String, Value>, attribute: Option<&str>) -> Value {
    let alloc = AllocSettings::parse(settings);
    let attributes: Vec<String> = match attribute.filter(|a| !a.trim().is_empty()) {
        Some(a) => vec![a.to_string()],
        None => alloc.awareness.clone(),
    };
    let balance = settings
        .get("cluster.routing.allocation.awareness.balance")
        .and_then(value_str)
        .is_some_and(|v| v.trim() == "true");
    let mut out = Map::new();
    for a in attributes {
        let key = format!("cluster.routing.allocation.awareness.force.{a}.values");
        let forced = settings.get(&key).and_then(value_str).is_some_and(|v| !list(&v).is_empty());
        let values: Map<String, Value> =
            attribute_health(st, &a, balance && forced).into_iter().map(|(k, h)| (k, h.to_json())).collect();
        out.insert(a, Value::Object(values));
    }
    Value::Object(out)
}

/// Whether `node_id`'s value of the weighted attribute has weight 0 (`WeightedRoutingUtils
/// .isWeighedAway`, which compares the weight's integer part).
pub fn is_weighed_away(st: &ClusterState, node_id: &str) -> bool {
    let Some(node) = st.node(node_id) else { return false };
    let Some(w) = st.metadata.weighted_routing.as_ref().filter(|w| w.is_set()) else { return false };
    let Some((_, value)) = node.attributes.iter().find(|(k, _)| *k == w.attribute) else { return false };
    w.weights.get(value).is_some_and(|x| x.trunc() == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::coordination_view::MemberView;
    use crate::cluster::metadata::{IndexMetadata, Metadata};
    use crate::cluster::operations_metadata::WeightedRouting;
    use crate::cluster::routing_table::{IndexRouting, RoutingTable, ShardCopy, ShardTable};
    use std::sync::Arc;

    fn copy(node: Option<&str>, primary: bool, state: ShardState, to: Option<&str>) -> ShardCopy {
        ShardCopy {
            primary,
            state,
            node: node.map(str::to_string),
            relocating_node: to.map(str::to_string),
            relocation_id: to.map(|_| "r".to_string()),
            allocation_id: Some("a".into()),
            recovery_source: None,
            unassigned: None,
        }
    }

    fn node(id: &str, zone: Option<&str>, data: bool) -> MemberView {
        MemberView {
            node_id: id.into(),
            name: id.into(),
            roles: if data { vec!["data".into()] } else { vec!["cluster_manager".into()] },
            attributes: zone.map(|z| vec![("zone".to_string(), z.to_string())]).unwrap_or_default(),
            ..Default::default()
        }
    }

    /// Zones a (n1, n2), b (n3); n4 without a zone, n5 a zone-c manager only. Index `i`:
    /// 3 shards x 2 copies (6 copies): n1 started x2, n2 initializing, n3 started, relocating
    /// n3 -> n2, one unassigned.
    fn state(weights: Option<WeightedRouting>) -> ClusterState {
        use ShardState::*;
        let mut rt = RoutingTable::default();
        let shards = vec![
            ShardTable {
                id: 0,
                primary_term: 1,
                in_sync: vec![],
                copies: vec![copy(Some("n1"), true, Started, None), copy(Some("n3"), false, Started, None)],
            },
            ShardTable {
                id: 1,
                primary_term: 1,
                in_sync: vec![],
                copies: vec![copy(Some("n1"), true, Started, None), copy(Some("n2"), false, Initializing, None)],
            },
            ShardTable {
                id: 2,
                primary_term: 1,
                in_sync: vec![],
                copies: vec![copy(Some("n3"), true, Relocating, Some("n2")), copy(None, false, Unassigned, None)],
            },
        ];
        rt.indices.insert("i".into(), IndexRouting { uuid: "u".into(), shards });
        let mut md = Metadata::default();
        let im = IndexMetadata {
            name: "i".into(),
            uuid: "u".into(),
            state: crate::cluster::metadata::IndexState::Open,
            settings: [
                ("index.number_of_shards".to_string(), json!("3")),
                ("index.number_of_replicas".to_string(), json!("1")),
            ]
            .into(),
            mapping: Arc::new(crate::engine::schema::Mapping::default()),
            aliases: BTreeMap::new(),
            routing_num_shards: 3,
            primary_term: 1,
            version: 1,
            mapping_version: 1,
            settings_version: 1,
            aliases_version: 1,
        };
        md.indices.insert("i".into(), Arc::new(im));
        md.weighted_routing = weights;
        let nodes = vec![
            node("n1", Some("a"), true),
            node("n2", Some("a"), true),
            node("n3", Some("b"), true),
            node("n4", None, true),
            node("n5", Some("c"), false),
        ];
        ClusterState { routing: Arc::new(rt), nodes: Arc::new(nodes), metadata: Arc::new(md), ..Default::default() }
    }

    fn settings(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn counts_copies_per_value() {
        let st = state(None);
        let h = attribute_health(&st, "zone", false);
        assert_eq!(h.keys().collect::<Vec<_>>(), ["a", "b"], "data nodes' values only");
        let a = &h["a"];
        assert_eq!(
            (a.active_shards, a.initializing_shards, a.relocating_shards, a.unassigned_shards, a.data_nodes, a.weight),
            (2, 2, 0, -1, 2, 1.0)
        );
        let b = &h["b"];
        assert_eq!((b.active_shards, b.initializing_shards, b.relocating_shards, b.data_nodes), (1, 0, 1, 1));
        // Balance with forced values: 6 copies / 2 values = 3 per value.
        let h = attribute_health(&st, "zone", true);
        assert_eq!(h["a"].unassigned_shards, 3 - 2 - 2);
        assert_eq!(h["b"].unassigned_shards, 3 - 1);
    }

    #[test]
    fn renders_the_attributes_asked_for() {
        let st =
            state(Some(WeightedRouting { attribute: "zone".into(), weights: [("b".into(), 0.0)].into(), version: 1 }));
        assert_eq!(awareness_health(&st, &Map::new(), None), json!({}));
        assert_eq!(awareness_health(&st, &Map::new(), Some("rack")), json!({"rack": {}}));
        let s = settings(json!({
            "cluster.routing.allocation.awareness.attributes": "zone",
            "cluster.routing.allocation.awareness.balance": "true",
            "cluster.routing.allocation.awareness.force.zone.values": "a,b",
        }));
        let v = awareness_health(&st, &s, None);
        assert_eq!(
            v["zone"]["b"],
            json!({"active_shards": 1, "initializing_shards": 0, "relocating_shards": 1, "unassigned_shards": 2, "data_nodes": 1, "weight": 0.0})
        );
        assert_eq!(v["zone"]["a"]["weight"], json!(1.0));
        assert_eq!(awareness_health(&st, &s, Some(" ")), v, "a blank attribute means all");
        // Balance without forced values: no unassigned figure.
        let s = settings(
            json!({"cluster.routing.allocation.awareness.attributes": "zone", "cluster.routing.allocation.awareness.balance": "true"}),
        );
        assert_eq!(awareness_health(&st, &s, None)["zone"]["a"]["unassigned_shards"], json!(-1));
    }

    #[test]
    fn weighed_away_nodes() {
        let w = WeightedRouting {
            attribute: "zone".into(),
            weights: [("a".into(), 1.0), ("b".into(), 0.0)].into(),
            version: 1,
        };
        let st = state(Some(w.clone()));
        assert!(is_weighed_away(&st, "n3"));
        assert!(!is_weighed_away(&st, "n1"));
        assert!(!is_weighed_away(&st, "n4"), "no zone");
        assert!(!is_weighed_away(&st, "nx"), "unknown node");
        let deleted = WeightedRouting { attribute: String::new(), weights: BTreeMap::new(), version: 2 };
        assert!(!is_weighed_away(&state(Some(deleted)), "n3"));
        let half = WeightedRouting { weights: [("b".into(), 0.5)].into(), ..w };
        assert!(is_weighed_away(&state(Some(half)), "n3"), "the integer part is compared");
    }
}
