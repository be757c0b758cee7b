//! `_cat/nodeattrs`: one row per attribute (`node.attr.*`) of every node of the cluster state;
//! the process id comes from each node (`cluster:monitor/nodes/info[n]`), empty for a node that
//! does not answer.

use super::{Cell, Table};
use crate::action::{nodes_fanout, nodes_info};
use crate::cluster::coordination_view::MemberView;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn columns() -> Table {
    Table::with_columns(&[
        ("node", "default:true;alias:name;desc:node name"),
        ("id", "default:false;alias:id,nodeId;desc:unique node id"),
        ("pid", "default:false;alias:p;desc:process id"),
        ("host", "alias:h;desc:host name"),
        ("ip", "alias:i;desc:ip address"),
        ("port", "default:false;alias:po;desc:bound transport port"),
        ("attr", "default:true;alias:attr.name;desc:attribute description"),
        ("value", "default:true;alias:attr.value;desc:attribute value"),
    ])
}

/// The rows of the members' attributes; `pid` gives a node's process id when it answered.
pub fn table(members: &[MemberView], full_id: bool, pid: &dyn Fn(&str) -> Option<i64>) -> Table {
    let mut t = columns();
    for m in members {
        let id: String = if full_id { m.node_id.clone() } else { m.node_id.chars().take(4).collect() };
        let host = nodes_fanout::host_of(m);
        for (k, v) in &m.attributes {
            t.rows.push(vec![
                m.name.clone().into(),
                id.clone().into(),
                pid(&m.node_id).map_or(Cell::Null, Cell::Int),
                host.into(),
                host.into(),
                nodes_fanout::port_of(m).map_or(Cell::Null, |p| Cell::Int(i64::from(p))),
                k.clone().into(),
                v.clone().into(),
            ]);
        }
    }
    t
}

fn cat_nodeattrs(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let full_id = req.bool_param("full_id", false)?;
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    let cs = &node.cluster;
    let members = nodes_fanout::members(cs);
    let settings = crate::http::handlers::nodes::settings_map(node);
    let infos = nodes_info::gather(
        cs,
        &node.pools,
        None,
        &["process".to_string()],
        timeout,
        &settings,
        node.max_content_length,
    );
    table(&members, full_id, &|id| infos.of(id).and_then(|i| i["process"]["id"].as_i64())).respond(req)
}

const P: &[&str] =
    &["format", "h", "help", "s", "v", "local", "master_timeout", "cluster_manager_timeout", "full_id", "timeout"];

/// Registers the route.
pub fn register(r: &mut Router) {
    r.add(&[Method::Get], "/_cat/nodeattrs", "cat:nodeattrs", Pool::Management, P, cat_nodeattrs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_attribute_of_every_node_is_a_row() {
        let m = |id: &str, attrs: &[(&str, &str)]| MemberView {
            node_id: id.into(),
            name: format!("n-{id}"),
            transport_address: "127.0.0.1:9301".into(),
            http_address: String::new(),
            roles: vec![],
            attributes: attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        let members = [m("aaaaaa", &[("zone", "a"), ("rack", "r1")]), m("bbbbbb", &[]), m("cccccc", &[("zone", "c")])];
        let t = table(&members, false, &|id| (id == "aaaaaa").then_some(7));
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0][0], Cell::Str("n-aaaaaa".into()));
        assert_eq!(t.rows[0][1], Cell::Str("aaaa".into()));
        assert_eq!(t.rows[0][2], Cell::Int(7));
        assert_eq!(t.rows[1][6], Cell::Str("rack".into()));
        assert_eq!(t.rows[2][2], Cell::Null);
        assert_eq!(t.rows[2][5], Cell::Int(9301));
        assert_eq!(t.rows[2][7], Cell::Str("c".into()));
        assert_eq!(table(&members, true, &|_| None).rows[2][1], Cell::Str("cccccc".into()));
    }
}
