//! Explaining a started copy (`LocalShardsBalancer.decideMove` and `decideRebalance`,
//! `MoveDecision`): may it stay, and would moving it elsewhere improve the balance.

use serde_json::{json, Map, Value};

use super::assign::{copy_at, Pos};
use super::balance::{less_than, Model};
use super::combine::{can_allocate, can_rebalance, can_remain, Debug, Decisions};
use super::deciders::{Ctx, Kind, ShardRef};
use super::explain_decisions::{deciders_json, node_object, node_results_json, NodeResult, Outcome};

/// The `MoveDecision` fields and the current node's weight ranking; `None` when the copy's node
/// is not a data node of the cluster.
pub(crate) fn move_decision(c: &Ctx, p: &Pos, debug: Debug) -> Option<(Map<String, Value>, u64)> {
    let copy = copy_at(c.table, p);
    let sh = ShardRef { index: &p.0, id: c.table.indices[&p.0].shards[p.1].id, copy };
    let current = c.node(copy.node.as_deref()?)?;
    let ids: Vec<&str> = c.nodes.iter().map(|n| n.id.as_str()).collect();
    let model = Model::build(c.table, &ids, c.s);
    let order = model.sorted(&p.0);
    let remain = can_remain(c, sh, current, debug);
    let mut m = Map::new();
    if remain.kind == Kind::No {
        // decideMove: the lowest-weight node that allows it.
        let mut best = Kind::No;
        let mut target = None;
        let mut results = Vec::new();
        for (rank, &i) in order.iter().filter(|&&i| model.nodes[i].id != current.id).enumerate() {
            let Some(n) = c.node(&model.nodes[i].id) else { continue };
            let d = can_allocate(c, sh, n, debug);
            if d.kind > best {
                best = d.kind;
                if best == Kind::Yes {
                    target = Some(n);
                }
            }
            results.push(NodeResult {
                node: n,
                outcome: Outcome::of(d.kind),
                store: None,
                ranking: rank + 1,
                decisions: Some(d),
            });
        }
        if let Some(t) = target {
            m.insert("target_node".into(), Value::Object(node_object(t)));
        }
        m.insert("can_remain_on_current_node".into(), json!("no"));
        if !remain.list.is_empty() {
            m.insert("can_remain_decisions".into(), deciders_json(&remain));
        }
        let outcome = Outcome::of(best);
        m.insert("can_move_to_other_node".into(), json!(if outcome == Outcome::Yes { "yes" } else { "no" }));
        let e = match outcome {
            Outcome::Yes => "shard cannot remain on this node and is force-moved to another node",
            Outcome::Throttled => "shard cannot remain on this node but is throttled on moving to another node",
            _ => "cannot move shard to another node, even though it is not allowed to remain on its current node",
        };
        m.insert("move_explanation".into(), json!(e));
        if !results.is_empty() {
            m.insert("node_allocation_decisions".into(), node_results_json(results));
        }
        return Some((m, 0));
    }
    // decideRebalance.
    let rebalance = can_rebalance(c, sh, debug);
    let ci = model.position(&current.id)?;
    let current_weight = model.weight(ci, &p.0);
    let mut decision = Kind::No;
    let mut target = None;
    let (mut better, mut same, mut worse): (Vec<(usize, Decisions)>, Vec<(usize, Decisions)>, Vec<(usize, Decisions)>) =
        Default::default();
    for &i in order.iter().filter(|&&i| i != ci) {
        let Some(n) = c.node(&model.nodes[i].id) else { continue };
        let d = can_allocate(c, sh, n, debug);
        let w = model.weight(i, &p.0);
        let better_weight = w <= current_weight;
        let mut met = false;
        if better_weight {
            let delta = (current_weight - w).abs();
            met = !less_than(delta, c.s.threshold) && (2.0 + w - current_weight) < delta;
            if met && d.kind > decision {
                decision = d.kind;
                target = Some(n);
            }
        }
        if met {
            better.push((i, d));
        } else if better_weight {
            same.push((i, d));
        } else {
            worse.push((i, d));
        }
    }
    let mut results = Vec::new();
    let mut rank = 0;
    for (i, d) in better {
        rank += 1;
        results.push(NodeResult {
            node: c.node(&model.nodes[i].id)?,
            outcome: Outcome::of(d.kind),
            store: None,
            ranking: rank,
            decisions: Some(d),
        });
    }
    rank += 1;
    let current_rank = rank;
    let worse_balance = |d: &Decisions| if d.kind == Kind::No { Outcome::No } else { Outcome::WorseBalance };
    for (i, d) in same {
        results.push(NodeResult {
            node: c.node(&model.nodes[i].id)?,
            outcome: worse_balance(&d),
            store: None,
            ranking: current_rank,
            decisions: Some(d),
        });
    }
    for (i, d) in worse {
        rank += 1;
        results.push(NodeResult {
            node: c.node(&model.nodes[i].id)?,
            outcome: worse_balance(&d),
            store: None,
            ranking: rank,
            decisions: Some(d),
        });
    }
    let any_yes = results.iter().any(|r| r.outcome == Outcome::Yes);
    let (outcome, target) =
        if rebalance.kind != Kind::Yes { (Outcome::of(rebalance.kind), None) } else { (Outcome::of(decision), target) };
    let e = match rebalance.kind {
        Kind::No => format!("rebalancing is not allowed{}", if any_yes { ", even though there is at least one node on which the shard can be allocated" } else { "" }),
        Kind::Throttle => "rebalancing is throttled".into(),
        Kind::Yes if target.is_some() && outcome == Outcome::Throttled => "shard rebalancing throttled".into(),
        Kind::Yes if target.is_some() => "can rebalance shard".into(),
        Kind::Yes => "cannot rebalance as no target node exists that can both allocate this shard and improve the cluster balance".into(),
    };
    if let Some(t) = target {
        m.insert("target_node".into(), Value::Object(node_object(t)));
    }
    m.insert("can_remain_on_current_node".into(), json!("yes"));
    m.insert("can_rebalance_cluster".into(), json!(Outcome::of(rebalance.kind).name()));
    if rebalance.kind != Kind::Yes && !rebalance.list.is_empty() {
        m.insert("can_rebalance_cluster_decisions".into(), deciders_json(&rebalance));
    }
    m.insert("can_rebalance_to_other_node".into(), json!(outcome.name()));
    m.insert("rebalance_explanation".into(), json!(e));
    if !results.is_empty() {
        m.insert("node_allocation_decisions".into(), node_results_json(results));
    }
    Some((m, current_rank as u64))
}
