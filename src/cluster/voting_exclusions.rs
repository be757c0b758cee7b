//! Which voting configuration exclusions a request adds (OpenSearch's
//! `AddVotingConfigExclusionsRequest.resolveVotingConfigExclusionsAndCheckMaximum`), resolved
//! against a cluster state, and their publication. Decommissioning reuses [`resolve`].
//!
//! - node ids: a node of the state with that id is excluded as `{id, name}` when it is
//!   cluster-manager-eligible (skipped silently otherwise); an unknown id as `{id, _absent_}`;
//! - node names: the same by name; an unknown name as `{_absent_, name}`;
//! - deprecated node descriptions (`DiscoveryNodes.resolveNodes` expressions): the eligible nodes
//!   they match, an error when none;
//! - exclusions already present are dropped; the rest must fit under
//!   `cluster.max_voting_config_exclusions` with the existing ones.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::coordination_view::MemberView;
use super::operations_metadata::{VotingConfigExclusion, ABSENT};
use super::state::ClusterState;
use super::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};

/// The setting that bounds the number of exclusions.
pub const MAX_SETTING: &str = "cluster.max_voting_config_exclusions";
/// Its default.
pub const DEFAULT_MAX: usize = 10;

/// How long a publication waits for the other nodes to apply it.
const ACK_TIMEOUT: Duration = Duration::from_secs(30);

/// The nodes a request names: exactly one of OpenSearch's three lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExclusionTargets {
    /// Deprecated node descriptions (`node_name`).
    Descriptions(Vec<String>),
    /// `node_ids`.
    NodeIds(Vec<String>),
    /// `node_names`.
    NodeNames(Vec<String>),
}

impl ExclusionTargets {
    /// The request's lists (each as `Strings.splitStringByCommaToArray` made it), with
    /// OpenSearch's check that exactly one is non-empty.
    pub fn from_lists(descriptions: Vec<String>, ids: Vec<String>, names: Vec<String>) -> OsResult<ExclusionTargets> {
        match (descriptions.is_empty(), ids.is_empty(), names.is_empty()) {
            (false, true, true) => Ok(ExclusionTargets::Descriptions(descriptions)),
            (true, false, true) => Ok(ExclusionTargets::NodeIds(ids)),
            (true, true, false) => Ok(ExclusionTargets::NodeNames(names)),
            _ => Err(OsError::illegal(
                "Please set node identifiers correctly. One and only one of [node_name], [node_names] and [node_ids] has to be set",
            )),
        }
    }

    /// The deprecated descriptions (empty for the other lists): what the limit message prints.
    pub fn descriptions(&self) -> &[String] {
        match self {
            ExclusionTargets::Descriptions(d) => d,
            _ => &[],
        }
    }
}

