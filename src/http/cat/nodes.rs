//! `_cat/nodes`: one row per node of the cluster state, with the figures each node measured of
//! itself (`cluster:monitor/nodes/info[n]` and `cluster:monitor/nodes/stats[n]`). A node that
//! does not answer keeps its row with empty figure cells, as OpenSearch prints it.
//!
//! The heap columns show the process heap as `action::os_probe` defines it for a Rust process;
//! `jdk` stays empty (there is no JVM), as do the index statistics Fathom does not count.

use serde_json::Value;

use super::{Cell, Table};
use crate::action::{node_stats, nodes_fanout, nodes_info};
use crate::cluster::coordination_view::MemberView;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// The index statistics columns (`name`, `aliases`, unit, description): unit `b` bytes, `t` time,
/// `n` count.
const INDEX_STATS: &[(&str, &str, char, &str)] = &[
    ("completion.size", "cs,completionSize", 'b', "size of completion"),
    ("fielddata.memory_size", "fm,fielddataMemory", 'b', "used fielddata cache"),
    ("fielddata.evictions", "fe,fielddataEvictions", 'n', "fielddata evictions"),
    ("query_cache.memory_size", "qcm,queryCacheMemory", 'b', "used query cache"),
    ("query_cache.evictions", "qce,queryCacheEvictions", 'n', "query cache evictions"),
    ("query_cache.hit_count", "qchc,queryCacheHitCount", 'n', "query cache hit counts"),
    ("query_cache.miss_count", "qcmc,queryCacheMissCount", 'n', "query cache miss counts"),
    ("request_cache.memory_size", "rcm,requestCacheMemory", 'b', "used request cache"),
    ("request_cache.evictions", "rce,requestCacheEvictions", 'n', "request cache evictions"),
    ("request_cache.hit_count", "rchc,requestCacheHitCount", 'n', "request cache hit counts"),
    ("request_cache.miss_count", "rcmc,requestCacheMissCount", 'n', "request cache miss counts"),
    ("flush.total", "ft,flushTotal", 'n', "number of flushes"),
    ("flush.total_time", "ftt,flushTotalTime", 't', "time spent in flush"),
    ("get.current", "gc,getCurrent", 'n', "number of current get ops"),
    ("get.time", "gti,getTime", 't', "time spent in get"),
    ("get.total", "gto,getTotal", 'n', "number of get ops"),
    ("get.exists_time", "geti,getExistsTime", 't', "time spent in successful gets"),
    ("get.exists_total", "geto,getExistsTotal", 'n', "number of successful gets"),
    ("get.missing_time", "gmti,getMissingTime", 't', "time spent in failed gets"),
    ("get.missing_total", "gmto,getMissingTotal", 'n', "number of failed gets"),
    ("indexing.delete_current", "idc,indexingDeleteCurrent", 'n', "number of current deletions"),
    ("indexing.delete_time", "idti,indexingDeleteTime", 't', "time spent in deletions"),
    ("indexing.delete_total", "idto,indexingDeleteTotal", 'n', "number of delete ops"),
    ("indexing.index_current", "iic,indexingIndexCurrent", 'n', "number of current indexing ops"),
    ("indexing.index_time", "iiti,indexingIndexTime", 't', "time spent in indexing"),
    ("indexing.index_total", "iito,indexingIndexTotal", 'n', "number of indexing ops"),
    ("indexing.index_failed", "iif,indexingIndexFailed", 'n', "number of failed indexing ops"),
    ("merges.current", "mc,mergesCurrent", 'n', "number of current merges"),
    ("merges.current_docs", "mcd,mergesCurrentDocs", 'n', "number of current merging docs"),
    ("merges.current_size", "mcs,mergesCurrentSize", 'b', "size of current merges"),
    ("merges.total", "mt,mergesTotal", 'n', "number of completed merge ops"),
    ("merges.total_docs", "mtd,mergesTotalDocs", 'n', "docs merged"),
    ("merges.total_size", "mts,mergesTotalSize", 'b', "size merged"),
    ("merges.total_time", "mtt,mergesTotalTime", 't', "time spent in merges"),
    ("refresh.total", "rto,refreshTotal", 'n', "total refreshes"),
    ("refresh.time", "rti,refreshTime", 't', "time spent in refreshes"),
    ("refresh.external_total", "rto,refreshTotal", 'n', "total external refreshes"),
    ("refresh.external_time", "rti,refreshTime", 't', "time spent in external refreshes"),
    ("refresh.listeners", "rli,refreshListeners", 'n', "number of pending refresh listeners"),
    ("script.compilations", "scrcc,scriptCompilations", 'n', "script compilations"),
    ("script.cache_evictions", "scrce,scriptCacheEvictions", 'n', "script cache evictions"),
    ("script.compilation_limit_triggered", "scrclt,scriptCacheCompilationLimitTriggered", 'n', "script cache compilation limit triggered"),
    ("search.fetch_current", "sfc,searchFetchCurrent", 'n', "current fetch phase ops"),
    ("search.fetch_time", "sfti,searchFetchTime", 't', "time spent in fetch phase"),
    ("search.fetch_total", "sfto,searchFetchTotal", 'n', "total fetch ops"),
    ("search.open_contexts", "so,searchOpenContexts", 'n', "open search contexts"),
    ("search.query_current", "sqc,searchQueryCurrent", 'n', "current query phase ops"),
    ("search.query_time", "sqti,searchQueryTime", 't', "time spent in query phase"),
    ("search.query_total", "sqto,searchQueryTotal", 'n', "total query phase ops"),
    ("search.concurrent_query_current", "scqc,searchConcurrentQueryCurrent", 'n', "current concurrent query phase ops"),
    ("search.concurrent_query_time", "scqti,searchConcurrentQueryTime", 't', "time spent in concurrent query phase"),
    ("search.concurrent_query_total", "scqto,searchConcurrentQueryTotal", 'n', "total concurrent query phase ops"),
    ("search.concurrent_avg_slice_count", "casc,searchConcurrentAvgSliceCount", 'n', "average query concurrency"),
    ("search.scroll_current", "scc,searchScrollCurrent", 'n', "open scroll contexts"),
    ("search.scroll_time", "scti,searchScrollTime", 't', "time scroll contexts held open"),
    ("search.scroll_total", "scto,searchScrollTotal", 'n', "completed scroll contexts"),
    ("search.point_in_time_current", "scc,searchPointInTimeCurrent", 'n', "open point in time contexts"),
    ("search.point_in_time_time", "scti,searchPointInTimeTime", 't', "time point in time contexts held open"),
    ("search.point_in_time_total", "scto,searchPointInTimeTotal", 'n', "completed point in time contexts"),
    ("search.startree_query_current", "stqc,startreeQueryCurrent", 'n', "current star tree query ops"),
    ("search.startree_query_time", "stqti,startreeQueryTime", 't', "time spent in star tree queries"),
    ("search.startree_query_total", "stqto,startreeQueryTotal", 'n', "total star tree resolved queries"),
    ("segments.count", "sc,segmentsCount", 'n', "number of segments"),
    ("segments.memory", "sm,segmentsMemory", 'b', "memory used by segments"),
    ("segments.index_writer_memory", "siwm,segmentsIndexWriterMemory", 'b', "memory used by index writer"),
    ("segments.version_map_memory", "svmm,segmentsVersionMapMemory", 'b', "memory used by version map"),
    ("segments.fixed_bitset_memory", "sfbm,fixedBitsetMemory", 'b', "memory used by fixed bit sets for nested object field types and type filters for types referred in _parent fields"),
    ("suggest.current", "suc,suggestCurrent", 'n', "number of current suggest ops"),
    ("suggest.time", "suti,suggestTime", 't', "time spend in suggest"),
    ("suggest.total", "suto,suggestTotal", 'n', "number of suggest ops"),
];

