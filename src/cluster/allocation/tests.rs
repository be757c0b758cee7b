//! Unit tests: each decider, reroute scenarios, shard events, rendering, health.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::*;
use crate::cluster::health::Status;
use crate::cluster::metadata::{IndexMetadata, IndexState, Metadata};
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardCopy, ShardState};

pub(super) fn node(id: &str) -> AllocNode {
    let n = id.bytes().last().unwrap_or(b'0');
    AllocNode {
        id: id.into(),
        name: format!("name-{id}"),
        host: format!("10.0.0.{}", n),
        transport_address: format!("10.0.0.{}:9300", n),
        roles: vec!["data".into(), "cluster_manager".into()],
        attributes: BTreeMap::new(),
    }
}

pub(super) fn with_attr(mut n: AllocNode, k: &str, v: &str) -> AllocNode {
    n.attributes.insert(k.into(), v.into());
    n
}

pub(super) fn index(name: &str, shards: u32, replicas: u32, extra: &[(&str, &str)]) -> IndexMetadata {
    let mut settings: BTreeMap<String, Value> = BTreeMap::new();
    settings.insert("index.number_of_shards".into(), json!(shards.to_string()));
    settings.insert("index.number_of_replicas".into(), json!(replicas.to_string()));
    for (k, v) in extra {
        settings.insert(k.to_string(), json!(v));
    }
    IndexMetadata {
        name: name.into(),
        uuid: format!("uuid-{name}"),
        state: IndexState::Open,
        settings,
        mapping: Arc::new(crate::engine::schema::Mapping::default()),
        aliases: BTreeMap::new(),
        routing_num_shards: shards,
        primary_term: 1,
        version: 1,
        mapping_version: 1,
        settings_version: 1,
        aliases_version: 1,
    }
}

pub(super) fn md(indices: Vec<IndexMetadata>) -> Metadata {
    let mut m = Metadata::default();
    for i in indices {
        m.indices.insert(i.name.clone(), Arc::new(i));
    }
    m
}

pub(super) fn ids() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        format!("alloc-{n}")
    }
}

pub(super) fn settings(kv: &[(&str, &str)]) -> Map<String, Value> {
    kv.iter().map(|(k, v)| (k.to_string(), json!(v))).collect()
}

/// Starts every initializing copy.
pub(super) fn start_all(t: &RoutingTable) -> RoutingTable {
    let mut t = t.clone();
    loop {
        // Relocation targets too.
        let next = t.indices.iter().find_map(|(i, ir)| {
            ir.shards.iter().find_map(|st| {
                st.copies_and_targets()
                    .iter()
                    .find(|c| c.state == ShardState::Initializing)
                    .map(|c| (i.to_string(), st.id, c.allocation_id.clone().unwrap()))
            })
        });
        let Some((i, s, a)) = next else { return t };
        t = shard_started(&t, &i, s, &a).unwrap();
    }
}

/// Reroutes and starts until nothing changes.
pub(super) fn settle(
    t: &RoutingTable,
    m: &Metadata,
    nodes: &[AllocNode],
    cs: &Map<String, Value>,
    now: i64,
    gen: &mut dyn FnMut() -> String,
) -> RoutingTable {
    let mut t = t.clone();
    for _ in 0..50 {
        let next = start_all(&reroute(&t, m, nodes, cs, now, gen));
        if next == t {
            break;
        }
        t = next;
    }
    t
}

pub(super) fn copies<'a>(t: &'a RoutingTable, i: &str, s: u32) -> &'a [ShardCopy] {
    &t.shard(i, s).unwrap().copies
}

