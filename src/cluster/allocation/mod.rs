//! Shard allocation: where every copy of every shard should live, decided by the cluster manager
//! as pure functions over the routing table (OpenSearch's `AllocationService`, its deciders and
//! the `BalancedShardsAllocator`). No I/O, no clock (the caller passes `now_millis`), no
//! randomness (the caller passes the allocation id generator).
//!
//! | file | holds |
//! |---|---|
//! | `settings.rs` | the cluster and index allocation settings, parsed once per call |
//! | `filter.rs` | `include`/`exclude`/`require` node filters (`DiscoveryNodeFilters`) |
//! | `deciders.rs` | the allocation deciders, one function each, OpenSearch's names and messages |
//! | `deciders_load.rs` | the deciders about node load: throttling, shards limit, awareness |
//! | `combine.rs` | the deciders combined: can allocate, can remain, can rebalance, force primary |
//! | `balance.rs` | the weight model of the balanced allocator |
//! | `failures.rs` | failing a copy: node left, shard failed, primary promotion, in-sync set |
//! | `sync.rs` | the table following the metadata: new, deleted, closed indices, replica counts |
//! | `assign.rs` | assigning unassigned copies: existing stores first, then by weight |
//! | `relocate.rs` | relocation: a copy moving to another node, copies that may not remain |
//! | `rebalance.rs` | moving started copies toward balance (`balance` of the allocator) |
//! | `commands.rs` | the `_cluster/reroute` commands: move, cancel, allocate a replica or a primary |
//! | `reroute.rs` | `reroute` and the shard events (`shard_started`, `shard_failed`) |
//! | `explain.rs` | `_cluster/allocation/explain`: finding the copy, unassigned copies |
//! | `explain_move.rs` | explaining a started copy: may it stay, would it move |
//! | `explain_decisions.rs` | node results, their order, decision names, time values |
//! | `render.rs` | the `routing_table` / `routing_nodes` of `_cluster/state`, shard summaries |
//! | `table_health.rs` | cluster health computed from the table |
//! | `awareness_health.rs` | health per awareness attribute value (`level=awareness_attributes`) |
//!
//! Decisions where OpenSearch leaves room (see each file for details):
//! - A copy lost with its node keeps its allocation id in the in-sync set (OpenSearch's
//!   `disassociateDeadNodes` fails shards without marking them stale); only `shard_failed`
//!   (OpenSearch's `markAsStale`), [`remove_stale_allocation_ids`] (the primary reporting copies
//!   it cannot reach), dropping a replica on purpose, and a fresh copy overwriting a node's old
//!   data shrink it, never to empty; it is trimmed to `replicas + 1` ids when it grows
//!   (`IndexMetadataUpdater.updateInSyncAllocations`).
//! - OpenSearch asks the nodes which shard data they hold; here an unassigned copy whose id is
//!   still in-sync remembers that id (not rendered) and its `last_node`, and a primary recovering
//!   an `EXISTING_STORE` goes only to such a node, reusing the id.
//! - `reroute` repeats its assignment pass until nothing more is assigned (what successive
//!   OpenSearch reroutes reach), so `reroute(reroute(t)) == reroute(t)`.
//! - A relocating copy is one entry of the table (the source, with the target's node and
//!   allocation id), as in OpenSearch's `RoutingTable`; deciders and the weight model see the
//!   target on its node (OpenSearch's `RoutingNodes`).
//! - Closed indices leave the table (their in-sync ids with them); OpenSearch 2+ keeps closed
//!   indices' shards (replicated closed indices) and reopens them from `EXISTING_STORE`.

mod assign;
pub mod awareness_health;
mod balance;
mod combine;
mod commands;
mod deciders;
mod deciders_load;
mod explain;
mod explain_decisions;
mod explain_move;
mod failures;
mod filter;
mod rebalance;
mod relocate;
pub(crate) mod render;
mod reroute;
pub(crate) mod settings;
mod sync;
mod table_health;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_deciders;
#[cfg(test)]
mod tests_explain;
#[cfg(test)]
mod tests_props;
#[cfg(test)]
mod tests_relocate;

use std::collections::BTreeMap;

pub use commands::{execute as execute_command, node_string, reset_failed_counters, Command, CommandError, Executed};
pub use explain::{explain, ExplainRequest};
pub use render::{render_routing_nodes, render_routing_table};
pub use reroute::{remove_stale_allocation_ids, reroute, shard_failed, shard_started};
pub use table_health::{cluster_totals, health, ShardHealth, TableClusterHealth, TableIndexHealth};

/// A node of the cluster as allocation sees it. Only nodes with the `data` role hold shards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocNode {
    pub id: String,
    pub name: String,
    /// Host name or address (`_host`, `_ip`, `cluster.routing.allocation.same_shard.host`).
    pub host: String,
    /// `ip:port` of the transport.
    pub transport_address: String,
    pub roles: Vec<String>,
    pub attributes: BTreeMap<String, String>,
}

impl AllocNode {
    /// Whether it may hold shards.
    pub fn is_data(&self) -> bool {
        self.roles.iter().any(|r| r == "data")
    }
}