fn columns() -> Table {
    let mut cols: Vec<(String, String)> = [
        ("id", "default:false;alias:id,nodeId;desc:unique node id"),
        ("pid", "default:false;alias:p;desc:process id"),
        ("ip", "alias:i;desc:ip address"),
        ("port", "default:false;alias:po;desc:bound transport port"),
        ("http_address", "default:false;alias:http;desc:bound http address"),
        ("version", "default:false;alias:v;desc:os version"),
        ("type", "default:false;alias:t;desc:os distribution type"),
        ("build", "default:false;alias:b;desc:os build hash"),
        ("jdk", "default:false;alias:j;desc:jdk version"),
        ("disk.total", "default:false;alias:dt,diskTotal;text-align:right;desc:total disk space"),
        ("disk.used", "default:false;alias:du,diskUsed;text-align:right;desc:used disk space"),
        ("disk.avail", "default:false;alias:d,da,disk,diskAvail;text-align:right;desc:available disk space"),
        (
            "disk.used_percent",
            "default:false;alias:dup,diskUsedPercent;text-align:right;desc:used disk space percentage",
        ),
        ("heap.current", "default:false;alias:hc,heapCurrent;text-align:right;desc:used heap"),
        ("heap.percent", "alias:hp,heapPercent;text-align:right;desc:used heap ratio"),
        ("heap.max", "default:false;alias:hm,heapMax;text-align:right;desc:max configured heap"),
        ("ram.current", "default:false;alias:rc,ramCurrent;text-align:right;desc:used machine memory"),
        ("ram.percent", "alias:rp,ramPercent;text-align:right;desc:used machine memory ratio"),
        ("ram.max", "default:false;alias:rm,ramMax;text-align:right;desc:total machine memory"),
        (
            "file_desc.current",
            "default:false;alias:fdc,fileDescriptorCurrent;text-align:right;desc:used file descriptors",
        ),
        (
            "file_desc.percent",
            "default:false;alias:fdp,fileDescriptorPercent;text-align:right;desc:used file descriptor ratio",
        ),
        ("file_desc.max", "default:false;alias:fdm,fileDescriptorMax;text-align:right;desc:max file descriptors"),
        ("cpu", "alias:cpu;text-align:right;desc:recent cpu usage"),
        ("load_1m", "alias:l;text-align:right;desc:1m load avg"),
        ("load_5m", "alias:l;text-align:right;desc:5m load avg"),
        ("load_15m", "alias:l;text-align:right;desc:15m load avg"),
        ("uptime", "default:false;alias:u;text-align:right;desc:node uptime"),
        (
            "node.role",
            "alias:r,role,nodeRole;desc:m:master eligible node, d:data node, i:ingest node, -:coordinating node only",
        ),
        ("node.roles", "alias:rs,all roles;desc: -:coordinating node only"),
        ("cluster_manager", "alias:cm,m,master;desc:*:current cluster manager"),
        ("name", "alias:n;desc:node name"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    for (name, aliases, _, desc) in INDEX_STATS {
        cols.push((name.to_string(), format!("alias:{aliases};default:false;text-align:right;desc:{desc}")));
    }
    let refs: Vec<(&str, &str)> = cols.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    Table::with_columns(&refs)
}

/// A role's one-letter abbreviation (`DiscoveryNodeRole.roleNameAbbreviation`); `None` for a
/// role OpenSearch does not know.
fn role_letter(role: &str) -> Option<&'static str> {
    Some(match role {
        "cluster_manager" | "master" => "m",
        "data" => "d",
        "ingest" => "i",
        "remote_cluster_client" => "r",
        "search" => "s",
        "warm" => "w",
        _ => return None,
    })
}

/// `node.role` and `node.roles` cells.
pub fn role_cells(roles: &[String]) -> (String, String) {
    if roles.is_empty() {
        return ("-".into(), "-".into());
    }
    let mut letters: Vec<&str> = roles.iter().filter_map(|r| role_letter(r)).collect();
    letters.sort();
    let mut names: Vec<&str> = roles.iter().map(String::as_str).collect();
    names.sort();
    let short = if letters.is_empty() { "-".to_string() } else { letters.concat() };
    (short, names.join(","))
}

fn u(v: &Value) -> Option<u64> {
    v.as_u64()
}

fn bytes(v: &Value) -> Cell {
    u(v).map_or(Cell::Null, Cell::Bytes)
}

fn int(v: &Value) -> Cell {
    v.as_i64().map_or(Cell::Null, Cell::Int)
}

/// One node's row from its member entry and its answers (`None`: it did not answer).
pub fn row(
    m: &MemberView,
    manager: Option<&str>,
    full_id: bool,
    info: Option<&Value>,
    stats: Option<&Value>,
) -> Vec<Cell> {
    let null = Value::Null;
    let info = info.unwrap_or(&null);
    let st = stats.unwrap_or(&null);
    let id = if full_id { m.node_id.clone() } else { m.node_id.chars().take(4).collect() };
    let mut r: Vec<Cell> = vec![
        id.into(),
        int(&info["process"]["id"]),
        nodes_fanout::host_of(m).into(),
        nodes_fanout::port_of(m).map_or(Cell::Null, |p| Cell::Int(i64::from(p))),
        info["http"]["publish_address"].as_str().map_or(Cell::Str("-".into()), |s| s.into()),
        "3.3.0".into(),
        info["build_type"].as_str().map_or(Cell::Null, |s| s.into()),
        info["build_hash"].as_str().map_or(Cell::Null, |s| s.into()),
        // No JVM: OpenSearch prints a node without JVM info as an empty cell.
        Cell::Null,
    ];
    let fs = &st["fs"]["total"];
    match (u(&fs["total_in_bytes"]), u(&fs["available_in_bytes"])) {
        (Some(total), Some(avail)) => {
            let used = total.saturating_sub(avail);
            let ratio = if total == 0 { 1.0 } else { used as f64 / total as f64 };
            r.extend([
                Cell::Bytes(total),
                Cell::Bytes(used),
                Cell::Bytes(avail),
                Cell::Str(format!("{:.2}", 100.0 * ratio)),
            ]);
        }
        _ => r.extend([Cell::Null, Cell::Null, Cell::Null, Cell::Null]),
    }
    let heap = &st["jvm"]["mem"];
    r.extend([bytes(&heap["heap_used_in_bytes"]), int(&heap["heap_used_percent"]), bytes(&heap["heap_max_in_bytes"])]);
    let mem = &st["os"]["mem"];
    r.extend([bytes(&mem["used_in_bytes"]), int(&mem["used_percent"]), bytes(&mem["total_in_bytes"])]);
    let p = &st["process"];
    let (open, max) = (p["open_file_descriptors"].as_i64(), p["max_file_descriptors"].as_i64());
    r.push(open.map_or(Cell::Null, Cell::Int));
    r.push(match (open, max) {
        (Some(o), Some(mx)) if o >= 0 && mx > 0 => {
            Cell::Int(crate::action::os_probe::percent(o as u64, mx as u64) as i64)
        }
        (Some(_), Some(_)) => Cell::Int(0),
        _ => Cell::Null,
    });
    r.push(max.map_or(Cell::Null, Cell::Int));
    let cpu = &st["os"]["cpu"];
    r.push(u(&cpu["percent"]).map_or(Cell::Null, |c| Cell::Str(c.to_string())));
    for k in ["1m", "5m", "15m"] {
        r.push(cpu["load_average"][k].as_f64().filter(|l| *l >= 0.0).map_or(Cell::Null, |l| format!("{l:.2}").into()));
    }
    r.push(u(&st["jvm"]["uptime_in_millis"]).map_or(Cell::Null, Cell::Millis));
    let (short, all) = role_cells(&m.roles);
    r.push(short.into());
    r.push(all.into());
    r.push(match manager {
        None => "x".into(),
        Some(id) if id == m.node_id => "*".into(),
        Some(_) => "-".into(),
    });
    r.push(m.name.clone().into());
    for (name, _, _, _) in INDEX_STATS {
        // Fathom counts segments; the other statistics are not counted, so unknown.
        r.push(if *name == "segments.count" { int(&st["indices"]["segments"]["count"]) } else { Cell::Null });
    }
    r
}

fn cat_nodes(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let full_id = req.bool_param("full_id", false)?;
    let timeout = nodes_fanout::parse_timeout(req.param("timeout"))?;
    let cs = &node.cluster;
    let members = nodes_fanout::members(cs);
    let manager = nodes_fanout::cluster_manager(cs);
    let settings = crate::http::handlers::nodes::settings_map(node);
    let info_metrics = vec!["process".to_string(), "http".to_string()];
    let infos = nodes_info::gather(cs, &node.pools, None, &info_metrics, timeout, &settings, node.max_content_length);
    let stats_req = node_stats::parse_request("/_nodes/stats", Some("indices,os,process,jvm,fs"), None)?;
    let stats = node_stats::gather(cs, &node.pools, &[], &stats_req, timeout);
    let mut t = columns();
    for m in &members {
        t.rows.push(row(m, manager.as_deref(), full_id, infos.of(&m.node_id), stats.of(&m.node_id)));
    }
    let resp = t.respond(req)?;
    Ok(if req.has("local") { resp.warn(LOCAL_DEPRECATED) } else { resp })
}

/// OpenSearch's warning for `local`, which `_cat/nodes` never honoured.
const LOCAL_DEPRECATED: &str = "Deprecated parameter [local] used. This parameter does not cause this API to act \
                                locally, and should not be used. It will be unsupported in version 8.0.";

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
    // The unit of count (`SizeValue`) columns, a response parameter of every cat action;
    // `_cat/nodes` has none, so, as in OpenSearch, it changes nothing here.
    "size",
    "full_id",
    "timeout",
];

