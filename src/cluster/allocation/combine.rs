//! The deciders combined (OpenSearch's `AllocationDeciders`): in the order OpenSearch registers
//! them, a NO short-circuits unless explaining; explaining keeps the NO and THROTTLE answers and,
//! when asked, the YES ones too.

use super::deciders::{self as dc, Ctx, Decision, Kind, ShardRef};
use super::deciders_load as dl;
use super::settings::IndexAlloc;
use super::AllocNode;
use crate::cluster::routing_table::ShardState;

/// How much of the deciders' reasoning to keep (`RoutingAllocation.DebugMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Debug {
    Off,
    ExcludeYes,
    On,
}

/// Several deciders' answers (`Decision.Multi`): NO if any said NO, else THROTTLE if any did.
#[derive(Debug, Clone)]
pub(crate) struct Decisions {
    pub kind: Kind,
    pub list: Vec<Decision>,
}

impl Decisions {
    fn new() -> Decisions {
        Decisions { kind: Kind::Yes, list: Vec::new() }
    }
    /// Adds one answer; returns false when the caller should stop (a NO outside explain).
    fn add(&mut self, d: Decision, debug: Debug) -> bool {
        self.kind = self.kind.min(d.kind);
        let keep = match debug {
            Debug::Off => false,
            Debug::ExcludeYes => d.kind != Kind::Yes,
            Debug::On => true,
        };
        let stop = d.kind == Kind::No && debug == Debug::Off;
        if keep {
            self.list.push(d);
        }
        !stop
    }
}

