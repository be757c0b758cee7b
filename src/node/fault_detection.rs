//! Follower checks (OpenSearch's `FollowersChecker`), run by the cluster manager: every
//! `cluster.fault_detection.follower_check.interval` (1s) it asks each member of the
//! coordination whether it is alive, with `...follower_check.timeout` (10s); a node of the
//! cluster state that fails `...follower_check.retry_count` (3) checks in a row leaves it (its
//! copies are rerouted), and a member that answers again — a node restarted on its data — is
//! back in it, unless the coordination's join guard refuses it (a refused node that is listed
//! stays listed: removing it is not the checks' business). Leader checks are the coordination's
//! own: a follower that stops hearing the leader's heartbeats starts an election.

use std::collections::HashMap;
use std::sync::Arc;

use std::time::Duration;

use crate::cluster::coordination::Coordinator;
use crate::cluster::ClusterService;
use crate::node::NodeSettings;
use crate::transport::{Transport, TransportError};

/// The check a member answers.
pub const ACTION_FOLLOWER_CHECK: &str = "internal:coordination/fault_detection/follower_check";

/// The follower-check settings.
#[derive(Debug, Clone)]
pub struct Checks {
    pub interval: Duration,
    pub timeout: Duration,
    pub retry_count: u32,
}

pub(super) fn time_setting(s: &NodeSettings, key: &str, default: Duration) -> Result<Duration, String> {
    match s.get(key) {
        None => Ok(default),
        Some(v) => match crate::cluster::settings::parse_time(v, key) {
            Ok(Some(d)) if !d.is_zero() => Ok(d),
            Ok(_) => Err(format!("failed to parse value [{v}] for setting [{key}], must be >= [1ms]")),
            Err(e) => Err(e.reason.to_string()),
        },
    }
}

impl Checks {
    /// From `cluster.fault_detection.follower_check.*` (OpenSearch's defaults 1s, 10s, 3).
    pub fn from_settings(s: &NodeSettings) -> Result<Checks, String> {
        let key = "cluster.fault_detection.follower_check.retry_count";
        let retry_count = match s.get(key) {
            None => 3,
            Some(v) => v
                .parse::<u32>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| format!("Failed to parse value [{v}] for setting [{key}] must be >= 1"))?,
        };
        Ok(Checks {
            interval: time_setting(s, "cluster.fault_detection.follower_check.interval", Duration::from_secs(1))?,
            timeout: time_setting(s, "cluster.fault_detection.follower_check.timeout", Duration::from_secs(10))?,
            retry_count,
        })
    }
}

/// What one follower check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    Answered,
    /// No answer in time, or an error answer: counted towards `retry_count`.
    Failed,
    /// No connection could be made or it closed under the check.
    Gone,
}

/// Runs the checks until the transport closes. Only the cluster manager acts on them.
pub async fn run(cs: Arc<ClusterService>, coordinator: Coordinator, transport: Arc<Transport>, checks: Checks) {
    let mut failures: HashMap<String, u32> = HashMap::new();
    // Rounds in a row in which fewer than a quorum of voters answered.
    let mut without_quorum = 0u32;
    loop {
        tokio::time::sleep(checks.interval).await;
        if transport.is_closed() {
            return;
        }
        if !coordinator.is_leader() {
            failures.clear();
            without_quorum = 0;
            coordinator.set_quorum_lost(false);
            continue;
        }
        let published = coordinator.state();
        if published.version == 0 {
            continue;
        }
        let members: Vec<_> = published
            .membership
            .membership()
            .nodes()
            .filter(|(_, n)| n.node_id != coordinator.local.node_id)
            .map(|(_, n)| n.clone())
            .collect();
        let probes: Vec<_> = members
            .iter()
            .map(|n| {
                let t = transport.clone();
                let timeout = checks.timeout;
                let addr = n.transport_address.parse::<std::net::SocketAddr>();
                tokio::spawn(async move {
                    match addr {
                        Ok(a) => match t.request(a, ACTION_FOLLOWER_CHECK, bytes::Bytes::new(), timeout).await {
                            Ok(_) => Probe::Answered,
                            // No connection, or it closed: the node is gone (OpenSearch fails a
                            // disconnected follower at once, without waiting for the retries).
                            Err(TransportError::Connect { .. } | TransportError::Disconnected { .. }) => Probe::Gone,
                            Err(_) => Probe::Failed,
                        },
                        Err(_) => Probe::Gone,
                    }
                })
            })
            .collect();
        let mut answers = Vec::with_capacity(probes.len());
        for p in probes {
            answers.push(p.await.unwrap_or(Probe::Failed));
        }
        // A leader that a quorum of voters no longer answers cannot commit anything: it stops
        // acting as the cluster manager (OpenSearch's leader steps down when a publication
        // fails) and publishes nothing until a quorum answers again.
        let voters: Vec<String> = published
            .membership
            .membership()
            .voter_ids()
            .filter_map(|id| published.membership.membership().get_node(&id).map(|n| n.node_id.clone()))
            .collect();
        let answering = voters
            .iter()
            .filter(|v| {
                **v == coordinator.local.node_id
                    || members.iter().zip(&answers).any(|(n, a)| n.node_id == **v && *a == Probe::Answered)
            })
            .count();
        if answering < voters.len() / 2 + 1 {
            without_quorum += 1;
            if without_quorum == checks.retry_count {
                tracing::warn!(
                    answering,
                    voters = voters.len(),
                    "a quorum of voters does not answer; no longer acting as the cluster manager"
                );
                coordinator.set_quorum_lost(true);
            }
            continue;
        }
        if without_quorum >= checks.retry_count {
            tracing::info!("a quorum of voters answers again");
        }
        without_quorum = 0;
        coordinator.set_quorum_lost(false);
        let st = cs.state();
        let mut join = Vec::new();
        let mut leave = Vec::new();
        for (n, probe) in members.iter().zip(answers) {
            let listed = st.node(&n.node_id).is_some();
            if probe == Probe::Answered {
                failures.remove(&n.node_id);
                if !listed {
                    match coordinator.join_allowed(n) {
                        Ok(()) => join.push(n.view()),
                        Err(refused) => tracing::debug!(node = %n, reason = %refused, "not listing a refused member"),
                    }
                }
            } else {
                let f = failures.entry(n.node_id.clone()).or_default();
                *f = if probe == Probe::Gone { (*f + 1).max(checks.retry_count) } else { *f + 1 };
                if listed && *f >= checks.retry_count {
                    tracing::info!(node = %n, failures = *f, "follower check failed; removing the node from the cluster");
                    leave.push(n.node_id.clone());
                }
            }
        }
        // The manager itself is always a node of the state.
        if st.node(&coordinator.local.node_id).is_none() {
            join.push(coordinator.local.view());
        }
        if join.is_empty() && leave.is_empty() {
            continue;
        }
        let cs2 = cs.clone();
        let r = tokio::task::spawn_blocking(move || cs2.change_nodes(&join, &leave)).await;
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e.reason, "publishing the node change failed; retrying"),
            Err(e) => tracing::warn!(error = %e, "publishing the node change failed; retrying"),
        }
    }
}
