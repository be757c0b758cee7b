//! Unit tests of each decider, alone and through reroute.

use serde_json::{json, Map, Value};

use super::tests::{copies, ids, index, md, node, settings, settle, with_attr};
use super::*;
use crate::cluster::metadata::Metadata;
use crate::cluster::routing_table::{RoutingTable, ShardState};

#[test]
fn simple_match_and_filters() {
    use super::filter::{simple_match, NodeFilters, OpType};
    assert!(simple_match("*", "x"));
    assert!(simple_match("no*e-*", "node-1"));
    assert!(!simple_match("node-2", "node-1"));
    assert!(simple_match("*-1", "node-1"));
    let m: Map<String, Value> = settings(&[("p._name", "name-a, name-b"), ("p.zone", "z1"), ("p.empty", "")]);
    let or = NodeFilters::from_settings(&m, "p.", OpType::Or).unwrap();
    assert_eq!(or.to_string(), "_name:\"name-a OR name-b\",zone:\"z1\"");
    assert!(or.matches(&node("a")));
    assert!(!or.matches(&node("c")));
    assert!(or.matches(&with_attr(node("c"), "zone", "z1")));
    let and = NodeFilters::from_settings(&settings(&[("p._id", "a"), ("p.zone", "z*")]), "p.", OpType::And).unwrap();
    assert!(!and.matches(&node("a")));
    assert!(and.matches(&with_attr(node("a"), "zone", "z9")));
    assert!(NodeFilters::from_settings(&settings(&[("p._id", "")]), "p.", OpType::Or).is_none());
}

#[test]
fn enable_filter_awareness_limit_and_same_host_deciders() {
    let cs0 = Map::new();
    let nodes = [node("a"), node("b")];
    let run = |m: &Metadata, nodes: &[AllocNode], cs: &Map<String, Value>| {
        settle(&RoutingTable::default(), m, nodes, cs, 0, &mut ids())
    };
    // enable = none / primaries / new_primaries.
    let t = run(&md(vec![index("i", 1, 1, &[])]), &nodes, &settings(&[("cluster.routing.allocation.enable", "none")]));
    assert_eq!(copies(&t, "i", 0)[0].state, ShardState::Unassigned);
    for v in ["primaries", "new_primaries"] {
        let t = run(&md(vec![index("i", 1, 1, &[])]), &nodes, &settings(&[("cluster.routing.allocation.enable", v)]));
        assert_eq!(
            (copies(&t, "i", 0)[0].state, copies(&t, "i", 0)[1].state),
            (ShardState::Started, ShardState::Unassigned),
            "{v}"
        );
    }
    let t = run(
        &md(vec![index("i", 1, 1, &[("index.routing.allocation.enable", "all")])]),
        &nodes,
        &settings(&[("cluster.routing.allocation.enable", "none")]),
    );
    assert_eq!(copies(&t, "i", 0)[1].state, ShardState::Started);
    // Filters.
    let t = run(&md(vec![index("i", 2, 0, &[("index.routing.allocation.require._name", "name-b")])]), &nodes, &cs0);
    assert_eq!(t.copies_on("b").count(), 2);
    let t =
        run(&md(vec![index("i", 2, 0, &[])]), &nodes, &settings(&[("cluster.routing.allocation.exclude._id", "b")]));
    assert_eq!(t.copies_on("a").count(), 2);
    let t = run(&md(vec![index("i", 2, 0, &[("index.routing.allocation.include._host", "10.0.0.99")])]), &nodes, &cs0);
    assert_eq!(t.copies().filter(|(_, _, c)| c.state == ShardState::Unassigned).count(), 2);
    // Awareness: two copies never in one zone.
    let zoned =
        [with_attr(node("a"), "zone", "z1"), with_attr(node("b"), "zone", "z1"), with_attr(node("c"), "zone", "z2")];
    let aw = settings(&[("cluster.routing.allocation.awareness.attributes", "zone")]);
    let t = run(&md(vec![index("i", 4, 1, &[])]), &zoned, &aw);
    for s in 0..4 {
        let z: Vec<&str> = copies(&t, "i", s)
            .iter()
            .map(|c| zoned.iter().find(|n| Some(&n.id) == c.node.as_ref()).unwrap().attributes["zone"].as_str())
            .collect();
        assert_ne!(z[0], z[1], "shard {s}");
    }
    // Forced awareness with a missing zone: only one copy may be placed.
    let mut forced = aw.clone();
    forced.insert("cluster.routing.allocation.awareness.force.zone.values".into(), json!("z1,z2"));
    let t = run(&md(vec![index("i", 1, 1, &[])]), &zoned[..2], &forced);
    assert_eq!(copies(&t, "i", 0)[1].state, ShardState::Unassigned);
    // total_shards_per_node.
    let t = run(&md(vec![index("i", 3, 0, &[("index.routing.allocation.total_shards_per_node", "1")])]), &nodes, &cs0);
    assert_eq!(t.copies().filter(|(_, _, c)| c.state == ShardState::Unassigned).count(), 1);
    let t = run(
        &md(vec![index("i", 3, 0, &[])]),
        &nodes,
        &settings(&[("cluster.routing.allocation.total_shards_per_node", "1")]),
    );
    assert_eq!(t.copies().filter(|(_, _, c)| c.state == ShardState::Unassigned).count(), 1);
    // same_shard.host: two nodes on one host cannot hold two copies.
    let mut b = node("b");
    b.host = node("a").host;
    let t = run(
        &md(vec![index("i", 1, 1, &[])]),
        &[node("a"), b.clone()],
        &settings(&[("cluster.routing.allocation.same_shard.host", "true")]),
    );
    assert_eq!(copies(&t, "i", 0)[1].state, ShardState::Unassigned);
    let t = run(&md(vec![index("i", 1, 1, &[])]), &[node("a"), b], &cs0);
    assert_eq!(copies(&t, "i", 0)[1].state, ShardState::Started);
    // Nodes without the data role hold nothing.
    let mut cm = node("m");
    cm.roles = vec!["cluster_manager".into()];
    let t = run(&md(vec![index("i", 1, 0, &[])]), &[cm], &cs0);
    assert_eq!(copies(&t, "i", 0)[0].state, ShardState::Unassigned);
}

