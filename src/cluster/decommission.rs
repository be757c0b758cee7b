//! Decommissioning an awareness attribute value: the preconditions OpenSearch's
//! `DecommissionService` checks before registering one, and the next step of the state machine
//! INIT → DRAINING → IN_PROGRESS → SUCCESSFUL (FAILED on error) as a pure function of the
//! cluster state, so whichever node is the cluster manager carries it on (`node/decommission.rs`
//! drives it).

use serde_json::{Map, Value};

use super::coordination_view::{CoordinationView, MemberView};
use super::metadata::Metadata;
use super::operations_metadata::{DecommissionMetadata, DecommissionStatus, VotingConfigExclusion};
use super::state::ClusterState;
use super::voting_exclusions::ExclusionTargets;
use crate::error::{ErrorKind, OsError};

/// How long INIT may wait for the exclusions, and IN_PROGRESS for the nodes to leave
/// (OpenSearch's fixed 120 s).
pub const STEP_TIMEOUT_MILLIS: i64 = 120_000;

/// The node attribute value of `attr`, if it has one.
pub fn attribute<'a>(n: &'a MemberView, attr: &str) -> Option<&'a str> {
    n.attributes.iter().find(|(k, _)| k == attr).map(|(_, v)| v.as_str())
}

/// Whether `n` may be in the cluster under `md`'s decommission (`nodeCommissioned`).
pub fn commissioned(n: &MemberView, md: &Metadata) -> bool {
    match &md.decommission {
        Some(d) => !(d.status.keeps_nodes_out() && attribute(n, &d.attribute) == Some(d.value.as_str())),
        None => true,
    }
}

/// OpenSearch's refusal of a joining decommissioned node.
pub fn join_refusal(n: &MemberView, d: &DecommissionMetadata) -> String {
    format!(
        "node [{{{}}}{{{}}}] has decommissioned attribute [{}] with current status of decommissioning [{}]",
        n.name,
        n.node_id,
        DecommissionMetadata::describe_attribute(&d.attribute, &d.value),
        d.status.status()
    )
}

fn failed(attr: &str, value: &str, msg: impl std::fmt::Display) -> OsError {
    OsError::new(
        ErrorKind::DecommissioningFailed,
        format!("[{}] {msg}", DecommissionMetadata::describe_attribute(attr, value)),
    )
}

fn list(settings: &Map<String, Value>, key: &str) -> Vec<String> {
    use super::allocation::settings::{list, value_str};
    settings.get(key).and_then(value_str).map(|s| list(&s)).unwrap_or_default()
}

/// The forced awareness values per attribute, printed as Java's `Map.toString`.
fn forced_map(settings: &Map<String, Value>) -> String {
    let prefix = "cluster.routing.allocation.awareness.force.";
    let mut parts: Vec<String> = settings
        .keys()
        .filter_map(|k| k.strip_prefix(prefix).and_then(|r| r.strip_suffix(".values")))
        .map(|attr| format!("{attr}=[{}]", list(settings, &format!("{prefix}{attr}.values")).join(", ")))
        .collect();
    parts.sort();
    format!("{{{}}}", parts.join(", "))
}

/// The preconditions of a new decommission of `attr=value` on `md` with the effective cluster
/// `settings`, in OpenSearch's order, with its messages.
pub fn check_request(md: &Metadata, settings: &Map<String, Value>, attr: &str, value: &str) -> Result<(), OsError> {
    // validateAwarenessAttribute
    if !list(settings, "cluster.routing.allocation.awareness.attributes").iter().any(|a| a == attr) {
        return Err(failed(attr, value, "invalid awareness attribute requested for decommissioning"));
    }
    if list(settings, &format!("cluster.routing.allocation.awareness.force.{attr}.values")).is_empty() {
        return Err(failed(
            attr,
            value,
            format!("forced awareness attribute [{}] doesn't have the decommissioning attribute", forced_map(settings)),
        ));
    }
    // ensureEligibleRequest
    if let Some(d) = &md.decommission {
        let current = DecommissionMetadata::describe_attribute(&d.attribute, &d.value);
        if d.attribute == attr && d.value == value {
            if d.status != DecommissionStatus::Failed {
                return Err(failed(attr, value, format!("same request is already in status [{}]", d.status.name())));
            }
        } else {
            match d.status {
                DecommissionStatus::Successful => {
                    return Err(failed(
                        attr,
                        value,
                        format!("one awareness attribute [{current}] already successfully decommissioned, recommission before triggering another decommission"),
                    ))
                }
                DecommissionStatus::Failed => {}
                _ => {
                    return Err(failed(
                        attr,
                        value,
                        format!("there's an inflight decommission request for attribute [{current}] is in progress, cannot process this request"),
                    ))
                }
            }
        }
    }
    // ensureToBeDecommissionedAttributeWeighedAway
    let Some(w) = &md.weighted_routing else {
        return Err(failed(
            attr,
            value,
            "no weights are set to the attribute. Please set appropriate weights before triggering decommission action",
        ));
    };
    if w.attribute != attr {
        return Err(failed(attr, value, format!("no weights are specified to attribute [{attr}]")));
    }
    if let Some(weight) = w.weights.get(value) {
        if *weight != 0.0 {
            return Err(failed(
                attr,
                value,
                format!("weight for decommissioned attribute is expected to be [0.0] but found [{weight:?}]"),
            ));
        }
    }
    Ok(())
}

