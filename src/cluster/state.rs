//! The cluster state: one versioned value every node applies in order (OpenSearch's
//! `ClusterState`): the members, the metadata and the routing table. A node changes it only by
//! publishing a new one computed from the version it has applied ([`StatePublisher`]); the
//! coordination (server builds) makes that a quorum-committed Raft entry, a node without
//! coordination (unit tests, benches) keeps it in its own state file.

use std::sync::Arc;

use serde_json::{json, Value};

use super::coordination_view::MemberView;
use super::metadata::Metadata;
use super::routing_table::RoutingTable;
use crate::error::{OsError, OsResult};

/// One version of the cluster state.
#[derive(Debug, Clone, Default)]
pub struct ClusterState {
    /// Raised by one on every publication (`_cluster/state` `version`).
    pub version: u64,
    /// The nodes of the cluster (OpenSearch's `DiscoveryNodes`), in node-id order.
    pub nodes: Arc<Vec<MemberView>>,
    pub metadata: Arc<Metadata>,
    pub routing: Arc<RoutingTable>,
}

impl ClusterState {
    /// The published form: metadata as in the state file, the routing table as serde JSON. The
    /// members travel beside it (the coordination's membership), not in it.
    pub fn to_published(&self) -> Value {
        json!({
            "metadata": self.metadata.to_state_json(),
            "routing_table": serde_json::to_value(&*self.routing).unwrap_or(Value::Null),
        })
    }

    /// Reads [`ClusterState::to_published`]'s form back (`Null`: nothing published yet).
    pub fn from_published(version: u64, v: &Value, nodes: Arc<Vec<MemberView>>) -> OsResult<ClusterState> {
        if v.is_null() {
            return Ok(ClusterState { version, nodes, ..Default::default() });
        }
        let metadata = Metadata::from_state_json(&v["metadata"])?;
        let routing: RoutingTable = match v.get("routing_table") {
            None | Some(Value::Null) => RoutingTable::default(),
            Some(r) => serde_json::from_value(r.clone())
                .map_err(|e| OsError::internal(format!("corrupt routing table in the cluster state: {e}")))?,
        };
        Ok(ClusterState { version, nodes, metadata: Arc::new(metadata), routing: Arc::new(routing) })
    }

    /// The member with `node_id`.
    pub fn node(&self, node_id: &str) -> Option<&MemberView> {
        self.nodes.iter().find(|n| n.node_id == node_id)
    }
}

/// What a publication computes: the next state from the current one, or `None` to change
/// nothing. It may run more than once (when another publication came first).
pub type NextState<'a> = dyn FnMut(&ClusterState) -> OsResult<Option<ClusterState>> + 'a;

/// Where a node publishes cluster states. `publish` blocks (it is called from the pools'
/// threads) until the new state is committed, and returns it (or the current one when `next`
/// changed nothing); the caller applies it.
pub trait StatePublisher: Send + Sync + std::fmt::Debug {
    fn publish(&self, next: &mut NextState<'_>) -> OsResult<Arc<ClusterState>>;
}
