//! `_cat`: the list, `_cat/indices`, `_cat/templates`.

use super::{index_expr, indices_options};
use crate::action::cat_indices::{self, IndexRow};
use crate::action::template_api;
use crate::cluster::resolve::{ExpandWildcards, IndicesOptions};
use crate::error::OsResult;
use crate::http::cat::{Cell, Table};
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// Every `_cat` endpoint, as `GET /_cat` lists them.
const CAT_LIST: &[&str] = &[
    "/_cat/allocation",
    "/_cat/shards",
    "/_cat/shards/{index}",
    "/_cat/cluster_manager",
    "/_cat/nodes",
    "/_cat/tasks",
    "/_cat/indices",
    "/_cat/indices/{index}",
    "/_cat/segments",
    "/_cat/segments/{index}",
    "/_cat/count",
    "/_cat/count/{index}",
    "/_cat/recovery",
    "/_cat/recovery/{index}",
    "/_cat/health",
    "/_cat/pending_tasks",
    "/_cat/aliases",
    "/_cat/aliases/{alias}",
    "/_cat/thread_pool",
    "/_cat/thread_pool/{thread_pools}",
    "/_cat/plugins",
    "/_cat/fielddata",
    "/_cat/fielddata/{fields}",
    "/_cat/nodeattrs",
    "/_cat/repositories",
    "/_cat/snapshots/{repository}",
    "/_cat/templates",
    "/_cat/pit_segments",
    "/_cat/pit_segments/{pit_id}",
    "/_cat/segment_replication",
    "/_cat/segment_replication/{index}",
];

fn cat_list(_: &Node, _: &RestRequest) -> OsResult<RestResponse> {
    let mut s = String::from("=^.^=\n");
    for l in CAT_LIST {
        s.push_str(l);
        s.push('\n');
    }
    Ok(RestResponse::text(s))
}