/// Runs deciders in order, stopping at a NO unless explaining.
macro_rules! decide {
    ($debug:expr; $($e:expr),* $(,)?) => {{
        let mut out = Decisions::new();
        'run: {
            $( if !out.add($e, $debug) { break 'run; } )*
        }
        out
    }};
}

/// `canAllocate(shard, node)`.
pub(crate) fn can_allocate(c: &Ctx, sh: ShardRef, node: &AllocNode, debug: Debug) -> Decisions {
    decide!(debug;
        dc::max_retry(c, sh),
        dc::replica_after_primary_active(c, sh),
        dc::enable(c, sh),
        dc::filter(c, sh, node),
        dc::same_shard(c, sh, node),
        dl::throttling(c, sh, node),
        dl::shards_limit(c, sh, node, false),
        dl::awareness(c, sh, node, true),
    )
}

/// `canAllocate(shard)`: the deciders that do not look at a node.
pub(crate) fn can_allocate_shard(c: &Ctx, sh: ShardRef, debug: Debug) -> Decisions {
    decide!(debug; dc::max_retry(c, sh), dc::replica_after_primary_active(c, sh), dc::enable(c, sh))
}

/// `canRemain(shard, node)`.
pub(crate) fn can_remain(c: &Ctx, sh: ShardRef, node: &AllocNode, debug: Debug) -> Decisions {
    decide!(debug; dc::filter(c, sh, node), dl::shards_limit(c, sh, node, true), dl::awareness(c, sh, node, false))
}

/// `canForceAllocatePrimary`: a primary with data on the node may go there although a decider
/// says NO, except `same_shard` and `max_retry` (the other deciders' NO becomes YES).
pub(crate) fn can_force_allocate_primary(c: &Ctx, sh: ShardRef, node: &AllocNode, debug: Debug) -> Decisions {
    let all = can_allocate(c, sh, node, Debug::On);
    let mut out = Decisions::new();
    for d in all.list {
        let d = if d.kind == Kind::No && !matches!(d.decider, "same_shard" | "max_retry") {
            Decision {
                decider: d.decider,
                kind: Kind::Yes,
                explanation: format!(
                    "primary shard [[{}][{}]] allowed to force allocate on node [{}]",
                    sh.index, sh.id, node.id
                ),
            }
        } else {
            d
        };
        if !out.add(d, debug) {
            break;
        }
    }
    out
}

/// `canRebalance(shard)`: whether moving a started copy for balance is allowed at all.
pub(crate) fn can_rebalance(c: &Ctx, sh: ShardRef, debug: Debug) -> Decisions {
    let mut out = Decisions::new();
    // rebalance_only_when_active
    let st = c.shard(sh.index, sh.id);
    let all_active = st.is_some_and(|st| st.copies.iter().all(|x| x.active()));
    let d = if all_active {
        dc_yes("rebalance_only_when_active", "rebalancing is allowed as all replicas are active in the cluster")
    } else {
        dc_no("rebalance_only_when_active", "rebalancing is not allowed until all replicas in the cluster are active")
    };
    if !out.add(d, debug) {
        return out;
    }
    if !out.add(cluster_rebalance(c), debug) {
        return out;
    }
    // concurrent_rebalance
    let limit = c.s.concurrent_rebalance;
    let relocating = c.table.copies().filter(|(_, _, x)| x.state == ShardState::Relocating).count() as i64;
    let d = if limit == -1 {
        dc_yes("concurrent_rebalance", "unlimited concurrent rebalances are allowed")
    } else if relocating >= limit {
        Decision { decider: "concurrent_rebalance", kind: Kind::Throttle, explanation: format!("reached the limit of concurrently rebalancing shards [{relocating}], cluster setting [cluster.routing.allocation.cluster_concurrent_rebalance={limit}]") }
    } else {
        dc_yes(
            "concurrent_rebalance",
            format!(
                "below threshold [{limit}] for concurrent rebalances, current rebalance shard count [{relocating}]"
            ),
        )
    };
    if !out.add(d, debug) {
        return out;
    }
    out.add(enable_rebalance(c, sh), debug);
    out
}

fn dc_yes(decider: &'static str, e: impl Into<String>) -> Decision {
    Decision { decider, kind: Kind::Yes, explanation: e.into() }
}

fn dc_no(decider: &'static str, e: impl Into<String>) -> Decision {
    Decision { decider, kind: Kind::No, explanation: e.into() }
}

/// `ClusterRebalanceAllocationDecider` (`cluster.routing.allocation.allow_rebalance`).
fn cluster_rebalance(c: &Ctx) -> Decision {
    const NAME: &str = "cluster_rebalance";
    let t = c.s.allow_rebalance.as_str();
    let copies = || c.table.copies().map(|(_, _, x)| x);
    let msg = |what: &str| {
        format!(
            "the cluster has {what} and cluster setting [cluster.routing.allocation.allow_rebalance] is set to [{t}]"
        )
    };
    match t {
        "indices_primaries_active" => {
            if copies().any(|x| x.primary && x.state == ShardState::Unassigned) {
                return dc_no(NAME, msg("unassigned primary shards"));
            }
            if copies().any(|x| x.primary && x.state == ShardState::Initializing && x.relocating_node.is_none()) {
                return dc_no(NAME, msg("inactive primary shards"));
            }
            dc_yes(NAME, "all primary shards are active")
        }
        "always" => dc_yes(NAME, "all shards are active"),
        _ => {
            if copies().any(|x| x.state == ShardState::Unassigned) {
                return dc_no(NAME, msg("unassigned shards"));
            }
            if copies().any(|x| x.state == ShardState::Initializing && x.relocating_node.is_none()) {
                return dc_no(NAME, msg("inactive shards"));
            }
            dc_yes(NAME, "all shards are active")
        }
    }
}

/// `EnableAllocationDecider.canRebalance(shard)`.
fn enable_rebalance(c: &Ctx, sh: ShardRef) -> Decision {
    const NAME: &str = "enable";
    let index = c.index_md(sh.index).and_then(|m| IndexAlloc(m).rebalance_enable());
    let (e, source) = match index {
        Some(e) => (e, "index setting [index.routing.rebalance.enable"),
        None => (c.s.rebalance_enable.clone(), "cluster setting [cluster.routing.rebalance.enable"),
    };
    let setting = format!("{source}={e}]");
    match e.as_str() {
        "none" => dc_no(NAME, format!("no rebalancing is allowed due to {setting}")),
        "primaries" if sh.copy.primary => dc_yes(NAME, "primary rebalancing is allowed"),
        "primaries" => dc_no(NAME, format!("replica rebalancing is forbidden due to {setting}")),
        "replicas" if !sh.copy.primary => dc_yes(NAME, "replica rebalancing is allowed"),
        "replicas" => dc_no(NAME, format!("primary rebalancing is forbidden due to {setting}")),
        _ => dc_yes(NAME, "all rebalancing is allowed"),
    }
}
