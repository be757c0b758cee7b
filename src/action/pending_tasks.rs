//! `_cluster/pending_tasks`: the cluster-state updates submitted and not yet applied. Fathom has
//! no single queue on the cluster manager (each node proposes its own updates to the
//! coordination, see `cluster::pending`), so the cluster's pending updates are every node's:
//! asked of each node (`cluster:monitor/pending_tasks[n]`), or of this node alone with `local`.

use serde_json::{json, Value};

use super::nodes_fanout;
use crate::cluster::ClusterService;
use crate::error::{OsError, OsResult};

/// The node-level action answering with this node's pending updates.
pub const ACTION_NODE_PENDING: &str = "cluster:monitor/pending_tasks[n]";

/// One pending update as `_cluster/pending_tasks` prints it.
fn task_json(node: &str, t: &crate::cluster::pending::PendingTask) -> Value {
    let millis = t.time_in_queue.as_millis() as u64;
    json!({
        "insert_order": t.insert_order,
        "priority": t.priority,
        "source": t.source,
        "executing": t.executing,
        "time_in_queue_millis": millis,
        "time_in_queue": crate::units::human_millis(millis),
        "node": node,
        "queued_at": t.queued_at_millis,
    })
}

/// This node's pending updates.
pub fn local(cs: &ClusterService) -> Vec<Value> {
    cs.pending.list().iter().map(|t| task_json(&cs.node.node_id, t)).collect()
}

/// The pending updates of every node (this node's alone when `local`), oldest first. A node
/// that does not answer contributes none.
pub fn gather(cs: &ClusterService, local_only: bool) -> Vec<Value> {
    if local_only {
        return local(cs);
    }
    let ids: Vec<String> = nodes_fanout::members(cs).into_iter().map(|m| m.node_id).collect();
    let here = || Ok(json!(local(cs)));
    let g = nodes_fanout::fan_out(cs, &ids, ACTION_NODE_PENDING, &json!({}), nodes_fanout::DEFAULT_TIMEOUT, &here);
    let mut all: Vec<Value> =
        g.answers.into_iter().flat_map(|(_, v)| v.as_array().cloned().unwrap_or_default()).collect();
    all.sort_by_key(|t| t["queued_at"].as_i64().unwrap_or(0));
    all
}

/// The response body: OpenSearch's fields of each task (the node and submission time used to
/// merge the nodes' lists are left out).
pub fn response(tasks: &[Value]) -> Value {
    let tasks: Vec<Value> = tasks
        .iter()
        .map(|t| {
            let mut t = t.clone();
            if let Some(o) = t.as_object_mut() {
                o.remove("node");
                o.remove("queued_at");
            }
            t
        })
        .collect();
    json!({ "tasks": tasks })
}

/// This node's answer to [`ACTION_NODE_PENDING`].
pub fn handle(cs: &ClusterService) -> OsResult<Vec<u8>> {
    serde_json::to_vec(&local(cs)).map_err(|e| OsError::internal(format!("pending tasks: {e}")))
}
