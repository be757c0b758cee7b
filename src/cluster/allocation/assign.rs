//! Assigning unassigned copies (`AllocationService.allocateExistingUnassignedShards`, then
//! `LocalShardsBalancer.allocateUnassigned`):
//! 1. primaries recovering an `EXISTING_STORE` go only to a node holding an in-sync copy (the
//!    `last_node` of a copy lost with its node whose allocation id is in-sync), reusing that
//!    allocation id, forced past the deciders that may be forced (`PrimaryShardAllocator`); with
//!    no such node they wait (`no_valid_shard_copy`);
//! 2. replicas lost with their node go back to it when it is back, else wait while delayed
//!    (`ReplicaShardAllocator`);
//! 3. the rest, primaries first, go to the lowest-weight node the deciders allow; replicas of one
//!    shard are spread over rounds so that every shard gets its first replica first.
//!
//! OpenSearch skips a node whose weight is above the best one so far even when that best node
//! only throttles, so a later reroute (with other weights) may assign what an earlier one did
//! not; `reroute` therefore repeats the pass until it assigns nothing (what successive reroutes
//! reach in OpenSearch), which makes it idempotent.
//!
//! Copies that stay unassigned get the status of the attempt (`deciders_no`, ...).

use std::cmp::Ordering;

use super::balance::Model;
use super::combine::{can_allocate, can_allocate_shard, can_force_allocate_primary, Debug, Decisions};
use super::deciders::{Ctx, Kind, ShardRef};
use super::settings::{AllocSettings, IndexAlloc};
use super::AllocNode;
use crate::cluster::metadata::{IndexState, Metadata};
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardCopy, ShardState};

/// Where a copy sits in the table: index name, shard position, copy position.
pub(crate) type Pos = (String, usize, usize);

/// The outcome of deciding one unassigned copy.
pub(crate) enum Outcome {
    /// Assign to the node (reusing the allocation id when given).
    Assign(String, Option<String>),
    /// Leave unassigned with this status (`deciders_throttled` counts the node in the model).
    Ignore(&'static str, Option<String>),
    /// Not decided here.
    NotTaken,
}

pub(crate) fn copy_at<'a>(t: &'a RoutingTable, p: &Pos) -> &'a ShardCopy {
    &t.indices[&p.0].shards[p.1].copies[p.2]
}

fn status_of(k: Kind) -> &'static str {
    if k == Kind::Throttle {
        "deciders_throttled"
    } else {
        "deciders_no"
    }
}

/// The nodes that hold an in-sync copy of the shard of `p`, the primary's last node first:
/// `(node, allocation id, position of the copy that remembers it)`.
pub(crate) fn in_sync_holders(c: &Ctx, p: &Pos) -> Vec<(String, String, usize)> {
    let st = &c.table.indices[&p.0].shards[p.1];
    let mut v: Vec<(String, String, usize, bool)> = st
        .copies
        .iter()
        .enumerate()
        .filter(|(_, x)| x.state == ShardState::Unassigned)
        .filter_map(|(i, x)| {
            let node = x.unassigned.as_ref()?.last_node.clone()?;
            let id = x.allocation_id.clone().filter(|a| st.in_sync.contains(a))?;
            c.node(&node).map(|_| (node, id, i, x.primary))
        })
        .collect();
    v.sort_by_key(|h| !h.3);
    v.into_iter().map(|(n, a, i, _)| (n, a, i)).collect()
}

/// `PrimaryShardAllocator` for an `EXISTING_STORE` primary.
pub(crate) fn decide_existing_primary(c: &Ctx, p: &Pos) -> Outcome {
    let copy = copy_at(c.table, p);
    let sh = ShardRef { index: &p.0, id: c.table.indices[&p.0].shards[p.1].id, copy };
    let holders = in_sync_holders(c, p);
    if holders.is_empty() {
        return Outcome::Ignore("no_valid_shard_copy", None);
    }
    let decide = |force: bool| -> Vec<(Kind, &(String, String, usize))> {
        holders
            .iter()
            .filter_map(|h| {
                let node = c.node(&h.0)?;
                let d = if force {
                    can_force_allocate_primary(c, sh, node, Debug::Off)
                } else {
                    can_allocate(c, sh, node, Debug::Off)
                };
                Some((d.kind, h))
            })
            .collect()
    };
    let mut results = decide(false);
    if !results.iter().any(|r| r.0 != Kind::No) {
        results = decide(true);
    }
    if let Some((_, h)) = results.iter().find(|r| r.0 == Kind::Yes) {
        return Outcome::Assign(h.0.clone(), Some(h.1.clone()));
    }
    if results.iter().any(|r| r.0 == Kind::Throttle) {
        return Outcome::Ignore("deciders_throttled", None);
    }
    Outcome::Ignore("deciders_no", None)
}

