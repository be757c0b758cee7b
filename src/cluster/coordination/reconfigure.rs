//! The voting configuration the cluster manager wants (OpenSearch's `Reconfigurator`): from the
//! live cluster-manager-eligible nodes, the retired ones (voting configuration exclusions), the
//! current manager and the current configuration. Live nodes are preferred, then the current
//! manager and the current members (for stability); the size is the largest odd number of live
//! non-retired nodes, but never below 3 (or the non-retired part of the current configuration
//! when smaller) while `cluster.auto_shrink_voting_configuration` is true, nor below that part at
//! all when it is false. A configuration without a live quorum is never chosen: the current one
//! stays.

use std::cmp::Ordering;
use std::collections::BTreeSet;

/// One candidate for the configuration, ordered as OpenSearch's `VotingConfigNode`.
#[derive(Debug, PartialEq, Eq)]
struct Candidate<'a> {
    id: &'a str,
    live: bool,
    manager: bool,
    in_config: bool,
}

impl Ord for Candidate<'_> {
    fn cmp(&self, o: &Self) -> Ordering {
        // The current manager first, then live nodes, then members of the current
        // configuration, then by id.
        o.manager
            .cmp(&self.manager)
            .then(o.live.cmp(&self.live))
            .then(o.in_config.cmp(&self.in_config))
            .then(self.id.cmp(o.id))
    }
}

impl PartialOrd for Candidate<'_> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Whether `config` has a quorum (more than half) among `votes`.
pub fn has_quorum(config: &BTreeSet<String>, votes: &BTreeSet<&str>) -> bool {
    let n = config.iter().filter(|id| votes.contains(id.as_str())).count();
    n * 2 > config.len()
}

