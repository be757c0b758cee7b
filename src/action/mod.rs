//! action/: OpenSearch semantics as typed requests and responses, on top of `cluster/`.
//! Synchronous: the HTTP layer runs these on the node's named thread pools.
//!
//! | file | holds |
//! |---|---|
//! | `documents.rs` | index, create, get, delete; write targets (aliases, auto-create) |
//! | `update.rs` | `_update`: doc merge, scripts, upserts, noop detection, retries |
//! | `script_glue.rs` | the update action's view of scripts |
//! | `bulk.rs` | `_bulk` |
//! | `indices.rs` | create/delete/get/open/close, refresh/flush/forcemerge, mappings, settings |
//! | `templates.rs` | applying templates at index creation |
//! | `cluster_info.rs` | `GET /`, `_cluster/health`, `_cluster/state` |
//! | `source_filter.rs` | `_source` includes/excludes |
//! | `search/` | `_search`, `_count`, `_msearch`: query DSL, query-then-fetch |

pub mod bulk;
pub mod cluster_info;
pub mod documents;
pub mod indices;
pub mod script_glue;
pub mod search;
pub mod source_filter;
pub mod templates;
pub mod update;
