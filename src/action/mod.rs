//! action/: OpenSearch semantics as typed requests and responses, on top of `cluster/`.
//! Synchronous: the HTTP layer runs these on the node's named thread pools.
//!
//! | file | holds |
//! |---|---|
//! | `documents.rs` | index, create, get, delete; write targets (aliases, auto-create) |
//! | `update.rs` | `_update`: doc merge, scripts, upserts, noop detection, retries |
//! | `script_glue.rs` | the update action's view of scripts |
//! | `bulk.rs` | `_bulk` |
//! | `analyze.rs` | `_analyze` with the index's analyzers and the field's analyzer |
//! | `indices.rs` | create/delete/get/open/close, refresh/flush/forcemerge, mappings, settings |
//! | `indices_broadcast.rs` | refresh/flush/forcemerge/cache clear on every copy, across nodes |
//! | `templates.rs` | applying templates at index creation |
//! | `cluster_info.rs` | `GET /`, `_cluster/health`, `_cluster/state` |
//! | `source_filter.rs` | `_source` includes/excludes |
//! | `aliases.rs` | `_alias`, `_aliases` actions |
//! | `resolve_index.rs` | `_resolve/index/{name}` |
//! | `template_api.rs` | `_template`, `_index_template`, `_component_template`, simulate |
//! | `field_caps.rs` | `_field_caps`, `_mapping/field` |
//! | `field_defaults.rs` | `include_defaults` of `_mapping/field` |
//! | `cat_indices.rs` | the rows of `_cat/indices` |
//! | `explain.rs` | `_explain/{id}`: one document's score explained |
//! | `validate_query.rs` | `_validate/query` |
//! | `cluster_settings.rs` | `_cluster/settings`: persistent and transient cluster settings |
//! | `decommission.rs` | `_cluster/decommission/awareness`: register, status, recommission |
//! | `cluster_stats.rs` | `_cluster/stats`: the nodes' figures summed |
//! | `voting_config.rs` | adding voting config exclusions (and waiting for them), clearing them |
//! | `nodes_fanout.rs` | node filters and node-level requests sent to every selected node |
//! | `nodes_info.rs`, `node_stats.rs` | `_nodes` info and `_nodes/stats`, each node answering for itself |
//! | `os_probe.rs` | machine and process figures from `/proc` |
//! | `shard_stats.rs` | per-copy figures measured by the node holding the copy |
//! | `search/` | `_search`, `_count`, `_msearch`: query DSL, query-then-fetch |
//! | `weighted_routing.rs` | `_cluster/routing/awareness/{attribute}/weights`: search traffic per awareness value |

pub mod aliases;
pub mod allocation_explain;
pub mod analyze;
pub mod backpressure;
pub mod bulk;
pub mod cat_indices;
pub mod cluster_info;
pub mod cluster_reroute;
pub mod cluster_settings;
pub mod cluster_stats;
pub mod cluster_stats_mappings;
pub mod common_stats;
pub mod decommission;
pub mod deferred;
pub mod documents;
pub mod explain;
pub mod field_caps;
pub mod field_defaults;
pub mod hot_threads;
pub mod index_segments;
pub mod index_stats;
pub mod indices;
pub mod indices_broadcast;
pub mod ingest;
pub mod node_stats;
pub mod node_stats_request;
pub mod node_stats_sections;
pub mod nodes_fanout;
pub mod nodes_info;
pub mod nodes_usage;
pub mod os_probe;
pub mod pending_tasks;
pub mod recovery;
pub mod reindex;
pub mod resolve_index;
pub mod script_glue;
pub mod search;
pub mod search_shards;
#[cfg(feature = "server")]
pub mod security;
pub mod shard_stats;
pub mod source_filter;
pub mod task_results;
pub mod tasks;
pub mod template_api;
pub mod templates;
pub mod thread_probe;
pub mod update;
pub mod validate_query;
pub mod voting_config;
pub mod weighted_routing;
