//! Rebalancing (`LocalShardsBalancer.balance` / `balanceByWeights` / `tryRelocateShard`): for
//! each index, while the weight of its heaviest node exceeds that of its lightest by more than
//! `cluster.routing.allocation.balance.threshold`, a started copy of the index moves from a
//! heavy node to a light one, when `canRebalance` (`cluster.routing.rebalance.enable`,
//! `cluster.routing.allocation.allow_rebalance`, `cluster_concurrent_rebalance`) and the target
//! node's deciders say YES.
//!
//! Node pairs are tried as OpenSearch does: the lightest with the heaviest, then lighter nodes
//! against lighter heavy ones. Every move lowers the spread of the weights, and the number of
//! moves of one call is bounded by the number of copies, so it ends; a second call over the
//! result moves nothing more (what stopped the first stops it too).

use super::balance::{less_than, Model};
use super::combine::{can_allocate, can_rebalance, Debug};
use super::deciders::{Ctx, Kind, ShardRef};
use super::relocate::start_relocation;
use super::settings::AllocSettings;
use super::AllocNode;
use crate::cluster::metadata::{IndexState, Metadata};
use crate::cluster::routing_table::{RoutingTable, ShardState};

/// Moves copies toward balance; returns how many started relocating.
pub(crate) fn rebalance(
    t: &mut RoutingTable,
    md: &Metadata,
    nodes: &[&AllocNode],
    s: &AllocSettings,
    new_id: &mut dyn FnMut() -> String,
) -> usize {
    if nodes.len() < 2 {
        return 0;
    }
    let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let names: Vec<String> =
        t.indices.keys().filter(|n| md.indices.get(*n).is_some_and(|m| m.state == IndexState::Open)).cloned().collect();
    let budget = t.copies().count();
    let mut moved = 0;
    for name in names {
        while moved < budget {
            let Some((si, ci, target)) = next_move(t, md, nodes, s, &ids, &name) else { break };
            let st = &mut t.indices.get_mut(&name).expect("an index of the table").shards[si];
            start_relocation(st, ci, &target, new_id);
            moved += 1;
        }
    }
    moved
}

/// The next copy of `index` to move for balance: `(shard position, copy position, node)`.
fn next_move(
    t: &RoutingTable,
    md: &Metadata,
    nodes: &[&AllocNode],
    s: &AllocSettings,
    ids: &[&str],
    index: &str,
) -> Option<(usize, usize, String)> {
    let model = Model::build(t, ids, s);
    let sorted = model.sorted(index);
    let c = Ctx { table: t, md, nodes: nodes.to_vec(), s };
    let n = sorted.len();
    for low in 0..n {
        for high in (low + 1..n).rev() {
            let (lo, hi) = (sorted[low], sorted[high]);
            let delta = model.weight(hi, index) - model.weight(lo, index);
            if less_than(delta, s.threshold) {
                continue;
            }
            if let Some(m) = try_relocate(&c, index, &model.nodes[hi].id, &model.nodes[lo].id) {
                return Some(m);
            }
        }
    }
    None
}

/// `tryRelocateShard`: a started copy of `index` on `from` that may move to `to`, primaries
/// last (moving a replica is cheaper to recover and keeps the primary where writes go).
fn try_relocate(c: &Ctx, index: &str, from: &str, to: &str) -> Option<(usize, usize, String)> {
    let ir = c.table.indices.get(index)?;
    let target = c.node(to)?;
    let mut best: Option<(usize, usize, bool)> = None;
    for (si, st) in ir.shards.iter().enumerate() {
        for (ci, copy) in st.copies.iter().enumerate() {
            if copy.state != ShardState::Started || !copy.on(from) {
                continue;
            }
            let sh = ShardRef { index, id: st.id, copy };
            if can_rebalance(c, sh, Debug::Off).kind != Kind::Yes {
                continue;
            }
            if can_allocate(c, sh, target, Debug::Off).kind != Kind::Yes {
                continue;
            }
            if best.is_none_or(|b| b.2 && !copy.primary) {
                best = Some((si, ci, copy.primary));
            }
        }
    }
    best.map(|(si, ci, _)| (si, ci, to.to_string()))
}