#[test]
fn a_new_index_gets_its_primaries_first_then_replicas_on_other_nodes() {
    let m = md(vec![index("i", 2, 1, &[])]);
    let nodes = [node("a"), node("b")];
    let cs = Map::new();
    let mut gen = ids();
    let t = reroute(&RoutingTable::default(), &m, &nodes, &cs, 1000, &mut gen);
    for s in 0..2 {
        let c = copies(&t, "i", s);
        assert_eq!(c[0].state, ShardState::Initializing);
        assert_eq!(c[0].recovery_source, Some(RecoverySource::EmptyStore));
        assert_eq!(c[1].state, ShardState::Unassigned);
        assert_eq!(c[1].unassigned.as_ref().unwrap().allocation_status, "deciders_no");
        assert_eq!(t.shard("i", s).unwrap().primary_term, 1);
    }
    // Balanced: one primary per node.
    assert_ne!(copies(&t, "i", 0)[0].node, copies(&t, "i", 1)[0].node);
    let t = start_all(&t);
    assert_eq!(t.shard("i", 0).unwrap().in_sync.len(), 1);
    let t = reroute(&t, &m, &nodes, &cs, 1000, &mut gen);
    for s in 0..2 {
        let c = copies(&t, "i", s);
        assert_eq!(c[1].state, ShardState::Initializing);
        assert_eq!(c[1].recovery_source, Some(RecoverySource::Peer));
        assert_ne!(c[0].node, c[1].node);
    }
    let t = start_all(&t);
    assert_eq!(t.shard("i", 1).unwrap().in_sync.len(), 2);
    assert_eq!(reroute(&t, &m, &nodes, &cs, 1000, &mut gen), t);
}

#[test]
fn one_node_leaves_a_replica_unassigned_by_the_same_shard_decider() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let t = settle(&RoutingTable::default(), &m, &[node("a")], &Map::new(), 0, &mut ids());
    let c = copies(&t, "i", 0);
    assert_eq!(c[0].state, ShardState::Started);
    assert_eq!(c[1].state, ShardState::Unassigned);
    let u = c[1].unassigned.as_ref().unwrap();
    assert_eq!((u.reason.as_str(), u.allocation_status.as_str()), ("INDEX_CREATED", "deciders_no"));
}

#[test]
fn a_lost_primary_is_replaced_by_its_in_sync_replica() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a"), node("b")];
    let cs = Map::new();
    let mut gen = ids();
    let t = settle(&RoutingTable::default(), &m, &nodes, &cs, 0, &mut gen);
    let st = t.shard("i", 0).unwrap();
    let (pnode, rid) = (st.copies[0].node.clone().unwrap(), st.copies[1].allocation_id.clone().unwrap());
    let pid = st.copies[0].allocation_id.clone().unwrap();
    let other = if pnode == "a" { node("b") } else { node("a") };
    let t2 = reroute(&t, &m, std::slice::from_ref(&other), &cs, 5000, &mut gen);
    let st2 = t2.shard("i", 0).unwrap();
    assert_eq!(st2.primary_term, st.primary_term + 1);
    assert!(st2.copies[0].primary && st2.copies[0].state == ShardState::Started);
    assert_eq!(st2.copies[0].allocation_id.as_deref(), Some(rid.as_str()));
    let lost = &st2.copies[1];
    assert_eq!(lost.state, ShardState::Unassigned);
    let u = lost.unassigned.as_ref().unwrap();
    assert_eq!(u.reason, "NODE_LEFT");
    assert_eq!(u.details.as_deref(), Some(format!("node_left [{pnode}]").as_str()));
    assert!(u.delayed);
    assert_eq!(u.last_node.as_deref(), Some(pnode.as_str()));
    // The lost copy stays in-sync: it may come back with every write.
    assert!(st2.in_sync.contains(&pid));
    // Health counts it as delayed.
    let h = health(&t2, &m);
    assert_eq!((h[0].status, h[0].delayed_unassigned), (Status::Yellow, 1));
    // Still delayed 59 s later; not after the minute, but one node cannot hold it.
    let t3 = reroute(&t2, &m, std::slice::from_ref(&other), &cs, 64_000, &mut gen);
    assert!(t3.shard("i", 0).unwrap().copies[1].unassigned.as_ref().unwrap().delayed);
    let t4 = reroute(&t2, &m, std::slice::from_ref(&other), &cs, 65_000, &mut gen);
    let u4 = t4.shard("i", 0).unwrap().copies[1].unassigned.clone().unwrap();
    assert!(!u4.delayed);
    assert_eq!(u4.allocation_status, "deciders_no");
    // The node comes back within the delay: the replica goes back to it.
    let back = reroute(&t2, &m, &nodes, &cs, 6000, &mut gen);
    let r = &back.shard("i", 0).unwrap().copies[1];
    assert_eq!((r.state, r.node.as_deref()), (ShardState::Initializing, Some(pnode.as_str())));
}

