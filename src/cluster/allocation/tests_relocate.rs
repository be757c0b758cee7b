//! Unit tests of relocation: copies that may not remain move, the target replaces the source
//! when it starts, failures and departed nodes cancel, throttling, rebalancing on a join.

use serde_json::Map;

use super::tests::{copies, ids, index, md, node, settings, settle};
use super::*;
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardState};

fn relocating(t: &RoutingTable) -> usize {
    t.copies().filter(|(_, _, c)| c.state == ShardState::Relocating).count()
}

fn per_node(t: &RoutingTable, n: &str) -> usize {
    t.copies().filter(|(_, _, c)| c.on(n)).count()
}

#[test]
fn an_excluded_primary_relocates_and_its_target_takes_its_place() {
    let nodes = [node("a"), node("b"), node("c")];
    let cs = Map::new();
    let mut gen = ids();
    let m = md(vec![index("i", 1, 1, &[])]);
    let t = settle(&RoutingTable::default(), &m, &nodes, &cs, 0, &mut gen);
    let st = t.shard("i", 0).unwrap();
    let (pnode, rnode) = (st.copies[0].node.clone().unwrap(), st.copies[1].node.clone().unwrap());
    let free = ["a", "b", "c"].into_iter().find(|n| *n != pnode && *n != rnode).unwrap();
    let term = st.primary_term;
    let m = md(vec![index("i", 1, 1, &[("index.routing.allocation.exclude._name", &format!("name-{pnode}"))])]);
    let t = reroute(&t, &m, &nodes, &cs, 0, &mut gen);
    let src = &copies(&t, "i", 0)[0];
    assert_eq!(src.state, ShardState::Relocating);
    assert_eq!(src.relocating_node.as_deref(), Some(free));
    let target = src.relocation_target().unwrap();
    assert!(target.primary && target.is_relocation_target());
    assert_eq!(target.state, ShardState::Initializing);
    assert_eq!(target.recovery_source, Some(RecoverySource::Peer));
    assert_eq!(target.relocating_node.as_deref(), Some(pnode.as_str()));
    assert_ne!(target.allocation_id, src.allocation_id);
    assert_eq!(t.shard("i", 0).unwrap().assigned_on(free).unwrap().allocation_id, target.allocation_id);
    // Idempotent: nothing else moves, no new id.
    assert_eq!(reroute(&t, &m, &nodes, &cs, 0, &mut || panic!("new id")), t);
    let taid = target.allocation_id.clone().unwrap();
    let t = shard_started(&t, "i", 0, &taid).unwrap();
    let st = t.shard("i", 0).unwrap();
    assert_eq!(st.copies.len(), 2);
    assert!(st.copies[0].primary);
    assert_eq!(st.copies[0].node.as_deref(), Some(free));
    assert_eq!(st.copies[0].state, ShardState::Started);
    assert_eq!(st.copies[0].allocation_id.as_deref(), Some(taid.as_str()));
    assert_eq!(st.primary_term, term, "a relocation keeps the primary term");
    assert!(st.in_sync.contains(&taid));
    assert!(!st.in_sync.contains(src.allocation_id.as_ref().unwrap()));
    assert_eq!(st.in_sync.len(), 2);
    assert_eq!(reroute(&t, &m, &nodes, &cs, 0, &mut gen), t);
}

