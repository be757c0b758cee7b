//! What the APIs show of the coordination (`_cluster/state`, `_cat/cluster_manager`, ...),
//! as plain values: the coordination itself (openraft, the transport) exists only in the server
//! build, and the node fills this in once it runs.

/// A member of the cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemberView {
    pub node_id: String,
    pub name: String,
    pub transport_address: String,
    pub http_address: String,
    pub roles: Vec<String>,
    pub attributes: Vec<(String, String)>,
}

/// The coordination as this node sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoordinationView {
    /// The Raft term (OpenSearch's coordination term).
    pub term: u64,
    /// The elected cluster manager's node id, if one is known.
    pub cluster_manager: Option<String>,
    /// Node ids of the voting configuration applied (committed).
    pub last_committed_config: Vec<String>,
    /// Node ids of the voting configuration last accepted (maybe not yet committed).
    pub last_accepted_config: Vec<String>,
    /// Every member, voting or not, in node-id order.
    pub members: Vec<MemberView>,
}

/// A source of [`CoordinationView`]s.
pub trait Coordination: Send + Sync + std::fmt::Debug {
    fn view(&self) -> CoordinationView;
    /// Whether a cluster manager is elected (`view().cluster_manager.is_some()`, without building
    /// the view: every request's block check asks).
    fn has_cluster_manager(&self) -> bool {
        self.view().cluster_manager.is_some()
    }
}