#[test]
fn a_delayed_replica_waits_instead_of_going_to_another_node() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a"), node("b"), node("c")];
    let cs = Map::new();
    let mut gen = ids();
    let t = settle(&RoutingTable::default(), &m, &nodes, &cs, 0, &mut gen);
    let rnode = copies(&t, "i", 0)[1].node.clone().unwrap();
    let rest: Vec<AllocNode> = nodes.iter().filter(|n| n.id != rnode).cloned().collect();
    let t2 = reroute(&t, &m, &rest, &cs, 1000, &mut gen);
    let r = &copies(&t2, "i", 0)[1];
    assert_eq!(r.state, ShardState::Unassigned);
    assert_eq!(r.unassigned.as_ref().unwrap().allocation_status, "delayed_allocation");
    let t3 = reroute(&t2, &m, &rest, &cs, 61_001, &mut gen);
    assert_eq!(copies(&t3, "i", 0)[1].state, ShardState::Initializing);
    // "0" disables the delay.
    let m0 = md(vec![index("i", 1, 1, &[("index.unassigned.node_left.delayed_timeout", "0")])]);
    let t4 = reroute(&t, &m0, &rest, &cs, 1000, &mut gen);
    assert_eq!(copies(&t4, "i", 0)[1].state, ShardState::Initializing);
}

#[test]
fn a_primary_without_replica_waits_for_its_node_and_reuses_its_allocation_id() {
    let m = md(vec![index("i", 1, 0, &[])]);
    let cs = Map::new();
    let mut gen = ids();
    let t = settle(&RoutingTable::default(), &m, &[node("a")], &cs, 0, &mut gen);
    let id = copies(&t, "i", 0)[0].allocation_id.clone().unwrap();
    let t2 = reroute(&t, &m, &[node("b")], &cs, 10, &mut gen);
    let p = &copies(&t2, "i", 0)[0];
    assert_eq!((p.state, p.recovery_source), (ShardState::Unassigned, Some(RecoverySource::ExistingStore)));
    assert_eq!(p.unassigned.as_ref().unwrap().allocation_status, "no_valid_shard_copy");
    assert_eq!(health(&t2, &m)[0].status, Status::Red);
    let t3 = reroute(&t2, &m, &[node("b"), node("a")], &cs, 20, &mut gen);
    let p = &copies(&t3, "i", 0)[0];
    assert_eq!(
        (p.state, p.node.as_deref(), p.allocation_id.as_deref()),
        (ShardState::Initializing, Some("a"), Some(id.as_str()))
    );
    assert_eq!(t3.shard("i", 0).unwrap().primary_term, 3);
    // The primary goes back even where a filter now forbids it (forced allocation).
    let mf = md(vec![index("i", 1, 0, &[("index.routing.allocation.exclude._id", "a")])]);
    let t4 = reroute(&t2, &mf, &[node("b"), node("a")], &cs, 20, &mut gen);
    assert_eq!(copies(&t4, "i", 0)[0].node.as_deref(), Some("a"));
}

#[test]
fn failed_copies_leave_the_in_sync_set_and_count_attempts() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a"), node("b")];
    let cs = Map::new();
    let mut gen = ids();
    let mut t = settle(&RoutingTable::default(), &m, &nodes, &cs, 0, &mut gen);
    assert!(shard_failed(&t, "i", 0, "nope", "x", 0).is_err());
    for attempt in 1..=5u32 {
        let r = copies(&t, "i", 0)[1].allocation_id.clone().unwrap();
        t = shard_failed(&t, "i", 0, &r, "failed recovery", 7).unwrap();
        let st = t.shard("i", 0).unwrap();
        assert!(!st.in_sync.contains(&r));
        let u = st.copies[1].unassigned.clone().unwrap();
        assert_eq!(
            (u.reason.as_str(), u.failed_attempts, u.details.as_deref()),
            ("ALLOCATION_FAILED", attempt, Some("failed recovery"))
        );
        t = reroute(&t, &m, &nodes, &cs, 8, &mut gen);
    }
    // Five failures: max_retry forbids a sixth attempt.
    let r = &copies(&t, "i", 0)[1];
    assert_eq!(
        (r.state, r.unassigned.as_ref().unwrap().allocation_status.as_str()),
        (ShardState::Unassigned, "deciders_no")
    );
    let m9 = md(vec![index("i", 1, 1, &[("index.allocation.max_retries", "9")])]);
    assert_eq!(copies(&reroute(&t, &m9, &nodes, &cs, 9, &mut gen), "i", 0)[1].state, ShardState::Initializing);
}

