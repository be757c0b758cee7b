//! Voting configuration exclusions (OpenSearch's `TransportAddVotingConfigExclusionsAction` and
//! `TransportClearVotingConfigExclusionsAction`).
//!
//! Adding publishes the exclusions the request resolves to (`cluster::voting_exclusions`), then
//! waits until none of their node ids is in the committed voting configuration (the
//! coordination moves excluded nodes out, a leader that excluded itself abdicates). The wait
//! polls the coordination: a membership change commits without a new cluster-state version.
//!
//! Clearing first waits (unless `wait_for_removal=false`) until no node an exclusion names is
//! a node of the cluster any more, then publishes an empty list.

use std::time::{Duration, Instant};

use crate::cluster::blocks::Level;
use crate::cluster::coordination_view::MemberView;
use crate::cluster::operations_metadata::VotingConfigExclusion;
use crate::cluster::voting_exclusions::{self, describe_all, ExclusionTargets};
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// How long adding waits for the exclusions to take effect by default, and clearing for the
/// nodes to leave (its only value).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How often the waits look again.
const POLL: Duration = Duration::from_millis(50);

/// The name OpenSearch gives the `timeout` parameter in its parse errors.
const TIMEOUT_KEY: &str = "RestAddVotingConfigExclusionAction.timeout";

/// An add request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddRequest {
    pub targets: ExclusionTargets,
    /// How long to wait for the exclusions to take effect.
    pub timeout: Duration,
}

/// Java's `Strings.splitStringByCommaToArray`: `String.split(",")`, which keeps empty parts
/// except trailing ones; nothing for an absent or empty string.
pub fn split_by_comma(s: Option<&str>) -> Vec<String> {
    let mut parts: Vec<String> = match s {
        None | Some("") => return Vec::new(),
        Some(s) => s.split(',').map(str::to_string).collect(),
    };
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// An add request from the REST parameters, checked in OpenSearch's order: the timeout parsed
/// (and non-negative), then exactly one of the three lists set.
pub fn add_request(
    descriptions: Option<&str>,
    node_ids: Option<&str>,
    node_names: Option<&str>,
    timeout: Option<&str>,
) -> OsResult<AddRequest> {
    let timeout = match timeout {
        None => DEFAULT_TIMEOUT,
        Some(t) => match crate::cluster::settings::parse_time(t, TIMEOUT_KEY) {
            Ok(Some(d)) => d,
            // `-1`, the only negative time value OpenSearch parses.
            Ok(None) => return Err(OsError::illegal(format!("timeout [{}] must be non-negative", t.trim()))),
            Err(e) => return Err(OsError::new(ErrorKind::Parse, e.reason)),
        },
    };
    let targets = ExclusionTargets::from_lists(
        split_by_comma(descriptions),
        split_by_comma(node_ids),
        split_by_comma(node_names),
    )?;
    Ok(AddRequest { targets, timeout })
}

/// Deprecated node descriptions resolved as `DiscoveryNodes.resolveNodes` does, on this node.
fn description_resolver(cs: &ClusterService) -> impl Fn(&[MemberView], &[String]) -> Vec<String> {
    let local = cs.node.node_id.clone();
    let manager = super::nodes_fanout::cluster_manager(cs);
    move |nodes, descriptions| {
        let filters: Vec<&str> = descriptions.iter().map(String::as_str).collect();
        super::nodes_fanout::resolve_nodes(nodes, &local, manager.as_deref(), &filters)
    }
}

/// The node ids of the committed voting configuration (a node without coordination is its
/// own one voter).
fn committed_config(cs: &ClusterService) -> Vec<String> {
    match cs.coordination() {
        Some(c) => c.last_committed_config,
        None => vec![cs.node.node_id.clone()],
    }
}

/// Adds the exclusions and waits (at most the request's timeout) until the nodes they name
/// left the voting configuration.
pub fn add(cs: &ClusterService, req: &AddRequest) -> OsResult<()> {
    cs.check_cluster_manager_blocks(Level::MetadataWrite)?;
    let resolver = description_resolver(cs);
    // Fail fast on this node's state; the publication resolves again on the state it replaces.
    let st = cs.state();
    let max = voting_exclusions::max_exclusions(&cs.cluster_settings(&st.metadata))?;
    voting_exclusions::resolve(&st, &req.targets, &resolver, max)?;
    let added = cs.add_voting_config_exclusions(&req.targets, &resolver)?;
    wait_until_out_of_config(req.timeout, &added, || committed_config(cs))
}

/// Waits until no exclusion's node id is in `config()`, looking every [`POLL`] up to `timeout`.
fn wait_until_out_of_config(
    timeout: Duration,
    exclusions: &[VotingConfigExclusion],
    config: impl Fn() -> Vec<String>,
) -> OsResult<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let voters = config();
        if !exclusions.iter().any(|e| voters.contains(&e.node_id)) {
            return Ok(());
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(OsError::new(
                ErrorKind::Timeout,
                format!("timed out waiting for voting config exclusions {} to take effect", describe_all(exclusions)),
            ));
        }
        std::thread::sleep(POLL.min(deadline - now));
    }
}

