//! cluster/coordination/: who is the cluster manager and what the cluster state is, agreed by a
//! quorum (DESIGN.md §4). openraft runs the Raft of the cluster-manager-eligible nodes; its
//! leader is the elected cluster manager; each log entry publishes a new cluster state, a
//! versioned JSON document the cluster layer defines; every node applies the states in order.
//! One node is a one-voter cluster on the same path.
//!
//! | file | holds |
//! |---|---|
//! | `types.rs` | the Raft type configuration, [`ClusterNode`], [`Command`] |
//! | `log_files.rs` | the durable log, vote and commit point (`format/raft-log.md`) |
//! | `log_store.rs` | openraft's log storage over them |
//! | `state_machine.rs` | the published state and its durable snapshot |
//! | `network.rs` | Raft RPCs over a [`Wire`]; the receiving side's handler |
//! | `reconfigure.rs` | the voting configuration the cluster manager wants (OpenSearch's `Reconfigurator`) |
//! | `transport_wire.rs` | the wire of a running node: the transport |
//! | `sim.rs` | an in-memory wire with faults, for the simulation tests |
//!
//! Publishing is optimistic: a node computes the next state from the version it has applied and
//! proposes it with that base version; the state machine accepts it only if the base is still
//! current (else the proposer catches up and computes again). A follower forwards its proposal
//! to the leader. A publication returns once the new state is committed by a quorum and applied
//! on the publishing node.
//!
//! Members join as learners; the cluster manager chooses the voters ([`Coordinator::set_voters`],
//! from [`reconfigure::reconfigure`]), as OpenSearch's cluster manager does. A leader that takes
//! itself out of the voters also leaves the members, steps down once that is committed (openraft
//! keeps a learner that leads leading), asks a remaining voter to start an election at once
//! ([`ACTION_ELECT_NOW`]) and joins again as a learner through discovery.

pub mod log_files;
pub mod log_store;
pub mod network;
pub mod reconfigure;
#[cfg(test)]
mod sim;
#[cfg(test)]
mod sim_tests;
pub mod state_machine;
pub mod transport_wire;
pub mod types;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use openraft::error::ChangeMembershipError;
use openraft::error::{ClientWriteError, RaftError};
use openraft::{ChangeMembers, Config, ServerState, SnapshotPolicy};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;

pub use network::{Wire, WireError};
pub use state_machine::Published;
pub use types::{raft_id, ClusterNode, Command, CommandResult, RaftId};

use crate::engine::store::Directory;
use crate::error::{ErrorKind, OsError, OsResult};

/// A proposal forwarded by a follower to the leader.
pub const ACTION_PUBLISH: &str = "internal:cluster/coordination/publish_state";
/// A node asking the leader to join the cluster.
pub const ACTION_JOIN: &str = "internal:cluster/coordination/join";
/// A leader that left the voting configuration asking a remaining voter to start an election.
pub const ACTION_ELECT_NOW: &str = "internal:cluster/coordination/elect_now";

/// Decides whether a node may join the cluster (checked by the leader on a join, and before the
/// leader's follower checks list a member again): `Err` carries the refusal message.
pub type JoinGuard = Arc<dyn Fn(&ClusterNode) -> Result<(), String> + Send + Sync>;

/// What [`Coordinator::set_voters`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VotersChange {
    /// The voters are the requested ones (changed now, or already).
    Done,
    /// Not possible now (a membership change in flight, a node not yet a member, leadership
    /// lost): try again later.
    Retry,
}

/// How often the leader heartbeats, and how long followers wait before an election.
#[derive(Debug, Clone)]
pub struct Timing {
    pub heartbeat: Duration,
    pub election_min: Duration,
    pub election_max: Duration,
    /// How long a publication may take before it fails.
    pub publish_timeout: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            heartbeat: Duration::from_millis(250),
            election_min: Duration::from_millis(1000),
            election_max: Duration::from_millis(1500),
            publish_timeout: Duration::from_secs(30),
        }
    }
}

