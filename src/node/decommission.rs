//! The cluster manager's decommission driver: every half second (and on each applied state) the
//! node that leads reads the registered decommission from the cluster state and takes its next
//! step ([`crate::cluster::decommission::next_step`]). The state holds the timers, so a new
//! cluster manager carries on where a failed one stopped; every move is checked against the
//! request id and the status it leaves, so a recommission or an old leader never clobbers a
//! newer state.

use std::sync::Arc;
use std::time::Duration;

use crate::cluster::coordination::Coordinator;
use crate::cluster::decommission::{moved, next_step, Step};
use crate::cluster::ClusterService;
use crate::transport::Transport;

/// How often the driver looks when nothing wakes it.
const TICK: Duration = Duration::from_millis(500);

/// Runs until the transport closes.
pub async fn run(cs: Arc<ClusterService>, coordinator: Coordinator, transport: Arc<Transport>) {
    let mut applied = coordinator.subscribe();
    loop {
        let _ = tokio::time::timeout(TICK, applied.changed()).await;
        if transport.is_closed() {
            return;
        }
        if coordinator.leader().is_none_or(|(id, _)| id != coordinator.id) {
            continue;
        }
        let st = cs.state();
        let Some(d) = st.metadata.decommission.clone() else { continue };
        let Some(view) = cs.coordination() else { continue };
        let now = crate::clock::now_millis();
        match next_step(&st, &view, &coordinator.local.node_id, now) {
            Step::Nothing => {}
            Step::Move { to, reason } => {
                if !reason.is_empty() {
                    tracing::warn!(attribute = %d.attribute, value = %d.value, "decommission failed: {reason}");
                }
                let cs2 = cs.clone();
                let r = tokio::task::spawn_blocking(move || {
                    cs2.update(|md| match moved(md, &d.request_id, d.status, to, now) {
                        Some(next) => {
                            *md = next;
                            Ok((true, ()))
                        }
                        None => Ok((false, ())),
                    })
                })
                .await;
                match r {
                    Ok(Ok(())) => tracing::info!(status = to.name(), "decommission moved"),
                    Ok(Err(e)) => {
                        tracing::warn!(error = %e.reason, "publishing the decommission status failed; retrying")
                    }
                    Err(e) => tracing::warn!(error = %e, "publishing the decommission status failed; retrying"),
                }
            }
            Step::Remove(ids) => {
                // Out of the cluster state (their copies fail over and are reallocated). They
                // stay Raft learners, so they learn that they were removed, ask to join again and
                // are refused by the join guard until recommissioned; the follower checks do not
                // list them again either.
                let cs2 = cs.clone();
                let r = tokio::task::spawn_blocking(move || cs2.change_nodes(&[], &ids)).await;
                if let Ok(Err(e)) = r {
                    tracing::warn!(error = %e.reason, "removing decommissioned nodes failed; retrying");
                }
            }
        }
    }
}
