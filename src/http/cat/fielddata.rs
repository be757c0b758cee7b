//! `_cat/fielddata[/{fields}]` (`RestFielddataAction`): the fielddata each node holds in memory
//! (text fields with `fielddata: true` uninverted per segment, see
//! `cluster::fielddata_cache`), one row per node and field, from each node's stats.

use super::{Cell, Table};
use crate::action::{node_stats, nodes_fanout};
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

fn cat_fielddata(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    req.bool_param("local", false)?;
    let cs = &node.cluster;
    let fields: Vec<String> = req
        .path_param("fields")
        .or(req.param("fields"))
        .unwrap_or("*")
        .split(',')
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect();
    let mut stats_req = node_stats::parse_request("/_nodes/stats", Some("indices"), Some("fielddata"))?;
    stats_req.fielddata_fields = Some(if fields.is_empty() { vec!["*".to_string()] } else { fields });
    let stats = node_stats::gather(cs, &node.pools, &[], &stats_req, nodes_fanout::DEFAULT_TIMEOUT);
    let mut t = table();
    for m in nodes_fanout::members(cs) {
        let Some(s) = stats.of(&m.node_id) else { continue };
        let Some(per_field) = s["indices"]["fielddata"]["fields"].as_object() else { continue };
        let host = nodes_fanout::host_of(&m);
        for (field, v) in per_field {
            t.rows.push(vec![
                m.node_id.clone().into(),
                host.into(),
                host.into(),
                m.name.clone().into(),
                field.clone().into(),
                Cell::Bytes(v["memory_size_in_bytes"].as_u64().unwrap_or(0)),
            ]);
        }
    }
    t.respond(req)
}

const P: &[&str] =
    &["format", "h", "help", "s", "v", "bytes", "fields", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_cat/fielddata", "/_cat/fielddata/{fields}"] {
        r.add(&[Method::Get], p, "cat:fielddata", Pool::Management, P, cat_fielddata);
    }
}