#[test]
fn a_failed_primary_promotes_or_keeps_its_id_in_sync() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a"), node("b")];
    let cs = Map::new();
    let mut gen = ids();
    let t = settle(&RoutingTable::default(), &m, &nodes, &cs, 0, &mut gen);
    let st = t.shard("i", 0).unwrap().clone();
    let (p, r) = (st.copies[0].allocation_id.clone().unwrap(), st.copies[1].allocation_id.clone().unwrap());
    let t2 = shard_failed(&t, "i", 0, &p, "boom", 1).unwrap();
    let st2 = t2.shard("i", 0).unwrap();
    assert_eq!(st2.copies[0].allocation_id.as_deref(), Some(r.as_str()));
    assert!(st2.copies[0].primary && !st2.copies[1].primary);
    assert_eq!(st2.in_sync, vec![r.clone()]);
    assert_eq!(st2.primary_term, st.primary_term + 1);
    // Now fail the new primary: nothing active is left, so its id stays in-sync.
    let t3 = shard_failed(&t2, "i", 0, &r, "boom", 2).unwrap();
    let st3 = t3.shard("i", 0).unwrap();
    assert_eq!(st3.in_sync, vec![r.clone()]);
    assert_eq!(st3.copies[0].recovery_source, Some(RecoverySource::ExistingStore));
    // A failed primary fails its initializing replicas.
    let m1 = md(vec![index("j", 1, 1, &[])]);
    let t = start_all(&reroute(&RoutingTable::default(), &m1, &nodes, &cs, 0, &mut gen));
    let t = reroute(&t, &m1, &nodes, &cs, 0, &mut gen);
    let p = copies(&t, "j", 0)[0].allocation_id.clone().unwrap();
    let t = shard_failed(&t, "j", 0, &p, "boom", 3).unwrap();
    let u = copies(&t, "j", 0)[1].unassigned.clone().unwrap();
    assert_eq!(
        (u.reason.as_str(), u.details.as_deref()),
        ("PRIMARY_FAILED", Some("primary failed while replica initializing"))
    );
    // Started twice or unknown: an error the caller ignores.
    assert!(shard_started(&t, "j", 0, &p).is_err());
    assert!(shard_started(&t, "nope", 0, &p).is_err());
}

#[test]
fn replica_counts_follow_the_metadata_and_indices_come_and_go() {
    let nodes = [node("a"), node("b"), node("c")];
    let cs = Map::new();
    let mut gen = ids();
    let t = settle(&RoutingTable::default(), &md(vec![index("i", 1, 1, &[])]), &nodes, &cs, 0, &mut gen);
    let t2 = reroute(&t, &md(vec![index("i", 1, 2, &[])]), &nodes, &cs, 5, &mut gen);
    let c = copies(&t2, "i", 0);
    assert_eq!(c.len(), 3);
    assert_eq!(c[2].unassigned.as_ref().unwrap().reason, "REPLICA_ADDED");
    let t3 = reroute(&t, &md(vec![index("i", 1, 0, &[])]), &nodes, &cs, 5, &mut gen);
    assert_eq!(copies(&t3, "i", 0).len(), 1);
    assert_eq!(t3.shard("i", 0).unwrap().in_sync.len(), 1);
    // auto_expand_replicas over the data nodes.
    let t4 =
        reroute(&t, &md(vec![index("i", 1, 1, &[("index.auto_expand_replicas", "0-all")])]), &nodes, &cs, 5, &mut gen);
    assert_eq!(copies(&t4, "i", 0).len(), 3);
    // Deleted, closed and recreated (new uuid) indices.
    assert!(reroute(&t, &md(vec![]), &nodes, &cs, 5, &mut gen).indices.is_empty());
    let mut closed = index("i", 1, 1, &[]);
    closed.state = IndexState::Close;
    // A closed index keeps its copies where they are (they open there again).
    let kept = reroute(&t, &md(vec![closed]), &nodes, &cs, 5, &mut gen);
    assert_eq!(kept.indices["i"], t.indices["i"]);
    let mut again = index("i", 1, 1, &[]);
    again.uuid = "other".into();
    let t5 = reroute(&t, &md(vec![again]), &nodes, &cs, 5, &mut gen);
    assert_eq!(t5.indices["i"].uuid, "other");
    assert_eq!(copies(&t5, "i", 0)[1].unassigned.as_ref().unwrap().reason, "INDEX_CREATED");
}

