//! `_cat/segments` (RestSegmentsAction: one row per segment of each copy) and `_cat/count`
//! (RestCountAction: the document count of the selected indices, with the time).

use super::{Cell, Table};
use crate::action::search::SearchRequest;
use crate::action::{index_segments, nodes_fanout};
use crate::cluster::resolve::{ExpandWildcards, IndicesOptions};
use crate::error::OsResult;
use crate::http::handlers::pit::{PIT_SEGMENT_COLUMNS, SEGMENT_VERSION};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

fn cat_segments(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let cs = &node.cluster;
    let expr = req.path_param("index").unwrap_or("_all");
    let opts = IndicesOptions {
        ignore_unavailable: false,
        allow_no_indices: true,
        expand: ExpandWildcards { open: true, closed: false, hidden: false },
        forbid_closed: true,
    };
    let (_, copies) = index_segments::segment_copies(cs, expr, opts, nodes_fanout::DEFAULT_TIMEOUT)?;
    let members = nodes_fanout::members(cs);
    let mut t = Table::with_columns(PIT_SEGMENT_COLUMNS);
    for c in &copies {
        let Some(s) = &c.stats else { continue };
        let m = members.iter().find(|m| Some(&m.node_id) == c.node.as_ref());
        let ip = m.map_or(Cell::Null, |m| nodes_fanout::host_of(m).into());
        for e in &s.segment_list {
            t.rows.push(vec![
                Cell::from(c.index.as_str()),
                Cell::Int(i64::from(c.shard)),
                Cell::from(if c.primary { "p" } else { "r" }),
                ip.clone(),
                c.node.clone().map_or(Cell::Null, Cell::from),
                Cell::from(e.name.as_str()),
                Cell::Int(e.generation as i64),
                Cell::Int(e.docs as i64),
                Cell::Int(e.deleted as i64),
                Cell::Bytes(e.size_bytes),
                // Segment readers map their files: no per-segment heap.
                Cell::Bytes(0),
                Cell::from(e.committed.to_string()),
                Cell::from("true"),
                Cell::from(SEGMENT_VERSION),
                Cell::from("false"),
            ]);
        }
    }
    t.respond(req)
}

fn cat_count(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let expr = req.path_param("index").unwrap_or("_all");
    let r = SearchRequest::from_body(serde_json::json!({}))?;
    let v = crate::action::search::count(&node.cluster, expr, IndicesOptions::lenient_expand_open(), &r)?;
    let now = crate::action::os_probe::now_millis();
    let mut t = Table::with_columns(&[
        ("epoch", "alias:t,time;desc:seconds since 1970-01-01 00:00:00"),
        ("timestamp", "alias:ts,hms,hhmmss;desc:time in HH:MM:SS"),
        ("count", "alias:dc,docs.count,docsCount;desc:the document count"),
    ]);
    let secs = now.div_euclid(1000);
    let day = secs.rem_euclid(86_400);
    t.rows.push(vec![
        Cell::Int(secs),
        Cell::Str(format!("{:02}:{:02}:{:02}", day / 3600, day / 60 % 60, day % 60)),
        Cell::Int(v["count"].as_i64().unwrap_or(0)),
    ]);
    t.respond(req)
}

const P: &[&str] = &["format", "h", "help", "s", "v", "local", "master_timeout", "cluster_manager_timeout", "bytes"];
const COUNT_P: &[&str] = &["format", "h", "help", "s", "v", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_cat/segments", "/_cat/segments/{index}"] {
        r.add(&[Method::Get], p, "cat:segments", Pool::Management, P, cat_segments);
    }
    for p in ["/_cat/count", "/_cat/count/{index}"] {
        r.add(&[Method::Get], p, "cat:count", Pool::Search, COUNT_P, cat_count);
    }
}
