//! The allocation deciders, each a function answering YES, THROTTLE or NO with OpenSearch's
//! decider name and explanation: `MaxRetryAllocationDecider`,
//! `ReplicaAfterPrimaryActiveAllocationDecider`, `EnableAllocationDecider`,
//! `FilterAllocationDecider`, `SameShardAllocationDecider` here; throttling, shards limit and
//! awareness in `deciders_load.rs`. Not modelled: disk thresholds (no disk usage here), node
//! versions (one version), snapshots, resize and remote store.

use super::render::{shard_summary, unassigned_summary};
use super::settings::{AllocSettings, Enable, IndexAlloc};
use super::AllocNode;
use crate::cluster::metadata::{IndexMetadata, Metadata};
use crate::cluster::routing_table::{RecoverySource, RoutingTable, ShardCopy, ShardState, ShardTable};

/// A decision's type; ordered NO < THROTTLE < YES (`Decision.Type.higherThan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    No,
    Throttle,
    Yes,
}

impl Kind {
    /// `NO`, `THROTTLE`, `YES` (a decider entry's `decision`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::No => "NO",
            Kind::Throttle => "THROTTLE",
            Kind::Yes => "YES",
        }
    }
}

/// One decider's answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub decider: &'static str,
    pub kind: Kind,
    pub explanation: String,
}

pub(crate) fn d(decider: &'static str, kind: Kind, explanation: impl Into<String>) -> Decision {
    Decision { decider, kind, explanation: explanation.into() }
}

/// What the deciders look at: the table as it stands, the metadata, the data nodes, settings.
pub(crate) struct Ctx<'a> {
    pub table: &'a RoutingTable,
    pub md: &'a Metadata,
    /// The data nodes, by id.
    pub nodes: Vec<&'a AllocNode>,
    pub s: &'a AllocSettings,
}

/// The copy a decision is about.
#[derive(Clone, Copy)]
pub(crate) struct ShardRef<'a> {
    pub index: &'a str,
    pub id: u32,
    pub copy: &'a ShardCopy,
}

impl<'a> Ctx<'a> {
    pub(crate) fn node(&self, id: &str) -> Option<&'a AllocNode> {
        self.nodes.iter().copied().find(|n| n.id == id)
    }
    pub(crate) fn index_md(&self, index: &str) -> Option<&'a IndexMetadata> {
        self.md.indices.get(index).map(|m| m.as_ref())
    }
    pub(crate) fn shard(&self, index: &str, id: u32) -> Option<&'a ShardTable> {
        self.table.shard(index, id)
    }
    /// The shard's primary when it is active.
    pub(crate) fn active_primary(&self, index: &str, id: u32) -> Option<&'a ShardCopy> {
        self.shard(index, id)?.primary().filter(|p| p.active())
    }
    /// `numberOfOwningShards`: copies on the node that are not relocating away, relocation
    /// targets moving to it included.
    pub(crate) fn owning(&self, node: &str, index: Option<&str>) -> usize {
        self.on_node(node).filter(|(i, c)| c.state != ShardState::Relocating && index.is_none_or(|x| x == *i)).count()
    }
    /// The copies on the node, with the relocation targets moving to it (`RoutingNode`).
    pub(crate) fn on_node<'n>(&'n self, node: &'n str) -> impl Iterator<Item = (&'a str, ShardCopy)> + 'n {
        self.table.indices.iter().flat_map(move |(name, ir)| {
            ir.shards.iter().flat_map(move |st| {
                st.copies_and_targets()
                    .into_iter()
                    .filter(move |c| c.on(node))
                    .map(move |c| (name.as_str(), c.into_owned()))
            })
        })
    }
    /// Primaries initializing from a store on the node.
    pub(crate) fn initial_primaries_incoming(&self, node: &str) -> usize {
        self.table
            .copies_on(node)
            .filter(|(_, _, c)| {
                c.primary && c.state == ShardState::Initializing && c.recovery_source != Some(RecoverySource::Peer)
            })
            .count()
    }
    /// Peer recoveries into the node (relocation targets included); `initial`: replicas of
    /// newly created indices only.
    pub(crate) fn incoming(&self, node: &str, initial: bool) -> usize {
        self.on_node(node).filter(|(_, c)| is_peer_recovery(c) && index_created(c) == initial).count()
    }
    /// Peer recoveries out of the node (from the primaries it holds).
    pub(crate) fn outgoing(&self, node: &str, initial: bool) -> usize {
        self.table
            .indices
            .values()
            .flat_map(|ir| ir.shards.iter())
            .filter(|st| st.primary().is_some_and(|p| p.active() && p.on(node)))
            .flat_map(|st| st.copies_and_targets())
            .filter(|c| is_peer_recovery(c) && index_created(c) == initial)
            .count()
    }
}