/// The remaining delay of a delayed copy.
pub(crate) fn remaining_delay(c: &Ctx, index: &str, copy: &ShardCopy, now_millis: i64) -> i64 {
    let timeout = c.index_md(index).map_or(60_000, |m| IndexAlloc(m).delayed_timeout_millis());
    let at = copy.unassigned.as_ref().map_or(now_millis, |u| u.at_millis);
    (timeout - (now_millis - at).max(0)).max(0)
}

/// `ReplicaShardAllocator` for a replica that is not new: the best any node allows, then its
/// last node if back, then the delay.
pub(crate) fn decide_existing_replica(c: &Ctx, p: &Pos) -> Outcome {
    let copy = copy_at(c.table, p);
    let u = copy.unassigned.as_ref();
    if copy.primary || u.is_none_or(|u| u.reason == "INDEX_CREATED") {
        return Outcome::NotTaken;
    }
    let sh = ShardRef { index: &p.0, id: c.table.indices[&p.0].shards[p.1].id, copy };
    let best = c.nodes.iter().map(|n| can_allocate(c, sh, n, Debug::Off).kind).max().unwrap_or(Kind::No);
    if best != Kind::Yes {
        return Outcome::Ignore(status_of(best), None);
    }
    let lost_with_node = u.is_some_and(|u| u.reason == "NODE_LEFT");
    if let Some(node) = u.and_then(|u| u.last_node.as_deref()).filter(|_| lost_with_node).and_then(|n| c.node(n)) {
        match can_allocate(c, sh, node, Debug::Off).kind {
            Kind::Yes => return Outcome::Assign(node.id.clone(), None),
            Kind::Throttle => return Outcome::Ignore("deciders_throttled", None),
            Kind::No => {}
        }
    }
    if u.is_some_and(|u| u.delayed) {
        return Outcome::Ignore("delayed_allocation", None);
    }
    Outcome::NotTaken
}

/// `decideAllocateUnassigned`: the lowest-weight node that says YES (or THROTTLE). With
/// `explain`, every node's decisions and weight ranking too.
pub(crate) fn decide_balanced(
    c: &Ctx,
    model: &Model,
    p: &Pos,
    debug: Debug,
) -> (Kind, Option<usize>, Vec<(usize, f32, Decisions)>) {
    let copy = copy_at(c.table, p);
    let st = &c.table.indices[&p.0].shards[p.1];
    let sh = ShardRef { index: &p.0, id: st.id, copy };
    let explain = debug != Debug::Off;
    if !explain && can_allocate_shard(c, sh, Debug::Off).kind == Kind::No {
        return (Kind::No, None, Vec::new());
    }
    let mut min_weight = f32::INFINITY;
    let mut best: Option<(usize, Kind)> = None;
    let mut all = Vec::new();
    for (i, mn) in model.nodes.iter().enumerate() {
        let Some(node) = c.node(&mn.id) else { continue };
        if !explain && st.copies.iter().any(|x| x.on(&mn.id)) {
            continue;
        }
        let w = model.weight_with_constraints(i, &p.0);
        if w > min_weight && !explain {
            continue;
        }
        let d = can_allocate(c, sh, node, debug);
        let kind = d.kind;
        if explain {
            all.push((i, w, d));
        }
        if kind == Kind::No {
            continue;
        }
        let update = match best {
            None => true,
            Some((bi, bk)) if w == min_weight => {
                if kind == bk {
                    let id = i64::from(st.id);
                    let (nh, mh) = (model.highest_primary(i, &p.0), model.highest_primary(bi, &p.0));
                    (((nh > id && mh > id) || (nh < id && mh < id)) && nh < mh) || (nh > id && mh < id)
                } else {
                    kind == Kind::Yes
                }
            }
            Some(_) => w < min_weight,
        };
        if update {
            min_weight = w;
            best = Some((i, kind));
        }
    }
    match best {
        Some((i, k)) => (k, Some(i), all),
        None => (Kind::No, None, all),
    }
}

/// The order unassigned copies are tried in: primaries first, then by index priority, newer
/// index, name (descending, `PriorityComparator`), then shard id.
fn order(md: &Metadata, a: &Pos, ap: bool, b: &Pos, bp: bool) -> Ordering {
    bp.cmp(&ap).then_with(|| {
        if a.0 == b.0 {
            return a.1.cmp(&b.1);
        }
        let key = |n: &str| md.indices.get(n).map_or((1, 0), |m| (IndexAlloc(m).priority(), m.creation_date()));
        let (ka, kb) = (key(&a.0), key(&b.0));
        kb.0.cmp(&ka.0).then(kb.1.cmp(&ka.1)).then_with(|| b.0.cmp(&a.0))
    })
}

