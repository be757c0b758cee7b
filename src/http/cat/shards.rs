//! `_cat/shards[/{index}]`: one row per shard copy of the routing table, with the figures the
//! node holding the copy measured (`indices:monitor/stats[n]`, one request per node). A copy
//! whose node does not answer keeps its row with empty figure cells.
//!
//! Statistics Fathom does not count (caches, indexing and search counters, ...) are empty cells,
//! as OpenSearch prints a copy without those stats.

use super::{Cell, Table};
use crate::action::nodes_fanout;
use crate::action::shard_stats::{self, ClusterCopies};
use crate::cluster::coordination_view::MemberView;
use crate::cluster::resolve::{resolve, ExpandWildcards, IndicesOptions};
use crate::cluster::routing_table::{RoutingTable, ShardState};
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// The columns after `recoverysource.type`, in OpenSearch 3.3's order (`name`, `aliases`, desc).
const STATS: &[(&str, &str, &str)] = &[
    ("completion.size", "cs,completionSize", "size of completion"),
    ("fielddata.memory_size", "fm,fielddataMemory", "used fielddata cache"),
    ("fielddata.evictions", "fe,fielddataEvictions", "fielddata evictions"),
    ("query_cache.memory_size", "qcm,queryCacheMemory", "used query cache"),
    ("query_cache.evictions", "qce,queryCacheEvictions", "query cache evictions"),
    ("flush.total", "ft,flushTotal", "number of flushes"),
    ("flush.total_time", "ftt,flushTotalTime", "time spent in flush"),
    ("get.current", "gc,getCurrent", "number of current get ops"),
    ("get.time", "gti,getTime", "time spent in get"),
    ("get.total", "gto,getTotal", "number of get ops"),
    ("get.exists_time", "geti,getExistsTime", "time spent in successful gets"),
    ("get.exists_total", "geto,getExistsTotal", "number of successful gets"),
    ("get.missing_time", "gmti,getMissingTime", "time spent in failed gets"),
    ("get.missing_total", "gmto,getMissingTotal", "number of failed gets"),
    ("indexing.delete_current", "idc,indexingDeleteCurrent", "number of current deletions"),
    ("indexing.delete_time", "idti,indexingDeleteTime", "time spent in deletions"),
    ("indexing.delete_total", "idto,indexingDeleteTotal", "number of delete ops"),
    ("indexing.index_current", "iic,indexingIndexCurrent", "number of current indexing ops"),
    ("indexing.index_time", "iiti,indexingIndexTime", "time spent in indexing"),
    ("indexing.index_total", "iito,indexingIndexTotal", "number of indexing ops"),
    ("indexing.index_failed", "iif,indexingIndexFailed", "number of failed indexing ops"),
    ("merges.current", "mc,mergesCurrent", "number of current merges"),
    ("merges.current_docs", "mcd,mergesCurrentDocs", "number of current merging docs"),
    ("merges.current_size", "mcs,mergesCurrentSize", "size of current merges"),
    ("merges.total", "mt,mergesTotal", "number of completed merge ops"),
    ("merges.total_docs", "mtd,mergesTotalDocs", "docs merged"),
    ("merges.total_size", "mts,mergesTotalSize", "size merged"),
    ("merges.total_time", "mtt,mergesTotalTime", "time spent in merges"),
    ("refresh.total", "rto,refreshTotal", "total refreshes"),
    ("refresh.time", "rti,refreshTime", "time spent in refreshes"),
    ("refresh.external_total", "rto,refreshTotal", "total external refreshes"),
    ("refresh.external_time", "rti,refreshTime", "time spent in external refreshes"),
    ("refresh.listeners", "rli,refreshListeners", "number of pending refresh listeners"),
    ("search.fetch_current", "sfc,searchFetchCurrent", "current fetch phase ops"),
    ("search.fetch_time", "sfti,searchFetchTime", "time spent in fetch phase"),
    ("search.fetch_total", "sfto,searchFetchTotal", "total fetch ops"),
    ("search.open_contexts", "so,searchOpenContexts", "open search contexts"),
    ("search.query_current", "sqc,searchQueryCurrent", "current query phase ops"),
    ("search.query_time", "sqti,searchQueryTime", "time spent in query phase"),
    ("search.query_total", "sqto,searchQueryTotal", "total query phase ops"),
    ("search.concurrent_query_current", "scqc,searchConcurrentQueryCurrent", "current concurrent query phase ops"),
    ("search.concurrent_query_time", "scqti,searchConcurrentQueryTime", "time spent in concurrent query phase"),
    ("search.concurrent_query_total", "scqto,searchConcurrentQueryTotal", "total concurrent query phase ops"),
    ("search.concurrent_avg_slice_count", "casc,searchConcurrentAvgSliceCount", "average query concurrency"),
    ("search.startree_query_current", "stqc,startreeQueryCurrent", "current star tree query ops"),
    ("search.startree_query_time", "stqti,startreeQueryTime", "time spent in star tree queries"),
    ("search.startree_query_total", "stqto,startreeQueryTotal", "total star tree resolved queries"),
    ("search.scroll_current", "scc,searchScrollCurrent", "open scroll contexts"),
    ("search.scroll_time", "scti,searchScrollTime", "time scroll contexts held open"),
    ("search.scroll_total", "scto,searchScrollTotal", "completed scroll contexts"),
    ("search.point_in_time_current", "spc,searchPointInTimeCurrent", "open point in time contexts"),
    ("search.point_in_time_time", "spti,searchPointInTimeTime", "time point in time contexts held open"),
    ("search.point_in_time_total", "spto,searchPointInTimeTotal", "completed point in time contexts"),
    (
        "search.search_idle_reactivate_count_total",
        "ssirct,searchSearchIdleReactivateCountTotal",
        "number of times a shard reactivated",
    ),
    ("segments.count", "sc,segmentsCount", "number of segments"),
    ("segments.memory", "sm,segmentsMemory", "memory used by segments"),
    ("segments.index_writer_memory", "siwm,segmentsIndexWriterMemory", "memory used by index writer"),
    ("segments.version_map_memory", "svmm,segmentsVersionMapMemory", "memory used by version map"),
    (
        "segments.fixed_bitset_memory",
        "sfbm,fixedBitsetMemory",
        "memory used by fixed bit sets for nested object field types and type filters for types referred in _parent fields",
    ),
    ("seq_no.max", "sqm,maxSeqNo", "max sequence number"),
    ("seq_no.local_checkpoint", "sql,localCheckpoint", "local checkpoint"),
    ("seq_no.global_checkpoint", "sqg,globalCheckpoint", "global checkpoint"),
    ("warmer.current", "wc,warmerCurrent", "current warmer ops"),
    ("warmer.total", "wto,warmerTotal", "total warmer ops"),
    ("warmer.total_time", "wtt,warmerTotalTime", "time spent in warmers"),
    ("path.data", "pd,dataPath", "shard data path"),
    ("path.state", "ps,statsPath", "shard state path"),
    ("docs.deleted", "dd,docsDeleted", "number of deleted docs in shard"),
];

