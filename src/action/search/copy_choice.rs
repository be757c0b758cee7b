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
//!
//! With weighted shard routing set (`_cluster/routing/awareness/{attribute}/weights`), a search
//! without preference (or with `_shards:` alone) reads the copies in weighted turns over their
//! nodes' attribute values (OpenSearch's `activeInitializingShardsWeightedIt`), not this node's
//! copy first: a value with weight 0 takes no searches. Its copies are read only when no copy
//! with a positive weight is active (`cluster.routing.weighted.fail_open`, on by default), so
//! weights alone never leave a shard unread. Under `cluster.routing.weighted.strict` (default)
//! a custom preference string picks its copy the same way (stably), and `_prefer_nodes` /
//! `_only_nodes` are refused ([`check_preference`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value};

use crate::cluster::metadata::Metadata;
use crate::cluster::routing_table::ShardCopy;
use crate::cluster::state::ClusterState;
use crate::error::{ErrorKind, OsError, OsResult};

/// Where a shard is read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Choice {
    Local,
    Remote(String),
    /// No copy fits (`_only_local` without a local copy, no active copy, no matching node).
    Nothing,
}

static ROUND_ROBIN: AtomicUsize = AtomicUsize::new(0);

/// Weighted shard routing as copy choice reads it: the weights set and the
/// `cluster.routing.weighted.*` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighting {
    pub attribute: String,
    pub weights: BTreeMap<String, f64>,
    /// `cluster.routing.weighted.default_weight`: the weight of a value the map does not list.
    pub default_weight: f64,
    /// `cluster.routing.weighted.fail_open`: zero-weight copies serve when no other can.
    pub fail_open: bool,
    /// `cluster.routing.weighted.strict`: preferences follow the weights too.
    pub strict: bool,
}

impl Weighting {
    /// The weighting in force (`None` when no weights are set), from the metadata and the
    /// effective cluster settings.
    pub fn of(md: &Metadata, settings: &Map<String, Value>) -> Option<Weighting> {
        let w = md.weighted_routing.as_ref().filter(|w| w.is_set())?;
        let get = |k: &str| settings.get(k).and_then(crate::cluster::allocation::settings::value_str);
        let flag = |k: &str| get(k).is_none_or(|v| v.trim() != "false");
        Some(Weighting {
            attribute: w.attribute.clone(),
            weights: w.weights.clone(),
            default_weight: get("cluster.routing.weighted.default_weight")
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(1.0),
            fail_open: flag("cluster.routing.weighted.fail_open"),
            strict: flag("cluster.routing.weighted.strict"),
        })
    }

    /// [`Weighting::of`] the state's metadata, computing the effective cluster settings only
    /// when weights are set.
    pub fn in_force(md: &Metadata, settings: impl FnOnce() -> Map<String, Value>) -> Option<Weighting> {
        md.weighted_routing.as_ref().filter(|w| w.is_set())?;
        Weighting::of(md, &settings())
    }

    /// The weight of a copy on `node` (`None`: a node the state does not know).
    fn weight(&self, st: &ClusterState, node: &str) -> Option<f64> {
        let m = st.node(node)?;
        let value = m.attributes.iter().find(|(k, _)| *k == self.attribute).map(|(_, v)| v.as_str());
        Some(value.and_then(|v| self.weights.get(v).copied()).unwrap_or(self.default_weight))
    }

