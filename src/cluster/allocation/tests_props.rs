//! Property tests: random sequences of index creation and deletion, nodes joining and leaving,
//! copies starting and failing and replica count changes, each followed by a reroute as the
//! cluster manager does, checked against the invariants of a simple model. Nodes excluded by
//! `cluster.routing.allocation.exclude._name` make copies relocate, and joins rebalance:
//! relocation targets start and fail like any copy.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde_json::Map;

use super::tests::{index, md, node};
use super::*;
use crate::cluster::metadata::{IndexMetadata, Metadata};
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardState};

#[derive(Debug, Clone)]
enum Op {
    Create(u8, u32, u32),
    Delete(u8),
    Replicas(u8, u32),
    Join(u8),
    Leave(u8),
    Start(usize),
    Fail(usize),
    Wait(i64),
    Stale(usize),
    Exclude(Option<u8>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..3, 1u32..4, 0u32..3).prop_map(|(i, s, r)| Op::Create(i, s, r)),
        (0u8..3).prop_map(Op::Delete),
        (0u8..3, 0u32..3).prop_map(|(i, r)| Op::Replicas(i, r)),
        (0u8..4).prop_map(Op::Join),
        (0u8..4).prop_map(Op::Leave),
        (0usize..16).prop_map(Op::Start),
        (0usize..16).prop_map(Op::Start),
        (0usize..16).prop_map(Op::Fail),
        (0i64..90_000).prop_map(Op::Wait),
        (0usize..16).prop_map(Op::Stale),
        proptest::option::of(0u8..4).prop_map(Op::Exclude),
    ]
}

struct World {
    indices: BTreeMap<String, IndexMetadata>,
    nodes: BTreeSet<u8>,
    table: RoutingTable,
    now: i64,
    next_id: u64,
    /// Allocation ids of active copies that went with their node.
    lost: BTreeSet<String>,
    terms: BTreeMap<(String, u32), u64>,
    uuid_seq: u64,
    exclude: Option<u8>,
}

impl World {
    fn md(&self) -> Metadata {
        md(self.indices.values().cloned().collect())
    }
    fn nodes(&self) -> Vec<AllocNode> {
        self.nodes.iter().map(|n| node(&format!("n{n}"))).collect()
    }
    fn settings(&self) -> Map<String, serde_json::Value> {
        let mut m = Map::new();
        if let Some(n) = self.exclude {
            m.insert("cluster.routing.allocation.exclude._name".into(), serde_json::json!(format!("name-n{n}")));
        }
        m
    }
    fn reroute(&mut self) {
        let before = self.table.clone();
        let nodes = self.nodes();
        let alive: BTreeSet<String> = nodes.iter().map(|n| n.id.clone()).collect();
        for (_, _, c) in before.copies() {
            if c.active() && c.node.as_ref().is_some_and(|n| !alive.contains(n)) {
                self.lost.insert(c.allocation_id.clone().unwrap());
            }
        }
        let m = self.md();
        let mut next = self.next_id;
        let mut gen = || {
            next += 1;
            format!("a{next}")
        };
        let cs = self.settings();
        let after = reroute(&before, &m, &nodes, &cs, self.now, &mut gen);
        self.next_id = next;
        check(&before, &after, &m, &alive, &self.lost, &mut self.terms);
        // Idempotent, and needs no new id.
        let again = reroute(&after, &m, &nodes, &cs, self.now, &mut || panic!("a second reroute assigned a copy"));
        assert_eq!(again, after, "reroute is not idempotent");
        self.table = after;
    }
    fn apply(&mut self, op: &Op) {
        let assigned: Vec<(String, u32, String, ShardState)> = self
            .table
            .indices
            .iter()
            .flat_map(|(i, ir)| ir.shards.iter().map(move |st| (i, st)))
            .flat_map(|(i, st)| {
                st.copies_and_targets()
                    .into_iter()
                    .filter(|c| c.state != ShardState::Unassigned)
                    .map(|c| (i.to_string(), st.id, c.allocation_id.clone().unwrap(), c.state))
                    .collect::<Vec<_>>()
            })
            .collect();
        match op {
            Op::Create(i, s, r) => {
                let name = format!("idx{i}");
                if !self.indices.contains_key(&name) {
                    self.uuid_seq += 1;
                    let mut m = index(&name, *s, *r, &[]);
                    m.uuid = format!("u{}", self.uuid_seq);
                    self.indices.insert(name, m);
                }
            }
            Op::Delete(i) => {
                self.indices.remove(&format!("idx{i}"));
            }
            Op::Replicas(i, r) => {
                if let Some(m) = self.indices.get_mut(&format!("idx{i}")) {
                    m.settings.insert("index.number_of_replicas".into(), serde_json::json!(r.to_string()));
                }
            }
            Op::Join(n) => {
                self.nodes.insert(*n);
            }
            Op::Leave(n) => {
                self.nodes.remove(n);
            }
            Op::Start(k) => {
                let init: Vec<_> = assigned.iter().filter(|a| a.3 == ShardState::Initializing).collect();
                if let Some((i, s, a, _)) = init.get(k % init.len().max(1)) {
                    self.table = shard_started(&self.table, i, *s, a).unwrap();
                }
            }
            Op::Fail(k) => {
                if let Some((i, s, a, _)) = assigned.get(k % assigned.len().max(1)) {
                    self.table = shard_failed(&self.table, i, *s, a, "test failure", self.now).unwrap();
                }
            }
            Op::Wait(ms) => self.now += ms,
            Op::Exclude(n) => self.exclude = *n,
            Op::Stale(k) => {
                // The primary of some shard reports in-sync copies it cannot reach.
                let shards: Vec<(String, u32, Vec<String>)> = self
                    .table
                    .indices
                    .iter()
                    .flat_map(|(n, ir)| ir.shards.iter().map(move |st| (n.clone(), st.id, st.in_sync.clone())))
                    .collect();
                if let Some((i, s, in_sync)) = shards.get(k % shards.len().max(1)) {
                    if let Ok(t) = remove_stale_allocation_ids(&self.table, i, *s, in_sync) {
                        self.table = t;
                    }
                }
            }
        }
    }
}