fn columns() -> Table {
    let mut cols: Vec<(String, String)> = [
        ("index", "default:true;alias:i,idx;desc:index name"),
        ("shard", "default:true;alias:s,sh;desc:shard name"),
        ("prirep", "alias:p,pr,primaryOrReplica;default:true;desc:primary or replica"),
        ("state", "default:true;alias:st;desc:shard state"),
        ("docs", "alias:d,dc;text-align:right;desc:number of docs in shard"),
        ("store", "alias:sto;text-align:right;desc:store size of shard (how much disk it uses)"),
        ("ip", "default:true;desc:ip of node where it lives"),
        ("id", "default:false;desc:unique id of node where it lives"),
        ("node", "default:true;alias:n;desc:name of node where it lives"),
        ("sync_id", "alias:sync_id;default:false;desc:sync id"),
        ("unassigned.reason", "alias:ur;default:false;desc:reason shard is unassigned"),
        ("unassigned.at", "alias:ua;default:false;desc:time shard became unassigned (UTC)"),
        ("unassigned.for", "alias:uf;default:false;text-align:right;desc:time has been unassigned"),
        ("unassigned.details", "alias:ud;default:false;desc:additional details as to why the shard became unassigned"),
        ("recoverysource.type", "alias:rs;default:false;desc:recovery source type"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    for (name, aliases, desc) in STATS {
        cols.push((name.to_string(), format!("alias:{aliases};default:false;text-align:right;desc:{desc}")));
    }
    let refs: Vec<(&str, &str)> = cols.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    Table::with_columns(&refs)
}

/// The rows of the copies of `indices` (in routing-table order: by index, shard, primary
/// first), with the figures of `copies`; `now` is epoch millis (`unassigned.for`).
pub fn table(
    routing: &RoutingTable,
    indices: &[String],
    members: &[MemberView],
    copies: &ClusterCopies,
    now: i64,
) -> Table {
    let mut t = columns();
    let member = |id: &str| members.iter().find(|m| m.node_id == id);
    for (name, ir) in &routing.indices {
        if !indices.contains(name) {
            continue;
        }
        for st in &ir.shards {
            for c in &st.copies {
                let stats = copies.get(c.node.as_deref(), name, st.id);
                let mut row: Vec<Cell> = vec![
                    name.clone().into(),
                    Cell::Int(i64::from(st.id)),
                    if c.primary { "p" } else { "r" }.into(),
                    c.state.name().into(),
                    stats.map_or(Cell::Null, |s| Cell::Int(s.docs as i64)),
                    stats.map_or(Cell::Null, |s| Cell::Bytes(s.store_bytes)),
                ];
                match c.node.as_deref() {
                    Some(id) if c.state != ShardState::Unassigned => {
                        let m = member(id);
                        let ip = m.map_or(Cell::Null, |m| nodes_fanout::host_of(m).into());
                        let mut node_name = m.map_or(String::new(), |m| m.name.clone());
                        if let (ShardState::Relocating, Some(to)) = (c.state, c.relocating_node.as_deref()) {
                            let tm = member(to);
                            node_name.push_str(&format!(
                                " -> {} {} {}",
                                tm.map_or("", nodes_fanout::host_of),
                                to,
                                tm.map_or("", |m| m.name.as_str())
                            ));
                        }
                        row.extend([ip, id.to_string().into(), node_name.into()]);
                    }
                    _ => row.extend([Cell::Null, Cell::Null, Cell::Null]),
                }
                // Fathom does not write synced-flush ids.
                row.push(Cell::Null);
                match &c.unassigned {
                    Some(u) => row.extend([
                        u.reason.clone().into(),
                        crate::http::handlers::cat::iso_millis(u.at_millis).into(),
                        Cell::Millis(now.saturating_sub(u.at_millis).max(0) as u64),
                        u.details.clone().map_or(Cell::Null, Cell::Str),
                    ]),
                    None => row.extend([Cell::Null, Cell::Null, Cell::Null, Cell::Null]),
                }
                row.push(c.recovery_source.map_or(Cell::Null, |r| r.name().to_ascii_lowercase().into()));
                for (col, _, _) in STATS {
                    let Some(s) = stats else {
                        row.push(Cell::Null);
                        continue;
                    };
                    row.push(match *col {
                        "segments.count" => Cell::Int(s.segments as i64),
                        "seq_no.max" => Cell::Int(s.max_seq_no),
                        "seq_no.local_checkpoint" => Cell::Int(s.local_checkpoint),
                        "seq_no.global_checkpoint" => Cell::Int(s.global_checkpoint),
                        "path.data" => s.path_data.clone().into(),
                        "path.state" => s.path_state.clone().into(),
                        "docs.deleted" => Cell::Int(s.deleted as i64),
                        _ => Cell::Null,
                    });
                }
                t.rows.push(row);
            }
        }
    }
    t
}

fn cat_shards(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let cs = &node.cluster;
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    let st = cs.state();
    let indices: Vec<String> = match req.path_param("index") {
        None => st.routing.indices.keys().cloned().collect(),
        Some(expr) => {
            let opts = IndicesOptions {
                ignore_unavailable: false,
                allow_no_indices: true,
                expand: ExpandWildcards { open: true, closed: false, hidden: false },
                forbid_closed: false,
            };
            resolve(&st.metadata, expr, opts)?
        }
    };
    // One request per node holding a copy of a selected index.
    let mut holders: Vec<String> = Vec::new();
    for (name, _, c) in st.routing.copies() {
        if let Some(n) = &c.node {
            if indices.iter().any(|i| i == name) && !holders.contains(n) {
                holders.push(n.clone());
            }
        }
    }
    let copies = shard_stats::gather(cs, &holders, timeout);
    let members = nodes_fanout::members(cs);
    table(&st.routing, &indices, &members, &copies, crate::action::os_probe::now_millis()).respond(req)
}

const P: &[&str] = &[
    "format",
    "h",
    "help",
    "s",
    "v",
    "local",
    "master_timeout",
    "cluster_manager_timeout",
    "bytes",
    "time",
    "timeout",
];

/// Registers the routes.
pub fn register(r: &mut Router) {
    for p in ["/_cat/shards", "/_cat/shards/{index}"] {
        r.add(&[Method::Get], p, "cat:shards", Pool::Management, P, cat_shards);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::shard_stats::CopyStats;
    use crate::cluster::routing_table::{IndexRouting, RecoverySource, ShardCopy, ShardTable, UnassignedInfo};

    fn copy(primary: bool, node: Option<&str>, state: ShardState) -> ShardCopy {
        ShardCopy {
            primary,
            state,
            node: node.map(str::to_string),
            relocating_node: None,
            relocation_id: None,
            allocation_id: None,
            recovery_source: None,
            unassigned: None,
        }
    }

    #[test]
    fn one_row_per_copy_with_the_holders_figures() {
        let mut rt = RoutingTable::default();
        let mut lost = copy(false, None, ShardState::Unassigned);
        lost.unassigned = Some(UnassignedInfo {
            reason: "NODE_LEFT".into(),
            at_millis: 1000,
            delayed: false,
            failed_attempts: 0,
            details: Some("node_left [b]".into()),
            last_node: None,
            allocation_status: "no_attempt".into(),
        });
        lost.recovery_source = Some(RecoverySource::Peer);
        let shards = vec![ShardTable {
            id: 0,
            primary_term: 1,
            in_sync: vec![],
            copies: vec![copy(true, Some("a"), ShardState::Started), copy(false, Some("b"), ShardState::Started), lost],
        }];
        rt.indices.insert("i".into(), IndexRouting { uuid: "u".into(), shards });
        rt.indices.insert("other".into(), IndexRouting { uuid: "v".into(), shards: vec![] });
        let members: Vec<MemberView> = ["a", "b"]
            .iter()
            .map(|id| MemberView {
                node_id: id.to_string(),
                name: format!("n-{id}"),
                transport_address: format!("127.0.0.{}:9300", if *id == "a" { 1 } else { 2 }),
                ..Default::default()
            })
            .collect();
        let mut cc = ClusterCopies::default();
        for (n, docs) in [("a", 5u64), ("b", 5)] {
            let s = CopyStats { index: "i".into(), docs, store_bytes: 300, segments: 2, ..Default::default() };
            cc.by_copy.insert((n.into(), "i".into(), 0), s);
        }
        let t = table(&rt, &["i".to_string()], &members, &cc, 4000);
        assert_eq!(t.rows.len(), 3);
        let col = |n: &str| t.columns.iter().position(|c| c.name == n).unwrap();
        assert_eq!(t.rows[0][col("prirep")], Cell::Str("p".into()));
        assert_eq!(t.rows[1][col("prirep")], Cell::Str("r".into()));
        assert_eq!(t.rows[1][col("docs")], Cell::Int(5));
        assert_eq!(t.rows[1][col("ip")], Cell::Str("127.0.0.2".into()));
        assert_eq!(t.rows[1][col("node")], Cell::Str("n-b".into()));
        assert_eq!(t.rows[0][col("segments.count")], Cell::Int(2));
        assert_eq!(t.rows[0][col("flush.total")], Cell::Null);
        let u = &t.rows[2];
        assert_eq!(u[col("state")], Cell::Str("UNASSIGNED".into()));
        assert_eq!((u[col("docs")].clone(), u[col("node")].clone()), (Cell::Null, Cell::Null));
        assert_eq!(u[col("unassigned.reason")], Cell::Str("NODE_LEFT".into()));
        assert_eq!(u[col("unassigned.at")], Cell::Str("1970-01-01T00:00:01.000Z".into()));
        assert_eq!(u[col("unassigned.for")], Cell::Millis(3000));
        assert_eq!(u[col("recoverysource.type")], Cell::Str("peer".into()));
        assert!(table(&rt, &[], &members, &cc, 0).rows.is_empty());
    }
}
