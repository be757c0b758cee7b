//! The metrics of a `_nodes/stats` request (`{metric}` and `{index_metric}`), checked as
//! OpenSearch's `RestNodesStatsAction` checks them, with its messages; metrics OpenSearch knows
//! but Fathom does not measure are refused by name rather than answered empty.

use std::collections::BTreeSet;

use crate::error::{OsError, OsResult};

/// The sections this node measures, in OpenSearch's order.
pub const METRICS: &[&str] = &[
    "indices",
    "os",
    "process",
    "jvm",
    "thread_pool",
    "fs",
    "transport",
    "http",
    "breaker",
    "script",
    "discovery",
    "ingest",
    "adaptive_selection",
    "script_cache",
    "indexing_pressure",
    "search_backpressure",
];

/// OpenSearch's other `_nodes/stats` metrics: subsystems Fathom does not have.
const NOT_MEASURED: &[&str] = &[
    "shard_indexing_pressure",
    "cluster_manager_throttling",
    "weighted_routing",
    "file_cache",
    "task_cancellation",
    "search_pipeline",
    "resource_usage_stats",
    "segment_replication_backpressure",
    "repositories",
    "admission_control",
    "caches",
    "remote_store",
];

/// The `indices` sub-sections this node measures (every `CommonStatsFlags.Flag`).
pub const INDEX_METRICS: &[&str] = super::common_stats::METRICS;

/// What a stats request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsRequest {
    pub metrics: Vec<String>,
    /// The `indices` sub-sections (`None`: all of them).
    pub index_metrics: Option<Vec<String>>,
    /// `level` of the `indices` section: `node` (default), `indices` or `shards`.
    pub level: String,
    /// `groups`: the search stats groups shown.
    pub groups: Option<Vec<String>>,
    /// `include_segment_file_sizes`.
    pub file_sizes: bool,
    /// `fielddata_fields` (or `fields`): the fields whose fielddata is listed.
    pub fielddata_fields: Option<Vec<String>>,
}

impl StatsRequest {
    /// A request for `metrics` and `index_metrics` with the other options at their defaults.
    pub fn of(metrics: Vec<String>, index_metrics: Option<Vec<String>>) -> StatsRequest {
        StatsRequest {
            metrics,
            index_metrics,
            level: "node".into(),
            groups: None,
            file_sizes: false,
            fielddata_fields: None,
        }
    }
}

/// `BaseRestHandler.unrecognized`: `request [path] contains unrecognized metric(s): [x] -> did
/// you mean [y]?, [z]`.
pub fn unrecognized(path: &str, invalid: &BTreeSet<&str>, candidates: &[&str], detail: &str) -> String {
    let mut msg =
        format!("request [{path}] contains unrecognized {detail}{}: ", if invalid.len() > 1 { "s" } else { "" });
    let parts: Vec<String> = invalid
        .iter()
        .map(|x| {
            let mut scored: Vec<(f64, &str)> =
                candidates.iter().map(|c| (crate::error::similarity(x, c), *c)).filter(|(s, _)| *s > 0.5).collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
            let keys: Vec<&str> = scored.into_iter().map(|(_, c)| c).collect();
            match keys.len() {
                0 => format!("[{x}]"),
                1 => format!("[{x}] -> did you mean [{}]?", keys[0]),
                _ => format!("[{x}] -> did you mean any of [{}]?", keys.join(", ")),
            }
        })
        .collect();
    msg.push_str(&parts.join(", "));
    msg
}

fn refuse(path: &str, what: &str, x: &str) -> OsError {
    OsError::illegal(format!("request [{path}] asks for {what} [{x}], which Fathom does not measure"))
}