    /// The active copies split into those with a positive weight (with it) and the others
    /// (zero weight, or a node the state does not know).
    fn split<'a>(
        &self,
        st: &ClusterState,
        active: &[&'a ShardCopy],
    ) -> (Vec<(&'a ShardCopy, f64)>, Vec<&'a ShardCopy>) {
        let mut weighted = Vec::new();
        let mut away = Vec::new();
        for c in active {
            match c.node.as_deref().and_then(|n| self.weight(st, n)) {
                Some(w) if w > 0.0 => weighted.push((*c, w)),
                _ => away.push(*c),
            }
        }
        (weighted, away)
    }
}

/// Refuses `_prefer_nodes` and `_only_nodes` under strict weighted routing
/// (`OperationRouting.checkPreferenceBasedRoutingAllowed`).
pub fn check_preference(preference: Option<&str>, weighting: Option<&Weighting>) -> OsResult<()> {
    if !weighting.is_some_and(|w| w.strict) {
        return Ok(());
    }
    let p = preference.map(strip_shards).unwrap_or("");
    if p.starts_with("_prefer_nodes:") || p.starts_with("_only_nodes:") {
        return Err(OsError::new(
            ErrorKind::PreferenceBasedSearchNotAllowed,
            "Preference type based routing not allowed with strict weighted shard routing enabled",
        ));
    }
    Ok(())
}

/// The preference after a `_shards:` part.
fn strip_shards(p: &str) -> &str {
    match p.strip_prefix("_shards:") {
        Some(rest) => rest.split_once('|').map_or("", |(_, p)| p),
        None => p,
    }
}

/// A point in `[0, total)` for pick number `n`: the golden-ratio sequence spreads picks evenly,
/// so each copy takes its share of `total` within a few dozen picks.
fn spread(n: usize, total: f64) -> f64 {
    ((n as f64) * 0.618_033_988_749_894_9).fract() * total
}

/// The copy at `x` of the weights laid end to end.
fn at<'a>(weighted: &[(&'a ShardCopy, f64)], x: f64) -> &'a ShardCopy {
    let mut acc = 0.0;
    for (c, w) in weighted {
        acc += w;
        if x < acc {
            return c;
        }
    }
    weighted[weighted.len() - 1].0
}

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