#[test]
fn a_failed_target_or_a_departed_node_cancels_the_relocation() {
    let nodes = [node("a"), node("b")];
    let cs = Map::new();
    let mut gen = ids();
    let m = md(vec![index("i", 1, 0, &[])]);
    let t = settle(&RoutingTable::default(), &m, &nodes, &cs, 0, &mut gen);
    let from = copies(&t, "i", 0)[0].node.clone().unwrap();
    let to = if from == "a" { "b" } else { "a" };
    let ex = settings(&[("cluster.routing.allocation.exclude._name", &format!("name-{from}"))]);
    let moving = reroute(&t, &m, &nodes, &ex, 0, &mut gen);
    let taid = copies(&moving, "i", 0)[0].relocation_id.clone().unwrap();
    // The target fails: the source stays, started.
    let back = shard_failed(&moving, "i", 0, &taid, "boom", 0).unwrap();
    assert_eq!(copies(&back, "i", 0)[0].state, ShardState::Started);
    assert_eq!(copies(&back, "i", 0)[0].relocating_node, None);
    // The target's node leaves: same.
    let only_from: Vec<AllocNode> = nodes.iter().filter(|n| n.id == from).cloned().collect();
    let left = reroute(&moving, &m, &only_from, &ex, 0, &mut gen);
    assert_eq!(copies(&left, "i", 0)[0].state, ShardState::Started);
    assert_eq!(copies(&left, "i", 0)[0].node.as_deref(), Some(from.as_str()));
    // The source's node leaves: the copy is lost with it, the target too.
    let only_to: Vec<AllocNode> = nodes.iter().filter(|n| n.id == to).cloned().collect();
    let gone = reroute(&moving, &m, &only_to, &Map::new(), 0, &mut gen);
    let c = &copies(&gone, "i", 0)[0];
    assert_eq!(c.state, ShardState::Unassigned);
    assert_eq!(c.relocation_id, None);
}

#[test]
fn moves_are_throttled_by_concurrent_recoveries() {
    let nodes = [node("a"), node("b")];
    let mut gen = ids();
    let m = md(vec![index("i", 4, 0, &[("index.routing.allocation.require._name", "name-a")])]);
    let t = settle(&RoutingTable::default(), &m, &nodes, &Map::new(), 0, &mut gen);
    assert_eq!(per_node(&t, "a"), 4);
    let m = md(vec![index("i", 4, 0, &[("index.routing.allocation.exclude._name", "name-a")])]);
    let t = reroute(&t, &m, &nodes, &Map::new(), 0, &mut gen);
    assert_eq!(relocating(&t), 2, "node_concurrent_recoveries defaults to 2");
    let cs = settings(&[("cluster.routing.allocation.node_concurrent_recoveries", "3")]);
    assert_eq!(relocating(&reroute(&t, &m, &nodes, &cs, 0, &mut gen)), 3);
    let t = settle(&t, &m, &nodes, &Map::new(), 0, &mut gen);
    assert_eq!(per_node(&t, "b"), 4);
    assert_eq!(relocating(&t), 0);
}

#[test]
fn a_joining_node_gets_its_share_of_copies() {
    let two = [node("a"), node("b")];
    let three = [node("a"), node("b"), node("c")];
    let mut gen = ids();
    let m = md(vec![index("i", 6, 0, &[])]);
    let t = settle(&RoutingTable::default(), &m, &two, &Map::new(), 0, &mut gen);
    assert_eq!((per_node(&t, "a"), per_node(&t, "b")), (3, 3));
    let r = reroute(&t, &m, &three, &Map::new(), 0, &mut gen);
    assert_eq!(relocating(&r), 2, "cluster_concurrent_rebalance defaults to 2");
    let none = settings(&[("cluster.routing.rebalance.enable", "none")]);
    assert_eq!(relocating(&reroute(&t, &m, &three, &none, 0, &mut gen)), 0);
    let t = settle(&t, &m, &three, &Map::new(), 0, &mut gen);
    assert_eq!([per_node(&t, "a"), per_node(&t, "b"), per_node(&t, "c")], [2, 2, 2]);
    assert_eq!(reroute(&t, &m, &three, &Map::new(), 0, &mut gen), t);
}

