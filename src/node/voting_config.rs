//! The cluster manager's voting configuration (OpenSearch's `Coordinator.improveConfiguration`):
//! on each applied state and every second, the leader computes the voters it wants from the
//! live cluster-manager-eligible nodes of the cluster state, the voting configuration exclusions
//! and `cluster.auto_shrink_voting_configuration` ([`reconfigure`]), and changes the Raft's
//! voters when they differ. A leader that excludes itself steps down (see
//! [`Coordinator::set_voters`]).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::cluster::coordination::reconfigure::reconfigure;
use crate::cluster::coordination::{Coordinator, VotersChange};
use crate::cluster::coordination_view::MemberView;
use crate::cluster::metadata::Metadata;
use crate::cluster::ClusterService;
use crate::transport::Transport;

/// `cluster.auto_shrink_voting_configuration`.
pub const AUTO_SHRINK: &str = "cluster.auto_shrink_voting_configuration";

fn eligible(m: &MemberView) -> bool {
    m.roles.iter().any(|r| r == "cluster_manager" || r == "master")
}

/// The effective `cluster.auto_shrink_voting_configuration` (default true).
pub fn auto_shrink(settings: &serde_json::Map<String, Value>) -> bool {
    match settings.get(AUTO_SHRINK) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s != "false",
        _ => true,
    }
}

/// The voters the leader wants. `nodes`: the cluster state's nodes; `members`: the node ids of
/// the Raft members (only they can vote); `voters`: the current voters; `manager`: this node.
pub fn wanted_voters(
    nodes: &[MemberView],
    members: &BTreeSet<String>,
    md: &Metadata,
    voters: &BTreeSet<String>,
    manager: &MemberView,
    auto_shrink: bool,
) -> BTreeSet<String> {
    let mut live: Vec<(String, bool)> =
        nodes.iter().filter(|n| members.contains(&n.node_id)).map(|n| (n.node_id.clone(), eligible(n))).collect();
    if !live.iter().any(|(id, _)| *id == manager.node_id) {
        live.push((manager.node_id.clone(), eligible(manager)));
    }
    let retired: BTreeSet<String> = md.coordination.excluded_ids().map(str::to_string).collect();
    reconfigure(&live, &retired, &manager.node_id, voters, auto_shrink)
}

/// Runs until the transport closes; only the leader acts.
pub async fn run(cs: Arc<ClusterService>, coordinator: Coordinator, transport: Arc<Transport>) {
    let mut rx = coordinator.subscribe();
    let mut watching = true;
    loop {
        if watching {
            tokio::select! {
                r = rx.changed() => watching = r.is_ok(),
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
        } else {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        if transport.is_closed() {
            return;
        }
        if !coordinator.is_leader() {
            continue;
        }
        let published = coordinator.state();
        let membership = published.membership.membership();
        if published.version == 0 || membership.get_joint_config().len() > 1 {
            continue;
        }
        let st = cs.state();
        if st.version == 0 {
            continue;
        }
        let members: BTreeSet<String> = membership.nodes().map(|(_, n)| n.node_id.clone()).collect();
        let voters: BTreeSet<String> =
            membership.voter_ids().filter_map(|id| membership.get_node(&id).map(|n| n.node_id.clone())).collect();
        let shrink = auto_shrink(&cs.cluster_settings(&st.metadata));
        let manager = coordinator.local.view();
        let want = wanted_voters(&st.nodes, &members, &st.metadata, &voters, &manager, shrink);
        if want == voters {
            if !voters.contains(&manager.node_id) {
                // Excluded, but stepping down failed before: again.
                coordinator.step_down().await;
            }
            continue;
        }
        match coordinator.set_voters(&want).await {
            Ok(VotersChange::Done) => tracing::info!(from = ?voters, to = ?want, "voting configuration changed"),
            Ok(VotersChange::Retry) => tracing::debug!(to = ?want, "voting configuration change deferred"),
            Err(e) => tracing::warn!(error = %e.reason, "changing the voting configuration failed; retrying"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::operations_metadata::VotingConfigExclusion;

    fn node(id: &str, manager: bool) -> MemberView {
        let roles = if manager { vec!["cluster_manager".into(), "data".into()] } else { vec!["data".into()] };
        MemberView { node_id: id.into(), name: format!("name-{id}"), roles, ..Default::default() }
    }

    fn set(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn voters_from_the_cluster_state() {
        let nodes: Vec<MemberView> = ["a", "b", "c", "d", "e", "f"].iter().map(|id| node(id, true)).collect();
        let all = set(&["a", "b", "c", "d", "e", "f"]);
        let mut md = Metadata::default();
        // Six eligible nodes, three voters: five.
        let want = wanted_voters(&nodes, &all, &md, &set(&["a", "b", "c"]), &nodes[1], true);
        assert_eq!(want, set(&["a", "b", "c", "d", "e"]));
        // A node of the state that is not a Raft member (yet) cannot vote.
        let members = set(&["a", "b", "c", "d"]);
        let want = wanted_voters(&nodes, &members, &md, &set(&["a", "b", "c"]), &nodes[1], true);
        assert_eq!(want, set(&["a", "b", "c"]));
        // Excluding the manager of three.
        md.coordination.voting_config_exclusions =
            vec![VotingConfigExclusion { node_id: "b".into(), node_name: "name-b".into() }];
        let three = &nodes[..3];
        let want = wanted_voters(three, &all, &md, &set(&["a", "b", "c"]), &nodes[1], true);
        assert_eq!(want, set(&["a"]));
        // An `_absent_` exclusion names no node.
        md.coordination.voting_config_exclusions =
            vec![VotingConfigExclusion { node_id: "_absent_".into(), node_name: "name-b".into() }];
        let want = wanted_voters(three, &all, &md, &set(&["a", "b", "c"]), &nodes[1], true);
        assert_eq!(want, set(&["a", "b", "c"]));
        // Data-only nodes never vote.
        let mixed = vec![node("a", true), node("b", false), node("c", false)];
        let want = wanted_voters(&mixed, &all, &Metadata::default(), &set(&["a"]), &mixed[0], true);
        assert_eq!(want, set(&["a"]));
    }

    #[test]
    fn auto_shrink_setting() {
        let mut m = serde_json::Map::new();
        assert!(auto_shrink(&m));
        m.insert(AUTO_SHRINK.into(), Value::String("false".into()));
        assert!(!auto_shrink(&m));
        m.insert(AUTO_SHRINK.into(), Value::Bool(true));
        assert!(auto_shrink(&m));
    }
}
