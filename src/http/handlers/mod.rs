//! Handlers: parse the request into typed arguments, call `action::`, render.
//!
//! | file | endpoints |
//! |---|---|
//! | `root.rs` | `GET/HEAD /` |
//! | `indices.rs` | index create/delete/get/exists/open/close, refresh/flush/forcemerge, `_mapping`, `_settings` |
//! | `documents.rs` | `_doc`, `_create`, `_source`, `_update`, `_bulk`, `_mget` |
//! | `analyze.rs` | `_analyze` |
//! | `cluster.rs` | `_cluster/health`, `_cluster/state` |
//! | `aliases.rs` | `_alias`, `_aliases` |
//! | `templates.rs` | `_template`, `_index_template`, `_component_template` |
//! | `field_caps.rs` | `_field_caps`, `_mapping/field` |
//! | `cat.rs` | `_cat`, `_cat/indices`, `_cat/templates` |
//! | `cat_cluster.rs` | `_cat/cluster_manager`, `_cat/master` |
//! | `test_faults.rs` | the fault-injection hook of multi-process tests (off unless a node setting turns it on) |
//! | `../cat/{nodes,nodeattrs,allocation,shards}.rs` | `_cat/nodes`, `_cat/nodeattrs`, `_cat/allocation`, `_cat/shards` |
//! | `nodes.rs` | `_nodes` info and `_nodes/stats` |
//! | `cluster_settings.rs` | `_cluster/settings` |
//! | `cluster_stats.rs` | `_cluster/stats` |
//! | `decommission.rs` | `_cluster/decommission/awareness` |
//! | `voting_config.rs` | `_cluster/voting_config_exclusions` |
//! | `search.rs` | `_search`, `_count`, `_msearch` |
//! | `explain.rs` | `_explain/{id}` |
//! | `pit.rs` | `_search/point_in_time`, `_search/scroll`, `_cat/pit_segments` |
//! | `security_api.rs` | `_plugins/_security/api/{internalusers,roles,rolesmapping,actiongroups,tenants,securityconfig}`, `health` |
//! | `security_authinfo.rs` | `_plugins/_security/authinfo`, `_plugins/_security/whoami` |
//! | `status_page.rs` | `GET /_fathom/`, the status page |
//! | `tasks.rs` | `_tasks` list, get, cancel; `_cat/tasks` |
//! | `ingest.rs` | `_ingest/pipeline`, `_ingest/pipeline/_simulate` |
//! | `reindex.rs` | `_reindex`, `_update_by_query`, `_delete_by_query`, their `_rethrottle` |
//! | `weighted_routing.rs` | `_cluster/routing/awareness/{attribute}/weights` |

pub mod aliases;
pub mod analyze;
pub mod cat;
pub mod cat_cluster;
pub mod cluster;
pub mod cluster_reroute;
pub mod cluster_settings;
pub mod cluster_stats;
pub mod decommission;
pub mod documents;
pub mod explain;
pub mod field_caps;
pub mod index_stats;
pub mod indices;
pub mod ingest;
pub mod nodes;
pub mod nodes_monitor;
pub mod pit;
pub mod recovery;
pub mod reindex;
pub mod root;
pub mod search;
pub mod security_api;
pub mod security_authinfo;
pub mod status_page;
pub mod tasks;
pub mod templates;
pub mod test_faults;
pub mod voting_config;
pub mod weighted_routing;

use super::request::RestRequest;
use super::router::Router;
use crate::cluster::resolve::{ExpandWildcards, IndicesOptions};
use crate::error::OsResult;

/// Every route of the server.
pub fn router() -> Router {
    let mut r = Router::default();
    root::register(&mut r);
    security_authinfo::register(&mut r);
    analyze::register(&mut r);
    indices::register(&mut r);
    index_stats::register(&mut r);
    documents::register(&mut r);
    cluster::register(&mut r);
    cluster_reroute::register(&mut r);
    cluster_settings::register(&mut r);
    cluster_stats::register(&mut r);
    decommission::register(&mut r);
    nodes::register(&mut r);
    aliases::register(&mut r);
    templates::register(&mut r);
    field_caps::register(&mut r);
    cat::register(&mut r);
    cat_cluster::register(&mut r);
    test_faults::register(&mut r);
    security_api::register(&mut r);
    crate::http::cat::nodes::register(&mut r);
    crate::http::cat::aliases::register(&mut r);
    crate::http::cat::health::register(&mut r);
    crate::http::cat::plugins::register(&mut r);
    crate::http::cat::fielddata::register(&mut r);
    crate::http::cat::pending_tasks::register(&mut r);
    crate::http::cat::thread_pool::register(&mut r);
    nodes_monitor::register(&mut r);
    crate::http::cat::nodeattrs::register(&mut r);
    crate::http::cat::allocation::register(&mut r);
    crate::http::cat::shards::register(&mut r);
    crate::http::cat::segments::register(&mut r);
    search::register(&mut r);
    status_page::register(&mut r);
    explain::register(&mut r);
    pit::register(&mut r);
    recovery::register(&mut r);
    reindex::register(&mut r);
    voting_config::register(&mut r);
    weighted_routing::register(&mut r);
    tasks::register(&mut r);
    ingest::register(&mut r);
    r
}

/// The indices options of a request (`ignore_unavailable`, `allow_no_indices`,
/// `expand_wildcards`) over the endpoint's defaults.
pub fn indices_options(req: &RestRequest, default: IndicesOptions) -> OsResult<IndicesOptions> {
    let mut o = default;
    o.ignore_unavailable = req.bool_param("ignore_unavailable", o.ignore_unavailable)?;
    o.allow_no_indices = req.bool_param("allow_no_indices", o.allow_no_indices)?;
    if let Some(e) = req.param("expand_wildcards") {
        o.expand = ExpandWildcards::parse(e)?;
    }
    Ok(o)
}

/// The index expression of the path (`{index}`), `_all` when absent.
pub fn index_expr(req: &RestRequest) -> String {
    req.path_param("index").unwrap_or("_all").to_string()
}
