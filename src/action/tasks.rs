//! `_tasks`: list, get and cancel the tasks of the cluster's nodes. The coordinating request is
//! a task itself; it asks every selected node (`cluster:monitor/tasks/lists[n]`,
//! `cluster:admin/tasks/cancel[n]`) with its own id as the parent, so each node's child task
//! points at it. Cancelling a task bans its id as a parent on every other node
//! (`internal:admin/tasks/ban`), which cancels its children there, running or still to come.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::nodes_fanout::{self, Gathered};
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::tasks::{info, Filter, TaskId, TaskManager, TaskSpec};

pub const ACTION_LIST: &str = "cluster:monitor/tasks/lists";
pub const ACTION_LIST_NODE: &str = "cluster:monitor/tasks/lists[n]";
pub const ACTION_CANCEL: &str = "cluster:admin/tasks/cancel";
pub const ACTION_CANCEL_NODE: &str = "cluster:admin/tasks/cancel[n]";
pub const ACTION_BAN: &str = "internal:admin/tasks/ban";

/// A list or cancel request over the cluster.
#[derive(Debug, Clone, Default)]
pub struct TasksRequest {
    pub actions: Vec<String>,
    pub parent: Option<TaskId>,
    /// One task (`/_tasks/{id}/_cancel`).
    pub task: Option<TaskId>,
    pub nodes: Vec<String>,
    pub detailed: bool,
    pub wait_for_completion: bool,
    pub timeout: Duration,
    pub reason: String,
}

impl TasksRequest {
    fn payload(&self, coordinating: Option<&TaskId>) -> Value {
        let headers: Map<String, Value> = crate::tasks::current()
            .map(|t| t.headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
            .unwrap_or_default();
        json!({
            "actions": self.actions,
            "parent_task_id": self.parent.as_ref().map(ToString::to_string),
            "id": self.task.as_ref().map(|t| t.id),
            "detailed": self.detailed,
            "wait_for_completion": self.wait_for_completion,
            "timeout_millis": self.timeout.as_millis() as u64,
            "reason": self.reason,
            "coordinating": coordinating.map(ToString::to_string),
            "headers": headers,
        })
    }
}

/// The node request, read back.
struct NodeRequest {
    filter: Filter,
    detailed: bool,
    wait: bool,
    timeout: Duration,
    reason: String,
    coordinating: Option<TaskId>,
    headers: Vec<(String, String)>,
}

fn parse_node_request(payload: &[u8]) -> OsResult<NodeRequest> {
    let v: Value =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("unreadable tasks request: {e}")))?;
    let strs = |k: &str| -> Vec<String> {
        v[k].as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default()
    };
    let parent = v["parent_task_id"].as_str().map(TaskId::parse).transpose()?;
    let coordinating = v["coordinating"].as_str().map(TaskId::parse).transpose()?;
    let headers = v["headers"]
        .as_object()
        .map(|m| m.iter().filter_map(|(k, x)| x.as_str().map(|s| (k.clone(), s.to_string()))).collect())
        .unwrap_or_default();
    Ok(NodeRequest {
        filter: Filter { actions: strs("actions"), parent, id: v["id"].as_u64() },
        detailed: v["detailed"].as_bool().unwrap_or(false),
        wait: v["wait_for_completion"].as_bool().unwrap_or(false),
        timeout: Duration::from_millis(v["timeout_millis"].as_u64().unwrap_or(30_000)),
        reason: v["reason"].as_str().unwrap_or(crate::tasks::BY_USER_REQUEST).to_string(),
        coordinating,
        headers,
    })
}