/// The copy of `index`/`shard` to read on a node `me` (whose copy serves when `local_serves`),
/// under `weighting` when weights are set.
pub fn choose(
    st: &ClusterState,
    me: &str,
    index: &str,
    shard: u32,
    local_serves: bool,
    preference: Option<&str>,
    weighting: Option<&Weighting>,
) -> Choice {
    let pref = preference.map(strip_shards).filter(|p| !p.is_empty());
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
    // Weighted routing: no preference, or a custom string under strict weighted routing.
    let custom = pref.is_some_and(|p| !p.starts_with('_'));
    if let Some(w) = weighting.filter(|w| pref.is_none() || (custom && w.strict)) {
        let (weighted, away) = w.split(st, &active);
        // This node's copy that does not serve yet is passed over.
        let usable = |c: &&ShardCopy| !c.on(me) || local_serves;
        let weighted: Vec<(&ShardCopy, f64)> = weighted.into_iter().filter(|(c, _)| usable(c)).collect();
        if !weighted.is_empty() {
            let total: f64 = weighted.iter().map(|(_, w)| w).sum();
            let n = match pref {
                Some(p) => stable_hash(p, shard),
                None => ROUND_ROBIN.fetch_add(1, Ordering::Relaxed),
            };
            return to_choice(at(&weighted, spread(n, total)));
        }
        return match away.into_iter().find(|c| w.fail_open && usable(c)) {
            Some(c) => to_choice(c),
            None => Choice::Nothing,
        };
    }
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
/// Under weighted routing the copies of zero-weight values come last (only with fail-open).
pub fn candidates(
    st: &ClusterState,
    me: &str,
    index: &str,
    shard: u32,
    local_serves: bool,
    preference: Option<&str>,
    weighting: Option<&Weighting>,
) -> Vec<Choice> {
    let first = choose(st, me, index, shard, local_serves, preference, weighting);
    let pref = preference.map(strip_shards);
    let custom = pref.is_some_and(|p| !p.is_empty() && !p.starts_with('_'));
    let weighted = weighting.filter(|w| pref.is_none_or(str::is_empty) || (custom && w.strict));
    // 0: a positive weight (or no weighting), 1: weighed away, 2: not read.
    let rank = |c: &ShardCopy| -> u8 {
        match weighted {
            None => 0,
            Some(w) => match c.node.as_deref().and_then(|n| w.weight(st, n)) {
                Some(x) if x > 0.0 => 0,
                _ if w.fail_open => 1,
                _ => 2,
            },
        }
    };
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
        .map(|t| t.copies.iter().filter(|c| c.active() && c.node.is_some() && allowed(c) && rank(c) < 2).collect())
        .unwrap_or_default();
    rest.sort_by(|a, b| rank(a).cmp(&rank(b)).then((!a.on(me)).cmp(&!b.on(me))).then(a.node.cmp(&b.node)));
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
        let c = |me: &str, local: bool, p: Option<&str>| choose(&st, me, "i", 0, local, p, None);
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
        let c = |me: &str, local: bool, p: Option<&str>| candidates(&st, me, "i", 0, local, p, None);
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
        assert_eq!(all[0], choose(&st, "n4", "i", 0, false, Some("user-42"), None));
    }

    /// [`state`] with n1, n2, n3 in zones a, b, c.
    fn zoned() -> ClusterState {
        let mut st = state();
        let nodes: Vec<MemberView> = st
            .nodes
            .iter()
            .zip(["a", "b", "c"])
            .map(|(m, z)| MemberView { attributes: vec![("zone".into(), z.into())], ..m.clone() })
            .collect();
        st.nodes = Arc::new(nodes);
        st
    }

    fn weighting(weights: &[(&str, f64)]) -> Weighting {
        Weighting {
            attribute: "zone".into(),
            weights: weights.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            default_weight: 1.0,
            fail_open: true,
            strict: true,
        }
    }

    fn tally(picks: impl Iterator<Item = Choice>) -> BTreeMap<Choice, usize> {
        let mut m = BTreeMap::new();
        for p in picks {
            *m.entry(p).or_default() += 1;
        }
        m
    }

    #[test]
    fn zero_weight_copies_take_no_searches() {
        let st = zoned();
        let w = weighting(&[("a", 1.0), ("b", 0.0), ("c", 1.0)]);
        // Even from the zero-weight node itself, whose own copy would otherwise win.
        let t = tally((0..1000).map(|_| choose(&st, "n2", "i", 0, true, None, Some(&w))));
        assert!(!t.contains_key(&Choice::Local), "{t:?}");
        assert_eq!(t.keys().cloned().collect::<Vec<_>>(), [Choice::Remote("n1".into()), Choice::Remote("n3".into())]);
        // `_shards:` alone is still weighted.
        let t = tally((0..200).map(|_| choose(&st, "n4", "i", 0, false, Some("_shards:0"), Some(&w))));
        assert!(!t.contains_key(&Choice::Remote("n2".into())), "{t:?}");
    }

    #[test]
    fn weights_share_the_searches() {
        let st = zoned();
        let w = weighting(&[("a", 2.0), ("b", 0.0), ("c", 1.0)]);
        let t = tally((0..3000).map(|_| choose(&st, "n4", "i", 0, false, None, Some(&w))));
        let (a, c) = (t[&Choice::Remote("n1".into())], t[&Choice::Remote("n3".into())]);
        assert_eq!(a + c, 3000);
        assert!((1900..=2100).contains(&a), "2:1 expected, got {t:?}");
        // An unlisted value takes the default weight.
        let w = weighting(&[("b", 0.0)]);
        let t = tally((0..1000).map(|_| choose(&st, "n4", "i", 0, false, None, Some(&w))));
        assert_eq!(t.len(), 2, "{t:?}");
    }

    #[test]
    fn zero_weight_copies_serve_when_nothing_else_can() {
        let mut st = zoned();
        // Only n2 (weight 0) holds an active copy.
        let mut rt = (*st.routing).clone();
        rt.indices.get_mut("i").unwrap().shards[0].copies.retain(|c| c.on("n2"));
        st.routing = Arc::new(rt);
        let w = weighting(&[("a", 1.0), ("b", 0.0)]);
        for _ in 0..10 {
            assert_eq!(choose(&st, "n4", "i", 0, false, None, Some(&w)), Choice::Remote("n2".into()));
        }
        assert_eq!(choose(&st, "n2", "i", 0, true, None, Some(&w)), Choice::Local);
        // Without fail-open the shard is not read.
        let closed = Weighting { fail_open: false, ..w.clone() };
        assert_eq!(choose(&st, "n4", "i", 0, false, None, Some(&closed)), Choice::Nothing);
    }

    #[test]
    fn preferences_under_weighted_routing() {
        let st = zoned();
        let w = weighting(&[("a", 1.0), ("b", 0.0), ("c", 1.0)]);
        let refused = check_preference(Some("_prefer_nodes:n1"), Some(&w)).unwrap_err();
        assert_eq!((refused.kind, refused.status), (ErrorKind::PreferenceBasedSearchNotAllowed, 403));
        assert_eq!(
            refused.reason,
            "Preference type based routing not allowed with strict weighted shard routing enabled"
        );
        assert!(check_preference(Some("_shards:0|_only_nodes:n1"), Some(&w)).is_err());
        assert!(check_preference(Some("_only_nodes:n1"), None).is_ok());
        assert!(check_preference(Some("_only_nodes:n1"), Some(&Weighting { strict: false, ..w.clone() })).is_ok());
        assert!(check_preference(Some("_local"), Some(&w)).is_ok());
        // `_primary` keeps its meaning; a custom string is stable and weighted.
        assert_eq!(choose(&st, "n3", "i", 0, true, Some("_replica"), Some(&w)), Choice::Remote("n2".into()));
        for s in ["u1", "u2", "u3", "u4", "u5", "u6"] {
            let first = choose(&st, "n4", "i", 0, false, Some(s), Some(&w));
            assert_ne!(first, Choice::Remote("n2".into()), "{s}");
            assert_eq!(choose(&st, "n4", "i", 0, false, Some(s), Some(&w)), first);
        }
    }

    #[test]
    fn single_shard_reads_try_zero_weight_copies_last() {
        let st = zoned();
        let w = weighting(&[("a", 1.0), ("b", 0.0), ("c", 1.0)]);
        let r = |n: &str| Choice::Remote(n.into());
        for _ in 0..20 {
            let c = candidates(&st, "n2", "i", 0, true, None, Some(&w));
            assert_eq!(c.len(), 3);
            assert_eq!(c[2], Choice::Local, "{c:?}");
            assert!(c[..2].contains(&r("n1")) && c[..2].contains(&r("n3")));
        }
        let closed = Weighting { fail_open: false, ..w };
        assert_eq!(candidates(&st, "n2", "i", 0, true, None, Some(&closed)).len(), 2);
    }

    #[test]
    fn weighting_reads_metadata_and_settings() {
        use crate::cluster::operations_metadata::WeightedRouting;
        use serde_json::json;
        let mut md = Metadata::default();
        assert_eq!(Weighting::of(&md, &Map::new()), None);
        assert_eq!(
            Weighting::in_force(&md, || -> Map<String, Value> { unreachable!("no weights: no settings") }),
            None
        );
        md.weighted_routing = Some(WeightedRouting { attribute: String::new(), weights: BTreeMap::new(), version: 2 });
        assert_eq!(Weighting::of(&md, &Map::new()), None, "the deleted form");
        md.weighted_routing =
            Some(WeightedRouting { attribute: "zone".into(), weights: [("b".into(), 0.0)].into(), version: 3 });
        let w = Weighting::of(&md, &Map::new()).unwrap();
        assert_eq!((w.default_weight, w.fail_open, w.strict), (1.0, true, true));
        let s = json!({"cluster.routing.weighted.fail_open": "false", "cluster.routing.weighted.strict": false, "cluster.routing.weighted.default_weight": "2.5"});
        let w = Weighting::of(&md, s.as_object().unwrap()).unwrap();
        assert_eq!(Weighting::in_force(&md, || s.as_object().unwrap().clone()), Some(w.clone()));
        assert_eq!((w.default_weight, w.fail_open, w.strict), (2.5, false, false));
    }
}