/// This node's part in the coordination.
#[derive(Clone)]
pub struct Coordinator {
    pub raft: types::Raft,
    pub local: ClusterNode,
    pub id: RaftId,
    sm: state_machine::StateMachine,
    wire: Arc<dyn Wire>,
    timing: Timing,
    /// Set by the leader's follower checks while fewer than a quorum of voters answer: the
    /// leader then acts as OpenSearch's would after stepping down (no elected cluster manager,
    /// writes blocked) until a quorum answers again or a newer term replaces it.
    quorum_lost: Arc<std::sync::atomic::AtomicBool>,
    /// Serializes membership changes (joins and voting reconfigurations): openraft refuses a
    /// change while another one is not committed.
    membership_lock: Arc<tokio::sync::Mutex<()>>,
    join_guard: Arc<std::sync::RwLock<JoinGuard>>,
}

impl std::fmt::Debug for Coordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator").field("local", &self.local).field("id", &self.id).finish_non_exhaustive()
    }
}

#[derive(Serialize, Deserialize)]
struct PublishRequest {
    base_version: u64,
    state: Arc<Value>,
}

#[derive(Serialize, Deserialize)]
enum PublishAnswer {
    Done(CommandResult),
    /// Not the leader (any more): who is, if known.
    NotLeader(Option<(RaftId, ClusterNode)>),
    Failed(String),
}

fn internal(msg: impl std::fmt::Display) -> OsError {
    OsError::internal(msg.to_string())
}

/// The error when no cluster manager answers (OpenSearch's `cluster_manager_not_discovered_exception`).
pub fn not_discovered(detail: impl std::fmt::Display) -> OsError {
    OsError::new(ErrorKind::ClusterManagerNotDiscovered, detail.to_string())
}

impl Coordinator {
    /// Opens the log and state in `dir` and starts this node's Raft (not yet part of a cluster
    /// unless the log says so: see [`Coordinator::bootstrap`] and joining).
    pub async fn start(
        dir: Arc<dyn Directory>,
        local: ClusterNode,
        wire: Arc<dyn Wire>,
        timing: Timing,
    ) -> OsResult<Coordinator> {
        let id = raft_id(&local.node_id);
        let config = Config {
            cluster_name: "fathom".into(),
            heartbeat_interval: timing.heartbeat.as_millis() as u64,
            election_timeout_min: timing.election_min.as_millis() as u64,
            election_timeout_max: timing.election_max.as_millis() as u64,
            snapshot_policy: SnapshotPolicy::LogsSinceLast(100),
            max_in_snapshot_log_to_keep: 10,
            ..Default::default()
        };
        let config = Arc::new(config.validate().map_err(internal)?);
        let d2 = dir.clone();
        let (log, sm) = tokio::task::spawn_blocking(move || -> crate::engine::Result<_> {
            Ok((log_store::LogStore::open(d2.clone())?, state_machine::StateMachine::open(d2)?))
        })
        .await
        .map_err(internal)?
        .map_err(|e| internal(format!("cannot open the coordination state: {e}")))?;
        let net = network::NetworkFactory { wire: wire.clone() };
        let raft = types::Raft::new(id, config, net, log, sm.clone()).await.map_err(internal)?;
        let allow_all: JoinGuard = Arc::new(|_: &ClusterNode| Ok(()));
        Ok(Coordinator {
            raft,
            local,
            id,
            sm,
            wire,
            timing,
            quorum_lost: Arc::default(),
            membership_lock: Arc::default(),
            join_guard: Arc::new(std::sync::RwLock::new(allow_all)),
        })
    }

    /// Makes the first voting configuration, once: `members` (this node among them). Nothing
    /// happens if the node already belongs to a cluster.
    pub async fn bootstrap(&self, members: Vec<ClusterNode>) -> OsResult<()> {
        if self.raft.is_initialized().await.map_err(internal)? {
            return Ok(());
        }
        let m: BTreeMap<RaftId, ClusterNode> = members.into_iter().map(|n| (raft_id(&n.node_id), n)).collect();
        match self.raft.initialize(m).await {
            Ok(()) => Ok(()),
            Err(RaftError::APIError(openraft::error::InitializeError::NotAllowed(_))) => Ok(()),
            Err(e) => Err(internal(format!("cannot bootstrap the cluster: {e}"))),
        }
    }