/// Checks `metric` (default `_all`) and `index_metric` of a request to `path`.
pub fn parse(path: &str, metric: Option<&str>, index_metric: Option<&str>) -> OsResult<StatsRequest> {
    let all = || METRICS.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let metrics: BTreeSet<&str> = metric.unwrap_or("_all").split(',').filter(|x| !x.is_empty()).collect();
    if metrics.len() == 1 && metrics.contains("_all") {
        if let Some(im) = index_metric {
            return Err(OsError::illegal(format!(
                "request [{path}] contains index metrics [{im}] but all stats requested"
            )));
        }
        return Ok(StatsRequest::of(all(), None));
    }
    if metrics.contains("_all") {
        return Err(OsError::illegal(format!(
            "request [{path}] contains _all and individual metrics [{}]",
            metric.unwrap_or_default()
        )));
    }
    let known: Vec<&str> = METRICS.iter().chain(NOT_MEASURED).copied().collect();
    let invalid: BTreeSet<&str> = metrics.iter().copied().filter(|m| !known.contains(m)).collect();
    if !invalid.is_empty() {
        return Err(OsError::illegal(unrecognized(path, &invalid, &known, "metric")));
    }
    if let Some(x) = metrics.iter().find(|m| NOT_MEASURED.contains(m)) {
        return Err(refuse(path, "metric", x));
    }
    let index_metrics = if metrics.contains("indices") {
        let ims: BTreeSet<&str> = index_metric.unwrap_or("_all").split(',').filter(|x| !x.is_empty()).collect();
        if ims.len() == 1 && ims.contains("_all") {
            None
        } else {
            let known: Vec<&str> = INDEX_METRICS.to_vec();
            let invalid: BTreeSet<&str> = ims.iter().copied().filter(|m| !known.contains(m)).collect();
            if !invalid.is_empty() {
                return Err(OsError::illegal(unrecognized(path, &invalid, &known, "index metric")));
            }
            Some(ims.iter().map(|s| s.to_string()).collect())
        }
    } else if let Some(im) = index_metric {
        return Err(OsError::illegal(format!(
            "request [{path}] contains index metrics [{im}] but indices stats not requested"
        )));
    } else {
        None
    };
    // In OpenSearch's section order.
    let metrics = METRICS.iter().filter(|m| metrics.contains(*m)).map(|s| s.to_string()).collect();
    Ok(StatsRequest::of(metrics, index_metrics))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(m: Option<&str>, im: Option<&str>) -> String {
        parse("/p", m, im).unwrap_err().reason
    }

    #[test]
    fn metrics_parse_as_opensearch_does() {
        assert_eq!(parse("/p", None, None).unwrap().metrics.len(), METRICS.len());
        assert_eq!(parse("/p", Some("_all"), None).unwrap().metrics.len(), METRICS.len());
        assert_eq!(parse("/p", Some("fs,os"), None).unwrap().metrics, ["os", "fs"]);
        assert_eq!(err(Some("nope"), None), "request [/p] contains unrecognized metric: [nope]");
        assert_eq!(
            err(Some("osx,jvn"), None),
            "request [/p] contains unrecognized metrics: [jvn] -> did you mean [jvm]?, [osx] -> did you mean [os]?"
        );
        assert!(err(Some("file_cache"), None).contains("[file_cache], which Fathom does not measure"));
        assert_eq!(err(Some("_all,os"), None), "request [/p] contains _all and individual metrics [_all,os]");
        assert_eq!(err(None, Some("docs")), "request [/p] contains index metrics [docs] but all stats requested");
        assert_eq!(
            err(Some("os"), Some("docs")),
            "request [/p] contains index metrics [docs] but indices stats not requested"
        );
        let r = parse("/p", Some("indices"), Some("store,docs")).unwrap();
        assert_eq!(r.index_metrics.unwrap(), ["docs", "store"]);
        assert_eq!(parse("/p", Some("indices"), Some("_all")).unwrap().index_metrics, None);
        assert_eq!(
            err(Some("indices"), Some("stroe")),
            "request [/p] contains unrecognized index metric: [stroe] -> did you mean [store]?"
        );
        assert_eq!(parse("/p", Some("indices"), Some("merge")).unwrap().index_metrics.unwrap(), ["merge"]);
    }
}
