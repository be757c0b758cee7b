//! `_cat/allocation[/{nodes}]`: shard copies per node from the routing table, disk figures per
//! node as that node measures them (`cluster:monitor/nodes/stats[n]`, `fs` and the store of its
//! copies), and an `UNASSIGNED` row for the copies on no node. Nodes that do not answer are
//! left out, as OpenSearch leaves out failed nodes.

use std::collections::HashMap;

use serde_json::Value;

use super::{Cell, Table};
use crate::action::{node_stats, nodes_fanout};
use crate::cluster::coordination_view::MemberView;
use crate::cluster::routing_table::RoutingTable;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn columns() -> Table {
    Table::with_columns(&[
        ("shards", "alias:s;text-align:right;desc:number of shards on node"),
        ("disk.indices", "alias:di,diskIndices;text-align:right;desc:disk used by OpenSearch indices"),
        ("disk.used", "alias:du,diskUsed;text-align:right;desc:disk used (total, not just OpenSearch)"),
        ("disk.avail", "alias:da,diskAvail;text-align:right;desc:disk available"),
        ("disk.total", "alias:dt,diskTotal;text-align:right;desc:total capacity of all volumes"),
        ("disk.percent", "alias:dp,diskPercent;text-align:right;desc:percent disk used"),
        ("host", "alias:h;desc:host of node"),
        ("ip", "desc:ip of node"),
        ("node", "alias:n;desc:name of node"),
    ])
}

/// Copies per node id (`None`: unassigned).
pub fn copies_per_node(routing: &RoutingTable) -> HashMap<Option<String>, i64> {
    let mut out = HashMap::new();
    for (_, _, c) in routing.copies() {
        *out.entry(c.node.clone()).or_insert(0) += 1;
    }
    out
}

/// The table from the answering nodes (member and stats body, in order) and the copy counts.
pub fn table(answers: &[(MemberView, Value)], counts: &HashMap<Option<String>, i64>) -> Table {
    let mut t = columns();
    for (m, st) in answers {
        let fs = &st["fs"]["total"];
        let total = fs["total_in_bytes"].as_i64().unwrap_or(-1);
        let avail = fs["available_in_bytes"].as_i64().unwrap_or(-1);
        // As OpenSearch: an unknown total counts nothing used.
        let (mut used, mut percent) = (0i64, -1i64);
        if total > 0 {
            used = total - avail;
            if used >= 0 && avail >= 0 {
                percent = used * 100 / (used + avail).max(1);
            }
        }
        let host = nodes_fanout::host_of(m);
        t.rows.push(vec![
            Cell::Int(counts.get(&Some(m.node_id.clone())).copied().unwrap_or(0)),
            st["indices"]["store"]["size_in_bytes"].as_u64().map_or(Cell::Null, Cell::Bytes),
            if used < 0 { Cell::Null } else { Cell::Bytes(used as u64) },
            if avail < 0 { Cell::Null } else { Cell::Bytes(avail as u64) },
            if total < 0 { Cell::Null } else { Cell::Bytes(total as u64) },
            if percent < 0 { Cell::Null } else { Cell::Int(percent) },
            host.into(),
            host.into(),
            m.name.clone().into(),
        ]);
    }
    if let Some(n) = counts.get(&None) {
        let mut row = vec![Cell::Int(*n)];
        row.extend(std::iter::repeat_n(Cell::Null, 7));
        row.push("UNASSIGNED".into());
        t.rows.push(row);
    }
    t
}

fn cat_allocation(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    let cs = &node.cluster;
    let filter = req.path_param("nodes").unwrap_or("data:true");
    let filters: Vec<&str> = filter.split(',').filter(|x| !x.is_empty()).collect();
    let counts = copies_per_node(&cs.state().routing);
    let stats_req = node_stats::parse_request("/_nodes/stats", Some("fs,indices"), Some("store"))?;
    let g = node_stats::gather(cs, &node.pools, &filters, &stats_req, timeout);
    table(&g.answers, &counts).respond(req)
}

const P: &[&str] =
    &["format", "h", "help", "s", "v", "local", "master_timeout", "cluster_manager_timeout", "bytes", "timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_cat/allocation", "/_cat/allocation/{nodes}"] {
        r.add(&[Method::Get], p, "cat:allocation", Pool::Management, P, cat_allocation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::routing_table::{IndexRouting, ShardCopy, ShardState, ShardTable};
    use serde_json::json;

    fn copy(primary: bool, node: Option<&str>) -> ShardCopy {
        ShardCopy {
            primary,
            state: if node.is_some() { ShardState::Started } else { ShardState::Unassigned },
            node: node.map(str::to_string),
            relocating_node: None,
            relocation_id: None,
            allocation_id: None,
            recovery_source: None,
            unassigned: None,
        }
    }

    #[test]
    fn shards_count_per_node_with_an_unassigned_row() {
        let mut rt = RoutingTable::default();
        let shards = vec![
            ShardTable {
                id: 0,
                primary_term: 1,
                in_sync: vec![],
                copies: vec![copy(true, Some("a")), copy(false, Some("b"))],
            },
            ShardTable {
                id: 1,
                primary_term: 1,
                in_sync: vec![],
                copies: vec![copy(true, Some("a")), copy(false, None)],
            },
        ];
        rt.indices.insert("i".into(), IndexRouting { uuid: "u".into(), shards });
        let counts = copies_per_node(&rt);
        let m = |id: &str| MemberView {
            node_id: id.into(),
            name: format!("n-{id}"),
            transport_address: "127.0.0.1:9300".into(),
            ..Default::default()
        };
        let st = json!({"fs": {"total": {"total_in_bytes": 1000, "available_in_bytes": 600}}, "indices": {"store": {"size_in_bytes": 12}}});
        let t = table(&[(m("a"), st.clone()), (m("b"), json!({}))], &counts);
        assert_eq!(t.rows.len(), 3);
        assert_eq!(
            t.rows[0][..6],
            [Cell::Int(2), Cell::Bytes(12), Cell::Bytes(400), Cell::Bytes(600), Cell::Bytes(1000), Cell::Int(40)]
        );
        assert_eq!(t.rows[0][8], Cell::Str("n-a".into()));
        // Figures a node did not give stay empty; its copies still count.
        assert_eq!(t.rows[1][..6], [Cell::Int(1), Cell::Null, Cell::Bytes(0), Cell::Null, Cell::Null, Cell::Null]);
        assert_eq!(t.rows[2][0], Cell::Int(1));
        assert_eq!(t.rows[2][8], Cell::Str("UNASSIGNED".into()));
        assert_eq!(t.rows[2][1], Cell::Null);
    }
}