fn check(
    before: &RoutingTable,
    after: &RoutingTable,
    m: &Metadata,
    alive: &BTreeSet<String>,
    lost: &BTreeSet<String>,
    terms: &mut BTreeMap<(String, u32), u64>,
) {
    let known: BTreeSet<String> =
        after.copies().flat_map(|(_, _, c)| [c.allocation_id.clone(), c.relocation_id.clone()]).flatten().collect();
    for (name, ir) in &after.indices {
        let im = &m.indices[name];
        assert_eq!(ir.uuid, im.uuid);
        assert_eq!(ir.shards.len() as u32, im.number_of_shards());
        for st in &ir.shards {
            let primaries = st.copies.iter().filter(|c| c.primary).count();
            assert_eq!(primaries, 1, "{name}[{}] has {primaries} primaries", st.id);
            let targets = st.copies_and_targets().into_iter().filter(|c| c.is_relocation_target()).count();
            let relocating = st.copies.iter().filter(|c| c.state == ShardState::Relocating).count();
            assert_eq!(targets, relocating, "every relocating copy of {name}[{}] has one target", st.id);
            let mut on = BTreeSet::new();
            for c in st.copies_and_targets() {
                if c.state == ShardState::Relocating {
                    assert!(c.relocation_id.is_some() && c.relocating_node.is_some());
                    assert!(in_sync_or_started(st, &c), "a relocating copy that was never started");
                }
                if let Some(n) = &c.node {
                    assert!(on.insert(n.clone()), "two copies of {name}[{}] on {n}", st.id);
                    assert!(alive.contains(n), "a copy on unknown node {n}");
                }
                assert_eq!(c.node.is_none(), c.state == ShardState::Unassigned);
            }
            let key = (format!("{}/{}", ir.uuid, name), st.id);
            let prev_term = terms.insert(key, st.primary_term).unwrap_or(0);
            assert!(st.primary_term >= prev_term, "primary term went down");
            for id in &st.in_sync {
                assert!(known.contains(id) || lost.contains(id), "in-sync id {id} belongs to no copy");
            }
            let old = before
                .indices
                .get(name)
                .filter(|o| o.uuid == ir.uuid)
                .and_then(|o| o.shards.iter().find(|s| s.id == st.id));
            if let Some(old) = old {
                assert!(old.in_sync.is_empty() || !st.in_sync.is_empty(), "the in-sync set emptied");
            }
            let primary = st.primary().unwrap();
            assert!(!primary.is_relocation_target());
            for c in &st.copies {
                let was = old
                    .and_then(|o| o.copies.iter().find(|x| x.allocation_id == c.allocation_id && x.state == c.state));
                if c.state != ShardState::Initializing || was.is_some() {
                    continue;
                }
                // A new assignment.
                if !c.primary {
                    assert!(primary.active(), "replica of {name}[{}] assigned before its primary is active", st.id);
                } else {
                    let old_in_sync = old.map(|o| o.in_sync.clone()).unwrap_or_default();
                    match c.recovery_source {
                        Some(RecoverySource::EmptyStore) => {
                            assert!(old_in_sync.is_empty(), "empty primary over in-sync data")
                        }
                        Some(RecoverySource::ExistingStore) => {
                            assert!(
                                old_in_sync.contains(c.allocation_id.as_ref().unwrap()),
                                "existing primary without its in-sync data"
                            )
                        }
                        other => panic!("primary recovering from {other:?}"),
                    }
                }
            }
        }
    }
}

fn in_sync_or_started(
    st: &crate::cluster::routing_table::ShardTable,
    c: &crate::cluster::routing_table::ShardCopy,
) -> bool {
    c.allocation_id.as_ref().is_some_and(|a| st.in_sync.contains(a)) || !c.primary
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn allocation_keeps_its_invariants(ops in proptest::collection::vec(op(), 1..40)) {
        let mut w = World {
            indices: BTreeMap::new(),
            nodes: [0u8, 1].into_iter().collect(),
            table: RoutingTable::default(),
            now: 1_000_000,
            next_id: 0,
            lost: BTreeSet::new(),
            terms: BTreeMap::new(),
            uuid_seq: 0,
            exclude: None,
        };
        for op in &ops {
            w.apply(op);
            w.reroute();
        }
    }
}
