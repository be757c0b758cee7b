//! `GET [/{index}]/_stats[/{metric}]`, `GET [/{index}]/_segments`, `_cat/segments` and
//! `_cat/count`.

use super::{index_expr, indices_options};
use crate::action::common_stats::{self, Detail};
use crate::action::index_stats::{self, Level, StatsRequest};
use crate::action::nodes_fanout;
use crate::cluster::resolve::{ExpandWildcards, IndicesOptions};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// A comma-separated list parameter.
fn list(req: &RestRequest, name: &str) -> Option<Vec<String>> {
    req.param(name).map(|v| v.split(',').filter(|x| !x.is_empty()).map(str::to_string).collect())
}

fn stats(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    // `IndicesStatsRequest`'s default: open indices, closed ones forbidden.
    let default = IndicesOptions {
        ignore_unavailable: false,
        allow_no_indices: true,
        expand: ExpandWildcards { open: true, closed: false, hidden: false },
        forbid_closed: true,
    };
    let mut options = indices_options(req, default)?;
    options.forbid_closed = req.bool_param("forbid_closed_indices", true)?;
    let metrics = common_stats::parse_metrics(&req.path, req.path_param("metric"))?;
    let r = StatsRequest {
        expr: index_expr(req),
        options,
        metrics,
        level: Level::parse(req.param("level"))?,
        detail: Detail {
            groups: list(req, "groups"),
            file_sizes: req.bool_param("include_segment_file_sizes", false)?,
            human: req.bool_param("human", false)?,
            fielddata_fields: list(req, "fielddata_fields").or_else(|| list(req, "fields")),
        },
        unloaded_segments: req.bool_param("include_unloaded_segments", false)?,
        timeout: nodes_fanout::DEFAULT_TIMEOUT,
    };
    // `fields`, `fielddata_fields`, `completion_fields`: OpenSearch lists a named field only
    // when it holds field data or completion memory; Fathom has no completion fields, so
    // `completion_fields` selects nothing.
    Ok(RestResponse::ok(index_stats::stats(&node.cluster, &r)?))
}

const STATS_P: &[&str] = &[
    "completion_fields",
    "fielddata_fields",
    "fields",
    "groups",
    "level",
    "include_segment_file_sizes",
    "include_unloaded_segments",
    "forbid_closed_indices",
    "expand_wildcards",
    "ignore_unavailable",
    "allow_no_indices",
];

fn segments(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let default = IndicesOptions {
        ignore_unavailable: false,
        allow_no_indices: true,
        expand: ExpandWildcards { open: true, closed: false, hidden: false },
        forbid_closed: true,
    };
    let options = indices_options(req, default)?;
    let version = super::pit::SEGMENT_VERSION;
    Ok(RestResponse::ok(crate::action::index_segments::segments(&node.cluster, &index_expr(req), options, version)?))
}

const SEGMENTS_P: &[&str] = &["expand_wildcards", "ignore_unavailable", "allow_no_indices"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_segments", "/{index}/_segments"] {
        r.add(&[Method::Get], p, "indices:monitor/segments", Pool::Management, SEGMENTS_P, segments);
    }
    for p in ["/_stats", "/_stats/{metric}", "/{index}/_stats", "/{index}/_stats/{metric}"] {
        r.add(&[Method::Get], p, "indices:monitor/stats", Pool::Management, STATS_P, stats);
    }
}
