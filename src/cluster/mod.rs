//! cluster/: what the cluster knows and where documents live.
//!
//! | file | holds |
//! |---|---|
//! | `metadata.rs` | index metadata (settings, mapping, aliases, state), templates, cluster settings |
//! | `cluster_settings.rs` | cluster settings: the registry, checks, node < persistent < transient |
//! | `settings.rs` | index settings: flattening, validation, printing |
//! | `state_file.rs` | the metadata state file on disk (`format/metadata-state.md`) |
//! | `index_service.rs` | an open index: metadata, mapping, analysis, the shard copies held here |
//! | `indices.rs` | the node's open indices and the metadata updates |
//! | `resolve.rs` | index expressions → concrete indices |
//! | `remote.rs` | calls to other nodes as the action layer makes them |
//! | `state.rs` | the cluster state (members, metadata, routing) and where it is published |
//! | `applier.rs` | applying a cluster state here: index services, copies opened and closed |
//! | `replication.rs` | a primary's replication group: operations sent to replicas, global checkpoint |
//! | `peer_recovery/` | a new replica copying files and operations from its primary |
//! | `routing_table.rs` | where every shard copy lives, primary terms, in-sync copies |
//! | `reroute_api.rs` | `_cluster/reroute`: commands on the table, published (or a dry run) |
//! | `allocation/` | where copies should live: reroute, deciders, shard events, explain, health from the table |
//! | `routing.rs` | `murmur3(_routing or _id)` → shard, as OpenSearch computes it |
//! | `health.rs` | cluster health from allocation |
//! | `coordination/` | the Raft that elects the cluster manager and agrees on the cluster state |
//! | `operations_metadata.rs` | voting exclusions, weighted routing, decommission in the metadata |
//! | `voting_exclusions.rs` | which voting exclusions a request adds (limit included), their publication |
//! | `node_state.rs` | the node's persistent id (`format/node-state.md`) |
//! | `coordination_view.rs` | what the APIs show of the coordination, as plain values |
//! | `decommission.rs` | decommission preconditions and the next step of its state machine |
//! | `corruption.rs` | the marker that keeps a corrupted shard copy failed |
//! | `system_indices.rs` | which indices are system indices |
//!
//! One node is a one-voter cluster: it assigns every primary to itself and cannot assign
//! replicas, so an index with replicas is yellow.

pub mod allocation;
pub mod applier;
pub mod blocks;
pub mod breakers;
pub mod cluster_settings;
#[cfg(feature = "server")]
pub mod coordination;
pub mod coordination_view;
pub(crate) mod corruption;
pub mod decommission;
pub mod fielddata_cache;
pub(crate) mod health;
pub(crate) mod index_service;
pub(crate) mod indices;
pub mod ingest_stats;
pub mod logging;
pub(crate) mod mapping_limits;
pub mod metadata;
pub mod node_counters;
pub mod node_state;
pub mod operations_metadata;
pub mod peer_recovery;
pub mod pending;
pub(crate) mod refresh_listeners;
pub mod remote;
pub mod replication;
pub mod request_cache;
pub mod reroute_api;
pub(crate) mod resolve;
pub mod routing;
pub mod routing_table;
pub(crate) mod settings;
pub mod state;
pub mod state_file;
pub(crate) mod system_indices;
pub mod voting_exclusions;

pub use indices::{ClusterService, CreateIndex, IndexService, IndexShard, NodeIdentity};
pub use metadata::{AliasMetadata, IndexMetadata, IndexState, Metadata};
