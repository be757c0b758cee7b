//! `GET /_nodes[/{node_id}][/{metric}]`: what each selected node is, as that node answers
//! (`cluster:monitor/nodes/info[n]`), gathered by the node asked.

use serde_json::{json, Map, Value};

use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};
use crate::threadpool::Pools;

/// The metrics `_nodes` knows.
pub const METRICS: &[&str] = &[
    "settings",
    "os",
    "process",
    "jvm",
    "thread_pool",
    "transport",
    "http",
    "plugins",
    "modules",
    "ingest",
    "aggregations",
    "indices",
    "search_pipelines",
];

/// The OpenSearch modules whose behaviour Fathom provides (`nodes.*.modules`).
const MODULES: &[(&str, &str, &str)] = &[
    (
        "ingest-common",
        "Module for ingest processors that do not require additional security permissions or have large dependencies and resources",
        "org.opensearch.ingest.common.IngestCommonModulePlugin",
    ),
    (
        "analysis-common",
        "Adds \"built in\" analyzers to OpenSearch.",
        "org.opensearch.analysis.common.CommonAnalysisModulePlugin",
    ),
    (
        "lang-painless",
        "An easy, safe and fast scripting language for OpenSearch",
        "org.opensearch.painless.PainlessModulePlugin",
    ),
];

fn module(name: &str, desc: &str, class: &str) -> Value {
    json!({
        "name": name, "version": "3.3.0", "opensearch_version": "3.3.0", "java_version": "21",
        "description": desc, "classname": class, "custom_foldername": "", "extended_plugins": [],
        "has_native_controller": false
    })
}

/// Whether a path segment is a metric list (else it names nodes).
pub fn is_metric_list(s: &str) -> bool {
    s.split(',').all(|m| m == "_all" || m == "_none" || METRICS.contains(&m))
}

/// The metrics of a request (`None`: all), with OpenSearch's error for an unknown one.
pub fn parse_metrics(metrics: Option<&str>) -> OsResult<Vec<String>> {
    Ok(match metrics {
        None => METRICS.iter().map(|m| m.to_string()).collect(),
        Some(m) => {
            for x in m.split(',') {
                if x != "_all" && x != "_none" && !METRICS.contains(&x) {
                    return Err(OsError::illegal(format!("request [/_nodes] contains unrecognized metric: [{x}]")));
                }
            }
            if m.split(',').any(|x| x == "_all") {
                METRICS.iter().map(|m| m.to_string()).collect()
            } else {
                m.split(',').filter(|x| *x != "_none").map(str::to_string).collect()
            }
        }
    })
}

/// What one node is, for `metrics` (this node's answer; others answer the same over
/// [`ACTION_NODE_INFO`]).
pub fn local_info(
    cs: &ClusterService,
    pools: &Pools,
    metrics: &[String],
    settings: &Map<String, Value>,
    max_content_length: usize,
) -> Value {
    let n = &cs.node;
    let mut v = Value::Object(super::node_stats::node_header(cs));
    v["version"] = json!("3.3.0");
    v["distribution"] = json!("opensearch");
    v["build_type"] = json!("tar");
    v["build_hash"] = json!(crate::action::cluster_info::BUILD_HASH);
    v["total_indexing_buffer_in_bytes"] = json!(TOTAL_INDEXING_BUFFER);
    // Keep OpenSearch's field order: identity, build, then the metrics.
    let processors = std::thread::available_parallelism().map(|p| p.get()).unwrap_or(1);
    for m in metrics {
        let val = match m.as_str() {
            "settings" => {
                json!(crate::cluster::settings::nest(&settings.iter().map(|(k, v)| (k.clone(), v.clone())).collect()))
            }
            "os" => {
                json!({"refresh_interval_in_millis": 1000, "name": std::env::consts::OS, "arch": std::env::consts::ARCH, "available_processors": processors, "allocated_processors": processors})
            }
            "process" => json!({"refresh_interval_in_millis": 1000, "id": std::process::id(), "mlockall": false}),
            "jvm" => json!({}),
            "thread_pool" => {
                let mut tp = Map::new();
                for p in pools.all() {
                    tp.insert(
                        p.name().to_string(),
                        json!({"type": "fixed", "size": p.size(), "queue_size": p.capacity()}),
                    );
                }
                Value::Object(tp)
            }
            "transport" => {
                json!({"bound_address": [cs.transport_address()], "publish_address": cs.transport_address(), "profiles": {}})
            }
            "http" => {
                json!({"bound_address": [n.http_address], "publish_address": n.http_address, "max_content_length_in_bytes": max_content_length})
            }
            "plugins" => json!([]),
            "modules" => Value::Array(MODULES.iter().map(|(a, b, c)| module(a, b, c)).collect()),
            "ingest" => json!({"processors": super::ingest::processors_info()}),
            "aggregations" => aggregations_info(),
            "search_pipelines" => json!({"request_processors": [], "response_processors": []}),
            "indices" => json!({}),
            _ => continue,
        };
        v[m.as_str()] = val;
    }
    v
}

/// The node-level action answering with this node's info.
pub const ACTION_NODE_INFO: &str = "cluster:monitor/nodes/info[n]";

/// The indexing buffer a node reports (`total_indexing_buffer`).
const TOTAL_INDEXING_BUFFER: u64 = 53_687_091;

