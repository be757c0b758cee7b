//! `_cat/pending_tasks` (`RestPendingClusterTasksAction`'s table) and
//! `_cluster/pending_tasks`: the cluster-state updates not yet applied (see
//! `action::pending_tasks`); `local` asks this node alone.

use serde_json::Value;

use super::{Cell, Table};
use crate::action::pending_tasks;
use crate::error::OsResult;
use crate::http::render::RestResponse;
use crate::http::request::{Method, RestRequest};
use crate::http::router::{Pool, Router};
use crate::node::Node;

/// The table of `tasks` (as [`pending_tasks::gather`] lists them).
pub fn table(tasks: &[Value]) -> Table {
    let mut t = Table::with_columns(&[
        ("insertOrder", "alias:o;text-align:right;desc:task insertion order"),
        ("timeInQueue", "alias:t;text-align:right;desc:how long task has been in queue"),
        ("priority", "alias:p;desc:task priority"),
        ("source", "alias:s;desc:task source"),
    ]);
    for task in tasks {
        t.rows.push(vec![
            Cell::Int(task["insert_order"].as_i64().unwrap_or(0)),
            Cell::Millis(task["time_in_queue_millis"].as_u64().unwrap_or(0)),
            task["priority"].as_str().unwrap_or_default().into(),
            task["source"].as_str().unwrap_or_default().into(),
        ]);
    }
    t
}

fn cat_pending(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let local = req.bool_param("local", false)?;
    table(&pending_tasks::gather(&node.cluster, local)).respond(req)
}

fn cluster_pending(node: &Node, req: &RestRequest) -> OsResult<RestResponse> {
    let local = req.bool_param("local", false)?;
    Ok(RestResponse::ok(pending_tasks::response(&pending_tasks::gather(&node.cluster, local))))
}

const CAT_P: &[&str] = &["format", "h", "help", "s", "v", "time", "local", "master_timeout", "cluster_manager_timeout"];
const P: &[&str] = &["local", "master_timeout", "cluster_manager_timeout"];

/// Registers the routes.
pub fn register(r: &mut Router) {
    r.add(&[Method::Get], "/_cat/pending_tasks", "cat:pending_tasks", Pool::Management, CAT_P, cat_pending);
    r.add(&[Method::Get], "/_cluster/pending_tasks", "cluster:monitor/task", Pool::Management, P, cluster_pending);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_and_body() {
        let tasks = vec![json!({"insert_order": 3, "priority": "URGENT", "source": "shard-started",
            "executing": true, "time_in_queue_millis": 12, "time_in_queue": "12ms", "node": "n", "queued_at": 1})];
        let t = table(&tasks);
        assert_eq!(t.rows[0], vec![Cell::Int(3), Cell::Millis(12), "URGENT".into(), "shard-started".into()]);
        let b = pending_tasks::response(&tasks);
        assert_eq!(b["tasks"][0]["source"], "shard-started");
        assert!(b["tasks"][0].get("node").is_none());
        assert_eq!(pending_tasks::response(&[]), json!({"tasks": []}));
    }
}
