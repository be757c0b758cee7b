//! Raft's messages between nodes: openraft's network traits over a [`Wire`], and the handler
//! that answers them on the receiving node.
//!
//! In a running node the wire is the transport (named actions below, JSON payloads); in the
//! coordination simulation it is an in-memory network that drops, delays and partitions.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use openraft::error::{InstallSnapshotError, NetworkError, RPCError, RaftError, RemoteError, Unreachable};
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse, VoteRequest,
    VoteResponse,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::types::{ClusterNode, Raft, RaftId, TypeConfig};

/// Raft's append-entries (and heartbeat) RPC.
pub const ACTION_APPEND: &str = "internal:cluster/coordination/raft/append_entries";
/// Raft's vote RPC (pre-votes too).
pub const ACTION_VOTE: &str = "internal:cluster/coordination/raft/vote";
/// One chunk of a snapshot sent to a lagging node.
pub const ACTION_SNAPSHOT: &str = "internal:cluster/coordination/raft/install_snapshot";

/// A future the wire returns.
pub type WireFuture = Pin<Box<dyn Future<Output = Result<Vec<u8>, WireError>> + Send + 'static>>;

/// How a request reaches another node.
pub trait Wire: Send + Sync + fmt::Debug + 'static {
    /// Sends `payload` to `to` as `action` and returns the answer's payload.
    fn call(&self, to: &ClusterNode, action: &'static str, payload: Vec<u8>, timeout: Duration) -> WireFuture;
}

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireError {
    /// No connection (refused, reset, partitioned): back off before retrying.
    Unreachable(String),
    /// No answer in time.
    Timeout(String),
    /// The other node answered with an error of its own.
    Remote(String),
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Unreachable(s) => write!(f, "unreachable: {s}"),
            WireError::Timeout(s) => write!(f, "timed out: {s}"),
            WireError::Remote(s) => write!(f, "remote error: {s}"),
        }
    }
}

impl std::error::Error for WireError {}

/// Gives openraft one [`RaftClient`] per target.
#[derive(Debug, Clone)]
pub struct NetworkFactory {
    pub wire: Arc<dyn Wire>,
}

impl RaftNetworkFactory<TypeConfig> for NetworkFactory {
    type Network = RaftClient;

    async fn new_client(&mut self, target: RaftId, node: &ClusterNode) -> RaftClient {
        RaftClient { wire: self.wire.clone(), target, node: node.clone() }
    }
}

/// Sends Raft RPCs to one node.
#[derive(Debug)]
pub struct RaftClient {
    wire: Arc<dyn Wire>,
    target: RaftId,
    node: ClusterNode,
}

type RpcResult<R, E> = Result<R, RPCError<RaftId, ClusterNode, RaftError<RaftId, E>>>;

impl RaftClient {
    async fn rpc<Q, R, E>(&self, action: &'static str, req: &Q, option: &RPCOption) -> RpcResult<R, E>
    where
        Q: Serialize,
        R: DeserializeOwned,
        E: std::error::Error + DeserializeOwned,
    {
        let payload = serde_json::to_vec(req).map_err(|e| RPCError::Network(NetworkError::new(&e)))?;
        let answer = self.wire.call(&self.node, action, payload, option.hard_ttl()).await.map_err(|e| match e {
            WireError::Unreachable(_) | WireError::Timeout(_) => RPCError::Unreachable(Unreachable::new(&e)),
            WireError::Remote(_) => RPCError::Network(NetworkError::new(&e)),
        })?;
        let r: Result<R, RaftError<RaftId, E>> =
            serde_json::from_slice(&answer).map_err(|e| RPCError::Network(NetworkError::new(&e)))?;
        r.map_err(|e| RPCError::RemoteError(RemoteError::new_with_node(self.target, self.node.clone(), e)))
    }
}

impl RaftNetwork<TypeConfig> for RaftClient {
    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<TypeConfig>,
        option: RPCOption,
    ) -> RpcResult<AppendEntriesResponse<RaftId>, openraft::error::Infallible> {
        self.rpc(ACTION_APPEND, &rpc, &option).await
    }

    async fn install_snapshot(
        &mut self,
        rpc: InstallSnapshotRequest<TypeConfig>,
        option: RPCOption,
    ) -> RpcResult<InstallSnapshotResponse<RaftId>, InstallSnapshotError> {
        self.rpc(ACTION_SNAPSHOT, &rpc, &option).await
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<RaftId>,
        option: RPCOption,
    ) -> RpcResult<VoteResponse<RaftId>, openraft::error::Infallible> {
        self.rpc(ACTION_VOTE, &rpc, &option).await
    }
}

/// Answers a Raft RPC received by this node: the payload of the answer (a JSON `Result`), or
/// why the request could not be read.
pub async fn handle(raft: &Raft, action: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
    fn answer<T: Serialize>(r: &T) -> Result<Vec<u8>, String> {
        serde_json::to_vec(r).map_err(|e| format!("cannot serialise the answer: {e}"))
    }
    fn request<T: DeserializeOwned>(action: &str, payload: &[u8]) -> Result<T, String> {
        serde_json::from_slice(payload).map_err(|e| format!("malformed [{action}] request: {e}"))
    }
    match action {
        ACTION_APPEND => answer(&raft.append_entries(request(action, payload)?).await),
        ACTION_VOTE => answer(&raft.vote(request(action, payload)?).await),
        ACTION_SNAPSHOT => answer(&raft.install_snapshot(request(action, payload)?).await),
        other => Err(format!("No handler for action [{other}]")),
    }
}