/// Assigns what can be assigned and returns how many copies it assigned; with `dry_run` only
/// records the statuses.
pub(crate) fn allocate(
    table: &mut RoutingTable,
    md: &Metadata,
    nodes: &[&AllocNode],
    s: &AllocSettings,
    new_id: &mut dyn FnMut() -> String,
    dry_run: bool,
) -> usize {
    let mut unassigned: Vec<(Pos, bool)> = Vec::new();
    for (name, ir) in &table.indices {
        // A closed index's copies stay where they are until it opens again.
        if md.indices.get(name).is_some_and(|m| m.state != IndexState::Open) {
            continue;
        }
        for (si, st) in ir.shards.iter().enumerate() {
            for (ci, c) in st.copies.iter().enumerate().filter(|(_, c)| c.state == ShardState::Unassigned) {
                unassigned.push(((name.clone(), si, ci), c.primary));
            }
        }
    }
    unassigned.sort_by(|a, b| order(md, &a.0, a.1, &b.0, b.1));
    let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let mut model = Model::build(table, &ids, s);
    let mut pending = Vec::new();
    let mut assigned = 0;
    // Existing stores first: primaries, then replicas.
    for primaries in [true, false] {
        for (p, primary) in unassigned.iter().filter(|u| u.1 == primaries) {
            let outcome = {
                let c = Ctx { table: &*table, md, nodes: nodes.to_vec(), s };
                let copy = copy_at(table, p);
                if *primary && copy.recovery_source == Some(RecoverySource::ExistingStore) {
                    decide_existing_primary(&c, p)
                } else if *primary {
                    Outcome::NotTaken
                } else {
                    decide_existing_replica(&c, p)
                }
            };
            match outcome {
                Outcome::NotTaken => pending.push((p.clone(), *primary)),
                o => assigned += apply(table, &mut model, p, o, new_id, dry_run),
            }
        }
    }
    // Then by weight, in rounds.
    let mut round = pending;
    while !round.is_empty() {
        let mut next = Vec::new();
        let mut i = 0;
        while i < round.len() {
            let (p, primary) = &round[i];
            let same =
                |j: usize| j < round.len() && !round[j].1 && !primary && round[j].0 .0 == p.0 && round[j].0 .1 == p.1;
            let (kind, node, _) = {
                let c = Ctx { table: &*table, md, nodes: nodes.to_vec(), s };
                decide_balanced(&c, &model, p, Debug::Off)
            };
            let target = node.map(|n| model.nodes[n].id.clone());
            if kind == Kind::Yes {
                let t = target.unwrap_or_default();
                assigned += apply(table, &mut model, p, Outcome::Assign(t, None), new_id, dry_run);
                while same(i + 1) {
                    next.push(round[i + 1].clone());
                    i += 1;
                }
            } else {
                // OpenSearch gives the other replicas of the shard the same status without asking;
                // they may differ (a new index's replicas throttle apart, failed attempts), so
                // each is asked: one reroute then assigns all it can, and a second one nothing.
                apply(table, &mut model, p, Outcome::Ignore(status_of(kind), target), new_id, dry_run);
            }
            i += 1;
        }
        round = next;
    }
    assigned
}

fn apply(
    table: &mut RoutingTable,
    model: &mut Model,
    p: &Pos,
    o: Outcome,
    new_id: &mut dyn FnMut() -> String,
    dry_run: bool,
) -> usize {
    let st = &mut table.indices.get_mut(&p.0).expect("position of a table index").shards[p.1];
    let shard = st.id;
    match o {
        Outcome::Assign(node, reuse) if !dry_run => {
            if let Some(id) = &reuse {
                // The primary takes the data another unassigned copy remembered; that copy now
                // remembers the primary's old data instead, so no in-sync id is forgotten.
                let k = st
                    .copies
                    .iter()
                    .position(|x| x.state == ShardState::Unassigned && x.allocation_id.as_ref() == Some(id));
                if let Some(k) = k.filter(|k| *k != p.2) {
                    let old_id = st.copies[p.2].allocation_id.take();
                    let old_node = st.copies[p.2].unassigned.as_ref().and_then(|u| u.last_node.clone());
                    st.copies[k].allocation_id = old_id;
                    if let Some(u) = st.copies[k].unassigned.as_mut() {
                        u.last_node = old_node;
                    }
                }
            }
            // A copy assigned afresh overwrites whatever data it remembered: that id is stale
            // now (the set keeps at least one id).
            if reuse.is_none() {
                if let Some(old) = st.copies[p.2].allocation_id.take() {
                    if st.in_sync.len() > 1 {
                        st.in_sync.retain(|x| *x != old);
                    }
                }
            }
            let c = &mut st.copies[p.2];
            c.state = ShardState::Initializing;
            c.node = Some(node.clone());
            c.allocation_id = Some(reuse.unwrap_or_else(new_id));
            let primary = c.primary;
            if primary {
                st.primary_term += 1;
            }
            if let Some(i) = model.position(&node) {
                model.add(i, &p.0, shard, primary);
            }
            return 1;
        }
        Outcome::Ignore(status, throttled_on) => {
            let primary = st.copies[p.2].primary;
            if let Some(u) = st.copies[p.2].unassigned.as_mut() {
                u.allocation_status = status.into();
            }
            if let Some(i) = throttled_on.and_then(|n| model.position(&n)).filter(|_| status == "deciders_throttled") {
                model.add(i, &p.0, shard, primary);
            }
        }
        _ => {}
    }
    0
}