/// Registers the route.
pub fn register(r: &mut Router) {
    r.add(&[Method::Get], "/_cat/nodes", "cat:nodes", Pool::Management, P, cat_nodes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn member(id: &str, roles: &[&str]) -> MemberView {
        MemberView {
            node_id: id.into(),
            name: format!("node-{id}"),
            transport_address: "10.0.0.7:9300".into(),
            http_address: String::new(),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            attributes: vec![],
        }
    }

    #[test]
    fn roles_abbreviate_as_opensearch_does() {
        let all = ["remote_cluster_client", "data", "ingest", "cluster_manager"].map(String::from);
        assert_eq!(role_cells(&all), ("dimr".into(), "cluster_manager,data,ingest,remote_cluster_client".into()));
        assert_eq!(role_cells(&[]), ("-".into(), "-".into()));
        assert_eq!(role_cells(&["custom".into()]), ("-".into(), "custom".into()));
    }

    #[test]
    fn a_row_reads_the_node_answers_and_leaves_unknowns_empty() {
        let t = columns();
        let col = |n: &str| t.columns.iter().position(|c| c.name == n).unwrap();
        let m = member("abcdefgh", &["data"]);
        let info = json!({"process": {"id": 42}, "http": {"publish_address": "10.0.0.7:9200"}, "build_type": "tar"});
        let stats = json!({
            "fs": {"total": {"total_in_bytes": 1000, "available_in_bytes": 250}},
            "jvm": {"mem": {"heap_used_in_bytes": 10, "heap_used_percent": 5, "heap_max_in_bytes": 200}, "uptime_in_millis": 5},
            "os": {"mem": {"used_in_bytes": 3, "used_percent": 30, "total_in_bytes": 10}, "cpu": {"percent": 7, "load_average": {"1m": 0.5, "5m": 1.0, "15m": 1.5}}},
            "process": {"open_file_descriptors": 50, "max_file_descriptors": 200},
            "indices": {"segments": {"count": 3}},
        });
        let r = row(&m, Some("abcdefgh"), false, Some(&info), Some(&stats));
        assert_eq!(r.len(), t.columns.len());
        assert_eq!(r[col("id")], Cell::Str("abcd".into()));
        assert_eq!(r[col("pid")], Cell::Int(42));
        assert_eq!(r[col("ip")], Cell::Str("10.0.0.7".into()));
        assert_eq!(r[col("port")], Cell::Int(9300));
        assert_eq!(r[col("disk.used")], Cell::Bytes(750));
        assert_eq!(r[col("disk.used_percent")], Cell::Str("75.00".into()));
        assert_eq!(r[col("heap.percent")], Cell::Int(5));
        assert_eq!(r[col("file_desc.percent")], Cell::Int(25));
        assert_eq!(r[col("load_5m")], Cell::Str("1.00".into()));
        assert_eq!(r[col("cluster_manager")], Cell::Str("*".into()));
        assert_eq!(r[col("segments.count")], Cell::Int(3));
        assert_eq!(r[col("jdk")], Cell::Null);
        assert_eq!(r[col("flush.total")], Cell::Null);
        // A node that did not answer keeps its identity, nothing else.
        let r = row(&m, None, true, None, None);
        assert_eq!(r[col("id")], Cell::Str("abcdefgh".into()));
        assert_eq!(r[col("heap.percent")], Cell::Null);
        assert_eq!(r[col("http_address")], Cell::Str("-".into()));
        assert_eq!(r[col("cluster_manager")], Cell::Str("x".into()));
        assert_eq!(r[col("name")], Cell::Str("node-abcdefgh".into()));
    }
}
