//! `GET /_nodes[/{node_id}][/{metric}]`: what this node is (one node: the local one).

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

/// Whether `filter` (`_all`, `_local`, `_cluster_manager`, `_master`, ids, names, `*`) selects
/// this node.
fn selects(cs: &ClusterService, filter: &str) -> bool {
    filter.split(',').any(|f| {
        matches!(f, "_all" | "_local" | "_master" | "_cluster_manager" | "*")
            || f == cs.node.node_id
            || crate::cluster::resolve::glob(f, &cs.node.node_name)
            || f.split_once(':').is_some_and(|(k, v)| {
                cs.node.attributes.iter().any(|(ak, av)| ak == k && crate::cluster::resolve::glob(v, av))
                    || (k == "data" || k == "ingest" || k == "cluster_manager" || k == "master")
                        && (v == "true")
                            == cs.node.roles.iter().any(|r| r == k || (k == "master" && r == "cluster_manager"))
            })
    })
}

/// The nodes info body.
pub fn info(
    cs: &ClusterService,
    pools: &Pools,
    node_filter: Option<&str>,
    metrics: Option<&str>,
    settings: &Map<String, Value>,
    max_content_length: usize,
) -> OsResult<Value> {
    let metrics: Vec<&str> = match metrics {
        None => METRICS.to_vec(),
        Some(m) => {
            for x in m.split(',') {
                if x != "_all" && x != "_none" && !METRICS.contains(&x) {
                    return Err(OsError::illegal(format!("request [/_nodes] contains unrecognized metric: [{x}]")));
                }
            }
            if m.split(',').any(|x| x == "_all") {
                METRICS.to_vec()
            } else {
                m.split(',').filter(|x| *x != "_none").collect()
            }
        }
    };
    let mut nodes = Map::new();
    if node_filter.is_none_or(|f| selects(cs, f)) {
        let n = &cs.node;
        let mut roles = n.roles.clone();
        roles.sort();
        let attrs: Map<String, Value> = n.attributes.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let mut v = json!({
            "name": n.node_name,
            "transport_address": cs.transport_address(),
            "host": n.host,
            "ip": n.host,
            "version": "3.3.0",
            "distribution": "opensearch",
            "build_type": "tar",
            "build_hash": crate::action::cluster_info::BUILD_HASH,
            "total_indexing_buffer": 53_687_091,
            "roles": roles,
            "attributes": attrs,
        });
        let processors = std::thread::available_parallelism().map(|p| p.get()).unwrap_or(1);
        for m in &metrics {
            let val = match *m {
                "settings" => json!(crate::cluster::settings::nest(
                    &settings.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
                )),
                "os" => {
                    json!({"refresh_interval_in_millis": 1000, "name": std::env::consts::OS, "arch": std::env::consts::ARCH, "available_processors": processors, "allocated_processors": processors})
                }
                "process" => json!({"refresh_interval_in_millis": 1000, "id": std::process::id(), "mlockall": false}),
                "jvm" => json!({}),
                "thread_pool" => {
                    let mut tp = Map::new();
                    for p in pools.all() {
                        let s = p.stats();
                        tp.insert(p.name().to_string(), json!({"type": "fixed", "size": s.threads, "queue_size": -1}));
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
                "ingest" => json!({"processors": []}),
                "aggregations" => aggregations_info(),
                "search_pipelines" => json!({"request_processors": [], "response_processors": []}),
                "indices" => json!({}),
                _ => continue,
            };
            v[*m] = val;
        }
        nodes.insert(n.node_id.clone(), v);
    }
    let count = nodes.len();
    Ok(
        json!({"_nodes": {"total": count, "successful": count, "failed": 0}, "cluster_name": cs.node.cluster_name, "nodes": nodes}),
    )
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
