//! `_cat/cluster_manager` (and its deprecated name `_cat/master`): the elected cluster manager
//! as the applied cluster state lists it.

use crate::error::OsResult;
use crate::http::cat::Table;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn table(node: &Node) -> Table {
    let mut t = Table::with_columns(&[
        ("id", "desc:node id"),
        ("host", "alias:h;desc:host name"),
        ("ip", "desc:ip address "),
        ("node", "alias:n;desc:node name"),
    ]);
    let cs = &node.cluster;
    let st = cs.state();
    // The manager the coordination elected; a node without coordination manages itself.
    let manager = match cs.coordination() {
        Some(c) => c.cluster_manager,
        None => Some(cs.node.node_id.clone()),
    };
    let row = match manager.as_deref().and_then(|id| st.node(id)) {
        Some(m) => {
            let host = m.transport_address.rsplit_once(':').map_or(m.transport_address.as_str(), |(h, _)| h);
            vec![m.node_id.clone().into(), host.into(), host.into(), m.name.clone().into()]
        }
        // None elected yet: OpenSearch prints `-` cells.
        None => vec!["-".into(), "-".into(), "-".into(), "-".into()],
    };
    t.rows.push(row);
    t
}

fn cluster_manager(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    table(node).respond(req)
}

fn master(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    Ok(table(node).respond(req)?.warn("[GET /_cat/master] is deprecated! Use [GET /_cat/cluster_manager] instead."))
}

const P: &[&str] = &["format", "h", "help", "s", "v", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    r.add(&[Method::Get], "/_cat/cluster_manager", "cat:cluster_manager", Pool::Management, P, cluster_manager);
    r.add(&[Method::Get], "/_cat/master", "cat:master", Pool::Management, P, master);
}