/// Java's `List.toString`: `[a, b]`.
pub fn java_list(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

/// Java's `Set.toString` of exclusions: `[{name}{id}, ...]`.
pub fn describe_all(exclusions: &[VotingConfigExclusion]) -> String {
    java_list(&exclusions.iter().map(VotingConfigExclusion::describe).collect::<Vec<_>>())
}

/// Whether a member may be elected cluster manager (and so vote).
pub fn is_cluster_manager_eligible(m: &MemberView) -> bool {
    m.roles.iter().any(|r| r == "cluster_manager" || r == "master")
}

fn exclusion_of(m: &MemberView) -> VotingConfigExclusion {
    VotingConfigExclusion { node_id: m.node_id.clone(), node_name: m.name.clone() }
}

/// `cluster.max_voting_config_exclusions` of effective cluster settings (a number or a string;
/// at least 1).
pub fn max_exclusions(settings: &Map<String, Value>) -> OsResult<usize> {
    let Some(v) = settings.get(MAX_SETTING) else { return Ok(DEFAULT_MAX) };
    let parsed = match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match parsed {
        Some(n) if n >= 1 => Ok(n as usize),
        Some(_) => {
            Err(OsError::illegal(format!("Failed to parse value [{text}] for setting [{MAX_SETTING}] must be >= 1")))
        }
        None => Err(OsError::illegal(format!("Failed to parse value [{text}] for setting [{MAX_SETTING}]"))),
    }
}

/// The exclusions `targets` add to `st`'s, in request order, without duplicates and without
/// those `st` already has; an error when they would exceed `max`. `resolve_descriptions`
/// resolves deprecated node descriptions to node ids over the members (the action layer's
/// `DiscoveryNodes.resolveNodes`); it is not called for ids and names.
pub fn resolve(
    st: &ClusterState,
    targets: &ExclusionTargets,
    resolve_descriptions: &dyn Fn(&[MemberView], &[String]) -> Vec<String>,
    max: usize,
) -> OsResult<Vec<VotingConfigExclusion>> {
    fn add(e: VotingConfigExclusion, found: &mut Vec<VotingConfigExclusion>) {
        if !found.contains(&e) {
            found.push(e);
        }
    }
    let mut found: Vec<VotingConfigExclusion> = Vec::new();
    match targets {
        ExclusionTargets::Descriptions(descriptions) => {
            for id in resolve_descriptions(&st.nodes, descriptions) {
                if let Some(m) = st.node(&id).filter(|m| is_cluster_manager_eligible(m)) {
                    add(exclusion_of(m), &mut found);
                }
            }
            if found.is_empty() {
                return Err(OsError::illegal(format!(
                    "add voting config exclusions request for {} matched no cluster-manager-eligible nodes",
                    java_list(descriptions)
                )));
            }
        }
        ExclusionTargets::NodeIds(ids) => {
            for id in ids {
                match st.node(id) {
                    Some(m) if is_cluster_manager_eligible(m) => add(exclusion_of(m), &mut found),
                    Some(_) => {}
                    None => add(VotingConfigExclusion { node_id: id.clone(), node_name: ABSENT.into() }, &mut found),
                }
            }
        }
        ExclusionTargets::NodeNames(names) => {
            // OpenSearch maps every node by name first, which fails on two nodes with one name.
            for (i, a) in st.nodes.iter().enumerate() {
                if let Some(b) = st.nodes[i + 1..].iter().find(|b| b.name == a.name) {
                    return Err(OsError::new(
                        ErrorKind::IllegalState,
                        format!(
                            "Duplicate key {} (attempted merging values {} and {})",
                            a.name,
                            exclusion_of(a).describe(),
                            exclusion_of(b).describe()
                        ),
                    ));
                }
            }
            for name in names {
                match st.nodes.iter().find(|m| &m.name == name) {
                    Some(m) if is_cluster_manager_eligible(m) => add(exclusion_of(m), &mut found),
                    Some(_) => {}
                    None => add(VotingConfigExclusion { node_id: ABSENT.into(), node_name: name.clone() }, &mut found),
                }
            }
        }
    }
    let existing = &st.metadata.coordination.voting_config_exclusions;
    found.retain(|e| !existing.contains(e));
    if existing.len() + found.len() > max {
        return Err(OsError::illegal(format!(
            "add voting config exclusions request for {} would add [{}] exclusions to the existing [{}] which would exceed the maximum of [{max}] set by [{MAX_SETTING}]",
            java_list(targets.descriptions()),
            found.len(),
            existing.len()
        )));
    }
    Ok(found)
}

impl ClusterService {
    /// Publishes the exclusions `targets` add, resolved (and the limit checked) against the
    /// state the publication replaces; returns them (empty: all were present already).
    pub fn add_voting_config_exclusions(
        &self,
        targets: &ExclusionTargets,
        resolve_descriptions: &dyn Fn(&[MemberView], &[String]) -> Vec<String>,
    ) -> OsResult<Vec<VotingConfigExclusion>> {
        let mut added: Vec<VotingConfigExclusion> = Vec::new();
        let st = self.publish(&mut |cur| {
            let max = max_exclusions(&self.cluster_settings(&cur.metadata))?;
            added = resolve(cur, targets, resolve_descriptions, max)?;
            if added.is_empty() {
                return Ok(None);
            }
            let mut md = (*cur.metadata).clone();
            md.coordination.voting_config_exclusions.extend(added.iter().cloned());
            md.version += 1;
            Ok(Some(self.rerouted(cur, Arc::new(md))))
        })?;
        if !added.is_empty() {
            self.publisher().await_applied(&st, ACK_TIMEOUT);
        }
        Ok(added)
    }

    /// Publishes an empty exclusion list (nothing when it is empty already).
    pub fn clear_voting_config_exclusions(&self) -> OsResult<()> {
        let mut changed = false;
        let st = self.publish(&mut |cur| {
            changed = !cur.metadata.coordination.voting_config_exclusions.is_empty();
            if !changed {
                return Ok(None);
            }
            let mut md = (*cur.metadata).clone();
            md.coordination.voting_config_exclusions.clear();
            md.version += 1;
            Ok(Some(self.rerouted(cur, Arc::new(md))))
        })?;
        if changed {
            self.publisher().await_applied(&st, ACK_TIMEOUT);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::metadata::Metadata;

    fn member(id: &str, name: &str, eligible: bool) -> MemberView {
        let roles = if eligible { vec!["cluster_manager".into(), "data".into()] } else { vec!["data".into()] };
        MemberView { node_id: id.into(), name: name.into(), roles, ..Default::default() }
    }

    fn ex(id: &str, name: &str) -> VotingConfigExclusion {
        VotingConfigExclusion { node_id: id.into(), node_name: name.into() }
    }

    fn state(existing: &[VotingConfigExclusion]) -> ClusterState {
        let mut md = Metadata::default();
        md.coordination.voting_config_exclusions = existing.to_vec();
        ClusterState {
            nodes: Arc::new(vec![member("id-a", "a", true), member("id-b", "b", true), member("id-d", "d", false)]),
            metadata: Arc::new(md),
            ..Default::default()
        }
    }

    fn list(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    /// A description resolver as the model: exact ids or names, `_all`.
    fn by_id_or_name(nodes: &[MemberView], d: &[String]) -> Vec<String> {
        nodes
            .iter()
            .filter(|n| d.iter().any(|x| x == "_all" || *x == n.node_id || *x == n.name))
            .map(|n| n.node_id.clone())
            .collect()
    }

    fn never(_: &[MemberView], _: &[String]) -> Vec<String> {
        panic!("descriptions resolved for a request without any")
    }

    #[test]
    fn exactly_one_list_is_set() {
        let msg = "Please set node identifiers correctly. One and only one of [node_name], [node_names] and [node_ids] has to be set";
        for (d, i, n) in [
            (vec![], vec![], vec![]),
            (vec![], list(&["x"]), list(&["y"])),
            (list(&["x"]), list(&["y"]), vec![]),
            (list(&["x"]), vec![], list(&["y"])),
        ] {
            let e = ExclusionTargets::from_lists(d, i, n).unwrap_err();
            assert_eq!((e.kind, e.reason.as_str()), (ErrorKind::IllegalArgument, msg));
        }
        assert_eq!(
            ExclusionTargets::from_lists(vec![], list(&["x"]), vec![]).unwrap(),
            ExclusionTargets::NodeIds(list(&["x"]))
        );
    }

    #[test]
    fn ids_resolve_to_eligible_nodes_or_absent_names() {
        let st = state(&[]);
        let t = ExclusionTargets::NodeIds(list(&["id-b", "ghost", "id-d", "id-b"]));
        let got = resolve(&st, &t, &never, 10).unwrap();
        assert_eq!(got, vec![ex("id-b", "b"), ex("ghost", ABSENT)], "non-eligible skipped, duplicates once");
    }

    #[test]
    fn names_resolve_to_eligible_nodes_or_absent_ids() {
        let st = state(&[]);
        let t = ExclusionTargets::NodeNames(list(&["a", "nobody", "d"]));
        assert_eq!(resolve(&st, &t, &never, 10).unwrap(), vec![ex("id-a", "a"), ex(ABSENT, "nobody")]);
    }

    #[test]
    fn present_exclusions_are_not_added_again() {
        let st = state(&[ex("id-a", "a"), ex("ghost", ABSENT)]);
        let t = ExclusionTargets::NodeIds(list(&["id-a", "ghost", "id-b"]));
        assert_eq!(resolve(&st, &t, &never, 10).unwrap(), vec![ex("id-b", "b")]);
        // The same node named the other way is another exclusion (equality on both fields).
        let t = ExclusionTargets::NodeNames(list(&["ghost"]));
        assert_eq!(resolve(&st, &t, &never, 10).unwrap(), vec![ex(ABSENT, "ghost")]);
    }

    #[test]
    fn descriptions_keep_eligible_nodes_and_fail_when_none() {
        let st = state(&[]);
        let t = ExclusionTargets::Descriptions(list(&["_all"]));
        assert_eq!(resolve(&st, &t, &by_id_or_name, 10).unwrap(), vec![ex("id-a", "a"), ex("id-b", "b")]);
        let t = ExclusionTargets::Descriptions(list(&["d", "ghost"]));
        let e = resolve(&st, &t, &by_id_or_name, 10).unwrap_err();
        assert_eq!(e.kind, ErrorKind::IllegalArgument);
        assert_eq!(
            e.reason,
            "add voting config exclusions request for [d, ghost] matched no cluster-manager-eligible nodes"
        );
    }

    #[test]
    fn the_limit_counts_existing_and_new_exclusions() {
        let st = state(&[ex("x", ABSENT)]);
        let t = ExclusionTargets::NodeNames(list(&["a", "b"]));
        assert_eq!(resolve(&st, &t, &never, 3).unwrap().len(), 2);
        let e = resolve(&st, &t, &never, 2).unwrap_err();
        assert_eq!(e.kind, ErrorKind::IllegalArgument);
        assert_eq!(
            e.reason,
            "add voting config exclusions request for [] would add [2] exclusions to the existing [1] which would exceed the maximum of [2] set by [cluster.max_voting_config_exclusions]"
        );
        // Already present ones do not count as new.
        let st = state(&[ex("id-a", "a")]);
        assert_eq!(resolve(&st, &t, &never, 2).unwrap(), vec![ex("id-b", "b")]);
        // The deprecated form prints its descriptions.
        let t = ExclusionTargets::Descriptions(list(&["a", "b"]));
        let e = resolve(&state(&[]), &t, &by_id_or_name, 1).unwrap_err();
        assert!(
            e.reason.starts_with(
                "add voting config exclusions request for [a, b] would add [2] exclusions to the existing [0]"
            ),
            "{}",
            e.reason
        );
    }

    #[test]
    fn duplicate_node_names_fail_a_by_name_request() {
        let mut st = state(&[]);
        st.nodes = Arc::new(vec![member("id-a", "a", true), member("id-x", "a", true)]);
        let e = resolve(&st, &ExclusionTargets::NodeNames(list(&["zzz"])), &never, 10).unwrap_err();
        assert_eq!(e.kind, ErrorKind::IllegalState);
        assert_eq!(e.reason, "Duplicate key a (attempted merging values {a}{id-a} and {a}{id-x})");
    }

    #[test]
    fn the_maximum_comes_from_the_effective_settings() {
        let m = |v: Value| -> Map<String, Value> { [(MAX_SETTING.to_string(), v)].into_iter().collect() };
        assert_eq!(max_exclusions(&Map::new()).unwrap(), DEFAULT_MAX);
        assert_eq!(max_exclusions(&m(Value::from("1"))).unwrap(), 1);
        assert_eq!(max_exclusions(&m(Value::from(4))).unwrap(), 4);
        assert!(max_exclusions(&m(Value::from("0"))).is_err());
        assert!(max_exclusions(&m(Value::from("many"))).is_err());
    }

    #[test]
    fn exclusion_sets_print_as_java_sets() {
        assert_eq!(describe_all(&[ex("id-a", "a"), ex("ghost", ABSENT)]), "[{a}{id-a}, {_absent_}{ghost}]");
        assert_eq!(describe_all(&[]), "[]");
    }
}
