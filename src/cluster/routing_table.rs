//! The routing table: where every copy of every shard lives, as the cluster manager decided and
//! the coordination published (OpenSearch's `RoutingTable` with `IndexShardRoutingTable` and
//! `ShardRouting`), plus each shard's primary term and in-sync copies (which OpenSearch keeps in
//! `IndexMetadata.primary_terms` / `in_sync_allocations`; here beside the copies they fence).
//!
//! It travels inside the published cluster state as JSON (serde); `allocation/` computes the
//! next table, the applier on each node opens and closes its copies from it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A copy's lifecycle (`ShardRoutingState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ShardState {
    Unassigned,
    Initializing,
    Started,
    Relocating,
}

impl ShardState {
    /// As `_cluster/state` and `_cat/shards` print it.
    pub fn name(self) -> &'static str {
        match self {
            ShardState::Unassigned => "UNASSIGNED",
            ShardState::Initializing => "INITIALIZING",
            ShardState::Started => "STARTED",
            ShardState::Relocating => "RELOCATING",
        }
    }
}

/// Where an initializing copy gets its data (`RecoverySource.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RecoverySource {
    /// A new primary: an empty store.
    EmptyStore,
    /// A primary over the files its node already holds.
    ExistingStore,
    /// A replica (or relocation target) copying from the primary.
    Peer,
}

impl RecoverySource {
    /// `EMPTY_STORE`, `EXISTING_STORE`, `PEER`.
    pub fn name(self) -> &'static str {
        match self {
            RecoverySource::EmptyStore => "EMPTY_STORE",
            RecoverySource::ExistingStore => "EXISTING_STORE",
            RecoverySource::Peer => "PEER",
        }
    }
}

/// Why a copy is unassigned (`UnassignedInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnassignedInfo {
    /// `INDEX_CREATED`, `CLUSTER_RECOVERED`, `INDEX_REOPENED`, `NODE_LEFT`, `REPLICA_ADDED`,
    /// `ALLOCATION_FAILED`, `PRIMARY_FAILED`, `REROUTE_CANCELLED`, `MANUAL_ALLOCATION`, ...
    pub reason: String,
    /// When it became unassigned (epoch millis).
    pub at_millis: i64,
    /// Waiting for `index.unassigned.node_left.delayed_timeout` before it is reassigned.
    #[serde(default)]
    pub delayed: bool,
    /// Failed allocations in a row (`index.allocation.max_retries` stops them).
    #[serde(default)]
    pub failed_attempts: u32,
    #[serde(default)]
    pub details: Option<String>,
    /// The node that held it last (a primary with in-sync data waits for that node).
    #[serde(default)]
    pub last_node: Option<String>,
    /// `no_attempt`, `deciders_no`, `no_valid_shard_copy`, `awaiting_info`, `delayed_allocation`.
    #[serde(default = "no_attempt")]
    pub allocation_status: String,
}

fn no_attempt() -> String {
    "no_attempt".into()
}

/// One copy of one shard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardCopy {
    pub primary: bool,
    pub state: ShardState,
    /// The node id it is assigned to (`None` when unassigned).
    #[serde(default)]
    pub node: Option<String>,
    /// While relocating: the node it moves to.
    #[serde(default)]
    pub relocating_node: Option<String>,
    /// While relocating: the allocation id of the copy it moves to (OpenSearch's
    /// `AllocationId.relocationId`). The target copy is not an entry of its own: as in
    /// OpenSearch's table, it is derived from the source ([`ShardCopy::relocation_target`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relocation_id: Option<String>,
    /// Unique per assignment (OpenSearch's `AllocationId.id`): what the in-sync set holds.
    #[serde(default)]
    pub allocation_id: Option<String>,
    /// While initializing: where the data comes from.
    #[serde(default)]
    pub recovery_source: Option<RecoverySource>,
    #[serde(default)]
    pub unassigned: Option<UnassignedInfo>,
}