#[test]
fn decider_messages_are_opensearch_s() {
    use super::deciders::{self as dc, Ctx, Kind, ShardRef};
    use super::deciders_load as dl;
    use super::settings::AllocSettings;
    let m = md(vec![index(
        "i",
        1,
        1,
        &[
            ("index.routing.allocation.exclude._name", "name-a"),
            ("index.routing.allocation.total_shards_per_node", "1"),
        ],
    )]);
    let nodes = [node("a"), node("b")];
    let t = reroute(&RoutingTable::default(), &m, &nodes, &Map::new(), 0, &mut ids());
    let s = AllocSettings::parse(&settings(&[
        ("cluster.routing.allocation.require.zone", "z1"),
        ("cluster.routing.allocation.awareness.attributes", "zone"),
    ]));
    let c = Ctx { table: &t, md: &m, nodes: nodes.iter().collect(), s: &s };
    let replica = &copies(&t, "i", 0)[1];
    let sh = ShardRef { index: "i", id: 0, copy: replica };
    let f = dc::filter(&c, sh, &nodes[1]);
    assert_eq!(
        (f.kind, f.explanation.as_str()),
        (Kind::No, "node does not match cluster setting [cluster.routing.allocation.require] filters [zone:\"z1\"]")
    );
    let s0 = AllocSettings::parse(&Map::new());
    let c0 = Ctx { table: &t, md: &m, nodes: nodes.iter().collect(), s: &s0 };
    assert_eq!(
        dc::filter(&c0, sh, &nodes[0]).explanation,
        "node matches index setting [index.routing.allocation.exclude.] filters [_name:\"name-a\"]"
    );
    assert_eq!(
        dc::replica_after_primary_active(&c0, sh).explanation,
        "primary shard for this replica is not yet active"
    );
    let a = dl::awareness(&c, sh, &nodes[0], true);
    assert_eq!(a.explanation, "node does not contain the awareness attribute [zone]; required attributes cluster setting [cluster.routing.allocation.awareness.attributes=zone]");
    let pnode = copies(&t, "i", 0)[0].node.clone().unwrap();
    let pn = nodes.iter().find(|n| n.id == pnode).unwrap();
    let same = dc::same_shard(&c0, sh, pn);
    assert!(same.explanation.starts_with(&format!("a copy of this shard is already allocated to this node [[i][0], node[{pnode}], [P], recovery_source[new shard recovery], s[INITIALIZING], a[id=alloc-1], unassigned_info[[reason=INDEX_CREATED], at[1970-01-01T00:00:00.000Z], delayed=false, allocation_status[no_attempt]]")), "{}", same.explanation);
    let lim = dl::shards_limit(&c0, sh, pn, false);
    assert_eq!(lim.explanation, "too many shards [1] allocated to this node for index [i], index setting [index.routing.allocation.total_shards_per_node=1]");
    let e = dc::enable(
        &Ctx { s: &AllocSettings::parse(&settings(&[("cluster.routing.allocation.enable", "primaries")])), ..c0 },
        sh,
    );
    assert_eq!(
        e.explanation,
        "replica allocations are forbidden due to cluster setting [cluster.routing.allocation.enable=primaries]"
    );
}