#[test]
fn throttling_limits_initial_primary_recoveries() {
    let m = md(vec![index("i", 6, 0, &[])]);
    let t = reroute(&RoutingTable::default(), &m, &[node("a")], &Map::new(), 0, &mut ids());
    let states: Vec<ShardState> = (0..6).map(|s| copies(&t, "i", s)[0].state).collect();
    assert_eq!(states.iter().filter(|s| **s == ShardState::Initializing).count(), 4);
    let throttled = (0..6)
        .filter(|s| copies(&t, "i", *s)[0].unassigned.as_ref().unwrap().allocation_status == "deciders_throttled")
        .count();
    assert_eq!(throttled, 2);
    // New primaries that are throttled are yellow, not red.
    assert_eq!(health(&t, &m)[0].status, Status::Yellow);
    let cs = settings(&[("cluster.routing.allocation.node_initial_primaries_recoveries", "6")]);
    let t = reroute(&RoutingTable::default(), &m, &[node("a")], &cs, 0, &mut ids());
    assert!((0..6).all(|s| copies(&t, "i", s)[0].state == ShardState::Initializing));
}

#[test]
fn shards_spread_over_nodes_by_weight() {
    let m = md(vec![index("i", 3, 0, &[]), index("j", 3, 1, &[])]);
    let nodes = [node("a"), node("b"), node("c")];
    let t = settle(&RoutingTable::default(), &m, &nodes, &Map::new(), 0, &mut ids());
    for n in ["a", "b", "c"] {
        assert_eq!(t.copies_on(n).count(), 3, "node {n}");
        assert_eq!(t.copies_on(n).filter(|(i, _, _)| *i == "i").count(), 1);
    }
}

#[test]
fn rendering_follows_shard_routing_to_xcontent() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a")];
    let t = reroute(&RoutingTable::default(), &m, &nodes, &Map::new(), 1_700_000_000_123, &mut ids());
    let v = render_routing_table(&t, &m);
    assert_eq!(
        v["indices"]["i"]["shards"]["0"],
        json!([
            {"state": "INITIALIZING", "primary": true, "node": "a", "relocating_node": null, "shard": 0, "index": "i",
             "recovery_source": {"type": "EMPTY_STORE"}, "allocation_id": {"id": "alloc-1"},
             "unassigned_info": {"reason": "INDEX_CREATED", "at": "2023-11-14T22:13:20.123Z", "delayed": false, "allocation_status": "no_attempt"}},
            {"state": "UNASSIGNED", "primary": false, "node": null, "relocating_node": null, "shard": 0, "index": "i",
             "recovery_source": {"type": "PEER"},
             "unassigned_info": {"reason": "INDEX_CREATED", "at": "2023-11-14T22:13:20.123Z", "delayed": false, "allocation_status": "deciders_no"}}
        ])
    );
    let t = start_all(&t);
    let n = render_routing_nodes(&t, &nodes);
    assert_eq!(
        n["nodes"]["a"][0],
        json!({"state": "STARTED", "primary": true, "node": "a", "relocating_node": null, "shard": 0, "index": "i", "allocation_id": {"id": "alloc-1"}})
    );
    assert_eq!(n["unassigned"].as_array().unwrap().len(), 1);
}

#[test]
fn health_from_the_table() {
    let m = md(vec![index("i", 2, 1, &[])]);
    let t = reroute(&RoutingTable::default(), &m, &[node("a")], &Map::new(), 0, &mut ids());
    let h = &health(&t, &m)[0];
    assert_eq!((h.status, h.initializing, h.unassigned, h.active), (Status::Yellow, 2, 2, 0));
    let t = start_all(&t);
    let h = &health(&t, &m)[0];
    assert_eq!((h.status, h.active_primaries, h.active, h.unassigned), (Status::Yellow, 2, 2, 2));
    assert_eq!(
        h.to_json(true)["shards"]["0"],
        json!({"status": "yellow", "primary_active": true, "active_shards": 1, "relocating_shards": 0, "initializing_shards": 0, "unassigned_shards": 1})
    );
    let c = cluster_totals(&health(&t, &m));
    assert_eq!((c.status, c.active, c.unassigned, c.active_percent), (Status::Yellow, 2, 2, 50.0));
    let t = settle(&t, &m, &[node("a"), node("b")], &Map::new(), 0, &mut ids());
    assert_eq!(health(&t, &m)[0].status, Status::Green);
    assert_eq!(cluster_totals(&[]).active_percent, 100.0);
}