impl ShardCopy {
    /// Whether it serves (started or relocating away).
    pub fn active(&self) -> bool {
        matches!(self.state, ShardState::Started | ShardState::Relocating)
    }
    /// Whether it is on `node` (a relocation source only; see [`ShardCopy::relocation_target`]).
    pub fn on(&self, node: &str) -> bool {
        self.node.as_deref() == Some(node)
    }
    /// The copy a relocating copy moves to (`ShardRouting.getTargetRelocatingShard`):
    /// initializing on `relocating_node` from a peer, with the relocation id as its allocation
    /// id and the source's node as its `relocating_node`.
    pub fn relocation_target(&self) -> Option<ShardCopy> {
        if self.state != ShardState::Relocating {
            return None;
        }
        Some(ShardCopy {
            primary: self.primary,
            state: ShardState::Initializing,
            node: self.relocating_node.clone(),
            relocating_node: self.node.clone(),
            allocation_id: self.relocation_id.clone(),
            relocation_id: self.allocation_id.clone(),
            recovery_source: Some(RecoverySource::Peer),
            unassigned: None,
        })
    }
    /// Whether it is the target of a relocation (`isRelocationTarget`).
    pub fn is_relocation_target(&self) -> bool {
        self.state == ShardState::Initializing && self.relocating_node.is_some()
    }
}

/// All copies of one shard, the primary first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardTable {
    pub id: u32,
    /// Raised each time a new primary is chosen; fences writes from an older primary.
    pub primary_term: u64,
    /// Allocation ids of the copies that hold every acknowledged operation.
    #[serde(default)]
    pub in_sync: Vec<String>,
    pub copies: Vec<ShardCopy>,
}

impl ShardTable {
    /// The primary copy.
    pub fn primary(&self) -> Option<&ShardCopy> {
        self.copies.iter().find(|c| c.primary)
    }
    /// The replica copies.
    pub fn replicas(&self) -> impl Iterator<Item = &ShardCopy> {
        self.copies.iter().filter(|c| !c.primary)
    }
    /// The copy on `node`, if any (relocation targets not included).
    pub fn copy_on(&self, node: &str) -> Option<&ShardCopy> {
        self.copies.iter().find(|c| c.on(node))
    }
    /// The copies with the targets of relocating copies (OpenSearch's `RoutingNodes` view).
    pub fn copies_and_targets(&self) -> Vec<std::borrow::Cow<'_, ShardCopy>> {
        let mut v: Vec<std::borrow::Cow<'_, ShardCopy>> = self.copies.iter().map(std::borrow::Cow::Borrowed).collect();
        v.extend(self.copies.iter().filter_map(|c| c.relocation_target()).map(std::borrow::Cow::Owned));
        v
    }
    /// The copy assigned to `node`: one held there, or a relocation target moving there.
    pub fn assigned_on(&self, node: &str) -> Option<std::borrow::Cow<'_, ShardCopy>> {
        if let Some(c) = self.copy_on(node) {
            return Some(std::borrow::Cow::Borrowed(c));
        }
        self.copies
            .iter()
            .find(|c| c.state == ShardState::Relocating && c.relocating_node.as_deref() == Some(node))
            .and_then(ShardCopy::relocation_target)
            .map(std::borrow::Cow::Owned)
    }
    /// Whether a copy or a relocation target has allocation id `aid`.
    pub fn has_allocation(&self, aid: &str) -> bool {
        self.copies.iter().any(|c| {
            (c.node.is_some() && c.allocation_id.as_deref() == Some(aid)) || c.relocation_id.as_deref() == Some(aid)
        })
    }
}

/// The shards of one index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexRouting {
    pub uuid: String,
    pub shards: Vec<ShardTable>,
}

/// Every open index's shards. Closed indices have none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutingTable {
    pub indices: BTreeMap<String, IndexRouting>,
}

impl RoutingTable {
    /// The table of one shard.
    pub fn shard(&self, index: &str, shard: u32) -> Option<&ShardTable> {
        self.indices.get(index)?.shards.iter().find(|s| s.id == shard)
    }
    /// Every copy with its index name and shard table.
    pub fn copies(&self) -> impl Iterator<Item = (&str, &ShardTable, &ShardCopy)> {
        self.indices.iter().flat_map(|(name, ir)| {
            ir.shards.iter().flat_map(move |st| st.copies.iter().map(move |c| (name.as_str(), st, c)))
        })
    }
    /// The copies assigned to `node`.
    pub fn copies_on<'a>(
        &'a self,
        node: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a ShardTable, &'a ShardCopy)> + 'a {
        self.copies().filter(move |(_, _, c)| c.on(node))
    }
}
