//! Task results: a task run in the background (`wait_for_completion=false`) stores what it
//! answered in the `.tasks` system index when it completes (OpenSearch's `TaskResultsService`),
//! and `GET /_tasks/{id}` reads a task there once it no longer runs.
//!
//! A stored result is the document `{"completed": true, "task": TaskInfo, "response"|"error": ...}`
//! with the task id `node:id` as its `_id`; the index maps the task's identifying fields and
//! keeps the rest in `_source` only (`dynamic: false`), as OpenSearch's `task-index-mapping.json`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::documents::{self, GetRequest, IndexRequest, Refresh};
use super::tasks::{gather, TasksRequest};
use crate::cluster::ClusterService;
use crate::error::{ErrorKind, OsError, OsResult};
use crate::tasks::{info, TaskId, TaskManager, TaskSpec};
use crate::threadpool::ThreadPool;

/// The system index of task results.
pub const TASKS_INDEX: &str = ".tasks";

fn index_body() -> Value {
    json!({
        "settings": {"index.number_of_shards": 1, "index.auto_expand_replicas": "0-1", "index.hidden": true},
        "mappings": {
            "dynamic": false,
            "properties": {
                "completed": {"type": "boolean"},
                "task": {"properties": {
                    "action": {"type": "keyword"},
                    "cancellable": {"type": "boolean"},
                    "description": {"type": "text"},
                    "id": {"type": "long"},
                    "node": {"type": "keyword"},
                    "parent_task_id": {"type": "keyword"},
                    "running_time_in_nanos": {"type": "long"},
                    "start_time_in_millis": {"type": "long"},
                    "type": {"type": "keyword"},
                }},
            },
        },
    })
}

/// Stores the result of task `id` (its info and what it answered).
pub fn store(cs: &ClusterService, id: &TaskId, task: Value, outcome: &OsResult<Value>) -> OsResult<()> {
    if !cs.metadata().indices.contains_key(TASKS_INDEX) {
        match super::indices::create(cs, TASKS_INDEX, &index_body()) {
            Ok(_) => {}
            Err(e) if e.kind == ErrorKind::ResourceAlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    let mut doc = json!({"completed": true, "task": task});
    match outcome {
        Ok(v) => doc["response"] = v.clone(),
        Err(e) => doc["error"] = e.to_json(),
    }
    let source = serde_json::to_vec(&doc).map_err(|e| OsError::internal(e.to_string()))?;
    let req = IndexRequest {
        index: TASKS_INDEX.into(),
        id: Some(id.to_string()),
        source,
        refresh: Refresh::True,
        ..IndexRequest::default()
    };
    documents::index(cs, req).map(|_| ())
}

/// The stored result of task `id`, if there is one.
pub fn read(cs: &ClusterService, id: &TaskId) -> OsResult<Option<Value>> {
    if !cs.metadata().indices.contains_key(TASKS_INDEX) {
        return Ok(None);
    }
    let req = GetRequest { index: TASKS_INDEX.into(), id: id.to_string(), ..GetRequest::default() };
    match documents::get(cs, &req) {
        Ok((true, v)) => Ok(v.get("_source").cloned()),
        Ok((false, _)) => Ok(None),
        Err(e) if e.kind == ErrorKind::IndexNotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Runs `work` as task `action` on `pool` in the background and answers its id at once; the
/// task stores its result in `.tasks` before it ends (so a wait for its end finds it).
pub fn run_in_background(
    cs: &Arc<ClusterService>,
    tm: &Arc<TaskManager>,
    pool: &ThreadPool,
    action: &'static str,
    description: String,
    work: impl FnOnce() -> OsResult<Value> + Send + 'static,
) -> OsResult<TaskId> {
    let headers = crate::tasks::current().map(|t| t.headers.clone()).unwrap_or_default();
    let cancellable = crate::tasks::cancellable(action);
    let guard =
        tm.register(TaskSpec { action: action.into(), headers, description, cancellable, ..TaskSpec::default() });
    let id = guard.id();
    let cs = cs.clone();
    let node_id = tm.node_id().to_string();
    pool.execute(move || {
        let working = guard.task.enter();
        let outcome = work();
        let task = info::task_info(&node_id, &guard.task, true);
        drop(working);
        if let Err(e) = store(&cs, &guard.id(), task, &outcome) {
            tracing::warn!(task = %guard.id(), error = %e, "failed to store the task result");
        }
        drop(guard);
    })?;
    Ok(id)
}

/// `GET /_tasks/{id}`: the running task (`completed: false`), or after `wait_for_completion`
/// its stored result (else its last snapshot, `completed: true`), or the result stored after
/// it ended.
pub fn get_task(
    cs: &ClusterService,
    tm: &Arc<TaskManager>,
    id: &TaskId,
    wait: bool,
    timeout: Duration,
) -> OsResult<Value> {
    let member = super::nodes_fanout::members(cs).iter().any(|m| m.node_id == id.node);
    if member {
        let req = TasksRequest {
            task: Some(id.clone()),
            detailed: true,
            wait_for_completion: wait,
            timeout,
            ..TasksRequest::default()
        };
        let (infos, g) = gather(cs, tm, &req, false);
        if let Some((_, e)) = g.failures.into_iter().next() {
            return Err(e);
        }
        if let Some(task) = infos.into_iter().next() {
            if !wait {
                return Ok(json!({"completed": false, "task": task}));
            }
            return Ok(read(cs, id)?.unwrap_or_else(|| json!({"completed": true, "task": task})));
        }
    }
    match read(cs, id)? {
        Some(doc) => Ok(doc),
        None if member => Err(OsError::new(
            ErrorKind::ResourceNotFound,
            format!("task [{id}] isn't running and hasn't stored its results"),
        )),
        None => Err(OsError::new(
            ErrorKind::ResourceNotFound,
            format!(
                "task [{id}] belongs to the node [{}] which isn't part of the cluster and there is no record of the task",
                id.node
            ),
        )),
    }
}
