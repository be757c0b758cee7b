//! `_cluster/allocation/explain` against OpenSearch's response shapes and messages.

use serde_json::{json, Map};

use super::tests::{index, md, node, settle, start_all};
use super::*;
use crate::cluster::routing_table::RoutingTable;
use crate::error::ErrorKind;

fn req(index: &str, shard: u32, primary: bool) -> ExplainRequest {
    ExplainRequest { index: Some(index.into()), shard: Some(shard), primary: Some(primary), ..Default::default() }
}

#[test]
fn no_unassigned_shard_to_explain() {
    let m = md(vec![index("i", 1, 0, &[])]);
    let t = settle(&RoutingTable::default(), &m, &[node("a")], &Map::new(), 0, &mut super::tests::ids());
    let e = explain(&t, &m, &[node("a")], &Map::new(), &ExplainRequest::default(), None, 0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IllegalArgument);
    assert_eq!(e.reason, "unable to find any unassigned shards to explain [ClusterAllocationExplainRequest[useAnyUnassignedShard=true,includeYesDecisions?=false]");
    let e = explain(
        &t,
        &m,
        &[node("a")],
        &Map::new(),
        &ExplainRequest { index: Some("i".into()), ..Default::default() },
        None,
        0,
    )
    .unwrap_err();
    assert_eq!(e.reason, "Validation Failed: 1: shard must be specified;2: primary must be specified;");
    assert_eq!(
        explain(&t, &m, &[node("a")], &Map::new(), &req("nope", 0, true), None, 0).unwrap_err().kind,
        ErrorKind::IndexNotFound
    );
    let e = explain(&t, &m, &[node("a")], &Map::new(), &req("i", 3, true), None, 0).unwrap_err();
    assert_eq!((e.kind, e.status, e.reason.as_str()), (ErrorKind::ShardNotFound, 404, "no such shard"));
    let e = explain(&t, &m, &[node("a")], &Map::new(), &req("i", 0, false), None, 0).unwrap_err();
    assert_eq!(e.reason, "unable to find any shards to explain [ClusterAllocationExplainRequest[index=i,shard=0,primary?=false,includeYesDecisions?=false] in the routing table");
    let mut r = req("i", 0, true);
    r.current_node = Some("zz".into());
    assert_eq!(
        explain(&t, &m, &[node("a")], &Map::new(), &r, None, 0).unwrap_err().reason,
        "failed to resolve [zz], no matching nodes"
    );
}

#[test]
fn started_primary_on_one_node() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a")];
    let t = settle(&RoutingTable::default(), &m, &nodes, &Map::new(), 0, &mut super::tests::ids());
    let v = explain(&t, &m, &nodes, &Map::new(), &req("i", 0, true), None, 0).unwrap();
    assert_eq!(
        v,
        json!({
            "index": "i", "shard": 0, "primary": true, "current_state": "started",
            "current_node": {"id": "a", "name": "name-a", "transport_address": "10.0.0.97:9300", "weight_ranking": 1},
            "can_remain_on_current_node": "yes",
            "can_rebalance_cluster": "no",
            "can_rebalance_cluster_decisions": [
                {"decider": "rebalance_only_when_active", "decision": "NO", "explanation": "rebalancing is not allowed until all replicas in the cluster are active"},
                {"decider": "cluster_rebalance", "decision": "NO", "explanation": "the cluster has unassigned shards and cluster setting [cluster.routing.allocation.allow_rebalance] is set to [indices_all_active]"}
            ],
            "can_rebalance_to_other_node": "no",
            "rebalance_explanation": "rebalancing is not allowed"
        })
    );
    // The empty request explains the unassigned replica.
    let v = explain(&t, &m, &nodes, &Map::new(), &ExplainRequest::default(), None, 0).unwrap();
    assert_eq!(
        v,
        json!({
            "index": "i", "shard": 0, "primary": false, "current_state": "unassigned",
            "unassigned_info": {"reason": "INDEX_CREATED", "at": "1970-01-01T00:00:00.000Z", "last_allocation_status": "no"},
            "can_allocate": "no",
            "allocate_explanation": "cannot allocate because allocation is not permitted to any of the nodes",
            "node_allocation_decisions": [{
                "node_id": "a", "node_name": "name-a", "transport_address": "10.0.0.97:9300",
                "node_decision": "no", "weight_ranking": 1,
                "deciders": [{"decider": "same_shard", "decision": "NO", "explanation": "a copy of this shard is already allocated to this node [[i][0], node[a], [P], s[STARTED], a[id=alloc-1]]"}]
            }]
        })
    );
    // With yes decisions, every decider that was asked.
    let mut r = req("i", 0, false);
    r.include_yes_decisions = true;
    let v = explain(&t, &m, &nodes, &Map::new(), &r, Some(&json!({"nodes": {}})), 0).unwrap();
    let deciders: Vec<&str> = v["node_allocation_decisions"][0]["deciders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["decider"].as_str().unwrap())
        .collect();
    assert_eq!(
        deciders,
        [
            "max_retry",
            "replica_after_primary_active",
            "enable",
            "filter",
            "same_shard",
            "throttling",
            "shards_limit",
            "awareness"
        ]
    );
    assert!(v.get("cluster_info").is_none());
    r.include_disk_info = true;
    assert_eq!(
        explain(&t, &m, &nodes, &Map::new(), &r, Some(&json!({"nodes": {}})), 0).unwrap()["cluster_info"],
        json!({"nodes": {}})
    );
}

