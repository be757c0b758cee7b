//! Relocation (OpenSearch's `RoutingNodes.relocateShard` / `startShard` / `cancelRelocation`
//! and `LocalShardsBalancer.moveShards`): a started copy that may not remain on its node moves to
//! the lowest-weight node that accepts it.
//!
//! As in OpenSearch's table, a relocating copy is one entry: the source, `RELOCATING` with its
//! `relocating_node` (the target node) and `relocation_id` (the target's allocation id). The
//! target (`ShardCopy::relocation_target`) recovers from a peer — the primary, which for a
//! primary relocation is the source itself — and when it reports started it takes the source's
//! place: `STARTED` on the target node with the same primary flag and primary term, its id in
//! the in-sync set instead of the source's.

use super::balance::Model;
use super::combine::{can_allocate, can_remain, Debug};
use super::deciders::{Ctx, Kind, ShardRef};
use super::settings::AllocSettings;
use super::AllocNode;
use crate::cluster::metadata::{IndexState, Metadata};
use crate::cluster::routing_table::{RoutingTable, ShardCopy, ShardState, ShardTable};

/// Starts moving copy `i` of `st` to `target` (`relocateShard`).
pub(crate) fn start_relocation(st: &mut ShardTable, i: usize, target: &str, new_id: &mut dyn FnMut() -> String) {
    let c = &mut st.copies[i];
    c.state = ShardState::Relocating;
    c.relocating_node = Some(target.to_string());
    c.relocation_id = Some(new_id());
}

/// Ends the relocation of copy `i` without moving it (`cancelRelocation`): the source stays
/// `STARTED` where it is and the target is gone.
pub(crate) fn cancel_relocation(st: &mut ShardTable, i: usize) {
    let c = &mut st.copies[i];
    if c.state == ShardState::Relocating {
        c.state = ShardState::Started;
    }
    c.relocating_node = None;
    c.relocation_id = None;
}

/// The position of the copy relocating to allocation id `target_aid`.
pub(crate) fn source_of(st: &ShardTable, target_aid: &str) -> Option<usize> {
    st.copies.iter().position(|c| c.state == ShardState::Relocating && c.relocation_id.as_deref() == Some(target_aid))
}

/// The target with allocation id `target_aid` started: it replaces its source (`startShard` of
/// a relocation target, then `remove` of the source), in-sync in its place.
pub(crate) fn finish_relocation(st: &mut ShardTable, target_aid: &str) -> bool {
    let Some(i) = source_of(st, target_aid) else { return false };
    let src = st.copies[i].clone();
    st.copies[i] = ShardCopy {
        primary: src.primary,
        state: ShardState::Started,
        node: src.relocating_node.clone(),
        relocating_node: None,
        relocation_id: None,
        allocation_id: Some(target_aid.to_string()),
        recovery_source: None,
        unassigned: None,
    };
    let old = src.allocation_id.unwrap_or_default();
    st.in_sync.retain(|x| *x != old);
    super::failures::mark_in_sync(st, target_aid);
    true
}

/// Cancels the relocations whose source or target node left (the source then fails as any
/// copy on a departed node does).
pub(crate) fn cancel_departed(st: &mut ShardTable, alive: &dyn Fn(&str) -> bool) {
    for i in 0..st.copies.len() {
        let c = &st.copies[i];
        if c.state != ShardState::Relocating {
            continue;
        }
        let gone = |n: &Option<String>| n.as_deref().is_some_and(|n| !alive(n));
        if gone(&c.relocating_node) || gone(&c.node) {
            cancel_relocation(st, i);
        }
    }
}

/// The best node for moving the started copy at `(index, shard position, copy position)`
/// (`decideMove` for a copy that may not remain): the lowest-weight node, other than its own,
/// whose deciders say YES. `Throttle` when the best answer is THROTTLE.
pub(crate) fn decide_move_target(c: &Ctx, model: &Model, index: &str, si: usize, ci: usize) -> (Kind, Option<String>) {
    let st = &c.table.indices[index].shards[si];
    let copy = &st.copies[ci];
    let sh = ShardRef { index, id: st.id, copy };
    let Some(current) = copy.node.as_deref().and_then(|n| c.node(n)) else { return (Kind::No, None) };
    if can_remain(c, sh, current, Debug::Off).kind != Kind::No {
        return (Kind::Yes, None);
    }
    let mut best = Kind::No;
    for i in model.sorted(index) {
        let id = &model.nodes[i].id;
        if *id == current.id {
            continue;
        }
        let Some(n) = c.node(id) else { continue };
        match can_allocate(c, sh, n, Debug::Off).kind {
            Kind::Yes => return (Kind::Yes, Some(id.clone())),
            Kind::Throttle => best = Kind::Throttle,
            Kind::No => {}
        }
    }
    (best, None)
}

/// `moveShards`: every started copy that may not remain on its node starts relocating to the
/// best node that takes it now; returns how many did. One pass, each copy asked once against
/// the table as the earlier moves left it, so a second pass over the result moves nothing more.
pub(crate) fn move_shards(
    t: &mut RoutingTable,
    md: &Metadata,
    nodes: &[&AllocNode],
    s: &AllocSettings,
    new_id: &mut dyn FnMut() -> String,
) -> usize {
    let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let mut positions = Vec::new();
    for (name, ir) in &t.indices {
        if md.indices.get(name).is_some_and(|m| m.state != IndexState::Open) {
            continue;
        }
        for (si, st) in ir.shards.iter().enumerate() {
            for (ci, c) in st.copies.iter().enumerate() {
                if c.state == ShardState::Started {
                    positions.push((name.clone(), si, ci));
                }
            }
        }
    }
    let mut moved = 0;
    for (name, si, ci) in positions {
        let target = {
            let c = Ctx { table: &*t, md, nodes: nodes.to_vec(), s };
            let model = Model::build(&*t, &ids, s);
            decide_move_target(&c, &model, &name, si, ci).1
        };
        if let Some(node) = target {
            let st = &mut t.indices.get_mut(&name).expect("position of a table index").shards[si];
            start_relocation(st, ci, &node, new_id);
            moved += 1;
        }
    }
    moved
}