/// Clears the exclusions; with `wait_for_removal`, once no node they name is a node of the
/// cluster (at most [`DEFAULT_TIMEOUT`]).
pub fn clear(cs: &ClusterService, wait_for_removal: bool) -> OsResult<()> {
    cs.check_cluster_manager_blocks(Level::MetadataWrite)?;
    let initial = cs.metadata().coordination.voting_config_exclusions.clone();
    if wait_for_removal {
        let node_ids = || super::nodes_fanout::members(cs).into_iter().map(|m| m.node_id).collect::<Vec<_>>();
        wait_until_removed(DEFAULT_TIMEOUT, &initial, node_ids)?;
    }
    cs.clear_voting_config_exclusions()
}

/// Waits until no exclusion's node id is one of `nodes()`, looking every [`POLL`] up to
/// `timeout`.
fn wait_until_removed(
    timeout: Duration,
    exclusions: &[VotingConfigExclusion],
    nodes: impl Fn() -> Vec<String>,
) -> OsResult<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let present = nodes();
        if !exclusions.iter().any(|e| present.contains(&e.node_id)) {
            return Ok(());
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(OsError::new(
                ErrorKind::Timeout,
                format!(
                    "timed out waiting for removal of nodes; if nodes should not be removed, set waitForRemoval to false. {}",
                    describe_all(exclusions)
                ),
            ));
        }
        std::thread::sleep(POLL.min(deadline - now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::operations_metadata::ABSENT;
    use std::cell::Cell;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn lists_split_as_java_does() {
        assert_eq!(split_by_comma(None), Vec::<String>::new());
        assert_eq!(split_by_comma(Some("")), Vec::<String>::new());
        assert_eq!(split_by_comma(Some("a,b")), s(&["a", "b"]));
        assert_eq!(split_by_comma(Some("a,,b,,")), s(&["a", "", "b"]));
        assert_eq!(split_by_comma(Some(",")), Vec::<String>::new());
        assert_eq!(split_by_comma(Some(" a")), s(&[" a"]));
    }

    #[test]
    fn add_requests_are_checked_in_opensearch_order() {
        let r = add_request(None, Some("x,y"), None, None).unwrap();
        assert_eq!(r, AddRequest { targets: ExclusionTargets::NodeIds(s(&["x", "y"])), timeout: DEFAULT_TIMEOUT });
        let r = add_request(Some("n"), None, Some(""), Some("1s")).unwrap();
        assert_eq!(r.targets, ExclusionTargets::Descriptions(s(&["n"])));
        assert_eq!(r.timeout, Duration::from_secs(1));
        // The timeout first, even when no list is set.
        let e = add_request(None, None, None, Some("-1")).unwrap_err();
        assert_eq!((e.kind, e.reason.as_str()), (ErrorKind::IllegalArgument, "timeout [-1] must be non-negative"));
        let e = add_request(None, None, None, Some("soon")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Parse);
        assert_eq!(
            e.reason,
            "failed to parse setting [RestAddVotingConfigExclusionAction.timeout] with value [soon] as a time value: unit is missing or unrecognized"
        );
        for (d, i, n) in
            [(None, None, None), (None, Some("a"), Some("b")), (Some("a"), Some("b"), None), (Some(","), None, None)]
        {
            let e = add_request(d, i, n, None).unwrap_err();
            assert_eq!(e.kind, ErrorKind::IllegalArgument);
            assert!(e.reason.starts_with("Please set node identifiers correctly."), "{}", e.reason);
        }
    }

    fn ex(id: &str, name: &str) -> VotingConfigExclusion {
        VotingConfigExclusion { node_id: id.into(), node_name: name.into() }
    }

    #[test]
    fn adding_waits_until_the_nodes_left_the_configuration() {
        let calls = Cell::new(0);
        let config = || {
            calls.set(calls.get() + 1);
            if calls.get() < 3 {
                s(&["a", "b"])
            } else {
                s(&["b"])
            }
        };
        wait_until_out_of_config(Duration::from_secs(5), &[ex("a", "na"), ex(ABSENT, "ghost")], config).unwrap();
        assert_eq!(calls.get(), 3);
        // Nothing to wait for: no look at all is needed beyond the first.
        wait_until_out_of_config(Duration::ZERO, &[], || s(&["a"])).unwrap();
    }

    #[test]
    fn adding_times_out_with_opensearch_message() {
        let t0 = Instant::now();
        let e = wait_until_out_of_config(Duration::from_millis(120), &[ex("a", "na")], || s(&["a"])).unwrap_err();
        assert!(t0.elapsed() >= Duration::from_millis(120));
        assert_eq!(e.kind, ErrorKind::Timeout);
        assert_eq!(e.kind.status(), 500);
        assert_eq!(e.reason, "timed out waiting for voting config exclusions [{na}{a}] to take effect");
    }

    #[test]
    fn clearing_waits_for_the_excluded_nodes_to_leave() {
        let calls = Cell::new(0);
        let nodes = || {
            calls.set(calls.get() + 1);
            if calls.get() < 2 {
                s(&["a", "b"])
            } else {
                s(&["b"])
            }
        };
        wait_until_removed(Duration::from_secs(5), &[ex("a", "na"), ex(ABSENT, "ghost")], nodes).unwrap();
        assert_eq!(calls.get(), 2);
        let e = wait_until_removed(Duration::from_millis(60), &[ex("b", "nb"), ex("gone", ABSENT)], || s(&["b"]))
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Timeout);
        assert_eq!(
            e.reason,
            "timed out waiting for removal of nodes; if nodes should not be removed, set waitForRemoval to false. [{nb}{b}, {_absent_}{gone}]"
        );
    }
}
