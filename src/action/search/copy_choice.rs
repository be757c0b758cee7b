//! Which copy of a shard a search reads (OpenSearch's `OperationRouting` with its
//! `preference` values): this node's copy, another node's, or none.
//!
//! | `preference` | copy |
//! |---|---|
//! | none | this node's copy when it has one, else the active copies in turn (round robin) |
//! | `_local` | this node's copy when it has one, else any active copy |
//! | `_only_local` | this node's copy only (none: the shard is not searched) |
//! | `_primary`, `_only_primary` | the primary |
//! | `_primary_first` | the primary, else a replica |
//! | `_replica`, `_replica_first` | a replica (`_replica_first`: else the primary) |
//! | `_only_nodes:a,b` | a copy on one of those nodes (ids or names; `*` wildcards) |
//! | `_prefer_nodes:a,b` | a copy on one of those nodes, else any |
//! | `_shards:0,1[\|p]` | restricts the shards (see `context::shard_filter`), then `p` |
//! | any other string | the same copy for the same string (consistent paging) |

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::cluster::routing_table::ShardCopy;
use crate::cluster::state::ClusterState;

/// Where a shard is read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Choice {
    Local,
    Remote(String),
    /// No copy fits (`_only_local` without a local copy, no active copy, no matching node).
    Nothing,
}

static ROUND_ROBIN: AtomicUsize = AtomicUsize::new(0);

fn matches_node(st: &ClusterState, node: &str, patterns: &str) -> bool {
    let name = st.node(node).map(|m| m.name.as_str()).unwrap_or("");
    patterns.split(',').map(str::trim).filter(|p| !p.is_empty()).any(|p| {
        crate::engine::schema::dynamic_templates::simple_match(p, node)
            || crate::engine::schema::dynamic_templates::simple_match(p, name)
    })
}

/// FNV-1a: the same preference string picks the same copy on every call.
fn stable_hash(s: &str, shard: u32) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes().chain(shard.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as usize
}

/// The copy of `index`/`shard` to read on a node `me` (whose copy serves when `local_serves`).
pub fn choose(
    st: &ClusterState,
    me: &str,
    index: &str,
    shard: u32,
    local_serves: bool,
    preference: Option<&str>,
) -> Choice {
    let pref = preference.map(|p| match p.strip_prefix("_shards:") {
        Some(rest) => rest.split_once('|').map_or("", |(_, p)| p),
        None => p,
    });
    let pref = pref.filter(|p| !p.is_empty());
    let mut active: Vec<&ShardCopy> = st
        .routing
        .shard(index, shard)
        .map(|t| t.copies.iter().filter(|c| c.active() && c.node.is_some()).collect())
        .unwrap_or_default();
    active.sort_by(|a, b| a.node.cmp(&b.node));
    // A copy here that serves is `Local`; the table may lag a moment behind what this node opened.
    let to_choice = |c: &ShardCopy| match c.node.as_deref() {
        Some(n) if n == me => {
            if local_serves {
                Choice::Local
            } else {
                Choice::Nothing
            }
        }
        Some(n) => Choice::Remote(n.to_string()),
        None => Choice::Nothing,
    };
    let local_first = || {
        if local_serves {
            return Choice::Local;
        }
        let others: Vec<&&ShardCopy> = active.iter().filter(|c| !c.on(me)).collect();
        if others.is_empty() {
            return Choice::Nothing;
        }
        let i = ROUND_ROBIN.fetch_add(1, Ordering::Relaxed) % others.len();
        to_choice(others[i])
    };
    let first_of = |pick: &dyn Fn(&ShardCopy) -> bool| active.iter().find(|c| pick(c)).map(|c| to_choice(c));
    match pref {
        None | Some("_local") => local_first(),
        Some("_only_local") => {
            if local_serves {
                Choice::Local
            } else {
                Choice::Nothing
            }
        }
        Some("_primary" | "_only_primary") => first_of(&|c| c.primary).unwrap_or(Choice::Nothing),
        Some("_primary_first") => first_of(&|c| c.primary).or_else(|| first_of(&|_| true)).unwrap_or(Choice::Nothing),
        Some("_replica") => first_of(&|c| !c.primary).unwrap_or(Choice::Nothing),
        Some("_replica_first") => first_of(&|c| !c.primary).or_else(|| first_of(&|_| true)).unwrap_or(Choice::Nothing),
        Some(p) if p.starts_with("_only_nodes:") || p.starts_with("_prefer_nodes:") => {
            let (only, nodes) = match p.strip_prefix("_only_nodes:") {
                Some(n) => (true, n),
                None => (false, p.trim_start_matches("_prefer_nodes:")),
            };
            let on = |c: &ShardCopy| c.node.as_deref().is_some_and(|n| matches_node(st, n, nodes));
            // A matching local copy first, then a matching remote one.
            let hit = if local_serves && active.iter().any(|c| c.on(me) && on(c)) {
                Some(Choice::Local)
            } else {
                first_of(&|c| on(c) && !c.on(me))
            };
            match (hit, only) {
                (Some(c), _) => c,
                (None, true) => Choice::Nothing,
                (None, false) => local_first(),
            }
        }
        Some(custom) => {
            if active.is_empty() {
                return Choice::Nothing;
            }
            let c = active[stable_hash(custom, shard) % active.len()];
            match to_choice(c) {
                // The chosen copy is this node's but it does not serve here yet: any other.
                Choice::Nothing => local_first(),
                other => other,
            }
        }
    }
}