#[test]
fn replica_recoveries_are_throttled_per_node() {
    let cs = Map::new();
    let mut gen = ids();
    let t = settle(&RoutingTable::default(), &md(vec![index("i", 3, 0, &[])]), &[node("a")], &cs, 0, &mut gen);
    // Replicas added later recover two at a time into a node (node_concurrent_recoveries).
    let m = md(vec![index("i", 3, 1, &[])]);
    let t = reroute(&t, &m, &[node("a"), node("b")], &cs, 0, &mut gen);
    let statuses: Vec<(ShardState, String)> = (0..3)
        .map(|s| (copies(&t, "i", s)[1].state, copies(&t, "i", s)[1].unassigned.clone().unwrap().allocation_status))
        .collect();
    assert_eq!(statuses.iter().filter(|s| s.0 == ShardState::Initializing).count(), 2);
    assert!(statuses.iter().any(|s| s.0 == ShardState::Unassigned && s.1 == "deciders_throttled"));
    let v = explain(&t, &m, &[node("a"), node("b")], &cs, &ExplainRequest::default(), None, 0).unwrap();
    assert_eq!(v["can_allocate"], json!("throttled"));
    assert_eq!(v["allocate_explanation"], json!("allocation temporarily throttled"));
    let throttling = &v["node_allocation_decisions"][0]["deciders"][0];
    assert_eq!(throttling["explanation"], json!("reached the limit of incoming shard recoveries [2], cluster setting [cluster.routing.allocation.node_concurrent_incoming_recoveries=2] (can also be set via [cluster.routing.allocation.node_concurrent_recoveries])"));
    // Replicas of a new index count against node_initial_replicas_recoveries (4).
    let t = settle(&RoutingTable::default(), &md(vec![index("j", 3, 0, &[])]), &[node("a")], &cs, 0, &mut gen);
    let mut fresh = t.clone();
    let m = md(vec![index("j", 3, 1, &[])]);
    fresh = reroute(&fresh, &m, &[node("a")], &cs, 0, &mut gen);
    for s in 0..3 {
        fresh.indices.get_mut("j").unwrap().shards[s].copies[1].unassigned.as_mut().unwrap().reason =
            "INDEX_CREATED".into();
    }
    let t = reroute(&fresh, &m, &[node("a"), node("b")], &cs, 0, &mut gen);
    assert!((0..3).all(|s| copies(&t, "j", s)[1].state == ShardState::Initializing));
}

#[test]
fn stale_in_sync_ids_are_removed_only_without_an_assigned_copy() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a"), node("b")];
    let mut gen = ids();
    let t = settle(&RoutingTable::default(), &m, &nodes, &Map::new(), 0, &mut gen);
    let st = t.shard("i", 0).unwrap();
    let (p, r, rn) = (
        st.copies[0].allocation_id.clone().unwrap(),
        st.copies[1].allocation_id.clone().unwrap(),
        st.copies[1].node.clone().unwrap(),
    );
    let alive: Vec<AllocNode> = nodes.iter().filter(|n| n.id != rn).cloned().collect();
    let t = reroute(&t, &m, &alive, &Map::new(), 10, &mut gen);
    assert_eq!(t.shard("i", 0).unwrap().in_sync.len(), 2);
    let t2 = remove_stale_allocation_ids(&t, "i", 0, &[p.clone(), r.clone()]).unwrap();
    let st2 = t2.shard("i", 0).unwrap();
    assert_eq!(st2.in_sync, vec![p.clone()]);
    assert_eq!(st2.copies[1].allocation_id, None);
    assert!(remove_stale_allocation_ids(&t, "nope", 0, &[r]).is_err());
    // A started primary never leaves; a set cannot empty.
    let single = md(vec![index("k", 1, 0, &[])]);
    let t = settle(&RoutingTable::default(), &single, &[node("a")], &Map::new(), 0, &mut gen);
    let id = t.shard("k", 0).unwrap().copies[0].allocation_id.clone().unwrap();
    let t = reroute(&t, &single, &[node("b")], &Map::new(), 0, &mut gen);
    assert!(remove_stale_allocation_ids(&t, "k", 0, &[id]).is_err());
}

#[test]
fn started_copies_move_away_when_a_new_filter_forbids_them() {
    let nodes = [node("a"), node("b")];
    let mut gen = ids();
    let t = settle(&RoutingTable::default(), &md(vec![index("i", 2, 0, &[])]), &nodes, &Map::new(), 0, &mut gen);
    let m = md(vec![index("i", 2, 0, &[("index.routing.allocation.exclude._id", "a")])]);
    let t2 = reroute(&t, &m, &nodes, &Map::new(), 0, &mut gen);
    let on_a = t.copies_on("a").next().map(|(_, st, _)| st.id).unwrap();
    let moving = &t2.shard("i", on_a).unwrap().copies[0];
    assert_eq!(moving.state, ShardState::Relocating);
    assert_eq!(moving.relocating_node.as_deref(), Some("b"));
    // What `explain` said of the table before the move.
    let v = explain(
        &t,
        &m,
        &nodes,
        &Map::new(),
        &ExplainRequest { index: Some("i".into()), shard: Some(on_a), primary: Some(true), ..Default::default() },
        None,
        0,
    )
    .unwrap();
    assert_eq!(v["can_remain_on_current_node"], json!("no"));
    assert_eq!(
        v["can_remain_decisions"][0]["explanation"],
        json!("node matches index setting [index.routing.allocation.exclude.] filters [_id:\"a\"]")
    );
    assert_eq!(v["can_move_to_other_node"], json!("yes"));
    assert_eq!(v["move_explanation"], json!("shard cannot remain on this node and is force-moved to another node"));
    assert_eq!(v["target_node"]["id"], json!("b"));
}