/// The optimal configuration. `live`: the live nodes of the cluster as (node id, whether it is
/// cluster-manager-eligible), the current manager among them; `retired`: node ids that should
/// leave the configuration; `current`: the configuration now.
pub fn reconfigure(
    live: &[(String, bool)],
    retired: &BTreeSet<String>,
    current_manager: &str,
    current: &BTreeSet<String>,
    auto_shrink: bool,
) -> BTreeSet<String> {
    let live_ids: BTreeSet<&str> = live.iter().filter(|(_, eligible)| *eligible).map(|(id, _)| id.as_str()).collect();
    let mut candidates: BTreeSet<Candidate<'_>> = live_ids
        .iter()
        .filter(|id| !retired.contains(**id))
        .map(|id| Candidate { id, live: true, manager: *id == current_manager, in_config: current.contains(*id) })
        .collect();
    candidates.extend(
        current.iter().filter(|id| !live_ids.contains(id.as_str()) && !retired.contains(*id)).map(|id| Candidate {
            id,
            live: false,
            manager: false,
            in_config: true,
        }),
    );
    let non_retired_config_size = candidates.iter().filter(|c| c.in_config).count() as i64;
    let minimum = if auto_shrink {
        if non_retired_config_size < 3 {
            1
        } else {
            3
        }
    } else {
        non_retired_config_size
    };
    let live_count = candidates.iter().filter(|c| c.live).count() as i64;
    let round_down_to_odd = live_count - if live_count % 2 == 0 { 1 } else { 0 };
    let target = round_down_to_odd.max(minimum).max(0) as usize;
    let next: BTreeSet<String> = candidates.iter().take(target).map(|c| c.id.to_string()).collect();
    if has_quorum(&next, &live_ids) {
        next
    } else {
        current.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    fn live(ids: &[&str]) -> Vec<(String, bool)> {
        ids.iter().map(|s| (s.to_string(), true)).collect()
    }

    /// OpenSearch's `ReconfiguratorTests.check`: the manager is the live node with the smallest id.
    fn check(nodes: &[&str], retired: &[&str], conf: &[&str], auto_shrink: bool, expected: &[&str]) {
        let manager = nodes.iter().min().unwrap();
        check_with(nodes, retired, manager, conf, auto_shrink, expected);
    }

    fn check_with(
        nodes: &[&str],
        retired: &[&str],
        manager: &str,
        conf: &[&str],
        auto_shrink: bool,
        expected: &[&str],
    ) {
        let got = reconfigure(&live(nodes), &set(retired), manager, &set(conf), auto_shrink);
        assert_eq!(
            got,
            set(expected),
            "live={nodes:?} retired={retired:?} manager={manager} config={conf:?} auto_shrink={auto_shrink}"
        );
    }

    #[test]
    fn opensearch_reconfiguration_examples() {
        for (nodes, conf, expected) in [
            (&["a"][..], &["a"][..], &["a"][..]),
            (&["a", "b"], &["a"], &["a"]),
            (&["a", "b"], &["b"], &["a"]),
            (&["a", "b"], &["a", "c"], &["a"]),
            (&["a", "b"], &["a", "b"], &["a"]),
            (&["a", "b"], &["a", "b", "e"], &["a", "b", "e"]),
            (&["a", "b", "c"], &["a"], &["a", "b", "c"]),
            (&["a", "b", "c"], &["a", "b"], &["a", "b", "c"]),
            (&["a", "b", "c"], &["a", "b", "c"], &["a", "b", "c"]),
            (&["a", "b", "c", "d"], &["a", "b", "c"], &["a", "b", "c"]),
            (&["a", "b", "c", "d", "e"], &["a", "b", "c"], &["a", "b", "c", "d", "e"]),
            (&["a", "b", "c"], &["a", "b", "e"], &["a", "b", "c"]),
            (&["a", "b", "c", "d"], &["a", "b", "e"], &["a", "b", "c"]),
            (&["a", "b", "c", "d", "e"], &["a", "f", "g"], &["a", "b", "c", "d", "e"]),
            (&["a", "b", "c", "d"], &["a", "b", "c", "d", "e"], &["a", "b", "c"]),
            (&["a", "b", "c"], &["a", "b", "c", "d", "e"], &["a", "b", "c"]),
        ] {
            check(nodes, &[], conf, true, expected);
        }
        check_with(&["e", "a", "b", "c"], &[], "e", &["a", "b", "c", "d", "e"], true, &["a", "b", "e"]);

        for (nodes, conf, expected) in [
            (&["a"][..], &["a"][..], &["a"][..]),
            (&["a", "b"], &["a"], &["a"]),
            (&["a", "b"], &["a", "b"], &["a", "b"]),
            (&["a", "b", "c"], &["a"], &["a", "b", "c"]),
            (&["a", "b", "c"], &["a", "b"], &["a", "b", "c"]),
            (&["a", "b"], &["a", "b", "e"], &["a", "b", "e"]),
            (&["a", "b"], &["a", "c"], &["a", "b"]),
            (&["a", "b", "c"], &["a", "b", "c"], &["a", "b", "c"]),
            (&["a", "b", "c", "d"], &["a", "b", "c"], &["a", "b", "c"]),
            (&["a", "b", "c", "d", "e"], &["a", "b", "c"], &["a", "b", "c", "d", "e"]),
            (&["a", "b", "c"], &["a", "b", "e"], &["a", "b", "c"]),
            (&["a", "b", "c", "d"], &["a", "b", "e"], &["a", "b", "c"]),
            (&["a", "b", "c", "d", "e"], &["a", "f", "g"], &["a", "b", "c", "d", "e"]),
            (&["a", "b", "c", "d"], &["a", "b", "c", "d", "e"], &["a", "b", "c", "d", "e"]),
            (&["a", "b", "c"], &["a", "b", "c", "d", "e"], &["a", "b", "c", "d", "e"]),
        ] {
            check(nodes, &[], conf, false, expected);
        }
    }

    #[test]
    fn retiring_shifts_the_votes() {
        check(&["a", "b"], &["a"], &["a"], true, &["b"]);
        check(&["a", "b"], &["a"], &["a"], false, &["b"]);
        // A three-node cluster drops to a one-node configuration.
        check(&["a", "b", "c"], &["a"], &["a"], true, &["b"]);
        check(&["a", "b", "c"], &["a"], &["a", "b", "c"], true, &["b"]);
        check(&["a", "b", "c"], &["a"], &["a"], false, &["b"]);
        check(&["a", "b", "c"], &["a"], &["a", "b", "c"], false, &["b", "c"]);
        // One node for each combination of live/retired/current.
        let nodes = ["a", "b", "c", "f"];
        let retired = ["c", "e", "f", "g"];
        check(&nodes, &retired, &["a", "c", "d", "e"], true, &["a"]);
        check(&nodes, &retired, &["a", "c", "d", "e"], false, &["a", "b"]);
        check(&nodes, &retired, &["a", "c", "d", "e", "h"], true, &["a", "b", "d"]);
        check(&nodes, &retired, &["a", "c", "d", "e", "h"], false, &["a", "b", "d"]);
    }

    #[test]
    fn dynamic_auto_shrink() {
        let conf = ["a", "b", "c", "d", "e"];
        check(&["a", "b"], &[], &conf, true, &["a", "b", "c"]);
        // No live quorum: unchanged.
        check(&["a", "b"], &[], &conf, false, &conf);
        check(&["a", "b", "c"], &[], &conf, false, &conf);
        check(&["a", "b", "c"], &["d"], &conf, false, &["a", "b", "c", "e"]);
    }

    #[test]
    fn fathom_examples() {
        // Exclude a non-manager of three: the manager alone.
        check_with(&["a", "b", "c"], &["c"], "a", &["a", "b", "c"], true, &["a"]);
        // Exclude the manager of three: the other voter with the smallest id.
        check_with(&["a", "b", "c"], &["b"], "b", &["a", "b", "c"], true, &["a"]);
        // Six eligible nodes, three voters: five.
        let six = ["a", "b", "c", "d", "e", "f"];
        check_with(&six, &[], "b", &["a", "b", "c"], true, &["a", "b", "c", "d", "e"]);
        // One of five voters dies: replaced by the spare live node.
        check_with(&["a", "b", "c", "d", "f"], &[], "b", &["a", "b", "c", "d", "e"], true, &["a", "b", "c", "d", "f"]);
        // One node excluding itself: no configuration without it has a quorum.
        check_with(&["a"], &["a"], "a", &["a"], true, &["a"]);
        // A voter of three killed, not excluded: unchanged.
        check_with(&["a", "b"], &[], "a", &["a", "b", "c"], true, &["a", "b", "c"]);
        // Six eligible, a two-node zone excluded: three.
        check_with(&six, &["e", "f"], "a", &["a", "b", "c", "d", "e"], true, &["a", "b", "c"]);
        // Nodes that are not eligible never vote.
        let got = reconfigure(
            &[("a".into(), true), ("b".into(), false), ("c".into(), false)],
            &BTreeSet::new(),
            "a",
            &set(&["a"]),
            true,
        );
        assert_eq!(got, set(&["a"]));
    }

    /// OpenSearch's `testAutoShrinking`/`testManualShrinking` over every subset of seven nodes:
    /// the result has a quorum among any quorum-sized part of the live nodes when one can exist.
    #[test]
    fn shrinking_keeps_a_live_quorum() {
        let all = ["a", "b", "c", "d", "e", "f", "g"];
        let subset = |mask: u32| -> Vec<&str> { (0..7).filter(|i| mask & (1 << i) != 0).map(|i| all[i]).collect() };
        for live_mask in 1u32..128 {
            for conf_mask in 1u32..128 {
                let nodes = subset(live_mask);
                let conf = set(&subset(conf_mask));
                for auto_shrink in [true, false] {
                    let got = reconfigure(&live(&nodes), &BTreeSet::new(), nodes[0], &conf, auto_shrink);
                    let quorum = if auto_shrink {
                        (nodes.len() / 2 + 1).max(if conf.len() < 3 { 1 } else { 2 })
                    } else {
                        nodes.len().max(conf.len()) / 2 + 1
                    };
                    let desc = format!("live {nodes:?} conf {conf:?} auto_shrink {auto_shrink} → {got:?}");
                    if quorum > nodes.len() {
                        let votes: BTreeSet<&str> = nodes.iter().copied().collect();
                        assert!(!has_quorum(&got, &votes), "{desc}: live quorum without enough nodes");
                    } else {
                        // Every quorum-sized subset of the live nodes is a quorum of the result.
                        for sub in 0u32..(1 << nodes.len()) {
                            if sub.count_ones() as usize != quorum {
                                continue;
                            }
                            let votes: BTreeSet<&str> =
                                (0..nodes.len()).filter(|i| sub & (1 << i) != 0).map(|i| nodes[i]).collect();
                            assert!(has_quorum(&got, &votes), "{desc}: no quorum among {votes:?}");
                        }
                    }
                }
            }
        }
    }
}