/// The copies of `index`/`shard` a single-shard read (get, mget) tries in turn, as
/// OpenSearch's `TransportSingleShardAction` walks its shard iterator: [`choose`]'s copy first,
/// then the other active copies the preference allows (this node's first). Empty when none fits.
pub fn candidates(
    st: &ClusterState,
    me: &str,
    index: &str,
    shard: u32,
    local_serves: bool,
    preference: Option<&str>,
) -> Vec<Choice> {
    let first = choose(st, me, index, shard, local_serves, preference);
    let pref = preference.map(|p| match p.strip_prefix("_shards:") {
        Some(rest) => rest.split_once('|').map_or("", |(_, p)| p),
        None => p,
    });
    let allowed = |c: &ShardCopy| -> bool {
        match pref.filter(|p| !p.is_empty()) {
            Some("_only_local") => false,
            Some("_primary" | "_only_primary") => c.primary,
            Some("_replica") => !c.primary,
            Some(p) if p.starts_with("_only_nodes:") => {
                c.node.as_deref().is_some_and(|n| matches_node(st, n, p.trim_start_matches("_only_nodes:")))
            }
            _ => true,
        }
    };
    let mut out = Vec::new();
    if first != Choice::Nothing {
        out.push(first);
    }
    let mut rest: Vec<&ShardCopy> = st
        .routing
        .shard(index, shard)
        .map(|t| t.copies.iter().filter(|c| c.active() && c.node.is_some() && allowed(c)).collect())
        .unwrap_or_default();
    rest.sort_by(|a, b| (!a.on(me)).cmp(&!b.on(me)).then(a.node.cmp(&b.node)));
    for c in rest {
        let choice = match c.node.as_deref() {
            Some(n) if n == me && local_serves => Choice::Local,
            Some(n) if n != me => Choice::Remote(n.to_string()),
            _ => continue,
        };
        if !out.contains(&choice) {
            out.push(choice);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::coordination_view::MemberView;
    use crate::cluster::routing_table::{IndexRouting, RoutingTable, ShardState, ShardTable};
    use std::sync::Arc;

    fn copy(node: &str, primary: bool) -> ShardCopy {
        ShardCopy {
            primary,
            state: ShardState::Started,
            node: Some(node.into()),
            relocating_node: None,
            relocation_id: None,
            allocation_id: Some(format!("a-{node}")),
            recovery_source: None,
            unassigned: None,
        }
    }

    fn state() -> ClusterState {
        let mut rt = RoutingTable::default();
        let copies = vec![copy("n1", true), copy("n2", false), copy("n3", false)];
        rt.indices.insert(
            "i".into(),
            IndexRouting {
                uuid: "u".into(),
                shards: vec![ShardTable { id: 0, primary_term: 1, in_sync: vec![], copies }],
            },
        );
        let nodes = ["n1", "n2", "n3"]
            .iter()
            .map(|n| MemberView { node_id: n.to_string(), name: format!("name-{n}"), ..Default::default() })
            .collect();
        ClusterState { routing: Arc::new(rt), nodes: Arc::new(nodes), ..Default::default() }
    }

    #[test]
    fn preferences_pick_their_copies() {
        let st = state();
        let c = |me: &str, local: bool, p: Option<&str>| choose(&st, me, "i", 0, local, p);
        assert_eq!(c("n2", true, None), Choice::Local);
        assert_eq!(c("n2", true, Some("_primary")), Choice::Remote("n1".into()));
        assert_eq!(c("n1", true, Some("_primary")), Choice::Local);
        assert_eq!(c("n1", true, Some("_replica")), Choice::Remote("n2".into()));
        assert_eq!(c("n4", false, Some("_only_local")), Choice::Nothing);
        assert_eq!(c("n1", true, Some("_only_nodes:n3")), Choice::Remote("n3".into()));
        assert_eq!(c("n1", true, Some("_only_nodes:name-n3")), Choice::Remote("n3".into()));
        assert_eq!(c("n1", true, Some("_only_nodes:n9")), Choice::Nothing);
        assert_eq!(c("n1", true, Some("_prefer_nodes:n9")), Choice::Local);
        assert_eq!(c("n1", true, Some("_shards:0|_only_nodes:n2")), Choice::Remote("n2".into()));
        // A custom string: the same copy every time.
        let a = c("n4", false, Some("user-42"));
        for _ in 0..10 {
            assert_eq!(c("n4", false, Some("user-42")), a);
        }
        // No preference and no local copy: the copies in turn.
        let picks: std::collections::BTreeSet<_> = (0..6).map(|_| c("n4", false, None)).collect();
        assert_eq!(picks.len(), 3, "{picks:?}");
    }

    #[test]
    fn single_shard_reads_try_the_other_allowed_copies_next() {
        let st = state();
        let c = |me: &str, local: bool, p: Option<&str>| candidates(&st, me, "i", 0, local, p);
        let r = |n: &str| Choice::Remote(n.into());
        assert_eq!(c("n2", true, None), [Choice::Local, r("n1"), r("n3")]);
        assert_eq!(c("n2", true, Some("_local")), [Choice::Local, r("n1"), r("n3")]);
        // This node's copy does not serve yet: the others.
        assert_eq!(c("n2", false, Some("_local")).len(), 2);
        assert_eq!(c("n2", true, Some("_only_local")), [Choice::Local]);
        assert!(c("n4", false, Some("_only_local")).is_empty());
        assert_eq!(c("n2", true, Some("_primary")), [r("n1")]);
        assert_eq!(c("n1", true, Some("_replica")), [r("n2"), r("n3")]);
        assert_eq!(c("n1", true, Some("_only_nodes:n2,n3")), [r("n2"), r("n3")]);
        assert_eq!(c("n1", true, Some("_prefer_nodes:n3")), [r("n3"), Choice::Local, r("n2")]);
        // A custom string: its copy first, then the rest, each once.
        let all = c("n4", false, Some("user-42"));
        assert_eq!(all.len(), 3);
        assert_eq!(all[0], choose(&st, "n4", "i", 0, false, Some("user-42")));
    }
}
