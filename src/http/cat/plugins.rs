//! `_cat/plugins` (`RestPluginsAction`): one row per plugin of every node. Fathom loads no
//! plugins, so the table has its columns and no row.

use super::Table;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn table() -> Table {
    Table::with_columns(&[
        ("id", "default:false;desc:unique node id"),
        ("name", "alias:n;desc:node name"),
        ("component", "alias:c;desc:component"),
        ("version", "alias:v;desc:component version"),
        ("description", "alias:d;default:false;desc:plugin details"),
    ])
}

fn cat_plugins(_: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    req.bool_param("local", false)?;
    table().respond(req)
}

const P: &[&str] = &["format", "h", "help", "s", "v", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the route.
pub fn register(r: &mut Router) {
    r.add(&[Method::Get], "/_cat/plugins", "cat:plugins", Pool::Management, P, cat_plugins);
}