/// This node's answer to [`ACTION_NODE_INFO`] (`{"metrics": [...]}`).
pub fn handle(
    cs: &ClusterService,
    pools: &Pools,
    settings: &Map<String, Value>,
    max_content_length: usize,
    payload: &[u8],
) -> OsResult<Vec<u8>> {
    let req: Value = serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("bad info request: {e}")))?;
    let metrics: Vec<String> = req["metrics"]
        .as_array()
        .map(|a| a.iter().filter_map(|m| m.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    Ok(serde_json::to_vec(&local_info(cs, pools, &metrics, settings, max_content_length)).unwrap_or_default())
}

/// A nodes info request.
#[derive(Debug, Clone, Default)]
pub struct InfoRequest<'a> {
    pub node_filter: Option<&'a str>,
    pub metrics: Option<&'a str>,
    pub timeout: Option<std::time::Duration>,
    /// `human`: also the readable `total_indexing_buffer`.
    pub human: bool,
}

/// The nodes info body: every selected node's answer, with the `_nodes` header.
pub fn info(
    cs: &ClusterService,
    pools: &Pools,
    req: &InfoRequest<'_>,
    settings: &Map<String, Value>,
    max_content_length: usize,
) -> OsResult<Value> {
    let metrics = parse_metrics(req.metrics)?;
    let g = gather(
        cs,
        pools,
        req.node_filter,
        &metrics,
        req.timeout.unwrap_or(super::nodes_fanout::DEFAULT_TIMEOUT),
        settings,
        max_content_length,
    );
    let mut nodes = g.nodes_object();
    if req.human {
        for (_, n) in nodes.as_object_mut().into_iter().flatten() {
            if let Some(b) = n["total_indexing_buffer_in_bytes"].as_u64() {
                n["total_indexing_buffer"] = json!(crate::units::human_bytes(b));
            }
        }
    }
    Ok(json!({"_nodes": g.header(), "cluster_name": cs.node.cluster_name, "nodes": nodes}))
}

/// Each node `node_filter` selects (all without one) asked for `metrics`.
pub fn gather(
    cs: &ClusterService,
    pools: &Pools,
    node_filter: Option<&str>,
    metrics: &[String],
    timeout: std::time::Duration,
    settings: &Map<String, Value>,
    max_content_length: usize,
) -> super::nodes_fanout::Gathered {
    let members = super::nodes_fanout::members(cs);
    let manager = super::nodes_fanout::cluster_manager(cs);
    let filters: Vec<&str> = node_filter.map(|f| f.split(',').filter(|x| !x.is_empty()).collect()).unwrap_or_default();
    let ids = super::nodes_fanout::resolve_nodes(&members, &cs.node.node_id, manager.as_deref(), &filters);
    let local = || Ok(local_info(cs, pools, metrics, settings, max_content_length));
    super::nodes_fanout::fan_out(cs, &ids, ACTION_NODE_INFO, &json!({"metrics": metrics}), timeout, &local)
}

/// The aggregations this node builds and the value types each reads (OpenSearch's
/// `AggregationInfo`: `other` for those without a values source).
fn aggregations_info() -> Value {
    const NUMERIC: &[&str] = &["boolean", "date", "numeric"];
    const ANY: &[&str] = &["boolean", "bytes", "date", "ip", "numeric"];
    const OTHER: &[&str] = &["other"];
    let table: &[(&str, &[&str])] = &[
        ("adjacency_matrix", OTHER),
        ("auto_date_histogram", &["boolean", "date", "numeric"]),
        ("avg", NUMERIC),
        ("cardinality", ANY),
        ("composite", OTHER),
        ("date_histogram", &["boolean", "date", "numeric", "range"]),
        ("date_range", &["boolean", "date", "numeric"]),
        ("diversified_sampler", ANY),
        ("extended_stats", NUMERIC),
        ("filter", OTHER),
        ("filters", OTHER),
        ("geo_bounds", &["geo_point"]),
        ("geo_centroid", &["geo_point"]),
        ("geo_distance", &["geo_point"]),
        ("geohash_grid", &["geo_point"]),
        ("geotile_grid", &["geo_point"]),
        ("global", OTHER),
        ("histogram", &["boolean", "date", "numeric", "range"]),
        ("ip_range", &["ip"]),
        ("max", NUMERIC),
        ("median_absolute_deviation", NUMERIC),
        ("min", NUMERIC),
        ("missing", ANY),
        ("multi_terms", OTHER),
        ("nested", OTHER),
        ("percentile_ranks", NUMERIC),
        ("percentiles", NUMERIC),
        ("range", NUMERIC),
        ("rare_terms", ANY),
        ("reverse_nested", OTHER),
        ("sampler", OTHER),
        ("scripted_metric", OTHER),
        ("significant_terms", ANY),
        ("significant_text", OTHER),
        ("stats", NUMERIC),
        ("sum", NUMERIC),
        ("terms", ANY),
        ("top_hits", OTHER),
        ("value_count", ANY),
        ("variable_width_histogram", NUMERIC),
        ("weighted_avg", OTHER),
    ];
    let mut m = serde_json::Map::new();
    for (name, types) in table {
        m.insert((*name).to_string(), json!({"types": types}));
    }
    Value::Object(m)
}