/// Statistics columns OpenSearch shows as `{name}` / `pri.{name}` (`sibling:pri`): name, short
/// alias, long alias, unit (`n` count, `b` bytes, `t` time), description: the index stats'
/// figures of all copies and of the primaries.
const STATS: &[(&str, &str, &str, char, &str)] = &[
    ("completion.size", "cs", "completionSize", 'b', "size of completion"),
    ("fielddata.memory_size", "fm", "fielddataMemory", 'b', "used fielddata cache"),
    ("fielddata.evictions", "fe", "fielddataEvictions", 'n', "fielddata evictions"),
    ("query_cache.memory_size", "qcm", "queryCacheMemory", 'b', "used query cache"),
    ("query_cache.evictions", "qce", "queryCacheEvictions", 'n', "query cache evictions"),
    ("request_cache.memory_size", "rcm", "requestCacheMemory", 'b', "used request cache"),
    ("request_cache.evictions", "rce", "requestCacheEvictions", 'n', "request cache evictions"),
    ("request_cache.hit_count", "rchc", "requestCacheHitCount", 'n', "request cache hit count"),
    ("request_cache.miss_count", "rcmc", "requestCacheMissCount", 'n', "request cache miss count"),
    ("flush.total", "ft", "flushTotal", 'n', "number of flushes"),
    ("flush.total_time", "ftt", "flushTotalTime", 't', "time spent in flush"),
    ("get.current", "gc", "getCurrent", 'n', "number of current get ops"),
    ("get.time", "gti", "getTime", 't', "time spent in get"),
    ("get.total", "gto", "getTotal", 'n', "number of get ops"),
    ("get.exists_time", "geti", "getExistsTime", 't', "time spent in successful gets"),
    ("get.exists_total", "geto", "getExistsTotal", 'n', "number of successful gets"),
    ("get.missing_time", "gmti", "getMissingTime", 't', "time spent in failed gets"),
    ("get.missing_total", "gmto", "getMissingTotal", 'n', "number of failed gets"),
    ("indexing.delete_current", "idc", "indexingDeleteCurrent", 'n', "number of current deletions"),
    ("indexing.delete_time", "idti", "indexingDeleteTime", 't', "time spent in deletions"),
    ("indexing.delete_total", "idto", "indexingDeleteTotal", 'n', "number of delete ops"),
    ("indexing.index_current", "iic", "indexingIndexCurrent", 'n', "number of current indexing ops"),
    ("indexing.index_time", "iiti", "indexingIndexTime", 't', "time spent in indexing"),
    ("indexing.index_total", "iito", "indexingIndexTotal", 'n', "number of indexing ops"),
    ("indexing.index_failed", "iif", "indexingIndexFailed", 'n', "number of failed indexing ops"),
    ("merges.current", "mc", "mergesCurrent", 'n', "number of current merges"),
    ("merges.current_docs", "mcd", "mergesCurrentDocs", 'n', "number of current merging docs"),
    ("merges.current_size", "mcs", "mergesCurrentSize", 'b', "size of current merges"),
    ("merges.total", "mt", "mergesTotal", 'n', "number of completed merge ops"),
    ("merges.total_docs", "mtd", "mergesTotalDocs", 'n', "docs merged"),
    ("merges.total_size", "mts", "mergesTotalSize", 'b', "size merged"),
    ("merges.total_time", "mtt", "mergesTotalTime", 't', "time spent in merges"),
    ("refresh.total", "rto", "refreshTotal", 'n', "total refreshes"),
    ("refresh.time", "rti", "refreshTime", 't', "time spent in refreshes"),
    ("refresh.external_total", "rto", "refreshTotal", 'n', "total external refreshes"),
    ("refresh.external_time", "rti", "refreshTime", 't', "time spent in external refreshes"),
    ("refresh.listeners", "rli", "refreshListeners", 'n', "number of pending refresh listeners"),
    ("search.fetch_current", "sfc", "searchFetchCurrent", 'n', "current fetch phase ops"),
    ("search.fetch_time", "sfti", "searchFetchTime", 't', "time spent in fetch phase"),
    ("search.fetch_total", "sfto", "searchFetchTotal", 'n', "total fetch ops"),
    ("search.open_contexts", "so", "searchOpenContexts", 'n', "open search contexts"),
    ("search.query_current", "sqc", "searchQueryCurrent", 'n', "current query phase ops"),
    ("search.query_time", "sqti", "searchQueryTime", 't', "time spent in query phase"),
    ("search.query_total", "sqto", "searchQueryTotal", 'n', "total query phase ops"),
    ("search.concurrent_query_current", "scqc", "searchConcurrentQueryCurrent", 'n', "current concurrent query phase ops"),
    ("search.concurrent_query_time", "scqti", "searchConcurrentQueryTime", 't', "time spent in concurrent query phase"),
    ("search.concurrent_query_total", "scqto", "searchConcurrentQueryTotal", 'n', "total query phase ops"),
    ("search.concurrent_avg_slice_count", "casc", "searchConcurrentAvgSliceCount", 'n', "average query concurrency"),
    ("search.scroll_current", "scc", "searchScrollCurrent", 'n', "open scroll contexts"),
    ("search.scroll_time", "scti", "searchScrollTime", 't', "time scroll contexts held open"),
    ("search.scroll_total", "scto", "searchScrollTotal", 'n', "completed scroll contexts"),
    ("search.point_in_time_current", "scc", "searchPointInTimeCurrent", 'n', "open point in time contexts"),
    ("search.point_in_time_time", "scti", "searchPointInTimeTime", 't', "time point in time contexts held open"),
    ("search.point_in_time_total", "scto", "searchPointInTimeTotal", 'n', "completed point in time contexts"),
    ("segments.count", "sc", "segmentsCount", 'n', "number of segments"),
    ("segments.memory", "sm", "segmentsMemory", 'b', "memory used by segments"),
    ("segments.index_writer_memory", "siwm", "segmentsIndexWriterMemory", 'b', "memory used by index writer"),
    ("segments.version_map_memory", "svmm", "segmentsVersionMapMemory", 'b', "memory used by version map"),
    ("segments.fixed_bitset_memory", "sfbm", "fixedBitsetMemory", 'b', "memory used by fixed bit sets for nested object field types and type filters for types referred in _parent fields"),
    ("warmer.current", "wc", "warmerCurrent", 'n', "current warmer ops"),
    ("warmer.total", "wto", "warmerTotal", 'n', "total warmer ops"),
    ("warmer.total_time", "wtt", "warmerTotalTime", 't', "time spent in warmers"),
    ("suggest.current", "suc", "suggestCurrent", 'n', "number of current suggest ops"),
    ("suggest.time", "suti", "suggestTime", 't', "time spend in suggest"),
    ("suggest.total", "suto", "suggestTotal", 'n', "number of suggest ops"),
    ("memory.total", "tm", "memoryTotal", 'b', "total used memory"),
];

pub use crate::units::iso_millis;

