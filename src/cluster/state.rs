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
    /// Orders the states a publisher produces, membership changes included (the coordination's
    /// log index; the version for a node without coordination). The applier skips older ones.
    pub applied_index: u64,
    /// The nodes of the cluster (OpenSearch's `DiscoveryNodes`), in node-id order.
    pub nodes: Arc<Vec<MemberView>>,
    pub metadata: Arc<Metadata>,
    pub routing: Arc<RoutingTable>,
}

impl ClusterState {
    /// The published form: the nodes, the metadata as in the state file, the routing table
    /// (serde JSON).
    pub fn to_published(&self) -> Value {
        json!({
            "nodes": serde_json::to_value(&*self.nodes).unwrap_or(Value::Null),
            "metadata": self.metadata.to_state_json(),
            "routing_table": serde_json::to_value(&*self.routing).unwrap_or(Value::Null),
        })
    }

    /// Reads [`ClusterState::to_published`]'s form back (`Null`: nothing published yet).
    pub fn from_published(version: u64, applied_index: u64, v: &Value) -> OsResult<ClusterState> {
        if v.is_null() {
            return Ok(ClusterState { version, applied_index, ..Default::default() });
        }
        let nodes: Vec<MemberView> = match v.get("nodes") {
            None | Some(Value::Null) => Vec::new(),
            Some(n) => serde_json::from_value(n.clone())
                .map_err(|e| OsError::internal(format!("corrupt nodes in the cluster state: {e}")))?,
        };
        let nodes = Arc::new(nodes);
        let metadata = Metadata::from_state_json(&v["metadata"])?;
        let routing: RoutingTable = match v.get("routing_table") {
            None | Some(Value::Null) => RoutingTable::default(),
            Some(r) => serde_json::from_value(r.clone())
                .map_err(|e| OsError::internal(format!("corrupt routing table in the cluster state: {e}")))?,
        };
        Ok(ClusterState { version, applied_index, nodes, metadata: Arc::new(metadata), routing: Arc::new(routing) })
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

    /// Waits (at most `timeout`) until every other node of `st` applied it (OpenSearch
    /// acknowledges a cluster-state update once all nodes did); whether they all did. Nodes
    /// that cannot be reached are not waited for (the follower checks remove them).
    fn await_applied(&self, _st: &ClusterState, _timeout: std::time::Duration) -> bool {
        true
    }
}

/// A member view of this node (a node without coordination is a cluster of one).
pub fn member_of(node: &super::NodeIdentity, transport_address: &str) -> MemberView {
    MemberView {
        node_id: node.node_id.clone(),
        name: node.node_name.clone(),
        transport_address: transport_address.to_string(),
        http_address: node.http_address.clone(),
        roles: node.roles.clone(),
        attributes: node.attributes.clone(),
    }
}

/// The publisher of a node without coordination: the state lives in memory (the applier keeps
/// the metadata in the node's state file), one publication at a time.
#[derive(Debug)]
pub struct LocalPublisher {
    current: std::sync::Mutex<Arc<ClusterState>>,
}

impl LocalPublisher {
    pub fn new(initial: Arc<ClusterState>) -> LocalPublisher {
        LocalPublisher { current: std::sync::Mutex::new(initial) }
    }
}

impl StatePublisher for LocalPublisher {
    fn publish(&self, next: &mut NextState<'_>) -> OsResult<Arc<ClusterState>> {
        let mut cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
        match next(&cur)? {
            None => Ok(cur.clone()),
            Some(mut s) => {
                s.version = cur.version + 1;
                s.applied_index = s.version;
                s.nodes = cur.nodes.clone();
                *cur = Arc::new(s);
                Ok(cur.clone())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_form_round_trips_and_old_forms_read() {
        let mut md = Metadata { cluster_uuid: "c".into(), version: 3, ..Default::default() };
        md.persistent_settings.insert("a".into(), json!("b"));
        let st = ClusterState {
            version: 7,
            applied_index: 9,
            nodes: Arc::new(vec![MemberView { node_id: "n".into(), name: "x".into(), ..Default::default() }]),
            metadata: Arc::new(md),
            routing: Arc::new(RoutingTable::default()),
        };
        let back = ClusterState::from_published(7, 9, &st.to_published()).unwrap();
        assert_eq!(back.nodes, st.nodes);
        assert_eq!(back.metadata.cluster_uuid, "c");
        assert_eq!(back.metadata.persistent_settings, st.metadata.persistent_settings);
        // Nothing published yet; a state from before nodes and routing travelled in it.
        assert!(ClusterState::from_published(0, 0, &Value::Null).unwrap().nodes.is_empty());
        let old = json!({"metadata": st.metadata.to_state_json()});
        let o = ClusterState::from_published(1, 1, &old).unwrap();
        assert!(o.nodes.is_empty() && o.routing.indices.is_empty());
        assert!(ClusterState::from_published(1, 1, &json!({"metadata": {}, "nodes": 5})).is_err());
    }

    #[test]
    fn the_local_publisher_numbers_versions() {
        let p = LocalPublisher::new(Arc::new(ClusterState::default()));
        let a = p.publish(&mut |cur| Ok(Some(cur.clone()))).unwrap();
        let b = p.publish(&mut |_| Ok(None)).unwrap();
        let c = p.publish(&mut |cur| Ok(Some(cur.clone()))).unwrap();
        assert_eq!((a.version, b.version, c.version), (1, 1, 2));
        assert_eq!(c.applied_index, 2);
        assert!(p.publish(&mut |_| Err(OsError::illegal("no"))).is_err());
    }
}