/// `cluster:monitor/tasks/lists[n]` on this node: the infos of the tasks selected (after they
/// completed, with `wait_for_completion`), as `{"tasks": [...]}`.
pub fn handle_list(tm: &Arc<TaskManager>, payload: &[u8]) -> OsResult<Vec<u8>> {
    let r = parse_node_request(payload)?;
    let me = tm.register(TaskSpec {
        action: ACTION_LIST_NODE.into(),
        parent: r.coordinating.clone(),
        headers: r.headers.clone(),
        ..TaskSpec::default()
    });
    let _working = me.task.enter();
    let coordinating = r.coordinating.as_ref().filter(|c| c.node == tm.node_id()).map(|c| c.id);
    let tasks: Vec<_> = tm.list(&r.filter);
    let mut infos = Vec::new();
    for t in &tasks {
        infos.push(info::task_info(tm.node_id(), t, r.detailed));
    }
    if r.wait {
        // Waits for the tasks selected, never for this request itself.
        for t in tasks.iter().filter(|t| t.id != me.task.id && Some(t.id) != coordinating) {
            if t.parent.as_ref() != Some(&me.id()) {
                tm.wait_for(t.id, r.timeout)?;
            }
        }
    }
    serde_json::to_vec(&json!({ "tasks": infos })).map_err(|e| OsError::internal(e.to_string()))
}

/// `cluster:admin/tasks/cancel[n]` on this node: cancels the cancellable tasks selected (a task
/// asked by id that is not running or not cancellable is an error) and bans them as parents on
/// the other nodes through `ban`; answers the infos of the tasks cancelled.
pub fn handle_cancel(
    tm: &Arc<TaskManager>,
    payload: &[u8],
    ban_elsewhere: &dyn Fn(&TaskId, &str),
) -> OsResult<Vec<u8>> {
    let r = parse_node_request(payload)?;
    let me = tm.register(TaskSpec {
        action: ACTION_CANCEL_NODE.into(),
        parent: r.coordinating.clone(),
        headers: r.headers.clone(),
        ..TaskSpec::default()
    });
    let _working = me.task.enter();
    if let Some(id) = r.filter.id {
        let full = TaskId { node: tm.node_id().to_string(), id };
        match tm.get(id) {
            None => return Err(OsError::new(ErrorKind::ResourceNotFound, format!("task [{full}] is not found"))),
            Some(t) if !t.cancellable => {
                return Err(OsError::illegal(format!("task [{full}] doesn't support this operation")))
            }
            Some(_) => {}
        }
    }
    let cancelled = tm.cancel(&r.filter, &r.reason);
    for t in &cancelled {
        ban_elsewhere(&TaskId { node: tm.node_id().to_string(), id: t.id }, &r.reason);
    }
    if r.wait {
        for t in &cancelled {
            tm.wait_for(t.id, r.timeout)?;
        }
    }
    let infos: Vec<Value> = cancelled.iter().map(|t| info::task_info(tm.node_id(), t, r.detailed)).collect();
    serde_json::to_vec(&json!({ "tasks": infos })).map_err(|e| OsError::internal(e.to_string()))
}

/// `internal:admin/tasks/ban` on this node: `{"parent": "node:id", "reason": ...}`.
pub fn handle_ban(tm: &TaskManager, payload: &[u8]) -> OsResult<Vec<u8>> {
    let v: Value =
        serde_json::from_slice(payload).map_err(|e| OsError::illegal(format!("unreadable ban request: {e}")))?;
    let parent = TaskId::parse(v["parent"].as_str().unwrap_or_default())?;
    let n = tm.ban(&parent, v["reason"].as_str().unwrap_or(crate::tasks::BY_USER_REQUEST));
    Ok(serde_json::to_vec(&json!({ "cancelled_children": n })).unwrap_or_default())
}

/// Sends the ban of `parent` to every other node of the cluster (a node that does not answer
/// keeps running its children: they end with their request).
pub fn ban_on_other_nodes(cs: &ClusterService, parent: &TaskId, reason: &str) {
    let me = cs.node.node_id.clone();
    let others: Vec<String> = nodes_fanout::members(cs).into_iter().map(|m| m.node_id).filter(|id| *id != me).collect();
    if others.is_empty() {
        return;
    }
    let payload = json!({"parent": parent.to_string(), "reason": reason});
    let g = nodes_fanout::fan_out(cs, &others, ACTION_BAN, &payload, Duration::from_secs(10), &|| Ok(json!({})));
    for (m, e) in &g.failures {
        tracing::debug!(node = %m.node_id, error = %e, "ban of a cancelled task's children not delivered");
    }
}