fn indices_table(rows: Vec<IndexRow>) -> Table {
    let mut cols: Vec<(String, String)> = [
        ("health", "alias:h;desc:current health status"),
        ("status", "alias:s;desc:open/close status"),
        ("index", "alias:i,idx;desc:index name"),
        ("uuid", "alias:id,uuid;desc:index uuid"),
        ("pri", "alias:p,shards.primary,shardsPrimary;text-align:right;desc:number of primary shards"),
        ("rep", "alias:r,shards.replica,shardsReplica;text-align:right;desc:number of replica shards"),
        ("docs.count", "alias:dc,docsCount;text-align:right;desc:available docs"),
        ("docs.deleted", "alias:dd,docsDeleted;text-align:right;desc:deleted docs"),
        ("creation.date", "alias:cd;default:false;desc:index creation date (millisecond value)"),
        ("creation.date.string", "alias:cds;default:false;desc:index creation date (as string)"),
        ("store.size", "sibling:pri;alias:ss,storeSize;text-align:right;desc:store size of primaries & replicas"),
        ("pri.store.size", "text-align:right;desc:store size of primaries"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    for (name, short, long, _, desc) in STATS {
        cols.push((
            name.to_string(),
            format!("sibling:pri;alias:{short},{long};default:false;text-align:right;desc:{desc}"),
        ));
        cols.push((format!("pri.{name}"), format!("default:false;text-align:right;desc:{desc}")));
    }
    cols.push((
        "search.throttled".into(),
        "alias:sth;default:false;desc:indicates if the index is search throttled".into(),
    ));
    cols.push(("system".into(), "default:false;desc:indicates if the index is a system index".into()));
    cols.push(("system.description".into(), "default:false;desc:description of the system index".into()));
    let refs: Vec<(&str, &str)> = cols.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let mut t = Table::with_columns(&refs);
    for r in rows {
        let open = r.stats.is_some();
        let s = r.stats.unwrap_or_default();
        let stat = |v: u64| if open { Cell::Int(v as i64) } else { Cell::Null };
        let bytes = |v: u64| if open { Cell::Bytes(v) } else { Cell::Null };
        let mut row: Vec<Cell> = vec![
            r.health.name().into(),
            r.state.name().into(),
            r.name.clone().into(),
            r.uuid.clone().into(),
            Cell::Int(i64::from(r.shards)),
            Cell::Int(i64::from(r.replicas)),
            stat(s.docs),
            stat(s.deleted),
            Cell::Int(r.creation_date),
            iso_millis(r.creation_date).into(),
            bytes(s.store_bytes),
            bytes(s.pri_store_bytes),
        ];
        let metrics = crate::action::common_stats::METRICS;
        let detail = crate::action::common_stats::Detail::default();
        let all = crate::action::common_stats::sections(&s.all, metrics, &detail);
        let pri = crate::action::common_stats::sections(&s.pri_all, metrics, &detail);
        for (name, _, _, unit, _) in STATS {
            for v in [&all, &pri].map(|x| crate::action::common_stats::cat_value(x, name)) {
                row.push(match unit {
                    'b' => bytes(v),
                    't' if open => Cell::Millis(v),
                    _ => stat(v),
                });
            }
        }
        row.push("false".into());
        let system = crate::cluster::system_indices::description(&r.name);
        row.push(system.is_some().to_string().into());
        row.push(system.map_or(Cell::Null, |d| d.to_string().into()));
        t.rows.push(row);
    }
    t
}

fn cat_indices(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let default = IndicesOptions {
        ignore_unavailable: false,
        allow_no_indices: true,
        expand: ExpandWildcards { open: true, closed: true, hidden: false },
        forbid_closed: false,
    };
    let system = req.bool_param("system", false)?;
    // `system=true` lists system indices, which are hidden: wildcards then expand to all
    // states unless `expand_wildcards` says otherwise.
    let default = if system {
        IndicesOptions { expand: ExpandWildcards { open: true, closed: true, hidden: true }, ..default }
    } else {
        default
    };
    let o = indices_options(req, default)?;
    let mut rows = cat_indices::rows(&node.cluster, &index_expr(req), o, req.param("health"))?;
    if system {
        rows.retain(|r| crate::cluster::system_indices::description(&r.name).is_some());
    }
    indices_table(rows).respond(req)
}

fn cat_templates(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let mut t = Table::with_columns(&[
        ("name", "alias:n;desc:template name"),
        ("index_patterns", "alias:t;desc:template index patterns"),
        ("order", "alias:o,p;desc:template application order/priority number"),
        ("version", "alias:v;desc:version"),
        ("composed_of", "alias:c;desc:component templates comprising index template"),
    ]);
    for row in template_api::cat_rows(&node.cluster.metadata(), req.path_param("name")) {
        let opt = |v: Option<i64>| v.map_or(Cell::Null, Cell::Int);
        t.rows.push(vec![
            row.name.into(),
            format!("[{}]", row.patterns.join(", ")).into(),
            opt(row.order),
            opt(row.version),
            row.composed_of.map_or(Cell::Str(String::new()), |c| Cell::Str(format!("[{}]", c.join(", ")))),
        ]);
    }
    t.respond(req)
}

const INDICES_P: &[&str] = &[
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
    "health",
    "pri",
    "expand_wildcards",
    "include_unloaded_segments",
    "system",
];
const TEMPLATES_P: &[&str] = &["format", "h", "help", "s", "v", "local", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    use Method::*;
    r.add(&[Get], "/_cat", "cat:list", Pool::Management, &[], cat_list);
    for p in ["/_cat/indices", "/_cat/indices/{index}"] {
        r.add(&[Get], p, "cat:indices", Pool::Management, INDICES_P, cat_indices);
    }
    for p in ["/_cat/templates", "/_cat/templates/{name}"] {
        r.add(&[Get], p, "cat:templates", Pool::Management, TEMPLATES_P, cat_templates);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(1_706_702_400_123), "2024-01-31T12:00:00.123Z");
        assert_eq!(iso_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