    /// The applied state now.
    pub fn state(&self) -> Arc<Published> {
        self.sm.current()
    }

    /// Watches the applied state.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Published>> {
        self.sm.subscribe()
    }

    /// The elected cluster manager, as this node knows it. A leader that stepped down (it left
    /// the voting configuration) still reads itself as the leader in openraft's metrics until a
    /// newer vote reaches it: it knows no leader then.
    pub fn leader(&self) -> Option<(RaftId, ClusterNode)> {
        let m = self.raft.metrics().borrow().clone();
        let id = m.current_leader?;
        if id == self.id && m.state != ServerState::Leader {
            return None;
        }
        let node = m.membership_config.membership().get_node(&id).cloned()?;
        Some((id, node))
    }

    /// Whether this node is the elected cluster manager.
    pub fn is_leader(&self) -> bool {
        self.leader().is_some_and(|(id, _)| id == self.id)
    }

    /// Sets who may join (see [`JoinGuard`]; everyone by default).
    pub fn set_join_guard(&self, guard: JoinGuard) {
        *self.join_guard.write().unwrap_or_else(|e| e.into_inner()) = guard;
    }

    /// Whether `node` may join the cluster now, or the refusal message.
    pub fn join_allowed(&self, node: &ClusterNode) -> Result<(), String> {
        let guard = self.join_guard.read().unwrap_or_else(|e| e.into_inner()).clone();
        guard(node)
    }

    /// Records whether a quorum of voters answers this leader's checks (see `quorum_lost`).
    pub fn set_quorum_lost(&self, lost: bool) {
        self.quorum_lost.store(lost, std::sync::atomic::Ordering::SeqCst);
    }

    /// The current Raft term.
    pub fn term(&self) -> u64 {
        self.raft.metrics().borrow().current_term
    }

    /// Waits until the applied state has at least `version`.
    pub async fn wait_applied(&self, version: u64, timeout: Duration) -> OsResult<Arc<Published>> {
        let mut rx = self.subscribe();
        let r = tokio::time::timeout(timeout, rx.wait_for(|p| p.version >= version)).await;
        match r {
            Ok(Ok(p)) => Ok(p.clone()),
            Ok(Err(_)) => Err(internal("the coordination stopped")),
            Err(_) => Err(OsError::new(
                ErrorKind::ProcessClusterEventTimeout,
                format!("failed to apply cluster state version [{version}] within [{}ms]", timeout.as_millis()),
            )),
        }
    }

    /// Publishes the state `next` computes from the applied one (`None`: nothing to change).
    /// Retries after a conflicting publication; returns the published state (or the current one
    /// when nothing changed) and `next`'s other result.
    pub async fn publish<R>(
        &self,
        mut next: impl FnMut(&Published) -> OsResult<(Option<Value>, R)>,
    ) -> OsResult<(Arc<Published>, R)> {
        let deadline = tokio::time::Instant::now() + self.timing.publish_timeout;
        for _ in 0..100 {
            let cur = self.state();
            let (state, r) = next(&cur)?;
            let Some(state) = state else { return Ok((cur, r)) };
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.propose(cur.version, Arc::new(state), left).await? {
                CommandResult::Published { version } => {
                    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                    let p = self.wait_applied(version, left).await?;
                    return Ok((p, r));
                }
                CommandResult::Conflict { current } => {
                    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                    self.wait_applied(current, left).await?;
                }
                CommandResult::None => return Err(internal("publication had no result")),
            }
        }
        Err(internal("cluster state publication kept conflicting"))
    }

    /// Proposes one publication, through the leader.
    async fn propose(&self, base_version: u64, state: Arc<Value>, timeout: Duration) -> OsResult<CommandResult> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut leader_hint: Option<(RaftId, ClusterNode)> = None;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return Err(not_discovered("no cluster manager accepted the cluster state publication in time"));
            }
            let target = leader_hint.take().or_else(|| self.leader());
            let answer = match target {
                None => {
                    tokio::time::sleep(Duration::from_millis(50).min(left)).await;
                    continue;
                }
                Some((id, _)) if id == self.id => {
                    // A leader cut off from its quorum never commits; the outcome is then unknown
                    // (the entry may still commit later), as with OpenSearch's
                    // `FailedToCommitClusterStateException`.
                    match tokio::time::timeout(left, self.propose_local(base_version, state.clone())).await {
                        Ok(a) => a,
                        Err(_) => {
                            return Err(OsError::new(
                                ErrorKind::ProcessClusterEventTimeout,
                                format!(
                                    "failed to commit cluster state version [{}] within [{}ms]",
                                    base_version + 1,
                                    timeout.as_millis()
                                ),
                            ))
                        }
                    }
                }
                Some((_, node)) => {
                    let req = PublishRequest { base_version, state: state.clone() };
                    let payload = serde_json::to_vec(&req).map_err(internal)?;
                    match self.wire.call(&node, ACTION_PUBLISH, payload, left).await {
                        Ok(bytes) => serde_json::from_slice(&bytes)
                            .unwrap_or_else(|e| PublishAnswer::Failed(format!("malformed answer: {e}"))),
                        Err(e) => {
                            tracing::debug!(error = %e, "forwarding a cluster state publication failed; retrying");
                            PublishAnswer::NotLeader(None)
                        }
                    }
                }
            };
            match answer {
                PublishAnswer::Done(r) => return Ok(r),
                PublishAnswer::NotLeader(hint) => {
                    // A hint naming this node comes from a leader that stepped down: no leader.
                    leader_hint = hint.filter(|(id, _)| *id != self.id);
                    if leader_hint.is_none() {
                        tokio::time::sleep(Duration::from_millis(50).min(left)).await;
                    }
                }
                PublishAnswer::Failed(reason) => return Err(internal(reason)),
            }
        }
    }

    async fn propose_local(&self, base_version: u64, state: Arc<Value>) -> PublishAnswer {
        match self.raft.client_write(Command::Publish { base_version, state }).await {
            Ok(resp) => PublishAnswer::Done(resp.data),
            Err(RaftError::APIError(ClientWriteError::ForwardToLeader(f))) => {
                PublishAnswer::NotLeader(f.leader_id.zip(f.leader_node))
            }
            Err(RaftError::APIError(ClientWriteError::ChangeMembershipError(e))) => {
                PublishAnswer::Failed(e.to_string())
            }
            Err(RaftError::Fatal(e)) => PublishAnswer::Failed(format!("coordination stopped: {e}")),
        }
    }

    /// Adds a node to the cluster (on the leader) as a learner that receives the log; whether
    /// it votes is the cluster manager's reconfiguration's choice ([`Coordinator::set_voters`]).
    pub async fn add_member(&self, node: ClusterNode) -> OsResult<()> {
        let id = raft_id(&node.node_id);
        let _turn = self.membership_lock.lock().await;
        let known = self.raft.metrics().borrow().membership_config.membership().get_node(&id) == Some(&node);
        if known {
            return Ok(());
        }
        self.raft.add_learner(id, node, true).await.map_err(not_discovered)?;
        Ok(())
    }

    /// Makes `node_ids` the voting configuration (on the leader); the voters that leave it stay
    /// learners. Every node must already be a member. A leader that is not among them leaves
    /// the members too, steps down once that is committed, and asks one of them to start an
    /// election at once.
    pub async fn set_voters(&self, node_ids: &BTreeSet<String>) -> OsResult<VotersChange> {
        let _turn = self.membership_lock.lock().await;
        let m = self.raft.metrics().borrow().membership_config.clone();
        let membership = m.membership();
        if !self.is_leader() || membership.get_joint_config().len() > 1 {
            return Ok(VotersChange::Retry);
        }
        let mut ids = BTreeSet::new();
        for n in node_ids {
            let id = raft_id(n);
            if membership.get_node(&id).is_none() {
                return Ok(VotersChange::Retry);
            }
            ids.insert(id);
        }
        if ids.is_empty() {
            return Err(internal("a voting configuration cannot be empty"));
        }
        if membership.voter_ids().collect::<BTreeSet<_>>() == ids {
            return Ok(VotersChange::Done);
        }
        tracing::info!(voters = ?node_ids, "changing the voting configuration");
        match self.raft.change_membership(ChangeMembers::ReplaceAllVoters(ids.clone()), true).await {
            Ok(_) => {}
            Err(RaftError::APIError(ClientWriteError::ForwardToLeader(_)))
            | Err(RaftError::APIError(ClientWriteError::ChangeMembershipError(
                ChangeMembershipError::InProgress(_) | ChangeMembershipError::LearnerNotFound(_),
            ))) => return Ok(VotersChange::Retry),
            Err(e) => return Err(internal(format!("changing the voting configuration failed: {e}"))),
        }
        if !ids.contains(&self.id) {
            self.leave_members().await;
        }
        Ok(VotersChange::Done)
    }

    /// A leader that is no longer a voter steps down (see [`Coordinator::set_voters`]); nothing
    /// happens on a node that is not the leader or still votes.
    pub async fn step_down(&self) {
        let _turn = self.membership_lock.lock().await;
        let m = self.raft.metrics().borrow().membership_config.clone();
        if self.is_leader() && !m.membership().voter_ids().any(|v| v == self.id) {
            self.leave_members().await;
        }
    }

    /// openraft keeps a leader that is still a member (a learner) leading; one that is no member
    /// at all steps down once that is committed. It joins again as a learner through discovery
    /// (it then knows no leader: see [`Coordinator::leader`]). Called with `membership_lock`.
    async fn leave_members(&self) {
        let mut me = BTreeSet::new();
        me.insert(self.id);
        match self.raft.change_membership(ChangeMembers::RemoveNodes(me), false).await {
            Ok(_) => tracing::info!("left the voting configuration; stepping down as the cluster manager"),
            Err(e) => {
                tracing::warn!(error = %e, "stepping down as the cluster manager failed; retrying");
                return;
            }
        }
        // A remaining voter need not wait for its election timeout.
        let m = self.raft.metrics().borrow().membership_config.clone();
        let membership = m.membership();
        if let Some(next) = membership.voter_ids().next().and_then(|id| membership.get_node(&id)).cloned() {
            let wire = self.wire.clone();
            let timeout = self.timing.election_min;
            tokio::spawn(async move {
                if let Err(e) = wire.call(&next, ACTION_ELECT_NOW, Vec::new(), timeout).await {
                    tracing::debug!(node = %next, error = %e, "asking a voter to start an election failed");
                }
            });
        }
    }

    /// Removes a node from the cluster (on the leader).
    pub async fn remove_member(&self, id: RaftId) -> OsResult<()> {
        let _turn = self.membership_lock.lock().await;
        let mut ids = BTreeSet::new();
        ids.insert(id);
        let m = self.raft.metrics().borrow().membership_config.clone();
        if m.membership().voter_ids().any(|v| v == id) {
            self.raft
                .change_membership(ChangeMembers::RemoveVoters(ids.clone()), false)
                .await
                .map_err(not_discovered)?;
        }
        self.raft.change_membership(ChangeMembers::RemoveNodes(ids), false).await.map_err(not_discovered)?;
        Ok(())
    }

    /// Answers a coordination request received from another node.
    pub async fn handle(&self, action: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
        match action {
            ACTION_PUBLISH => {
                let req: PublishRequest =
                    serde_json::from_slice(payload).map_err(|e| format!("malformed [{action}] request: {e}"))?;
                let a = self.propose_local(req.base_version, req.state).await;
                serde_json::to_vec(&a).map_err(|e| e.to_string())
            }
            ACTION_JOIN => {
                let node: ClusterNode =
                    serde_json::from_slice(payload).map_err(|e| format!("malformed [{action}] request: {e}"))?;
                let r = match self.leader() {
                    Some((id, _)) if id == self.id => match self.join_allowed(&node) {
                        Ok(()) => self.add_member(node).await.map_err(|e| e.reason.to_string()),
                        Err(refused) => Err(refused),
                    },
                    // A follower passes the request on to the cluster manager it follows.
                    Some((_, leader)) => {
                        return self
                            .wire
                            .call(&leader, ACTION_JOIN, payload.to_vec(), self.timing.publish_timeout)
                            .await
                            .map_err(|e| format!("forwarding the join to [{leader}] failed: {e}"));
                    }
                    None => Err("no cluster manager is elected yet".to_string()),
                };
                serde_json::to_vec(&r).map_err(|e| e.to_string())
            }
            ACTION_ELECT_NOW => {
                let voter =
                    self.raft.metrics().borrow().membership_config.membership().voter_ids().any(|v| v == self.id);
                if voter && !self.is_leader() {
                    tracing::info!("the cluster manager left the voting configuration; starting an election");
                    self.raft.trigger().elect().await.map_err(|e| e.to_string())?;
                }
                Ok(Vec::new())
            }
            _ => network::handle(&self.raft, action, payload).await,
        }
    }

    /// Asks `via` (any member) to add this node; followers answer with an error naming the
    /// leader, which is then asked directly.
    pub async fn join_via(&self, via: &ClusterNode, timeout: Duration) -> OsResult<()> {
        let payload = serde_json::to_vec(&self.local).map_err(internal)?;
        let bytes = self
            .wire
            .call(via, ACTION_JOIN, payload, timeout)
            .await
            .map_err(|e| not_discovered(format!("join via [{via}] failed: {e}")))?;
        let r: Result<(), String> =
            serde_json::from_slice(&bytes).map_err(|e| internal(format!("malformed join answer: {e}")))?;
        r.map_err(not_discovered)
    }

    /// Stops this node's Raft.
    pub async fn shutdown(&self) {
        let _ = self.raft.shutdown().await;
    }
}