fn is_peer_recovery(c: &ShardCopy) -> bool {
    (!c.primary || c.is_relocation_target())
        && c.state == ShardState::Initializing
        && c.recovery_source == Some(RecoverySource::Peer)
}

/// `unassignedReasonIndexCreated`.
pub(crate) fn index_created(c: &ShardCopy) -> bool {
    c.unassigned.as_ref().is_some_and(|u| u.reason == "INDEX_CREATED")
}

/// `MaxRetryAllocationDecider`.
pub(crate) fn max_retry(c: &Ctx, sh: ShardRef) -> Decision {
    const NAME: &str = "max_retry";
    match &sh.copy.unassigned {
        Some(u) if u.failed_attempts > 0 => {
            let max = c.index_md(sh.index).map_or(5, |m| IndexAlloc(m).max_retries());
            if i64::from(u.failed_attempts) >= max {
                d(NAME, Kind::No, format!("shard has exceeded the maximum number of retries [{max}] on failed allocation attempts - manually call [/_cluster/reroute?retry_failed=true] to retry, [{}]", unassigned_summary(u)))
            } else {
                d(
                    NAME,
                    Kind::Yes,
                    format!(
                        "shard has failed allocating [{}] times but [{max}] retries are allowed",
                        u.failed_attempts
                    ),
                )
            }
        }
        _ => d(NAME, Kind::Yes, "shard has no previous failures"),
    }
}

/// `ReplicaAfterPrimaryActiveAllocationDecider`.
pub(crate) fn replica_after_primary_active(c: &Ctx, sh: ShardRef) -> Decision {
    const NAME: &str = "replica_after_primary_active";
    if sh.copy.primary {
        d(NAME, Kind::Yes, "shard is primary and can be allocated")
    } else if c.active_primary(sh.index, sh.id).is_none() {
        d(NAME, Kind::No, "primary shard for this replica is not yet active")
    } else {
        d(NAME, Kind::Yes, "primary shard for this replica is already active")
    }
}

/// `EnableAllocationDecider.canAllocate`: the index setting overrides the cluster one.
pub(crate) fn enable(c: &Ctx, sh: ShardRef) -> Decision {
    const NAME: &str = "enable";
    let index = c.index_md(sh.index).and_then(|m| IndexAlloc(m).enable());
    let (e, source) = match index {
        Some(e) => (e, "index setting [index.routing.allocation.enable"),
        None => (c.s.enable, "cluster setting [cluster.routing.allocation.enable"),
    };
    let setting = format!("{source}={}]", e.name());
    match e {
        Enable::All => d(NAME, Kind::Yes, "all allocations are allowed"),
        Enable::None => d(NAME, Kind::No, format!("no allocations are allowed due to {setting}")),
        Enable::NewPrimaries => {
            if sh.copy.primary && !sh.copy.active() && sh.copy.recovery_source != Some(RecoverySource::ExistingStore) {
                d(NAME, Kind::Yes, "new primary allocations are allowed")
            } else {
                d(NAME, Kind::No, format!("non-new primary allocations are forbidden due to {setting}"))
            }
        }
        Enable::Primaries => {
            if sh.copy.primary {
                d(NAME, Kind::Yes, "primary allocations are allowed")
            } else {
                d(NAME, Kind::No, format!("replica allocations are forbidden due to {setting}"))
            }
        }
    }
}