/// The nodes a request goes to: the task's node, else the `nodes` filter.
fn targets(cs: &ClusterService, req: &TasksRequest) -> Vec<String> {
    let members = nodes_fanout::members(cs);
    if let Some(t) = &req.task {
        return vec![t.node.clone()];
    }
    let manager = nodes_fanout::cluster_manager(cs);
    let filters: Vec<&str> = req.nodes.iter().map(String::as_str).collect();
    nodes_fanout::resolve_nodes(&members, &cs.node.node_id, manager.as_deref(), &filters)
}

/// A list or cancel over the nodes: every task info gathered, and the nodes that failed.
pub fn gather(cs: &ClusterService, tm: &Arc<TaskManager>, req: &TasksRequest, cancel: bool) -> (Vec<Value>, Gathered) {
    let coordinating = crate::tasks::current().map(|t| TaskId { node: tm.node_id().to_string(), id: t.id });
    let payload = req.payload(coordinating.as_ref());
    let bytes = serde_json::to_vec(&payload).unwrap_or_default();
    let ids = targets(cs, req);
    let action = if cancel { ACTION_CANCEL_NODE } else { ACTION_LIST_NODE };
    let local = || -> OsResult<Value> {
        let out = if cancel {
            handle_cancel(tm, &bytes, &|p, r| ban_on_other_nodes(cs, p, r))?
        } else {
            handle_list(tm, &bytes)?
        };
        serde_json::from_slice(&out).map_err(|e| OsError::internal(e.to_string()))
    };
    let timeout = req.timeout + Duration::from_secs(if req.wait_for_completion { 5 } else { 0 });
    let mut g = nodes_fanout::fan_out(cs, &ids, action, &payload, timeout, &local);
    // A task id on a node that is not in the cluster: OpenSearch's `no_such_node_exception`.
    if let Some(t) = &req.task {
        if g.answers.is_empty() && g.failures.is_empty() {
            let m = crate::cluster::coordination_view::MemberView { node_id: t.node.clone(), ..Default::default() };
            g.failures.push((m, OsError::new(ErrorKind::NoSuchNode, format!("No such node [{}]", t.node))));
        }
    }
    let infos = g.answers.iter().flat_map(|(_, v)| v["tasks"].as_array().cloned().unwrap_or_default()).collect();
    (infos, g)
}

/// The list response in the `group_by` shape asked (`nodes`, `parents`, `none`).
pub fn list_response(cs: &ClusterService, infos: Vec<Value>, g: &Gathered, group_by: &str) -> Value {
    let mut out = Map::new();
    if !g.failures.is_empty() {
        let f: Vec<Value> = g.failures.iter().map(|(m, e)| nodes_fanout::failed_node(&m.node_id, e)).collect();
        out.insert("node_failures".into(), Value::Array(f));
    }
    match group_by {
        "parents" => {
            out.insert("tasks".into(), Value::Object(info::group_by_parents(&infos)));
        }
        "none" => {
            out.insert("tasks".into(), Value::Array(infos));
        }
        _ => {
            let members = nodes_fanout::members(cs);
            let mut nodes = Map::new();
            for m in &members {
                let mine: Map<String, Value> = infos
                    .iter()
                    .filter(|i| i["node"].as_str() == Some(m.node_id.as_str()))
                    .map(|i| (info::id_of(i), i.clone()))
                    .collect();
                if mine.is_empty() {
                    continue;
                }
                let host = nodes_fanout::host_of(m);
                let mut n = json!({
                    "name": m.name,
                    "transport_address": m.transport_address,
                    "host": host,
                    "ip": m.transport_address,
                    "roles": m.roles,
                });
                if !m.attributes.is_empty() {
                    let attrs: Map<String, Value> = m.attributes.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                    n["attributes"] = Value::Object(attrs);
                }
                n["tasks"] = Value::Object(mine);
                nodes.insert(m.node_id.clone(), n);
            }
            out.insert("nodes".into(), Value::Object(nodes));
        }
    }
    Value::Object(out)
}