impl crate::cluster::coordination_view::Coordination for Coordinator {
    fn has_cluster_manager(&self) -> bool {
        let metrics = self.raft.metrics();
        let m = metrics.borrow();
        m.current_leader.is_some_and(|l| {
            (l != self.id
                || (m.state == ServerState::Leader && !self.quorum_lost.load(std::sync::atomic::Ordering::SeqCst)))
                && m.membership_config.membership().get_node(&l).is_some()
        })
    }

    fn view(&self) -> crate::cluster::coordination_view::CoordinationView {
        use crate::cluster::coordination_view::{CoordinationView, MemberView};
        let metrics = self.raft.metrics().borrow().clone();
        let accepted = metrics.membership_config.membership().clone();
        let committed = self.state().membership.membership().clone();
        let ids = |m: &openraft::Membership<RaftId, ClusterNode>| -> Vec<String> {
            let mut v: Vec<String> =
                m.voter_ids().filter_map(|id| m.get_node(&id).map(|n| n.node_id.clone())).collect();
            v.sort();
            v
        };
        let mut members: Vec<MemberView> = accepted.nodes().map(|(_, n)| n.view()).collect();
        members.sort_by(|a, b| a.node_id.cmp(&b.node_id));
        CoordinationView {
            term: metrics.current_term,
            cluster_manager: metrics
                .current_leader
                .filter(|l| {
                    *l != self.id
                        || (metrics.state == ServerState::Leader
                            && !self.quorum_lost.load(std::sync::atomic::Ordering::SeqCst))
                })
                .and_then(|l| accepted.get_node(&l))
                .map(|n| n.node_id.clone()),
            last_committed_config: ids(&committed),
            last_accepted_config: ids(&accepted),
            members,
        }
    }
}
