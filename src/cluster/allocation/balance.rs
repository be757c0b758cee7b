//! The balanced allocator's weight model (`BalancedShardsAllocator.WeightFunction` over
//! `LocalShardsBalancer`'s model nodes): a node's weight for an index is
//! `theta0 * (node shards - avg shards per node) + theta1 * (node shards of the index - avg
//! shards of the index per node)`, `theta0 = balance.shard / sum`, `theta1 = balance.index /
//! sum` (0.45 / 0.55 by default). Unassigned copies go to the lowest weight that the deciders
//! allow, with OpenSearch's `index.shard.count.constraint` (a node already holding its share of
//! the index's copies weighs 1 000 000 more).

use std::collections::BTreeMap;

use super::settings::AllocSettings;
use crate::cluster::routing_table::{RoutingTable, ShardState};

/// `ConstraintTypes.CONSTRAINT_WEIGHT`.
const CONSTRAINT_WEIGHT: f32 = 1_000_000.0;

/// One data node in the model.
#[derive(Debug, Clone)]
pub(crate) struct ModelNode {
    pub id: String,
    total: usize,
    per_index: BTreeMap<String, usize>,
    highest_primary: BTreeMap<String, i64>,
}

/// The shards per node as allocation proceeds (throttled assignments count too, as in
/// OpenSearch, so that one round spreads them).
#[derive(Debug, Clone)]
pub(crate) struct Model {
    pub nodes: Vec<ModelNode>,
    total: usize,
    index_copies: BTreeMap<String, usize>,
    theta0: f32,
    theta1: f32,
}

impl Model {
    /// The model of `table` over the data nodes `ids` (relocating copies counted on their target node).
    pub(crate) fn build(table: &RoutingTable, ids: &[&str], s: &AllocSettings) -> Model {
        let sum = s.balance_shard + s.balance_index;
        let (theta0, theta1) = if sum > 0.0 { (s.balance_shard / sum, s.balance_index / sum) } else { (0.45, 0.55) };
        let mut m = Model {
            nodes: ids
                .iter()
                .map(|id| ModelNode {
                    id: id.to_string(),
                    total: 0,
                    per_index: BTreeMap::new(),
                    highest_primary: BTreeMap::new(),
                })
                .collect(),
            total: 0,
            index_copies: table
                .indices
                .iter()
                .map(|(k, ir)| (k.clone(), ir.shards.iter().map(|s| s.copies.len()).sum()))
                .collect(),
            theta0,
            theta1,
        };
        for (index, st, c) in table.copies() {
            // A relocating copy counts on the node it moves to (its target's).
            let node = if c.state == ShardState::Relocating { &c.relocating_node } else { &c.node };
            if let Some(i) = node.as_deref().and_then(|n| m.position(n)) {
                m.add(i, index, st.id, c.primary);
            }
        }
        m
    }

    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    /// Counts one more copy on node `i`.
    pub(crate) fn add(&mut self, i: usize, index: &str, shard: u32, primary: bool) {
        let n = &mut self.nodes[i];
        n.total += 1;
        *n.per_index.entry(index.to_string()).or_default() += 1;
        if primary {
            let h = n.highest_primary.entry(index.to_string()).or_insert(-1);
            *h = (*h).max(i64::from(shard));
        }
        self.total += 1;
    }

    /// `avgShardsPerNode()`: an integer division, as OpenSearch computes it.
    fn avg(&self) -> f32 {
        (self.total / self.nodes.len().max(1)) as f32
    }

    /// `avgShardsPerNode(index)`.
    fn avg_index(&self, index: &str) -> f32 {
        self.index_copies.get(index).copied().unwrap_or(0) as f32 / self.nodes.len().max(1) as f32
    }

    /// The copies of `index` on node `i`.
    pub(crate) fn index_count(&self, i: usize, index: &str) -> usize {
        self.nodes[i].per_index.get(index).copied().unwrap_or(0)
    }

    /// `WeightFunction.weight`.
    pub(crate) fn weight(&self, i: usize, index: &str) -> f32 {
        let n = &self.nodes[i];
        self.theta0 * (n.total as f32 - self.avg())
            + self.theta1 * (self.index_count(i, index) as f32 - self.avg_index(index))
    }

    /// `weightWithAllocationConstraints`.
    pub(crate) fn weight_with_constraints(&self, i: usize, index: &str) -> f32 {
        let breached = self.index_count(i, index) as f32 >= self.avg_index(index).ceil();
        self.weight(i, index) + if breached { CONSTRAINT_WEIGHT } else { 0.0 }
    }

    /// The highest primary shard id of `index` on node `i` (-1 for none), for tie-breaks.
    pub(crate) fn highest_primary(&self, i: usize, index: &str) -> i64 {
        self.nodes[i].highest_primary.get(index).copied().unwrap_or(-1)
    }

    /// Node indexes sorted by weight for `index`, ties by node id (`NodeSorter.reset`).
    pub(crate) fn sorted(&self, index: &str) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.nodes.len()).collect();
        v.sort_by(|&a, &b| {
            self.weight(a, index)
                .total_cmp(&self.weight(b, index))
                .then_with(|| self.nodes[a].id.cmp(&self.nodes[b].id))
        });
        v
    }
}

/// `LocalShardsBalancer.lessThan`: deltas near the threshold round to it.
pub(crate) fn less_than(delta: f32, threshold: f32) -> bool {
    delta <= threshold + 0.001
}
