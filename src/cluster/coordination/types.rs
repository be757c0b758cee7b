//! The Raft type configuration: who the members are and what the log carries.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Cursor;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A node's Raft id: the first eight bytes of the murmur3 hash of its persistent node id
/// ([`raft_id`]). OpenSearch's node ids are strings; openraft wants a small copyable id.
pub type RaftId = u64;

/// A member of the cluster as the coordination layer knows it (openraft's `Node`): enough to
/// reach it and to show it in `_cluster/state` and `_cat/nodes`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterNode {
    /// The persistent node id (OpenSearch's `nodeId`).
    pub node_id: String,
    pub name: String,
    /// `host:port` of the transport.
    pub transport_address: String,
    /// `host:port` of HTTP.
    #[serde(default)]
    pub http_address: String,
    #[serde(default)]
    pub roles: Vec<String>,
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
}

impl ClusterNode {
    /// Whether the node may vote and become the cluster manager.
    pub fn is_cluster_manager_eligible(&self) -> bool {
        self.roles.iter().any(|r| r == "cluster_manager" || r == "master")
    }

    /// The member as the cluster state and the APIs list it.
    pub fn view(&self) -> crate::cluster::coordination_view::MemberView {
        crate::cluster::coordination_view::MemberView {
            node_id: self.node_id.clone(),
            name: self.name.clone(),
            transport_address: self.transport_address.clone(),
            http_address: self.http_address.clone(),
            roles: self.roles.clone(),
            attributes: self.attributes.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        }
    }
}

impl fmt::Display for ClusterNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}{{{}}}{{{}}}", self.name, self.node_id, self.transport_address)
    }
}

/// What one log entry asks of the state machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// Publish a new cluster state, if the current one still has version `base_version`
    /// (optimistic concurrency: the proposer computed `state` from that version). The new
    /// state's version is `base_version + 1`.
    Publish { base_version: u64, state: Arc<Value> },
}

/// What applying a [`Command`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CommandResult {
    /// The state was published with this version.
    Published { version: u64 },
    /// The state had moved on: nothing changed; the current version is given.
    Conflict { current: u64 },
    /// A log entry that is not a command (a leader's blank entry, a membership change).
    None,
}

openraft::declare_raft_types!(
    /// The cluster's Raft: node ids are [`RaftId`]s, members are [`ClusterNode`]s, entries carry
    /// [`Command`]s, snapshots are the serialised cluster state.
    pub TypeConfig:
        D = Command,
        R = CommandResult,
        NodeId = RaftId,
        Node = ClusterNode,
        Entry = openraft::Entry<TypeConfig>,
        SnapshotData = Cursor<Vec<u8>>,
);

/// The Raft of this crate.
pub type Raft = openraft::Raft<TypeConfig>;
/// A log entry.
pub type Entry = openraft::Entry<TypeConfig>;
/// A log id.
pub type LogId = openraft::LogId<RaftId>;
/// A vote.
pub type Vote = openraft::Vote<RaftId>;
/// A storage error.
pub type StorageError = openraft::StorageError<RaftId>;
/// A membership as the state machine stores it.
pub type StoredMembership = openraft::StoredMembership<RaftId, ClusterNode>;

/// The Raft id of a node id: the low 64 bits of murmur3-x86-32 run twice with two seeds,
/// never 0 (openraft reserves nothing, but 0 reads as "unset" in logs and dumps).
pub fn raft_id(node_id: &str) -> RaftId {
    use crate::engine::codec::murmur3::murmur3_x86_32;
    let hi = murmur3_x86_32(node_id.as_bytes(), 0x5eed_0001) as u64;
    let lo = murmur3_x86_32(node_id.as_bytes(), 0x5eed_0002) as u64;
    ((hi << 32) | lo).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raft_ids_are_stable_and_distinct() {
        assert_eq!(raft_id("abc"), raft_id("abc"));
        let ids: std::collections::HashSet<_> = (0..10_000).map(|i| raft_id(&format!("node-{i}"))).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(!ids.contains(&0));
    }

    #[test]
    fn eligibility_by_role() {
        let mut n = ClusterNode { roles: vec!["data".into()], ..Default::default() };
        assert!(!n.is_cluster_manager_eligible());
        n.roles.push("cluster_manager".into());
        assert!(n.is_cluster_manager_eligible());
    }
}
