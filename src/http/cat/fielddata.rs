//! `_cat/fielddata[/{fields}]` (`RestFielddataAction`): the fielddata each node holds in memory,
//! one row per node and field. Fathom keeps no fielddata cache: a `text` field with
//! `fielddata: true` is uninverted from its postings for the request that needs it and nothing
//! stays in memory afterwards, so no node holds any and the table has no row.

use super::Table;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn table() -> Table {
    Table::with_columns(&[
        ("id", "desc:node id"),
        ("host", "alias:h;desc:host name"),
        ("ip", "desc:ip address"),
        ("node", "alias:n;desc:node name"),
        ("field", "alias:f;desc:field name"),
        ("size", "text-align:right;alias:s;desc:field data usage"),
    ])
}

fn cat_fielddata(_: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    req.bool_param("local", false)?;
    table().respond(req)
}

const P: &[&str] =
    &["format", "h", "help", "s", "v", "bytes", "fields", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_cat/fielddata", "/_cat/fielddata/{fields}"] {
        r.add(&[Method::Get], p, "cat:fielddata", Pool::Management, P, cat_fielddata);
    }
}