#[test]
fn no_rebalancing_while_copies_are_unassigned_by_default() {
    let two = [node("a"), node("b")];
    let three = [node("a"), node("b"), node("c")];
    let mut gen = ids();
    let m = md(vec![index("i", 6, 0, &[])]);
    let t = settle(&RoutingTable::default(), &m, &two, &Map::new(), 0, &mut gen);
    // A second index, just created: its copies are not active yet.
    let m2 = md(vec![index("i", 6, 0, &[]), index("j", 1, 0, &[])]);
    let r = reroute(&t, &m2, &three, &Map::new(), 0, &mut gen);
    assert_eq!(relocating(&r), 0);
    let always = settings(&[("cluster.routing.allocation.allow_rebalance", "always")]);
    assert!(relocating(&reroute(&t, &m2, &three, &always, 0, &mut gen)) > 0);
}

#[test]
fn reroute_commands_move_cancel_and_refuse_with_opensearch_s_messages() {
    let nodes = [node("a"), node("b")];
    let cs = Map::new();
    let mut gen = ids();
    let m = md(vec![index("i", 1, 0, &[])]);
    let t = settle(&RoutingTable::default(), &m, &nodes, &cs, 0, &mut gen);
    let from = copies(&t, "i", 0)[0].node.clone().unwrap();
    let to = if from == "a" { "b" } else { "a" };
    let mv = Command::Move { index: "i".into(), shard: 0, from_node: format!("name-{from}"), to_node: to.into() };
    let mut moved = t.clone();
    let done = execute_command(&mut moved, &m, &nodes, &cs, &mv, false, 0, &mut gen).unwrap();
    assert!(done.applied);
    assert_eq!(copies(&moved, "i", 0)[0].relocating_node.as_deref(), Some(to));
    // Not on that node any more (it is relocating from it, not to it): refused.
    let back = Command::Move { index: "i".into(), shard: 0, from_node: to.into(), to_node: from.clone() };
    let e = execute_command(&mut moved.clone(), &m, &nodes, &cs, &back, false, 0, &mut gen).unwrap_err();
    match e {
        CommandError::Illegal(msg) => {
            assert!(msg.starts_with("[move_allocation] can't move 0, failed to find it on node {name-"), "{msg}")
        }
        other => panic!("{other:?}"),
    }
    // With explain, a NO decision instead, and nothing changes.
    let mut same = moved.clone();
    let ex = execute_command(&mut same, &m, &nodes, &cs, &back, true, 0, &mut gen).unwrap();
    assert!(!ex.applied);
    assert_eq!(ex.explanation["decisions"][0]["decision"], "NO");
    assert_eq!(same, moved);
    // Cancelling the target of a primary's relocation needs no allow_primary.
    let cancel = Command::Cancel { index: "i".into(), shard: 0, node: to.into(), allow_primary: false };
    let mut c2 = moved.clone();
    execute_command(&mut c2, &m, &nodes, &cs, &cancel, false, 0, &mut gen).unwrap();
    assert_eq!(copies(&c2, "i", 0)[0].state, ShardState::Started);
    assert_eq!(copies(&c2, "i", 0)[0].node.as_deref(), Some(from.as_str()));
    // The started primary itself does.
    let cancel = Command::Cancel { index: "i".into(), shard: 0, node: from.clone(), allow_primary: false };
    let e = execute_command(&mut c2.clone(), &m, &nodes, &cs, &cancel, false, 0, &mut gen).unwrap_err();
    assert!(matches!(e, CommandError::Illegal(ref s) if s.ends_with("shard is primary and started")), "{e:?}");
    let unknown = Command::AllocateReplica { index: "i".into(), shard: 0, node: "zz".into() };
    let e = execute_command(&mut c2.clone(), &m, &nodes, &cs, &unknown, false, 0, &mut gen).unwrap_err();
    assert_eq!(e, CommandError::Illegal("failed to resolve [zz], no matching nodes".into()));
    let replica = Command::AllocateReplica { index: "i".into(), shard: 0, node: to.into() };
    let e = execute_command(&mut c2.clone(), &m, &nodes, &cs, &replica, false, 0, &mut gen).unwrap_err();
    assert_eq!(
        e,
        CommandError::Illegal(
            "[allocate_replica] all copies of [i][0] are already assigned. Use the move allocation command instead"
                .into()
        )
    );
}