#[test]
fn initializing_balanced_and_two_node_rebalance() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a"), node("b")];
    let mut gen = super::tests::ids();
    let t = reroute(&RoutingTable::default(), &m, &nodes, &Map::new(), 0, &mut gen);
    let v = explain(&t, &m, &nodes, &Map::new(), &req("i", 0, true), None, 0).unwrap();
    let pn = t.shard("i", 0).unwrap().copies[0].node.clone().unwrap();
    assert_eq!(
        v["explanation"],
        json!(format!(
            "the shard is in the process of initializing on node [name-{pn}], wait until initialization has completed"
        ))
    );
    assert_eq!(v["unassigned_info"]["last_allocation_status"], json!("no_attempt"));
    let t = start_all(&t);
    let v = explain(&t, &m, &nodes, &Map::new(), &req("i", 0, false), None, 0).unwrap();
    assert_eq!(v["can_allocate"], json!("yes"));
    assert_eq!(v["allocate_explanation"], json!("can allocate the shard"));
    let other = if pn == "a" { "b" } else { "a" };
    assert_eq!(v["target_node"]["id"], json!(other));
    let decisions = v["node_allocation_decisions"].as_array().unwrap();
    assert_eq!(decisions[0]["node_id"], json!(other));
    assert_eq!(decisions[0]["node_decision"], json!("yes"));
    assert!(decisions[0].get("deciders").is_none());
    assert_eq!(decisions[1]["node_decision"], json!("no"));
    let t = settle(&t, &m, &nodes, &Map::new(), 0, &mut gen);
    let v = explain(&t, &m, &nodes, &Map::new(), &req("i", 0, true), None, 0).unwrap();
    assert_eq!(v["can_rebalance_cluster"], json!("yes"));
    assert_eq!(v["can_rebalance_to_other_node"], json!("no"));
    assert_eq!(v["rebalance_explanation"], json!("cannot rebalance as no target node exists that can both allocate this shard and improve the cluster balance"));
    assert_eq!(v["node_allocation_decisions"][0]["node_decision"], json!("no"));
}

#[test]
fn delayed_replica_and_lost_primary() {
    let m = md(vec![index("i", 1, 1, &[])]);
    let nodes = [node("a"), node("b"), node("c")];
    let mut gen = super::tests::ids();
    let t = settle(&RoutingTable::default(), &m, &nodes, &Map::new(), 0, &mut gen);
    let rn = t.shard("i", 0).unwrap().copies[1].node.clone().unwrap();
    let rest: Vec<AllocNode> = nodes.iter().filter(|n| n.id != rn).cloned().collect();
    let t2 = reroute(&t, &m, &rest, &Map::new(), 1000, &mut gen);
    let v = explain(&t2, &m, &rest, &Map::new(), &req("i", 0, false), None, 2000).unwrap();
    assert_eq!(v["can_allocate"], json!("allocation_delayed"));
    assert_eq!(v["allocate_explanation"], json!("cannot allocate because the cluster is still waiting 59s for the departed node holding a replica to rejoin, despite being allowed to allocate the shard to at least one other node"));
    assert_eq!(
        (v["configured_delay_in_millis"].clone(), v["remaining_delay_in_millis"].clone()),
        (json!(60000), json!(59000))
    );
    assert_eq!(v["unassigned_info"]["details"], json!(format!("node_left [{rn}]")));
    assert_eq!(v["unassigned_info"]["last_allocation_status"], json!("allocation_delayed"));
    // A primary with no replica whose node left.
    let m0 = md(vec![index("j", 1, 0, &[])]);
    let t = settle(&RoutingTable::default(), &m0, &[node("a")], &Map::new(), 0, &mut gen);
    let t = reroute(&t, &m0, &[node("b")], &Map::new(), 0, &mut gen);
    let v = explain(&t, &m0, &[node("b")], &Map::new(), &req("j", 0, true), None, 0).unwrap();
    assert_eq!(v["can_allocate"], json!("no_valid_shard_copy"));
    assert_eq!(v["allocate_explanation"], json!("cannot allocate because a previous copy of the primary shard existed but can no longer be found on the nodes in the cluster"));
    assert_eq!(
        v["node_allocation_decisions"][0],
        json!({"node_id": "b", "node_name": "name-b", "transport_address": "10.0.0.98:9300", "node_decision": "no", "store": {"found": false}})
    );
}