/// The exclusions a decommission of `attr=value` adds: every cluster-manager-eligible node with
/// the value, by id, that is not excluded yet; refused past `max` exclusions with OpenSearch's
/// message (the voting exclusions' own resolution, with no node descriptions).
pub fn exclusions_for(
    st: &ClusterState,
    attr: &str,
    value: &str,
    max: usize,
) -> Result<Vec<VotingConfigExclusion>, OsError> {
    let ids = st.nodes.iter().filter(|n| attribute(n, attr) == Some(value)).map(|n| n.node_id.clone()).collect();
    super::voting_exclusions::resolve(st, &ExclusionTargets::NodeIds(ids), &|_, _| Vec::new(), max)
}

/// What the cluster manager does next for a decommission.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Nothing,
    /// Publish this status (checked against the request id and the status it moves from).
    Move {
        to: DecommissionStatus,
        reason: String,
    },
    /// Remove these nodes (ids) from the cluster.
    Remove(Vec<String>),
}

/// The next step of `st`'s decommission at wall-clock `now`, as the cluster manager `local`
/// sees it with `view`.
pub fn next_step(st: &ClusterState, view: &CoordinationView, local: &str, now: i64) -> Step {
    let Some(d) = &st.metadata.decommission else { return Step::Nothing };
    let in_zone: Vec<&MemberView> =
        st.nodes.iter().filter(|n| attribute(n, &d.attribute) == Some(d.value.as_str())).collect();
    match d.status {
        DecommissionStatus::Init => {
            if in_zone.iter().any(|n| n.node_id == local) {
                // The cluster manager is in the zone: it abdicates once its exclusion commits.
                return Step::Nothing;
            }
            let excluded: Vec<&str> = st.metadata.coordination.excluded_ids().collect();
            let applied = !view.last_committed_config.iter().any(|id| excluded.contains(&id.as_str()));
            if applied {
                let to = if d.no_delay { DecommissionStatus::InProgress } else { DecommissionStatus::Draining };
                Step::Move { to, reason: String::new() }
            } else if now > d.started_millis + STEP_TIMEOUT_MILLIS {
                let ids: Vec<&str> = excluded;
                Step::Move {
                    to: DecommissionStatus::Failed,
                    reason: format!(
                        "timed out [2m] while removing to-be-decommissioned cluster manager eligible nodes [[{}]] from voting config",
                        ids.join(", ")
                    ),
                }
            } else {
                Step::Nothing
            }
        }
        DecommissionStatus::Draining => match d.draining_until_millis {
            Some(until) if now < until => Step::Nothing,
            _ => Step::Move { to: DecommissionStatus::InProgress, reason: String::new() },
        },
        DecommissionStatus::InProgress => {
            if in_zone.is_empty() {
                Step::Move { to: DecommissionStatus::Successful, reason: String::new() }
            } else if d.in_progress_since_millis.is_some_and(|t| now > t + STEP_TIMEOUT_MILLIS) {
                let ids: Vec<&str> = in_zone.iter().map(|n| n.node_id.as_str()).collect();
                Step::Move {
                    to: DecommissionStatus::Failed,
                    reason: format!(
                        "timed out [2m] while waiting for removal of decommissioned nodes [[{}]]",
                        ids.join(", ")
                    ),
                }
            } else {
                Step::Remove(in_zone.iter().filter(|n| n.node_id != local).map(|n| n.node_id.clone()).collect())
            }
        }
        DecommissionStatus::Successful | DecommissionStatus::Failed => Step::Nothing,
    }
}

/// `md` with the decommission moved to `to` at `now` when it is still `request_id` in status
/// `from` (else `None`: someone moved it meanwhile). SUCCESSFUL and FAILED clear the voting
/// exclusions in the same change, as OpenSearch does.
pub fn moved(
    md: &Metadata,
    request_id: &str,
    from: DecommissionStatus,
    to: DecommissionStatus,
    now: i64,
) -> Option<Metadata> {
    let d = md.decommission.as_ref()?;
    if d.request_id != request_id || d.status != from || to.validate_move_from(from).is_err() {
        return None;
    }
    let mut next = md.clone();
    let nd = next.decommission.as_mut()?;
    nd.status = to;
    match to {
        DecommissionStatus::Draining => nd.draining_until_millis = Some(now + nd.delay_timeout_millis),
        DecommissionStatus::InProgress => nd.in_progress_since_millis = Some(now),
        DecommissionStatus::Successful | DecommissionStatus::Failed => {
            next.coordination.voting_config_exclusions.clear()
        }
        DecommissionStatus::Init => {}
    }
    Some(next)
}

#[cfg(test)]
#[path = "decommission_tests.rs"]
mod tests;