/// `FilterAllocationDecider` (the same answer for allocate and remain): cluster filters first.
pub(crate) fn filter(c: &Ctx, sh: ShardRef, node: &AllocNode) -> Decision {
    const NAME: &str = "filter";
    if let Some(f) = c.s.require.as_ref().filter(|f| !f.matches(node)) {
        return d(
            NAME,
            Kind::No,
            format!("node does not match cluster setting [cluster.routing.allocation.require] filters [{f}]"),
        );
    }
    if let Some(f) = c.s.include.as_ref().filter(|f| !f.matches(node)) {
        return d(
            NAME,
            Kind::No,
            format!("node does not cluster setting [cluster.routing.allocation.include] filters [{f}]"),
        );
    }
    if let Some(f) = c.s.exclude.as_ref().filter(|f| f.matches(node)) {
        return d(
            NAME,
            Kind::No,
            format!("node matches cluster setting [cluster.routing.allocation.exclude] filters [{f}]"),
        );
    }
    if let Some(m) = c.index_md(sh.index) {
        let [require, include, exclude] = IndexAlloc(m).filters();
        if let Some(f) = require.filter(|f| !f.matches(node)) {
            return d(
                NAME,
                Kind::No,
                format!("node does not match index setting [index.routing.allocation.require] filters [{f}]"),
            );
        }
        if let Some(f) = include.filter(|f| !f.matches(node)) {
            return d(
                NAME,
                Kind::No,
                format!("node does not match index setting [index.routing.allocation.include] filters [{f}]"),
            );
        }
        if let Some(f) = exclude.filter(|f| f.matches(node)) {
            return d(
                NAME,
                Kind::No,
                format!("node matches index setting [index.routing.allocation.exclude.] filters [{f}]"),
            );
        }
    }
    d(NAME, Kind::Yes, "node passes include/exclude/require filters")
}

/// `SameShardAllocationDecider`: never two copies of a shard on one node (or host).
pub(crate) fn same_shard(c: &Ctx, sh: ShardRef, node: &AllocNode) -> Decision {
    const NAME: &str = "same_shard";
    let Some(st) = c.shard(sh.index, sh.id) else {
        return d(NAME, Kind::Yes, "this node does not hold a copy of this shard");
    };
    let all = st.copies_and_targets();
    let assigned: Vec<&ShardCopy> = all.iter().map(|x| x.as_ref()).filter(|x| x.node.is_some()).collect();
    for a in &assigned {
        if a.on(&node.id) {
            let same = a.allocation_id.is_some() && a.allocation_id == sh.copy.allocation_id && a.node == sh.copy.node;
            return if same {
                d(
                    NAME,
                    Kind::No,
                    format!(
                        "this shard is already allocated to this node [{}]",
                        shard_summary(sh.index, sh.id, sh.copy)
                    ),
                )
            } else {
                d(
                    NAME,
                    Kind::No,
                    format!(
                        "a copy of this shard is already allocated to this node [{}]",
                        shard_summary(sh.index, sh.id, a)
                    ),
                )
            };
        }
    }
    if !c.s.same_host {
        return d(NAME, Kind::Yes, "this node does not hold a copy of this shard");
    }
    for other in c.nodes.iter().filter(|o| !o.host.is_empty() && o.host == node.host) {
        if assigned.iter().any(|a| a.on(&other.id)) {
            return d(NAME, Kind::No, format!("a copy of this shard is already allocated to host address [{}], on node [{}], and [cluster.routing.allocation.same_shard.host] is [true] which forbids more than one node on this host from holding a copy of this shard", node.host, node.id));
        }
    }
    d(NAME, Kind::Yes, "none of the nodes on this host hold a copy of this shard")
}
