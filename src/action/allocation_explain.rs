//! `GET|POST /_cluster/allocation/explain`: why a shard copy is where it is, or why it is not
//! assigned (the decision itself is `cluster::allocation::explain`). With `include_disk_info`
//! the answer carries `cluster_info`: this node's disk usage (`statvfs` of `path.data`) and the
//! sizes of the copies it holds; other nodes' disks are not gathered yet, so they are absent
//! rather than invented.

use serde_json::{json, Map, Value};

use crate::cluster::allocation::{explain as decide, ExplainRequest};
use crate::cluster::ClusterService;
use crate::engine::store::disk;
use crate::error::{ErrorKind, OsError, OsResult};

/// Parses the body (`index`, `shard`, `primary`, `current_node`), as OpenSearch's
/// `ClusterAllocationExplainRequest.parse`.
pub fn parse(body: &Value, include_yes_decisions: bool, include_disk_info: bool) -> OsResult<ExplainRequest> {
    let mut r = ExplainRequest {
        index: None,
        shard: None,
        primary: None,
        current_node: None,
        include_yes_decisions,
        include_disk_info,
    };
    let Some(m) = body.as_object() else {
        if body.is_null() {
            return Ok(r);
        }
        return Err(OsError::new(ErrorKind::Parse, "request body must be an object"));
    };
    for (k, v) in m {
        let bad =
            || OsError::new(ErrorKind::Parse, format!("[cluster/allocation/explain] failed to parse field [{k}]"));
        match k.as_str() {
            "index" => r.index = Some(v.as_str().ok_or_else(bad)?.to_string()),
            "shard" => {
                let n = v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).ok_or_else(bad)?;
                r.shard = Some(u32::try_from(n).map_err(|_| bad())?);
            }
            "primary" => {
                r.primary = Some(v.as_bool().or_else(|| v.as_str().and_then(|s| s.parse().ok())).ok_or_else(bad)?)
            }
            "current_node" => r.current_node = Some(v.as_str().ok_or_else(bad)?.to_string()),
            other => {
                return Err(OsError::new(
                    ErrorKind::XContentParse,
                    format!("[cluster/allocation/explain] unknown field [{other}]"),
                ))
            }
        }
    }
    if r.index.is_some() || r.shard.is_some() || r.primary.is_some() {
        let mut missing = Vec::new();
        if r.index.is_none() {
            missing.push("index must be specified");
        }
        if r.shard.is_none() {
            missing.push("shard must be specified");
        }
        if r.primary.is_none() {
            missing.push("primary must be specified");
        }
        if !missing.is_empty() {
            return Err(OsError::validation(&missing.iter().map(|s| s.to_string()).collect::<Vec<_>>()));
        }
    }
    Ok(r)
}

/// What this node knows of disk usage and copy sizes (OpenSearch's `ClusterInfo`).
fn cluster_info(cs: &ClusterService) -> Value {
    let mut nodes = Map::new();
    let path = cs.data_path();
    if let Ok(u) = disk::usage(&path) {
        let used = u.total.saturating_sub(u.available);
        let pct = |x: u64| if u.total == 0 { 0.0 } else { 100.0 * x as f64 / u.total as f64 };
        let usage = json!({
            "path": path.display().to_string(),
            "total_bytes": u.total,
            "used_bytes": used,
            "free_bytes": u.available,
            "free_disk_percent": pct(u.available),
            "used_disk_percent": pct(used),
        });
        nodes.insert(
            cs.node.node_id.clone(),
            json!({"node_name": cs.node.node_name, "least_available": usage, "most_available": usage}),
        );
    }
    let mut sizes = Map::new();
    for svc in cs.open_indices() {
        for s in svc.shards() {
            let bytes: u64 = s.engine.writer().segment_stats().iter().map(|x| x.size_bytes).sum();
            let table = cs.state();
            let primary = table
                .routing
                .shard(&svc.name, s.id)
                .and_then(|t| t.copy_on(&cs.node.node_id))
                .is_some_and(|c| c.primary);
            sizes.insert(format!("[{}][{}][{}]_bytes", svc.name, s.id, if primary { "p" } else { "r" }), json!(bytes));
        }
    }
    json!({"nodes": nodes, "shard_sizes": sizes, "shard_paths": {}, "reserved_sizes": []})
}

/// The explanation.
pub fn explain(cs: &ClusterService, req: &ExplainRequest) -> OsResult<Value> {
    let st = cs.state();
    let nodes = crate::cluster::applier::alloc_nodes(&st);
    let info = req.include_disk_info.then(|| cluster_info(cs));
    decide(
        &st.routing,
        &st.metadata,
        &nodes,
        &cs.cluster_settings(&st.metadata),
        req,
        info.as_ref(),
        crate::clock::now_millis(),
    )
}
