//! `GET /_nodes[/{node_id}]/usage[/{metric}]`: how often each REST handler ran on each node
//! since it started (`rest_actions`, counted by the router once a request's parameters passed,
//! as OpenSearch's `BaseRestHandler` counts), asked of each node
//! (`cluster:monitor/nodes/usage[n]`). Handlers are named by Fathom's route names.
//! OpenSearch's `aggregations` usage (per aggregation and values source type) is not counted:
//! asking for it by name is refused rather than answered empty; `_all` is every metric counted.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::node_stats_request::unrecognized;
use super::nodes_fanout;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// The node-level action answering with this node's usage.
pub const ACTION_NODE_USAGE: &str = "cluster:monitor/nodes/usage[n]";

/// OpenSearch's usage metrics.
const METRICS: &[&str] = &["_all", "rest_actions", "aggregations"];

/// The REST handler counters of one node.
#[derive(Debug)]
pub struct RestUsage {
    /// Epoch millis the counting started (the node's start).
    since: i64,
    counts: Mutex<BTreeMap<&'static str, u64>>,
}

impl Default for RestUsage {
    fn default() -> Self {
        RestUsage { since: crate::clock::now_millis(), counts: Mutex::new(BTreeMap::new()) }
    }
}

impl RestUsage {
    /// One more request served by `handler`.
    pub fn count(&self, handler: &'static str) {
        *self.counts.lock().unwrap_or_else(|e| e.into_inner()).entry(handler).or_insert(0) += 1;
    }

    /// This node's usage body for `metrics`.
    pub fn local(&self, metrics: &[String]) -> Value {
        let mut m = Map::new();
        m.insert("timestamp".into(), json!(crate::clock::now_millis()));
        m.insert("since".into(), json!(self.since));
        if metrics.iter().any(|x| x == "rest_actions") {
            let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
            let r: Map<String, Value> = counts.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
            m.insert("rest_actions".into(), Value::Object(r));
        }
        Value::Object(m)
    }
}

/// The metrics of a request to `path` (`metric` defaults to `_all`).
pub fn parse_metrics(path: &str, metric: Option<&str>) -> OsResult<Vec<String>> {
    let asked: BTreeSet<&str> = metric.unwrap_or("_all").split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let bad: BTreeSet<&str> = asked.iter().copied().filter(|m| !METRICS.contains(m)).collect();
    if !bad.is_empty() {
        return Err(OsError::illegal(unrecognized(path, &bad, METRICS, "metric")));
    }
    if asked.contains("_all") {
        if asked.len() > 1 {
            return Err(OsError::illegal(format!(
                "request [{path}] contains _all and individual metrics [{}]",
                metric.unwrap_or_default()
            )));
        }
        return Ok(vec!["rest_actions".into()]);
    }
    if asked.contains("aggregations") {
        return Err(OsError::illegal(format!(
            "request [{path}] asks for metric [aggregations], which Fathom does not measure"
        )));
    }
    Ok(asked.into_iter().map(str::to_string).collect())
}

/// The whole response for the nodes `filters` select.
pub fn usage(cs: &ClusterService, usage: &RestUsage, filters: &[&str], metrics: &[String], timeout: Duration) -> Value {
    let members = nodes_fanout::members(cs);
    let manager = nodes_fanout::cluster_manager(cs);
    let ids = nodes_fanout::resolve_nodes(&members, &cs.node.node_id, manager.as_deref(), filters);
    let local = || Ok(usage.local(metrics));
    let g = nodes_fanout::fan_out(cs, &ids, ACTION_NODE_USAGE, &json!({"metrics": metrics}), timeout, &local);
    json!({"_nodes": g.header(), "cluster_name": cs.node.cluster_name, "nodes": g.nodes_object()})
}

/// This node's answer to [`ACTION_NODE_USAGE`].
pub fn handle(usage: &RestUsage, payload: &[u8]) -> OsResult<Vec<u8>> {
    let v: Value = serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("bad usage request: {e}")))?;
    let metrics: Vec<String> = v["metrics"]
        .as_array()
        .map(|a| a.iter().filter_map(|m| m.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    serde_json::to_vec(&usage.local(&metrics)).map_err(|e| OsError::internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_handler() {
        let u = RestUsage::default();
        u.count("cat:health");
        u.count("cat:health");
        u.count("search");
        let v = u.local(&["rest_actions".into()]);
        assert_eq!(v["rest_actions"], json!({"cat:health": 2, "search": 1}));
        assert!(v["since"].as_i64().unwrap() <= v["timestamp"].as_i64().unwrap());
        assert!(u.local(&[]).get("rest_actions").is_none());
    }

    #[test]
    fn metrics_are_checked() {
        let p = "/_nodes/usage";
        assert_eq!(parse_metrics(p, None).unwrap(), ["rest_actions"]);
        assert_eq!(parse_metrics(p, Some("rest_actions")).unwrap(), ["rest_actions"]);
        let e = parse_metrics(p, Some("rest_action")).unwrap_err();
        assert_eq!(
            e.reason,
            "request [/_nodes/usage] contains unrecognized metric: [rest_action] -> did you mean [rest_actions]?"
        );
        assert!(parse_metrics(p, Some("_all,rest_actions"))
            .unwrap_err()
            .reason
            .contains("contains _all and individual metrics"));
        assert!(parse_metrics(p, Some("aggregations")).unwrap_err().reason.contains("which Fathom does not measure"));
    }
}
